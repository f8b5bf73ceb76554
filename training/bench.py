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
training instead: MaskablePPO ``learn()`` steps per second in the
geometry ``cardarena train`` uses (``n_envs`` in-process envs in a DummyVecEnv, the game's
``DEFAULTS`` for ``n_steps``/``batch_size``/``net_arch``, random opponents, one torch thread),
with tictactoe_v3 through the same ``SingleAgentEnv`` bridge and promise_war's defaults. Each
round runs ``learn(K)`` with K (whole rollouts) chosen from a warm-up rollout so a round lasts
about ``--seconds``. The env share is the time spent in the vec env's ``reset``/``step_wait``
(the envs' ``step`` including the opponents' moves, observation scaling and auto-resets) over
the whole ``learn()`` time; the rest is the policy forward passes in ``collect_rollouts`` and
the gradient updates in ``train``.

    cardarena bench [--seconds 2] [--rounds 5] [--env NAME ...] [--learn]
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
from cardarena.envs.core import CardArenaError, InvalidConfigError

from .schema import Number, add_dataclass_arguments, meta

REFERENCE = "tictactoe_v3"
#: What ``--seconds`` and ``--rounds`` allow (checked for the flags and for ``run(args)``).
SECONDS = Number(float, 0.0, 3600.0, low_open=True)
ROUNDS = Number(int, 1, 1000)
NUM_ENVS = Number(int, 1, 65536)


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
    with --learn MaskablePPO learn() steps per second in cardarena train's geometry."""

    seconds: float = field(default=2.0, metadata=meta(rule=SECONDS, metavar="S"))
    """Per env per round."""
    rounds: int = field(default=5, metadata=meta(rule=ROUNDS, metavar="R"))
    """Interleaved rounds."""
    env: list[str] = field(
        default_factory=lambda: sorted(ENVS), metadata=meta(nargs="*", metavar="ENV")
    )
    """Our envs to measure."""
    learn: bool = False
    """MaskablePPO learn() steps/s in cardarena train's geometry (needs the train extra)."""
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
    names = getattr(args, "env", None)
    if not isinstance(names, (list, tuple)):
        raise InvalidConfigError(f"--env must be a list of env names, got {names!r}")
    unknown = [name for name in names if name not in ENVS]
    if unknown:
        raise InvalidConfigError(
            f"--env: unknown env{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; available: {', '.join(sorted(ENVS))}"
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
            "(in the 'dev' extra): pip install -e '.[dev]' from a clone, or pip install pygame-ce"
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


class _LearnBench:
    """One game's MaskablePPO in ``cardarena train``'s geometry, with its vec env timed."""

    def __init__(self, name: str, env_fn: Callable[[], Any], n_envs: int, seed: int) -> None:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from .ppo import build_model
        from .single_agent import SingleAgentEnv
        from .train_args import DEFAULTS, FALLBACK, TrainArgs

        defaults = TrainArgs()
        hyper = DEFAULTS.get(name, FALLBACK)
        bench = self

        class TimedVecEnv(DummyVecEnv):
            def reset(self) -> Any:
                started = time.perf_counter()
                try:
                    return super().reset()
                finally:
                    bench.env_seconds += time.perf_counter() - started

            def step_wait(self) -> Any:
                started = time.perf_counter()
                try:
                    return super().step_wait()
                finally:
                    bench.env_seconds += time.perf_counter() - started

        self.env_seconds = 0.0
        self.vec_env = TimedVecEnv([lambda: SingleAgentEnv(env_fn(), opponent="random")] * n_envs)
        self.vec_env.seed(seed)
        self.model = build_model(
            self.vec_env, hyper, n_epochs=defaults.n_epochs, gamma=defaults.gamma, seed=seed
        )
        self.rollout = hyper["n_steps"] * n_envs
        self.steps = self.rollout

    def learn(self, steps: int) -> tuple[float, float]:
        """``learn(steps)``; (steps per second, share of the time spent in the env)."""
        before, self.env_seconds = self.model.num_timesteps, 0.0
        started = time.perf_counter()
        self.model.learn(steps, reset_num_timesteps=False)
        elapsed = time.perf_counter() - started
        return (self.model.num_timesteps - before) / elapsed, self.env_seconds / elapsed

    def calibrate(self, seconds: float) -> None:
        """One warm-up rollout; then whole rollouts lasting about ``seconds`` per round."""
        rate, _ = self.learn(self.rollout)
        self.steps = self.rollout * max(1, round(rate * seconds / self.rollout))


def run_learn(args: argparse.Namespace) -> None:
    """``--learn``: median MaskablePPO ``learn()`` steps/s per game beside tictactoe_v3."""
    check_args(args)
    try:
        import sb3_contrib  # noqa: F401 (only checked here; _LearnBench uses it)
        import torch
    except ImportError as missing:
        raise CardArenaError(
            f"bench --learn needs the 'train' extra ({missing.name} is missing): "
            "pip install -e '.[train]' from a clone, or pip install 'cardarena[train]'"
        ) from missing
    from .train_args import TrainArgs

    torch.set_num_threads(TrainArgs().torch_threads)
    torch.manual_seed(0)
    n_envs = TrainArgs().n_envs
    factories: dict[str, Callable[[], Any]] = {REFERENCE: classic_factory(REFERENCE)}
    for name in args.env:
        factories[name] = partial(make, name)
    benches = {name: _LearnBench(name, fn, n_envs, seed=0) for name, fn in factories.items()}
    for bench in benches.values():
        bench.calibrate(args.seconds)
    rates: dict[str, list[float]] = {name: [] for name in benches}
    shares: dict[str, list[float]] = {name: [] for name in benches}
    for _round in range(args.rounds):
        for name, bench in benches.items():
            rate, share = bench.learn(bench.steps)
            rates[name].append(rate)
            shares[name].append(share)

    reference = statistics.median(rates[REFERENCE])
    print(
        f"{'env':<16} {'learn steps/s':>13} {'min':>7} {'max':>7} "
        f"{'x ' + REFERENCE:>16} {'env share':>10}"
    )
    for name, samples in rates.items():
        median = statistics.median(samples)
        print(f"{name:<16} {median:>13,.0f} {min(samples):>7,.0f} {max(samples):>7,.0f} "
              f"{median / reference:>16.2f} {statistics.median(shares[name]):>10.0%}")  # fmt: skip
    print(
        f"({args.rounds} interleaved rounds of ~{args.seconds:g} s each; MaskablePPO learn() "
        f"with {n_envs} DummyVecEnv envs, the game's DEFAULTS (tictactoe: promise_war's), random "
        "opponents, 1 torch thread; env share = time in the vec env's reset/step_wait)"
    )


if __name__ == "__main__":
    main()
