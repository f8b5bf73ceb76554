"""``run_server`` behind ``cardarena serve``: the app on uvicorn, with a connection that cannot
be held open for nothing and a malformed request answered in JSON like every other refusal.

uvicorn closes a keep-alive connection idle after a response, but waits forever for the
first request head of a connection and for a head sent a byte at a time. ``GuardedH11Protocol``
closes a connection whose request head is not complete ``HEAD_SECONDS`` after it opened (or
after its previous response), refuses connections past ``MAX_CONNECTIONS`` with a JSON 503,
and answers what h11 cannot parse (``Content-Length: abc``, a broken request line) with the
JSON 400 instead of uvicorn's plain text. The body's own deadline is the app's
(``app.BODY_SECONDS``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import sys
from collections.abc import Iterable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from cardarena.envs.core import InvalidConfigError

from .app import create_app
from .configs import read_served_tables
from .guard import LOOPBACK_HOSTS, allowed_hosts
from .sessions import DEFAULT_IDLE_SECONDS, DEFAULT_MAX_GAMES
from .work import DEFAULT_THINK_SECONDS, DEFAULT_WORKERS

log = logging.getLogger("cardarena.web")

#: Seconds a connection may take to send a whole request head.
HEAD_SECONDS = 10.0
#: Seconds an idle keep-alive connection stays open after a response.
KEEP_ALIVE_SECONDS = 5
#: Open connections at once; one more gets a 503 and is closed.
MAX_CONNECTIONS = 1000


def _json_answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection (written raw: h11 sends no response
    before a request, and this one may come before any)."""
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and JSON answers of the module docstring."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            self._answer_and_close(
                503, "Service Unavailable", "too many connections are open; try again soon"
            )
            return
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._answer_and_close(
            400,
            "Bad Request",
            "malformed HTTP request (its request line, a header or Content-Length cannot "
            "be parsed)",
        )

    def _answer_and_close(self, status: int, reason: str, message: str) -> None:
        self._disarm_head_timer()
        if not self.transport.is_closing():
            self.transport.write(_json_answer(status, reason, message))
            self.transport.close()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(HEAD_SECONDS, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.info("closed a connection with no complete request head in %g s", HEAD_SECONDS)
            self.transport.close()


def uvicorn_config(app: Any) -> Any:
    """How ``app`` is served, in ``run_server`` and in the tests' live server alike.

    ``log_config=None``: uvicorn's default runs ``logging.config.dictConfig``, which closes
    every handler in the process, the embedding program's too (absl's even closes the stream
    it wrote to). The log is set up by ``show_web_log`` instead, only where we own the process.
    """
    import uvicorn

    return uvicorn.Config(
        app,
        http=GuardedH11Protocol,
        log_config=None,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )


def show_web_log() -> None:
    """One line per refused or failed request on stderr (``cardarena.web``'s INFO lines),
    and uvicorn's own warnings and errors beside them."""
    formatter = logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S")
    for logger, level in ((log, logging.INFO), (logging.getLogger("uvicorn"), logging.WARNING)):
        if not logger.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(formatter)
            logger.addHandler(handler)
            logger.setLevel(level)
            logger.propagate = False


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_line(host: str, port: int, hosts: tuple[str, ...]) -> str | None:
    """What a non-loopback ``--host`` exposes, in one line (None on loopback)."""
    if is_loopback(host):
        return None
    everywhere = host in ("0.0.0.0", "::", "")
    names = ", ".join(f"[{h}]" if ":" in h else h for h in hosts)
    return (
        f"note: listening on {'every network interface' if everywhere else host} port {port}: "
        "anyone who can reach this machine there can start games and use the server's CPU "
        f"(no login); it answers to the host names {names} (add --allowed-host NAME for "
        "the name people use to reach it)"
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or ``InvalidConfigError`` saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as error:
        sock.close()
        raise InvalidConfigError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock


def run_server(
    host: str = "127.0.0.1",
    port: int = 8000,
    vs: str = "heuristic",
    max_games: int = DEFAULT_MAX_GAMES,
    idle_seconds: float = DEFAULT_IDLE_SECONDS,
    *,
    allowed: Iterable[str] = (),
    workers: int = DEFAULT_WORKERS,
    think_seconds: float = DEFAULT_THINK_SECONDS,
    decks: Iterable[str] = (),
) -> None:
    """Serve the web table on ``host:port`` until interrupted, printing its address first
    (``port`` 0 picks a free one), and what it exposes when ``host`` is not loopback.
    ``allowed`` host names are answered besides loopback and ``host``; ``decks`` are
    ``NAME=PATH`` tables read now and served by name (``configs``)."""
    import uvicorn

    served = read_served_tables(decks)
    hosts = allowed_hosts(host, allowed)
    app = create_app(
        vs,
        max_games,
        idle_seconds,
        hosts=hosts,
        workers=workers,
        think_seconds=think_seconds,
        served=served,
    )
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    print(f"cardarena web table on http://{shown}:{bound}/ (opponents: {vs}; Ctrl-C stops it)")
    for table in served.values():
        print(f"serving table {table.describe()}")
    exposed = exposure_line(host, bound, hosts)
    if exposed:
        print(exposed)
    sys.stdout.flush()
    show_web_log()
    uvicorn.Server(uvicorn_config(app)).run(sockets=[sock])


__all__ = [
    "HEAD_SECONDS",
    "KEEP_ALIVE_SECONDS",
    "MAX_CONNECTIONS",
    "GuardedH11Protocol",
    "bind",
    "exposure_line",
    "is_loopback",
    "run_server",
    "show_web_log",
    "uvicorn_config",
]
