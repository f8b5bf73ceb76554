"""``cardarena bench``'s default table: random-play throughput of every cardarena env beside
PettingZoo's own classic envs.

Every env is driven the same way: the wrapped ``env()`` through the AEC API (``agent_iter``,
``last``, ``step``) with a uniformly random legal action drawn from one seeded generator.
Only *decisions* are counted (steps where an agent chose an action); the dead steps at the end
of a game are played but not counted, so a game with many seats is not flattered. Rounds
interleave the envs so that load on a noisy machine hits all of them alike; the table reports
the median decisions per second and the ratio to tictactoe_v3 measured in the same run.

For our envs a second column gives the pure rules rate: the rules state alone
(``legal_action_mask`` + ``apply_action``, no observation), i.e. what the env layer costs on
top of the game.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cardarena.envs import make, make_raw
from cardarena.envs.core import CardArenaError, install_hint

REFERENCE = "tictactoe_v3"


def pettingzoo_classic(name: str) -> Callable[[], Any]:
    """A PettingZoo classic env factory, through the registry where PettingZoo has one."""
    try:
        from pettingzoo import make as pz_make

        game, _, version = name.rpartition("_v")
        return lambda: pz_make("aec", f"classic/{game}-v{version}")
    except ImportError:  # PettingZoo < 1.27
        import importlib

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(f"pettingzoo.classic.{name}")
        return module.env


def decisions_per_second(play_game: Callable[[int], int], seconds: float, seed: int) -> float:
    """Play games ``play_game(game_seed) -> decisions`` for ``seconds``; decisions per second."""
    decisions = 0
    game = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        decisions += play_game(seed + game)
        game += 1
    return decisions / (time.perf_counter() - started)


def env_games(env_fn: Callable[[], Any], seed: int) -> Callable[[int], int]:
    """Random games through the AEC API; dead steps are played but not counted."""
    env = env_fn()
    rng = np.random.default_rng(seed)

    def play(game_seed: int) -> int:
        env.reset(seed=game_seed)
        decisions = 0
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
        return decisions

    return play


def rules_games(name: str, seed: int) -> Callable[[int], int]:
    """Random games of the rules state alone: mask, checked ``apply_action``, no observation."""
    game_config = make_raw(name).game
    rng = np.random.default_rng(seed)

    def play(game_seed: int) -> int:
        state = game_config.new_initial_state(np.random.default_rng(game_seed))
        decisions = 0
        while not (state.is_terminal() or state.is_truncated()):
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply_action(int(legal[rng.integers(legal.size)]))
            decisions += 1
        return decisions

    return play


def classic_factory(name: str) -> Callable[[], Any]:
    """``pettingzoo_classic(name)``, tried once, so that a missing dependency of PettingZoo's
    classic envs (pygame) is one line naming the extra, not a traceback mid-benchmark."""
    try:
        factory = pettingzoo_classic(name)
        factory().close()
    except Exception as error:
        missing = missing_module(error)
        if missing is None:
            raise
        raise CardArenaError(
            f"bench compares with PettingZoo's classic {name}, which needs {missing} "
            f"(in the 'dev' extra): {install_hint('dev')}, or pip install pygame-ce"
        ) from error
    return factory


def missing_module(error: BaseException | None) -> str | None:
    """The module an ``ImportError`` somewhere in ``error``'s chain failed to import (PettingZoo
    wraps it in its own ``FailedToImport``, curves in a plain ``ImportError``); None if none."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, ImportError) and error.name:
            return error.name
        error = error.__cause__ or error.__context__
        seen += 1
    return None


def run(args: argparse.Namespace) -> None:
    """Measure and print the table for parsed ``args`` (``--seconds``, ``--rounds``, ``--env``;
    checked by ``args.check_args``)."""
    candidates: dict[str, Callable[[int], Callable[[int], int]]] = {}
    for name in (REFERENCE, "connect_four_v3"):
        candidates[name] = partial(env_games, classic_factory(name))
    for name in args.env:
        candidates[name] = partial(env_games, partial(make, name))
        candidates[f"{name} (rules)"] = partial(rules_games, name)
    results: dict[str, list[float]] = {name: [] for name in candidates}
    for round_index in range(args.rounds):
        for name, games in candidates.items():
            rate = decisions_per_second(games(round_index), args.seconds, round_index)
            results[name].append(rate)

    reference = statistics.median(results[REFERENCE])
    header = f"{'env':<28} {'decisions/s':>12} {'min':>9} {'max':>9} {'x ' + REFERENCE:>16}"
    print(header)
    for name, samples in results.items():
        median = statistics.median(samples)
        print(f"{name:<28} {median:>12,.0f} {min(samples):>9,.0f} {max(samples):>9,.0f} "
              f"{median / reference:>16.2f}")  # fmt: skip
    print(
        f"({args.rounds} interleaved rounds of {args.seconds:g} s each; wrapped env() through "
        "the AEC API, or the rules state alone; random legal actions; dead steps not counted)"
    )
