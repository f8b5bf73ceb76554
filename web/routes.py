"""The routes of the web table's API, one method each (docs/web_api.md): a person's games in a
bounded store, the agents' turns on a bounded pool of workers, every answer limited to the
person's seat (``answers``), every request read within its bounds (``reading``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from cardarena.agents.specs import AGENT_SPECS
from cardarena.agents.table import Table
from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import CardArenaError, InvalidConfigError
from cardarena.envs.core.untrusted import show

from .answers import env_info, game_response
from .configs import ServedTable, resolve_config, shown_config
from .openapi import openapi_schema
from .reading import (
    MAX_REPLAY_BODY_BYTES,
    ApiError,
    check_vs,
    env_name,
    fields,
    is_int,
    read_body,
    read_json,
)
from .replays import FIELDS as REPLAY_FIELDS
from .replays import MAX_RECORD_BYTES, replay_answer, replay_ask
from .sessions import GameStore
from .work import Workers

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("cardarena.web")

#: Errors a config or an agent spec raises while the env or the agents are built.
_BUILD_ERRORS = (CardArenaError, TypeError, ValueError, OverflowError, RecursionError)


class Routes:
    """Every route, over one store of games, one pool of workers and the operator's served
    tables; ``vs`` is the server's own agent (``--vs``)."""

    def __init__(
        self,
        vs: str,
        games: GameStore,
        pool: Workers,
        tables: Mapping[str, ServedTable],
        think_seconds: float,
    ) -> None:
        self.vs, self.games, self.pool = vs, games, pool
        self.tables, self.think_seconds = dict(tables), think_seconds
        self.schema = openapi_schema()

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.index),
            Route("/api/envs", self.list_envs),
            Route("/api/openapi.json", self.openapi),
            Route("/api/games", self.create_game, methods=["POST"]),
            Route("/api/games/{game_id}", self.show_game),
            Route("/api/games/{game_id}/act", self.act, methods=["POST"]),
            Route("/api/rules/{env}", self.rules),
            Route("/api/replays", self.replays, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]

    def answer(self, game_id: str, table: Table) -> dict[str, Any]:
        return game_response(game_id, table, table.story(), shown_config(table.config, self.tables))

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def list_envs(self, request: Request) -> Response:
        infos = await run_in_threadpool(lambda: [env_info(name) for name in sorted(ENVS)])
        agents = [{"name": k, "doc": v.doc} for k, v in sorted(AGENT_SPECS.items())]
        return JSONResponse({"envs": infos, "vs": self.vs, "agents": agents})

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(self.schema)

    async def create_game(self, request: Request) -> Response:
        data = await read_json(request)
        fields(data, ("env", "vs", "seed", "config", "seat"))
        env = env_name(data.get("env"))
        spec = check_vs(data.get("vs", self.vs), self.vs)
        seed = data.get("seed")
        if seed is not None and not (is_int(seed) and 0 <= seed < 2**63):
            raise ApiError(400, f"field 'seed' must be a non-negative integer, got {show(seed)}")
        config = data.get("config")
        config = {} if config is None else config
        if not isinstance(config, dict):
            raise ApiError(400, f"field 'config' must be a JSON object, got {show(config)}")
        if "render_mode" in config:
            raise ApiError(400, "config key 'render_mode' is the server's to choose")
        try:
            config = resolve_config(env, config, self.tables)
        except InvalidConfigError as error:
            raise ApiError(400, f"cannot start {env}: {error}") from None
        seat = data.get("seat")
        if seat is not None and not (isinstance(seat, str) or is_int(seat)):
            raise ApiError(400, f"field 'seat' must be a seat name or index, got {show(seat)}")

        def build(gone: threading.Event) -> dict[str, Any]:
            name = seat
            try:
                if isinstance(seat, int):
                    seats = make_raw(env, **config).possible_agents
                    if not 0 <= seat < len(seats):
                        raise ApiError(400, f"seat {seat} is not one of 0..{len(seats) - 1}")
                    name = seats[seat]
                table = Table(env, spec, name, seed, config, self.think_seconds, stop=gone)
            except _BUILD_ERRORS as error:
                raise ApiError(400, f"cannot start {env}: {error}") from None
            game_id = self.games.add(table)
            with self.games.use(game_id) as held:
                return self.answer(game_id, held)

        return JSONResponse(await self.pool.run(request, build))

    async def show_game(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]

        def look() -> dict[str, Any] | None:
            with self.games.use(game_id) as table:
                return None if table.owes_moves() else self.answer(game_id, table)

        def catch_up(gone: threading.Event) -> dict[str, Any]:
            with self.games.use(game_id) as table:
                table.advance(gone)
                return self.answer(game_id, table)

        found = await run_in_threadpool(look)  # cheap: no agent moves
        if found is None:  # the agents' turns were stopped when an earlier client left
            found = await self.pool.run(request, catch_up)
        return JSONResponse(found)

    async def act(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        data = await read_json(request)
        fields(data, ("action",))
        action = data.get("action")
        if not is_int(action):
            raise ApiError(400, f"field 'action' must be an integer, got {show(action)}")

        def play(gone: threading.Event) -> dict[str, Any]:
            with self.games.use(game_id) as table:
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
                    self.games.drop(game_id)
                    log.error("agent %s failed in game %s", table.vs, game_id, exc_info=error)
                    raise ApiError(
                        500, f"the opponent agent {table.vs!r} failed ({error}); the game is closed"
                    ) from None
                return self.answer(game_id, table)

        return JSONResponse(await self.pool.run(request, play))

    async def rules(self, request: Request) -> Response:
        env = env_name(request.path_params["env"], 404)

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

    async def replays(self, request: Request) -> Response:
        # The record comes whole with every request (the page keeps it and asks page by
        # page); replay_answer checks all of it and renders one page (docs/web_api.md).
        options: dict[str, Any] = dict(request.query_params)
        if request.headers.get("content-type", "").startswith("application/json"):
            data = await read_json(request, MAX_REPLAY_BODY_BYTES)
            fields(data, REPLAY_FIELDS)
            record = data.get("record")
            if not isinstance(record, str):
                raise ApiError(400, f"field 'record' must be the record text, got {show(record)}")
            body = record.encode("utf-8", "surrogatepass")
            options = data
        else:
            fields(options, tuple(name for name in REPLAY_FIELDS if name != "record"))
            body = await read_body(request, MAX_RECORD_BYTES)
        try:
            ask = replay_ask(options)
        except InvalidConfigError as error:
            raise ApiError(400, str(error)) from None

        def step_through(gone: threading.Event) -> dict[str, Any]:
            try:
                return replay_answer(body, ask, self.tables)  # a record names no file either
            except CardArenaError as error:  # InvalidConfigError, ReplayError
                raise ApiError(400, str(error)) from None

        # Checking a long record takes seconds of CPU: it waits for a worker like a search.
        return JSONResponse(await self.pool.run(request, step_through))


__all__ = ["STATIC", "Routes"]
