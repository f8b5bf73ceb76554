"""The web table's outer wall (``web/guard.py``) driven as ASGI middleware directly, without a
server or a game store: default ports per scheme, malformed authorities, how much of a hostile
value a refusal quotes, and the JSON 500 sent only while no answer has started."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from cardarena.envs.core.untrusted import show
from cardarena.web.guard import CatchAll, OwnOriginOnly

HOSTS = ("127.0.0.1", "localhost", "::1")
#: A value no cut can end the same way twice (``show`` adds ``...`` after the cut).
LONG = "abcdefghijklmnopqrstuvwxyz0123456789" * 5


def call(app: Any, method: str, headers: dict[str, str], scheme: str = "http") -> list[dict]:
    """Every message ``app`` sends for one request."""
    scope = {
        "type": "http",
        "method": method,
        "path": "/api/games",
        "scheme": scheme,
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


async def answered(scope: Any, receive: Any, send: Any) -> None:
    """The app behind the wall: 200, empty."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def status_and_error(sent: list[dict]) -> tuple[int, str | None]:
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)["error"] if body else None


WALL = OwnOriginOnly(answered, HOSTS)


@pytest.mark.parametrize(
    ("scheme", "host", "origin"),
    [
        ("http", "127.0.0.1", "http://127.0.0.1:80"),
        ("http", "127.0.0.1:80", "http://127.0.0.1"),
        ("https", "127.0.0.1", "https://127.0.0.1:443"),
        ("https", "127.0.0.1:443", "https://127.0.0.1"),
        ("https", "localhost:8443", "https://LOCALHOST:8443"),
    ],
)
def test_an_origin_without_a_port_has_its_schemes_default(scheme, host, origin):
    sent = call(WALL, "POST", {"host": host, "origin": origin}, scheme)
    assert status_and_error(sent) == (200, None)


@pytest.mark.parametrize(
    ("scheme", "host", "origin"),
    [
        ("http", "127.0.0.1", "http://127.0.0.1:443"),
        ("https", "127.0.0.1", "https://127.0.0.1:80"),
        ("https", "127.0.0.1:442", "https://127.0.0.1"),
        ("https", "127.0.0.1:444", "https://127.0.0.1"),
    ],
)
def test_an_origin_on_another_port_is_refused(scheme, host, origin):
    status, error = status_and_error(call(WALL, "POST", {"host": host, "origin": origin}, scheme))
    assert status == 403 and "another origin" in error


@pytest.mark.parametrize(
    "host", ["user@localhost", "user:pw@localhost", "localhost/x", "localhost?x", ":80", ""]
)
def test_a_host_with_more_or_less_than_a_name_and_port_is_refused(host):
    status, error = status_and_error(call(WALL, "GET", {"host": host}))
    assert status == 400 and "is not served here" in error


def test_a_refusal_quotes_a_hostile_value_cut_at_its_stated_length():
    _, error = status_and_error(call(WALL, "GET", {"host": LONG}))
    assert error.startswith(f"host {show(LONG, 60)} is not served here")
    sent = call(WALL, "POST", {"host": "localhost", "origin": "http://" + LONG})
    assert f"({show('http://' + LONG, 60)}) cannot use" in status_and_error(sent)[1]
    sent = call(WALL, "POST", {"host": "localhost", "sec-fetch-site": LONG})
    assert f"(Sec-Fetch-Site: {show(LONG, 30)}) cannot use" in status_and_error(sent)[1]


def failing(started: bool) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if started:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        raise RuntimeError("a bug")

    return app


def test_a_bug_before_the_answer_starts_is_one_json_500():
    sent = call(CatchAll(failing(started=False)), "GET", {"host": "localhost"})
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert status_and_error(sent) == (500, "internal error")


def test_a_bug_after_the_answer_started_sends_no_second_start():
    sent = call(CatchAll(failing(started=True)), "GET", {"host": "localhost"})
    assert [(m["type"], m.get("status")) for m in sent] == [("http.response.start", 200)]


def test_a_refused_host_is_told_the_names_served_with_ipv6_in_brackets():
    _, error = status_and_error(call(WALL, "GET", {"host": "elsewhere"}))
    assert "this server answers to 127.0.0.1, [::1], localhost (the operator" in error
