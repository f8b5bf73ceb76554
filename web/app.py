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

import json
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardarena.agents.specs import AGENT_SPECS, make_agent, parse_spec
from cardarena.agents.table import Table
from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import CardArenaError, IllegalActionError, InvalidConfigError
from cardarena.envs.core.aec import config_keys
from cardarena.envs.core.untrusted import decode_utf8, parse_json, printable, show

from .configs import ServedTable, resolve_config, shown_config
from .guard import LOOPBACK_HOSTS, CatchAll, OwnOriginOnly, SecurityHeaders
from .openapi import openapi_schema
from .replays import FIELDS as REPLAY_FIELDS
from .replays import MAX_RECORD_BYTES, replay_answer, replay_ask
from .sessions import (
    DEFAULT_IDLE_SECONDS,
    DEFAULT_MAX_GAMES,
    GameStore,
    StoreFull,
    UnknownGame,
)
from .work import DEFAULT_THINK_SECONDS, DEFAULT_WORKERS, Workers

#: Largest request body of the game endpoints (a custom Cardline deck fits many times).
MAX_BODY_BYTES = 64 * 1024
#: Largest body of ``POST /api/replays`` (the record text, JSON-escaped at most twice its size).
MAX_REPLAY_BODY_BYTES = 2 * MAX_RECORD_BYTES
#: Longest agent spec a request may name.
MAX_SPEC_CHARS = 200
#: Seconds a request body may take to arrive once its head has (a slow sender is cut off).
BODY_SECONDS = 30.0

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("cardarena.web")

#: Errors a config or an agent spec raises while the env or the agents are built.
_BUILD_ERRORS = (CardArenaError, TypeError, ValueError, OverflowError, RecursionError)


class ApiError(Exception):
    """An answer other than 200: ``status`` and the message sent as ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# --- reading requests ---------------------------------------------------------------------


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


def _fields(data: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = [key for key in data if key not in allowed]
    if unknown:
        raise ApiError(
            400,
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(show, unknown[:5]))}; "
            f"the fields are {', '.join(allowed)}",
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _env_name(name: Any, status: int = 400) -> str:
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


# --- what the API sends ---------------------------------------------------------------------


def game_response(
    game_id: str, table: Table, new_events: list[str], config: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Everything the page shows, all of it limited to the person's seat: the view, its
    picture, the event lines they saw, their legal actions, and the result once over
    (``config``: the config as the request gave it, the table's own by default)."""
    legal = table.legal_actions()
    view = table.view()
    over = table.is_over()
    outcome = table.outcome()
    return {
        "id": game_id,
        "env": table.env_name,
        "seed": table.seed,
        "config": table.config if config is None else dict(config),
        "vs": table.vs,
        "seat": table.human,
        "seats": table.seats,
        "turn": None if over else table.env.agent_selection,
        "to_act": table.to_act(),
        "over": over,
        "legal": [{"action": action, "name": name} for action, name in legal],
        "view": view,
        "svg": table.env.table_svg(view, legal),
        "events": table.history(),
        "new_events": new_events,
        "outcome": None
        if outcome is None
        else {"result": outcome.result, "line": outcome.line, "returns": outcome.returns},
        "how_to_win": type(table.env).how_to_win,
    }


def _title(module: Any) -> str:
    for line in (module.__doc__ or "").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return str(module.__name__).rsplit(".", 1)[-1]


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


@lru_cache(maxsize=64)
def env_info(name: str) -> dict[str, Any]:
    """What the page needs to offer ``name``: its title, table sizes and the seats of each,
    the config keys, the example configs and how to win."""
    module = ENVS[name]
    raw = module.raw_env
    keys = config_keys(raw.build_game)
    players_key = "num_players" if keys is not None and "num_players" in keys else None
    low, high = int(raw.metadata["min_players"]), int(raw.metadata["max_players"])
    default = make_raw(name)
    seats: dict[str, list[str]] = {}
    if players_key is None:
        seats[str(len(default.possible_agents))] = list(default.possible_agents)
    else:
        for count in range(low, high + 1):
            seats[str(count)] = list(make_raw(name, **{players_key: count}).possible_agents)
    return {
        "name": name,
        "title": _title(module),
        "min_players": low,
        "max_players": high,
        "default_players": len(default.possible_agents),
        "players_key": players_key,
        "seats": seats,
        "config_keys": list(keys) if keys is not None else None,
        "example_configs": [c for c in raw.example_configs if _jsonable(c)],
        "how_to_win": raw.how_to_win,
    }


