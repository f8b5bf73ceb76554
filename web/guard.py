"""The web table's outer wall: who may use the API, what every answer carries, and how a
request that fails outside a route still gets the documented JSON error.

``OwnOriginOnly`` answers only requests whose ``Host`` header names this server (loopback by
default, plus ``--allowed-host`` names) and refuses a state-changing request a browser sent
from another origin, whatever its content type: a page elsewhere can then neither drive the
API (cross-site requests) nor read its answers through a name that resolves here (DNS
rebinding). A client without ``Origin`` and ``Sec-Fetch-Site`` (curl, scripts) is not a
browser page and is let through; every browser sends one of them on a cross-origin POST.

Starlette's ``TrustedHostMiddleware`` does the host half, but answers in plain text; this one
parses the Host header with the standard library (``urlsplit``), refuses a malformed one
rather than falling back to the socket's address, and answers ``{"error": ...}`` like every
other refusal (docs/web_api.md). An origin is the page's own when its scheme, host and port
(defaults 80 and 443) are the request's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse

from cardarena.envs.core.untrusted import printable, show

log = logging.getLogger("cardarena.web")

#: Host names a server bound to loopback answers to (``--allowed-host`` adds more).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Methods that change state (or cost work): refused from another origin.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: ``Sec-Fetch-Site`` values of a request the page itself made (or the person typed).
OWN_FETCH_SITES = frozenset({"same-origin", "none"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The host names answered: loopback, the bound address unless it is a wildcard, and
    ``extra`` (``--allowed-host``), lower-cased and without IPv6 brackets."""
    names = [*LOOPBACK_HOSTS]
    if bound not in ("0.0.0.0", "::", ""):
        names.append(bound)
    names += list(extra)
    cleaned = (name.strip().lower().strip("[]") for name in names)
    return tuple(dict.fromkeys(name for name in cleaned if name))


def refusal(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def send_refusal(scope: Any, receive: Any, send: Any, status: int, message: str) -> None:
    """Answer with the JSON error, and log it on one line (no traceback)."""
    log.info("%d %s %s: %s", status, scope.get("method"), scope.get("path"), printable(message))
    await refusal(status, message)(scope, receive, send)


class OwnOriginOnly:
    """ASGI middleware: the Host and Origin checks of the module docstring."""

    def __init__(self, app: Any, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(hosts)
        self.shown = ", ".join(f"[{h}]" if ":" in h else h for h in sorted(self.hosts))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        scheme = scope.get("scheme", "http")
        host = _host_and_port(headers.get("host"), scheme)
        if host is None or host[0] not in self.hosts:
            given = show(headers.get("host"), 60)
            await send_refusal(
                scope,
                receive,
                send,
                400,
                f"host {given} is not served here; this server answers to {self.shown} "
                "(the operator adds names with cardarena serve --allowed-host NAME)",
            )
            return
        if scope["method"] in UNSAFE_METHODS:
            problem = _foreign_origin(headers, scheme, host)
            if problem:
                await send_refusal(scope, receive, send, 403, problem)
                return
        await self.app(scope, receive, send)


def _host_and_port(authority: str | None, scheme: str) -> tuple[str, int | None] | None:
    """``(host name, port)`` of a Host header or an origin's authority, the port defaulted
    from ``scheme``; None when it is missing or malformed (an unparsable port, a bracket)."""
    if not authority:
        return None
    try:
        parts = urlsplit(f"//{authority}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.netloc != authority or parts.username is not None:
        return None
    return parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def _foreign_origin(headers: Headers, scheme: str, host: tuple[str, int | None]) -> str | None:
    """Why a state-changing request is not the page's own (its ``Origin`` is not ``scheme``
    and ``host``, or ``Sec-Fetch-Site`` says another site), or None if it is."""
    origin = headers.get("origin")
    if origin is not None:
        origin_scheme, _, authority = origin.partition("://")
        if origin_scheme != scheme or _host_and_port(authority, scheme) != host:
            return (
                f"a request from another origin ({show(origin, 60)}) cannot use this API; "
                "only the page this server serves can"
            )
        return None
    site = headers.get("sec-fetch-site")
    if site is not None and site not in OWN_FETCH_SITES:
        return (
            f"a request from another origin (Sec-Fetch-Site: {show(site, 30)}) cannot use this "
            "API; only the page this server serves can"
        )
    return None


class CatchAll:
    """ASGI middleware inside Starlette's error middleware: a client that left mid-request is
    one log line, and a bug is one logged traceback and a JSON 500 (Starlette's own handler
    would log the traceback a second time by re-raising)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            log.info("client left during %s %s", scope.get("method"), scope.get("path"))
        except Exception as error:
            log.error(
                "internal error on %s %s", scope.get("method"), scope.get("path"), exc_info=error
            )
            if not started:
                await refusal(500, "internal error")(scope, receive, send)


class SecurityHeaders:
    """Headers on every answer: nothing from elsewhere runs in the page (the SVG is the
    server's own, and every text in it is escaped, but a policy costs nothing), API answers
    are never cached, no page may frame this one."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (
                        b"content-security-policy",
                        b"default-src 'self'; img-src 'self' data:; style-src 'self' "
                        b"'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
                        b"form-action 'none'",
                    ),
                ]
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


__all__ = [
    "LOOPBACK_HOSTS",
    "CatchAll",
    "OwnOriginOnly",
    "SecurityHeaders",
    "allowed_hosts",
    "refusal",
    "send_refusal",
]
