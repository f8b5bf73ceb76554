"""``cardarena serve``: play in a browser, a web table for every env (the ``web`` extra)."""

from __future__ import annotations

import argparse
from typing import TextIO

from cardarena.agents import AGENT_SPECS, EnvSpec, make_agent, parse_spec, start_game
from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, install_hint
from cardarena.envs.core.untrusted import printable

from .args import MAX_GAMES, PORT, THINK_SECONDS, WORKERS
from .common import check_number


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Every flag and the ``--vs`` spec are checked before the web stack is imported."""
    from cardarena.envs import make_raw

    check_number("--port", PORT, args.port)
    check_number("--max-games", MAX_GAMES, args.max_games)
    check_number("--workers", WORKERS, args.workers)
    check_number("--think-seconds", THINK_SECONDS, args.think_seconds)
    for name in sorted(ENVS):  # the spec must at least exist; fitting a config is per game
        seat = make_raw(name).possible_agents[0]
        try:
            start_game(make_agent(args.vs), seat, EnvSpec(name, {}))
        except InvalidConfigError:
            if parse_spec(args.vs)[0] not in AGENT_SPECS:
                raise
    try:
        from cardarena.web.server import run_server
    except ImportError as error:
        raise InvalidConfigError(
            f"cardarena serve needs the 'web' extra ({printable(error, 80)}): {install_hint('web')}"
        ) from None
    run_server(
        args.host,
        args.port,
        args.vs,
        args.max_games,
        float(args.idle_minutes) * 60,
        allowed=args.allowed_host or (),
        workers=args.workers,
        think_seconds=float(args.think_seconds),
        decks=args.deck or (),
    )
    return 0
