"""Reading a request of the web table's API: the body within its size and time bounds, as a
JSON object, and each field checked, so that a bad one is a 4xx ``ApiError`` naming it
(docs/web_api.md, "What the server promises").
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.requests import Request

from cardarena.agents.specs import AGENT_SPECS, parse_spec
from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import decode_utf8, parse_json, show

from .replays import MAX_RECORD_BYTES

#: Largest request body of the game endpoints (a custom Cardline deck fits many times).
MAX_BODY_BYTES = 64 * 1024
#: Largest body of ``POST /api/replays`` (the record text, JSON-escaped at most twice its size).
MAX_REPLAY_BODY_BYTES = 2 * MAX_RECORD_BYTES
#: Longest agent spec a request may name.
MAX_SPEC_CHARS = 200
#: Seconds a request body may take to arrive once its head has (a slow sender is cut off).
BODY_SECONDS = 30.0


class ApiError(Exception):
    """An answer other than 200: ``status`` and the message sent as ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 once it is over ``limit`` bytes (before it is all
    read, whatever the Content-Length says) and with 408 when it takes over ``BODY_SECONDS``
    to arrive."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise ApiError(400, f"bad Content-Length header {show(length)}")
        if int(length) > limit:
            raise ApiError(413, f"the request body is {int(length):,} bytes; at most {limit:,}")
    body = bytearray()
    try:
        with anyio.fail_after(BODY_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise ApiError(413, f"the request body is over {limit:,} bytes")
    except TimeoutError:
        raise ApiError(
            408, f"the request body did not arrive within {BODY_SECONDS:g} s; send it at once"
        ) from None
    return bytes(body)


async def read_json(request: Request, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The body as a JSON object (an empty body is ``{}``), parsed within the project's
    limits for untrusted JSON."""
    body = await read_body(request, limit)
    if not body.strip():
        return {}
    try:
        data = parse_json(decode_utf8(body, "the request body"), "the request body")
    except InvalidConfigError as error:
        raise ApiError(400, str(error)) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def fields(data: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = [key for key in data if key not in allowed]
    if unknown:
        raise ApiError(
            400,
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(show, unknown[:5]))}; "
            f"the fields are {', '.join(allowed)}",
        )


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def env_name(name: Any, status: int = 400) -> str:
    """``name`` if it is a registered env; else ``status`` (400 for a body field, 404 in a
    path) listing the envs."""
    if not isinstance(name, str) or name not in ENVS:
        what = "unknown env" if isinstance(name, str) else "field 'env' must name an env, got"
        raise ApiError(status, f"{what} {show(name)}; available: {', '.join(sorted(ENVS))}")
    return name


def check_vs(spec: Any, server_vs: str) -> str:
    """``spec`` if a request may seat it (module docstring), else a 400 saying why."""
    if not isinstance(spec, str) or not spec.strip():
        raise ApiError(400, f"field 'vs' must be a non-empty agent spec string, got {show(spec)}")
    if spec == server_vs:
        return spec
    if len(spec) > MAX_SPEC_CHARS:
        raise ApiError(400, f"field 'vs' is {len(spec)} characters long; at most {MAX_SPEC_CHARS}")
    try:
        name, options = parse_spec(spec)
    except InvalidConfigError as error:
        raise ApiError(400, str(error)) from None
    if name not in AGENT_SPECS or "path" in options:
        raise ApiError(
            400,
            f"agent spec {show(spec)} is not one this server seats: name a registered agent "
            f"({', '.join(sorted(AGENT_SPECS))}) with its options; a saved model read from a "
            "path is only for the server's own --vs",
        )
    return spec


__all__ = [
    "BODY_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_REPLAY_BODY_BYTES",
    "MAX_SPEC_CHARS",
    "ApiError",
    "check_vs",
    "env_name",
    "fields",
    "is_int",
    "read_body",
    "read_json",
]
