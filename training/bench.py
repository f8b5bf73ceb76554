"""Random-play throughput of every cardarena env beside PettingZoo's own classic envs.

Every env is driven the same way: the wrapped ``env()`` through the AEC API (``agent_iter``,
``last``, ``step``) with a uniformly random legal action drawn from one seeded generator.
Only *decisions* are counted (steps where an agent chose an action); the dead steps at the end
of a game are played but not counted, so a game with many seats is not flattered. Rounds
interleave the envs so that load on a noisy machine hits all of them alike; the table reports
the median decisions per second and the ratio to tictactoe_v3 measured in the same run.

For our envs a second column gives the pure rules rate: the rules state alone
(``legal_action_mask`` + ``apply_action``, no observation), i.e. what the env layer costs on
top of the game.

With ``--vector`` it measures the batched engines instead (``bench_vector``: beside OpenSpiel's
leduc_poker and each game's ``env()``, at several batch sizes). With ``--learn`` it measures
training instead (``bench_learn``): steps per second of both PPO backends in ``cardarena
train``'s default geometry, MaskablePPO ``learn()`` (``--backend sb3``, with tictactoe_v3 as a
reference row) beside ``VectorPPO.learn_rollout()`` (``--backend vector``) with the same
network and epochs, their ratio, the FLOPs per step and the vector backend's share of the
machine's matrix-product peak; ``--backends`` runs one of them alone.

    cardarena bench [--seconds 2] [--rounds 5] [--env NAME ...]
    cardarena bench --learn [--backends sb3 vector] [--env NAME ...]
    cardarena bench --vector [--num-envs 64 256 1024 4096] [--env NAME ...]
    python bench/throughput.py ...   (the same)
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from cardarena.envs import ENVS, make, make_raw
from cardarena.envs.core import CardArenaError, InvalidConfigError, install_hint

from .schema import Number, add_dataclass_arguments, meta

REFERENCE = "tictactoe_v3"
#: What ``--seconds`` and ``--rounds`` allow (checked for the flags and for ``run(args)``).
SECONDS = Number(float, 0.0, 3600.0, low_open=True)
ROUNDS = Number(int, 1, 1000)
NUM_ENVS = Number(int, 1, 65536)
#: The training backends ``--learn`` measures (``--backends``), in the table's order.
LEARN_BACKENDS = ("sb3", "vector")


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


@dataclass
class BenchArgs:
    """decisions per second beside PettingZoo's envs

    Random-play throughput of every cardarena env beside PettingZoo's own classic envs, or
    with --learn the training steps per second of both PPO backends in cardarena train's
    default geometry."""

    seconds: float = field(default=2.0, metadata=meta(rule=SECONDS, metavar="S"))
    """Per env per round."""
    rounds: int = field(default=5, metadata=meta(rule=ROUNDS, metavar="R"))
    """Interleaved rounds."""
    env: list[str] = field(
        default_factory=lambda: sorted(ENVS), metadata=meta(nargs="*", metavar="ENV")
    )
    """Our envs to measure."""
    learn: bool = False
    """Training steps/s in cardarena train's default geometry, --backend sb3 (MaskablePPO)
    beside --backend vector, same network and epochs (needs the train extra)."""
    backends: list[str] = field(
        default_factory=lambda: list(LEARN_BACKENDS),
        metadata=meta(nargs="+", choices=LEARN_BACKENDS),
    )
    """The training backends --learn measures (default both, in one run)."""
    vector: bool = False
    """The batched engines (make_vec) beside OpenSpiel's leduc_poker and each env()."""
    num_envs: list[int] = field(
        default_factory=lambda: [64, 256, 1024, 4096],
        metadata=meta(nargs="+", rule=NUM_ENVS, metavar="N"),
    )
    """Batch sizes for --vector."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``cardarena bench`` flags (also ``bench/throughput.py``'s), from ``BenchArgs``."""
    add_dataclass_arguments(parser, BenchArgs, {"env": f"(default all: {', '.join(sorted(ENVS))})"})


def main(argv: list[str] | None = None) -> None:
    """``python bench/throughput.py``: the same flags and table as ``cardarena bench``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    try:
        run(parser.parse_args(argv))
    except CardArenaError as error:
        parser.exit(2, f"{parser.prog}: {error}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"\n{parser.prog}: stopped\n")


def check_args(args: argparse.Namespace) -> None:
    """``InvalidConfigError`` naming the flag, the value and what is allowed: the same checks
    as the flags' own, for a ``Namespace`` built in Python."""
    for flag, rule in (("--seconds", SECONDS), ("--rounds", ROUNDS)):
        problem = rule.problem(getattr(args, flag[2:]))
        if problem:
            raise InvalidConfigError(f"{flag} {problem}")
    sizes = getattr(args, "num_envs", [64])
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise InvalidConfigError(f"--num-envs must be a list of batch sizes, got {sizes!r}")
    for size in sizes:
        problem = NUM_ENVS.problem(size)
        if problem:
            raise InvalidConfigError(f"--num-envs {problem}")
    check_backends(args)
    names = getattr(args, "env", None)
    if not isinstance(names, (list, tuple)):
        raise InvalidConfigError(f"--env must be a list of env names, got {names!r}")
    unknown = [name for name in names if name not in ENVS]
    if unknown:
        raise InvalidConfigError(
            f"--env: unknown env{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; available: {', '.join(sorted(ENVS))}"
        )


def check_backends(args: argparse.Namespace) -> None:
    """``--backends``: a non-empty list of ``LEARN_BACKENDS``, only meaningful with ``--learn``
    (a repeated name counts once: ``bench_learn.learn_backends``)."""
    backends = getattr(args, "backends", list(LEARN_BACKENDS))
    allowed = ", ".join(LEARN_BACKENDS)
    if not isinstance(backends, (list, tuple)) or not backends:
        raise InvalidConfigError(
            f"--backends must be a non-empty list of training backends ({allowed}), "
            f"got {backends!r}"
        )
    unknown = [name for name in backends if name not in LEARN_BACKENDS]
    if unknown:
        raise InvalidConfigError(
            f"--backends: unknown backend{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; --learn measures {allowed}"
        )
    if not getattr(args, "learn", False) and sorted(set(backends)) != sorted(LEARN_BACKENDS):
        raise InvalidConfigError(
            f"--backends {' '.join(backends)} chooses what --learn measures: add --learn, "
            "or leave --backends out"
        )


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
    """Measure and print the table for parsed ``args`` (``--seconds``, ``--rounds``, ``--env``,
    ``--learn``)."""
    check_args(args)
    if getattr(args, "learn", False) and getattr(args, "vector", False):
        raise InvalidConfigError("--learn and --vector measure different things: choose one")
    if getattr(args, "learn", False):
        from .bench_learn import run_learn

        run_learn(args)
        return
    if getattr(args, "vector", False):
        from .bench_vector import run as run_vector

        run_vector(args)
        return

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


def __getattr__(name: str) -> Any:
    """The SB3 learn bench moved to ``bench_learn``; ``bench/rllib_throughput.py`` imports it
    from here as ``_LearnBench`` (imported on use: ``bench_learn`` imports this module)."""
    if name in ("_LearnBench", "run_learn"):
        from . import bench_learn

        return bench_learn.SB3LearnBench if name == "_LearnBench" else bench_learn.run_learn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