# --- the app ----------------------------------------------------------------------------------


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
    tables = dict(served or {})

    def answer(game_id: str, table: Table) -> dict[str, Any]:
        return game_response(game_id, table, table.story(), shown_config(table.config, tables))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def list_envs(request: Request) -> Response:
        infos = await run_in_threadpool(lambda: [env_info(name) for name in sorted(ENVS)])
        agents = [{"name": k, "doc": v.doc} for k, v in sorted(AGENT_SPECS.items())]
        return JSONResponse({"envs": infos, "vs": vs, "agents": agents})

    schema = openapi_schema()

    async def openapi(request: Request) -> Response:
        return JSONResponse(schema)

    async def create_game(request: Request) -> Response:
        data = await read_json(request)
        _fields(data, ("env", "vs", "seed", "config", "seat"))
        env = _env_name(data.get("env"))
        spec = check_vs(data.get("vs", vs), vs)
        seed = data.get("seed")
        if seed is not None and not (_is_int(seed) and 0 <= seed < 2**63):
            raise ApiError(400, f"field 'seed' must be a non-negative integer, got {show(seed)}")
        config = data.get("config")
        config = {} if config is None else config
        if not isinstance(config, dict):
            raise ApiError(400, f"field 'config' must be a JSON object, got {show(config)}")
        if "render_mode" in config:
            raise ApiError(400, "config key 'render_mode' is the server's to choose")
        try:
            config = resolve_config(env, config, tables)
        except InvalidConfigError as error:
            raise ApiError(400, f"cannot start {env}: {error}") from None
        seat = data.get("seat")
        if seat is not None and not (isinstance(seat, str) or _is_int(seat)):
            raise ApiError(400, f"field 'seat' must be a seat name or index, got {show(seat)}")

        def build(gone: threading.Event) -> dict[str, Any]:
            name = seat
            try:
                if isinstance(seat, int):
                    seats = make_raw(env, **config).possible_agents
                    if not 0 <= seat < len(seats):
                        raise ApiError(400, f"seat {seat} is not one of 0..{len(seats) - 1}")
                    name = seats[seat]
                table = Table(env, spec, name, seed, config, think_seconds, stop=gone)
            except _BUILD_ERRORS as error:
                raise ApiError(400, f"cannot start {env}: {error}") from None
            game_id = games.add(table)
            with games.use(game_id) as held:
                return answer(game_id, held)

        return JSONResponse(await pool.run(request, build))

    async def show_game(request: Request) -> Response:
        game_id = request.path_params["game_id"]

        def look() -> dict[str, Any] | None:
            with games.use(game_id) as table:
                return None if table.owes_moves() else answer(game_id, table)

        def catch_up(gone: threading.Event) -> dict[str, Any]:
            with games.use(game_id) as table:
                table.advance(gone)
                return answer(game_id, table)

        found = await run_in_threadpool(look)  # cheap: no agent moves
        if found is None:  # the agents' turns were stopped when an earlier client left
            found = await pool.run(request, catch_up)
        return JSONResponse(found)

    async def act(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        data = await read_json(request)
        _fields(data, ("action",))
        action = data.get("action")
        if not _is_int(action):
            raise ApiError(400, f"field 'action' must be an integer, got {show(action)}")

        def play(gone: threading.Event) -> dict[str, Any]:
            with games.use(game_id) as table:
                try:
                    table.advance(gone)  # turns an earlier, departed client left undone
                    if not table.to_act():
                        reason = "the game is over" if table.is_over() else "it is not your turn"
                        raise ApiError(409, f"{reason}; no action is taken")
                    legal = dict(table.legal_actions())
                    if action not in legal:
                        shown = ", ".join(f"{a} ({n})" for a, n in list(legal.items())[:20])
                        raise ApiError(400, f"action {action} is not legal now; legal: {shown}")
                    table.act(action, gone)
                except ApiError:
                    raise
                except Exception as error:  # the person's move was legal: an agent failed
                    games.drop(game_id)
                    log.error("agent %s failed in game %s", table.vs, game_id, exc_info=error)
                    raise ApiError(
                        500, f"the opponent agent {table.vs!r} failed ({error}); the game is closed"
                    ) from None
                return answer(game_id, table)

        return JSONResponse(await pool.run(request, play))

    async def rules(request: Request) -> Response:
        env = _env_name(request.path_params["env"], 404)

        def read() -> dict[str, Any]:
            from cardarena.envs.rules_docs import rules_text, short_rules

            return {
                "env": env,
                "how_to_win": ENVS[env].raw_env.how_to_win,
                "short": short_rules(env),
                "markdown": rules_text(env, with_common=True),
            }

        try:
            return JSONResponse(await run_in_threadpool(read))
        except (CardArenaError, OSError, KeyError) as error:
            raise ApiError(404, f"no rules for {env}: {error}") from None

    async def replays(request: Request) -> Response:
        # The record comes whole with every request (the page keeps it and asks page by
        # page); replay_answer checks all of it and renders one page (docs/web_api.md).
        options: dict[str, Any] = dict(request.query_params)
        if request.headers.get("content-type", "").startswith("application/json"):
            data = await read_json(request, MAX_REPLAY_BODY_BYTES)
            _fields(data, REPLAY_FIELDS)
            record = data.get("record")
            if not isinstance(record, str):
                raise ApiError(400, f"field 'record' must be the record text, got {show(record)}")
            body = record.encode("utf-8", "surrogatepass")
            options = data
        else:
            _fields(options, tuple(name for name in REPLAY_FIELDS if name != "record"))
            body = await read_body(request, MAX_RECORD_BYTES)
        try:
            ask = replay_ask(options)
        except InvalidConfigError as error:
            raise ApiError(400, str(error)) from None

        def step_through(gone: threading.Event) -> dict[str, Any]:
            try:
                return replay_answer(body, ask, tables)  # a record names no file either
            except CardArenaError as error:  # InvalidConfigError, ReplayError
                raise ApiError(400, str(error)) from None

        # Checking a long record takes seconds of CPU: it waits for a worker like a search.
        return JSONResponse(await pool.run(request, step_through))

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
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/envs", list_envs),
            Route("/api/openapi.json", openapi),
            Route("/api/games", create_game, methods=["POST"]),
            Route("/api/games/{game_id}", show_game),
            Route("/api/games/{game_id}/act", act, methods=["POST"]),
            Route("/api/rules/{env}", rules),
            Route("/api/replays", replays, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers=handlers,
    )
    app.state.games = games
    app.state.workers = pool
    app.state.vs = vs
    # Added innermost first: a request meets the host and origin check, then the headers,
    # then the catch-all, then the routes.
    app.add_middleware(CatchAll)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(OwnOriginOnly, hosts=list(hosts))
    return app


__all__ = [
    "BODY_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_REPLAY_BODY_BYTES",
    "ApiError",
    "create_app",
    "game_response",
]
