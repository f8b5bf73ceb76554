"""The web table: a Starlette app serving one page and the JSON API it plays through
(documented in docs/web_api.md; its OpenAPI schema, ``openapi.py``, is served at
``/api/openapi.json``).

A person's game is an ``agents.table.Table`` held in a ``GameStore``; every response is built
from that table's seat-limited views (``table_view``, ``table_svg`` of that view, the event
lines that seat saw, its legal actions), never from the rules state.

What a request can make the server do is bounded (docs/web_api.md, "What the server
promises"): only this server's own host names and page may use it (``guard``); it never reads
a file a request names (``configs``: a table comes inline or by a name the operator served;
an agent loaded from a path only as the server's own ``--vs``); the agents' turns run in a
bounded pool off the event loop, each decision of a search agent within ``think_seconds``, and
stop when the client leaves (``work``); a body is bounded in size and in time.

Whatever a request holds, the answer is JSON: a 4xx ``{"error": "..."}`` naming the problem
(bad JSON or a duplicate key, a body over ``MAX_BODY_BYTES`` or slower than ``BODY_SECONDS``,
unknown env or game, an illegal action, a wrong type, a bad config, a file name in a config,
an agent spec that does not fit the table, another host or origin), a 503 when the store is
full of games in play, and a 500 ``{"error": "internal error"}`` without a traceback for a
bug. Each refusal is one log line on ``cardarena.web``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from cardarena.agents.specs import make_agent
from cardarena.envs.core import CardArenaError, IllegalActionError, InvalidConfigError
from cardarena.envs.core.untrusted import printable

from .answers import game_response
from .configs import ServedTable
from .guard import LOOPBACK_HOSTS, CatchAll, OwnOriginOnly, SecurityHeaders
from .reading import BODY_SECONDS, MAX_BODY_BYTES, MAX_REPLAY_BODY_BYTES, ApiError
from .routes import Routes
from .sessions import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_GAMES,
    GameStore,
    StoreFull,
    UnknownGame,
)
from .work import DEFAULT_THINK_SECONDS, DEFAULT_WORKERS, Workers

log = logging.getLogger("cardarena.web")


def create_app(
    vs: str = "heuristic",
    max_games: int = DEFAULT_MAX_GAMES,
    idle_seconds: float = DEFAULT_IDLE_SECONDS,
    store: GameStore | None = None,
    *,
    hosts: Iterable[str] = LOOPBACK_HOSTS,
    workers: int = DEFAULT_WORKERS,
    think_seconds: float = DEFAULT_THINK_SECONDS,
    served: Mapping[str, ServedTable] | None = None,
) -> Starlette:
    """The web table's app: games against ``vs`` by default (any spec ``make_agent`` takes),
    at most ``max_games`` live, each expiring after ``idle_seconds`` idle (``store`` replaces
    the store, e.g. one with a fake clock in tests). It answers to the host names ``hosts``;
    the agents' turns run on ``workers`` threads, a search agent's decision within
    ``think_seconds``; ``served`` are the tables requests may name (``--deck``)."""
    make_agent(vs)  # an unknown --vs fails now, not at the first game
    games = store if store is not None else GameStore(max_games, idle_seconds)
    pool = Workers(workers, think_seconds)
    routes = Routes(vs, games, pool, served or {}, think_seconds)

    def refused(request: Request, status: int, message: str) -> Response:
        log.info("%d %s %s: %s", status, request.method, request.url.path, printable(message))
        # A body cut off unread leaves the connection mid-request: it cannot carry another.
        headers = {"connection": "close"} if status in (408, 413) else None
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return refused(request, exc.status, exc.message)

    async def known_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, UnknownGame):
            return refused(request, 404, str(exc))
        if isinstance(exc, StoreFull):
            return refused(request, 503, str(exc))
        status = 400 if isinstance(exc, (InvalidConfigError, IllegalActionError)) else 500
        return refused(request, status, str(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = {404: "no such page", 405: "method not allowed"}.get(exc.status_code)
        where = f"{request.method} {request.url.path}"
        response = refused(request, exc.status_code, f"{message or exc.detail}: {where}")
        response.headers.update(exc.headers or {})
        return response

    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        ApiError: api_error,
        CardArenaError: known_error,
        HTTPException: http_error,
    }
    app = Starlette(routes=routes.routes(), exception_handlers=handlers)
    app.state.games = games
    app.state.workers = pool
    app.state.vs = vs
    # Added innermost first: a request meets the host and origin check, then the headers,
    # then the catch-all, then the routes.
    app.add_middleware(CatchAll)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(OwnOriginOnly, hosts=list(hosts))
    return app


# The request bounds, ApiError (``reading``) and game_response (``answers``) lived here; they
# stay importable from this module.
__all__ = [
    "BODY_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_REPLAY_BODY_BYTES",
    "ApiError",
    "create_app",
    "game_response",
]
