"""``web/server.py`` on its own: the deadlines and bounds the docs state, the head deadline
re-armed after every answer, the connection bound to the connection, which addresses are
loopback, what ``run_server`` prints before it serves, and a port it cannot bind."""

from __future__ import annotations

import inspect
import io
import json
import logging
import re
import socket
import time
from pathlib import Path

import pytest
from web_helpers import LiveServer

from cardarena.cli.args import ServeArgs
from cardarena.envs.core import InvalidConfigError
from cardarena.web import server as web_server
from cardarena.web.app import create_app
from cardarena.web.guard import allowed_hosts
from cardarena.web.server import (
    HEAD_SECONDS,
    KEEP_ALIVE_SECONDS,
    MAX_CONNECTIONS,
    bind,
    exposure_line,
    is_loopback,
    run_server,
    show_web_log,
    uvicorn_config,
)
from cardarena.web.sessions import GameStore

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "web_api.md").read_text()
GET = b"GET /api/envs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def test_the_deadlines_and_bounds_are_the_documented_ones():
    promise = re.search(
        r"not complete (\d+) s after it opened .*? keep-alive connection after (\d+) s; past "
        r"([\d,]+) open connections a new one gets a JSON (\d+)",
        DOCS,
    )
    assert promise, "docs/web_api.md lost its connection promise"
    head, keep_alive, connections, status = promise.groups()
    assert (float(head), int(keep_alive)) == (HEAD_SECONDS, KEEP_ALIVE_SECONDS)
    assert (MAX_CONNECTIONS, status) == (int(connections.replace(",", "")), "503")
    assert uvicorn_config(create_app("random")).timeout_keep_alive == KEEP_ALIVE_SECONDS
    port = re.search(r"\| `--port` \| `(\d+)` \|", DOCS)
    assert port and ServeArgs.port == int(port[1])
    assert inspect.signature(run_server).parameters["port"].default == ServeArgs.port


def read_answer(sock: socket.socket) -> bytes:
    """One whole answer (head and Content-Length body) from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head.lower())[1])
    while len(body) < length:
        body += sock.recv(65536)
    return head


@pytest.fixture
def short_head_long_keep_alive(monkeypatch):
    """A live server whose head deadline (0.5 s) is far shorter than its keep-alive (60 s)."""
    monkeypatch.setattr(web_server, "HEAD_SECONDS", 0.5)
    monkeypatch.setattr(web_server, "KEEP_ALIVE_SECONDS", 60)
    with LiveServer(create_app("random", store=GameStore(5, 60))) as server:
        yield server


def test_the_head_deadline_is_armed_again_after_every_answer(short_head_long_keep_alive):
    port = short_head_long_keep_alive.port
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        for _ in range(2):  # a second request on the kept connection is served
            sock.sendall(GET)
            assert read_answer(sock).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        assert sock.recv(1) == b""  # then closed by the head deadline, not the keep-alive
        assert time.monotonic() - started < 20


def test_one_connection_past_the_bound_gets_the_json_503(monkeypatch):
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 3)
    server = LiveServer(create_app("random", store=GameStore(5, 60)))
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(3)]
    try:
        for sock in held:  # the bound itself is served
            sock.sendall(GET)
            assert read_answer(sock).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as extra:
            answer = b""
            while chunk := extra.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 Service Unavailable")
        assert "too many connections" in json.loads(body)["error"]
    finally:
        for sock in held:
            sock.close()
        server.stop()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("table.lan", False),
    ],
)
def test_loopback_is_the_loopback_names_and_addresses(host, loopback):
    assert is_loopback(host) is loopback
    assert (exposure_line(host, 8000, ("127.0.0.1",)) is None) is loopback


def test_the_exposure_line_brackets_ipv6_names():
    line = exposure_line("0.0.0.0", 8000, allowed_hosts("0.0.0.0", ["table.lan"]))
    assert "every network interface port 8000" in line
    assert "host names 127.0.0.1, localhost, [::1], table.lan (add" in line


def test_run_server_prints_its_address_tables_and_exposure_then_serves(
    monkeypatch, capsys, tmp_path
):
    import uvicorn

    deck = tmp_path / "years.csv"
    years = [1950, 1903, 1999, 1921, 1987, 1914, 1969, 1945, 1932, 1976, 1908, 1961]
    rows = [f"Event {i},red,{year}" for i, year in enumerate(years)]
    deck.write_text("name,colour,year\n" + "\n".join(rows) + "\n", encoding="utf-8")
    served: list[list[socket.socket]] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: served.append(sockets))
    # run_server hands the web log to stderr, which is pytest's capture here: leave it alone.
    monkeypatch.setattr(web_server, "show_web_log", lambda: None)
    run_server("0.0.0.0", 0, decks=[f"years={deck}"])
    lines = capsys.readouterr().out.splitlines()
    (sock,) = served[0]
    port = sock.getsockname()[1]
    sock.close()
    assert lines[0].startswith(f"cardarena web table on http://0.0.0.0:{port}/ (opponents: ")
    assert lines[1].startswith("serving table 'years' (")
    assert lines[2].startswith("note: listening on every network interface")
    assert len(lines) == 3


def test_a_port_that_cannot_be_bound_is_a_clear_error():
    first = bind("127.0.0.1", 0)
    try:
        assert first.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR)  # restarts at once
        first.listen()
        with pytest.raises(InvalidConfigError, match=r"cannot listen on 127\.0\.0\.1:\d+: "):
            bind("127.0.0.1", first.getsockname()[1])
    finally:
        first.close()


def test_the_web_log_and_uvicorns_go_to_stderr_once_and_not_to_the_root_logger():
    loggers = (web_server.log, logging.getLogger("uvicorn"))
    kept = [(list(each.handlers), each.level, each.propagate) for each in loggers]
    for each in loggers:
        each.handlers = []
    try:
        show_web_log()
        show_web_log()
        for each, level in zip(loggers, (logging.INFO, logging.WARNING), strict=True):
            assert len(each.handlers) == 1 and each.propagate is False
            assert each.level == level
    finally:
        for each, (handlers, level, propagate) in zip(loggers, kept, strict=True):
            each.handlers, each.level, each.propagate = handlers, level, propagate


class _CountedCloses(logging.StreamHandler):
    closes = 0

    def close(self) -> None:
        type(self).closes += 1
        super().close()


def test_serving_leaves_the_processs_own_log_handlers_alone():
    """uvicorn's default log setup (``dictConfig``) closes every handler in the process; one
    that closes its stream (absl's) took pytest's captured stderr with it. A program that
    embeds the table keeps its handlers."""
    theirs = logging.getLogger("an.embedding.program")
    handler = _CountedCloses(io.StringIO())
    theirs.addHandler(handler)
    try:
        uvicorn_config(create_app("random"))
        assert _CountedCloses.closes == 0 and theirs.handlers == [handler]
    finally:
        theirs.removeHandler(handler)
