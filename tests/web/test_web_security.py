"""What the web table promises a person who leaves it running (docs/web_api.md, "What the
server promises"), each tried as an attacker would: a request never makes the server touch a
file it names; only the server's own host names and page may use the API; every malformed
request gets the JSON error and one log line; a connection cannot be held open for nothing.
The cost bounds (a pool, a thinking budget, a departed client) are in test_web_cost.py."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from conftest import LOCAL
from helpers import FileWatch
from web_helpers import LiveServer, ServeProcess, ok, refused

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError
from cardarena.web import reading as web_reading
from cardarena.web import server as web_server
from cardarena.web.app import create_app
from cardarena.web.configs import read_served_tables
from cardarena.web.guard import allowed_hosts
from cardarena.web.server import exposure_line
from cardarena.web.sessions import GameStore

#: (env, key) of every config key that names a file.
FILE_KEYS = [(env, key) for env in sorted(ENVS) for key in ENVS[env].raw_env.file_config_keys]


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A CSV whose column names an answer must never quote."""
    path = tmp_path / "secret.csv"
    path.write_text("secret_col,api_key\nx,hunter2\n", encoding="utf-8")
    return path


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    """A small, valid Cardline deck file."""
    path = tmp_path / "years.csv"
    years = [1950, 1903, 1999, 1921, 1987, 1914, 1969, 1945, 1932, 1976, 1908, 1961]
    rows = [f"Event {i},{'red' if i % 2 else 'blue'},{year}" for i, year in enumerate(years)]
    path.write_text("name,colour,year\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


# --- a request never makes the server touch the file system ---------------------------------


@pytest.mark.parametrize(("env", "key"), FILE_KEYS)
def test_a_config_naming_a_file_is_refused_alike_whether_it_exists(client, store, env, key, secret):
    missing = secret.with_name("missing.csv")
    relative = "../" * 12 + str(secret).lstrip("/")
    answers = []
    for value in (str(secret), str(missing), relative, secret.as_uri()):
        with FileWatch(secret) as watch:
            response = client.post("/api/games", json={"env": env, "config": {key: value}})
        message = refused(response, 400, repr(key), "--deck NAME=PATH", "inline")
        assert "secret_col" not in message and "api_key" not in message
        assert not watch.events, f"the server opened {secret}: {watch.events}"
        answers.append(re.sub(r" is .*, which ", " is VALUE, which ", message))
    assert len(set(answers)) == 1, answers  # nothing tells whether the file is there
    assert len(store) == 0


def test_a_record_naming_a_deck_file_is_refused_by_the_replay_viewer(client, secret):
    from cardarena.evaluation.records import play_match

    record = play_match("cardline_v0", {"player_0": "random", "player_1": "random"}, seed=3)
    edited = json.loads(record.to_json())
    edited["config"] = {"deck": str(secret)}  # as `play --config deck=PATH --record` writes
    del edited["digest"]  # (a record may come without one)
    with FileWatch(secret) as watch:
        response = client.post("/api/replays", json={"record": json.dumps(edited)})
    message = refused(response, 400, "'deck'", "--deck NAME=PATH")
    assert "secret_col" not in message and not watch.events


def test_a_deck_served_by_name_is_read_once_at_start_and_played(deck):
    served = read_served_tables([f"years={deck}"])
    assert served["years"].fits == (("cardline_v0", "deck"),)
    from starlette.testclient import TestClient

    app = create_app("random", served=served)
    with TestClient(app, base_url=LOCAL) as client, FileWatch(deck) as watch:
        game = ok(
            client.post("/api/games", json={"env": "cardline_v0", "config": {"deck": "years"}})
        )
        assert game["config"] == {"deck": "years"}
        shown = json.dumps(game["view"]) + game["svg"]
        assert "Event " in shown  # cards of the served deck, not the Marvel deck's
        message = refused(
            client.post("/api/games", json={"env": "cardline_v0", "config": {"deck": "yrs"}}),
            400,
            "served here: years",
        )
        assert str(deck) not in message
        refused(
            client.post(
                "/api/games", json={"env": "beast_wars_v0", "config": {"characters": "years"}}
            ),
            400,
            "served here: none",
        )
    assert not watch.events  # read at start-up only


def test_a_served_deck_that_fits_no_game_stops_the_start(secret, tmp_path):
    with pytest.raises(InvalidConfigError, match="fits no game"):
        read_served_tables([f"bad={secret}"])
    with pytest.raises(InvalidConfigError, match="NAME=PATH"):
        read_served_tables(["nopath"])
    with pytest.raises(InvalidConfigError, match="cannot be read"):
        read_served_tables([f"gone={tmp_path / 'gone.csv'}"])


# --- only the page's own origin ----------------------------------------------------------------


def test_another_host_name_is_refused(client, store):
    for host in ("evil.example.com", "127.0.0.1.evil.example.com", "localhost:abc", "[::2]"):
        response = client.post("/api/games", json={"env": "promise_war_v0"}, headers={"host": host})
        refused(response, 400, "not served here", "--allowed-host")
        refused(client.get("/api/envs", headers={"host": host}), 400, "not served here")
    assert len(store) == 0
    for host in ("127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]:8000"):
        assert client.get("/api/envs", headers={"host": host}).status_code == 200, host


def test_allowed_hosts_are_loopback_the_bound_address_and_the_operators_names():
    assert allowed_hosts("127.0.0.1") == ("127.0.0.1", "localhost", "::1")
    assert allowed_hosts("0.0.0.0", ["Table.Lan"]) == ("127.0.0.1", "localhost", "::1", "table.lan")
    assert "192.168.1.5" in allowed_hosts("192.168.1.5")
    from starlette.testclient import TestClient

    app = create_app("random", hosts=allowed_hosts("0.0.0.0", ["table.lan"]))
    with TestClient(app, base_url="http://table.lan:8000") as client:
        assert client.get("/api/envs").status_code == 200
        refused(client.get("/api/envs", headers={"host": "other.lan"}), 400, "table.lan")


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example.com", "content-type": "text/plain"},
        {"origin": "http://evil.example.com", "content-type": "application/json"},
        {"origin": "null", "content-type": "text/plain"},
        {"origin": "http://127.0.0.1:9999"},  # another port is another origin
        {"origin": "https://127.0.0.1"},  # and another scheme
        {"sec-fetch-site": "cross-site", "content-type": "text/plain"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_a_state_changing_request_from_another_origin_is_refused(client, store, headers):
    body = json.dumps({"env": "promise_war_v0"}).encode()
    refused(client.post("/api/games", content=body, headers=headers), 403, "origin")
    refused(client.post("/api/replays", content=b"{}", headers=headers), 403)
    assert len(store) == 0


def test_the_pages_own_requests_and_clients_without_a_browser_are_served(client):
    body = json.dumps({"env": "promise_war_v0"}).encode()
    for headers in (
        {"origin": LOCAL, "sec-fetch-site": "same-origin"},
        {"origin": "http://127.0.0.1:80"},
        {"sec-fetch-site": "none"},
        {},  # curl, scripts
    ):
        response = client.post("/api/games", content=body, headers=headers)
        assert response.status_code == 200, (headers, response.text)
    answer = client.get("/api/envs", headers={"origin": "http://evil.example.com"})
    assert answer.status_code == 200
    assert not any(h.startswith("access-control-") for h in answer.headers)  # unreadable there


def test_listening_beyond_loopback_says_what_it_exposes():
    assert exposure_line("127.0.0.1", 8000, allowed_hosts("127.0.0.1")) is None
    assert exposure_line("::1", 8000, allowed_hosts("::1")) is None
    line = exposure_line("0.0.0.0", 8000, allowed_hosts("0.0.0.0", ["table.lan"]))
    assert line and "every network interface" in line and "table.lan" in line
    assert "--allowed-host" in line and "\n" not in line


def test_serve_on_every_interface_prints_one_line_about_it():
    server = ServeProcess("--host", "0.0.0.0", "--vs", "random", "--allowed-host", "table.lan")
    try:
        notes = [line for line in server.lines if "every network interface" in line]
        if not notes:  # printed right after the address line
            notes = [server.process.stdout.readline()]
        assert "every network interface" in notes[0] and "table.lan" in notes[0]
    finally:
        assert "Traceback" not in server.stop()


# --- malformed requests: the JSON error, one log line, no traceback -------------------------


def test_duplicate_keys_are_refused(client, store):
    body = b'{"env": "promise_war_v0", "env": "cardline_v0"}'
    refused(client.post("/api/games", content=body), 400, "'env' twice")
    nested = b'{"env": "cardline_v0", "config": {"num_players": 2, "num_players": 3}}'
    refused(client.post("/api/games", content=nested), 400, "'num_players' twice")
    assert len(store) == 0


def raw_exchange(port: int, data: bytes, wait: float = 5.0) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def json_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    assert b"application/json" in head.lower(), head
    return status, json.loads(body)["error"]


def test_what_http_itself_cannot_parse_gets_the_json_error_and_no_traceback():
    server = ServeProcess("--vs", "random")
    try:
        status, message = json_error(raw_exchange(server.port, b"GET /api/envs HTTP/1.0\r\n\r\n"))
        assert status == 400 and "not served here" in message  # no Host header at all
        malformed = [
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}",
            b"GARBAGE\r\n\r\n",
            b"GET /api/envs HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
        ]
        for data in malformed:
            status, message = json_error(raw_exchange(server.port, data))
            assert status == 400 and "malformed" in message
        # Clients that leave in the middle of a body, fifty of them.
        for _ in range(50):
            with socket.create_connection(("127.0.0.1", server.port)) as sock:
                sock.sendall(
                    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"env":'
                )
        server.wait_for_log("client left during POST /api/games", 50)  # each one handled
        ok_answer = raw_exchange(
            server.port, b"GET /api/envs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        assert ok_answer.startswith(b"HTTP/1.1 200")
    finally:
        log = server.stop()
    assert "Traceback" not in log, log
    lines = [line for line in log.splitlines() if line.strip()]
    # One line per malformed request and per departed client, and the stop message.
    assert len(lines) <= 1 + len(malformed) + 50 + 1, log


@pytest.fixture
def quick_deadlines(monkeypatch):
    """A live server whose head and body deadlines are half a second."""
    monkeypatch.setattr(web_server, "HEAD_SECONDS", 0.5)
    monkeypatch.setattr(web_reading, "BODY_SECONDS", 0.5)
    with LiveServer(create_app("random", store=GameStore(5, 60))) as server:
        yield server


def closed_within(port: int, data: bytes, seconds: float) -> bytes:
    """What the server sent before closing a connection that sent ``data`` and then waited;
    fails when it is still open after ``seconds``."""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as sock:
        if data:
            sock.sendall(data)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pytest.fail(f"the connection is still open after {seconds} s ({data[:40]!r})")
    return answer


def test_connections_that_send_nothing_or_dribble_are_closed(quick_deadlines):
    port = quick_deadlines.port
    assert closed_within(port, b"", 5) == b""  # opened and silent
    assert closed_within(port, b"GET /api/envs HTTP/1.1\r\nHost: 127.0", 5) == b""  # half a head
    # A body that stops coming: the JSON 408.
    answer = closed_within(
        port,
        b'POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"env"',
        5,
    )
    status, message = json_error(answer)
    assert status == 408 and "did not arrive" in message
    assert b"connection: close" in answer.partition(b"\r\n\r\n")[0].lower()  # cut off unread
    # A whole request is answered, and the idle keep-alive connection closed after it.
    answer = closed_within(port, b"GET /api/envs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 15)
    assert answer.startswith(b"HTTP/1.1 200")
