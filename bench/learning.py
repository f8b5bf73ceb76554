"""``cardarena bench --learn``: training steps per second of both PPO backends in one run.

Each backend runs in the geometry ``cardarena train`` uses by default, so the table answers
"how much faster does ``--backend vector`` train this game, on this machine, today":

- **sb3**: MaskablePPO ``learn()`` with ``n_envs`` in-process envs in a DummyVecEnv, the game's
  ``DEFAULTS`` (``n_steps``, ``batch_size``, ``net_arch``) and the PPO settings of a default
  ``TrainArgs`` (5 epochs); tictactoe_v3 runs through the same ``SingleAgentEnv`` bridge with
  promise_war's settings, as a reference row.
- **vector**: ``VectorPPO.learn_rollout()`` (``cardarena.training.vector.ppo``) on a
  ``LearnerBatch``, with the ``PPOConfig`` that ``cardarena train ENV --backend vector`` builds
  (``ppo_config(TrainArgs(env=ENV, backend="vector").resolved())``: 1,024 games x 32 steps,
  minibatches of 8,192 (2,048 for Beast Wars and Cardline), the same ``net_arch`` and epochs,
  ``precision`` auto).

Both play random opponents on one torch thread. A round of a backend is whole rollouts
(``learn(K)`` for SB3, K ``learn_rollout()`` calls for vector), K chosen from one warm-up
rollout so that a round lasts about ``--seconds`` (at least one rollout); rounds interleave
every game and backend so that load on a shared machine hits all alike, and the table reports
medians.

Why the FLOP columns: one learner decision costs the same arithmetic on both backends (a forward
pass while collecting, then ``n_epochs`` forward and backward passes in the update;
``training.vector.ppo.flops_per_step``), since minibatch size changes how the work is cut, not
how much there is. So the steps/s ratio is a ratio of achieved FLOP/s, and the share of the
machine's matrix-product peak (measured in the same run, one thread, in the precision the vector
config uses: the best of a few trials before the rounds and one in each round) says how much
room is left.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from cardarena.envs import ENVS, make
from cardarena.envs.core import CardArenaError, InvalidConfigError, install_hint

from .args import LEARN_BACKENDS, check_args
from .engines import REFERENCE, classic_factory

#: The peak's product, ``[M, K] x [K, N]``: large enough to keep the matrix units busy, small
#: enough to stay in cache-friendly blocks as the training products do.
PEAK_SHAPE = (4096, 1024, 256)
#: Seconds per peak trial (at most ``--seconds``) and trials per precision before the rounds
#: (one more in each round; the best counts).
PEAK_SECONDS = 0.5
PEAK_TRIALS = 3
#: The env whose settings the tictactoe reference row trains with.
REFERENCE_SETTINGS = "promise_war_v0"


def learn_backends(args: argparse.Namespace) -> tuple[str, ...]:
    """The backends ``args.backends`` names, once each, in the table's order."""
    chosen = getattr(args, "backends", LEARN_BACKENDS)
    return tuple(name for name in LEARN_BACKENDS if name in chosen)


def _train_args(name: str, backend: str) -> Any:
    """The resolved default ``TrainArgs`` of ``cardarena train name --backend backend``."""
    from cardarena.training.train_args import TrainArgs

    return TrainArgs(env=name if name in ENVS else REFERENCE_SETTINGS, backend=backend).resolved()


class SB3LearnBench:
    """One game's MaskablePPO in ``cardarena train``'s geometry, with its vec env timed."""

    def __init__(self, name: str, env_fn: Callable[[], Any], n_envs: int, seed: int) -> None:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from cardarena.training.sb3.model import build_model
        from cardarena.training.single_agent import SingleAgentEnv

        args = _train_args(name, "sb3")
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
        # The same PPO settings as ``cardarena train`` passes (``train.py``): without them
        # ``build_model`` would fall back to SB3's 10 epochs, twice the work per step.
        self.model = build_model(self.vec_env, args.hyper, seed=seed, **args.ppo_settings())
        self.rollout = args.hyper["n_steps"] * n_envs
        self.steps = self.rollout

    @property
    def sizes(self) -> tuple[int, int]:
        """(flattened observation size, number of actions) the network sees."""
        space: Any = self.vec_env.action_space  # Discrete
        return int(math.prod(self.vec_env.observation_space.shape or ())), int(space.n)

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


class VectorLearnBench:
    """One game's ``VectorPPO`` in ``cardarena train --backend vector``'s default geometry."""

    def __init__(self, name: str, seed: int) -> None:
        from cardarena.training.vector.batch import LearnerBatch
        from cardarena.training.vector.ppo import VectorPPO, flops_per_step
        from cardarena.training.vector.run import ppo_config

        self.config = ppo_config(_train_args(name, "vector"))
        self.batch = LearnerBatch(name, self.config.num_envs, seed, ["random"], True, {})
        self.batch.reset()
        self.model = VectorPPO(self.batch, self.config, seed)
        self.flops = flops_per_step(
            self.batch.scaler.offset.size, self.batch.num_actions, self.config
        )
        self.rollouts = 1

    def learn(self, rollouts: int) -> float:
        """``rollouts`` calls of ``learn_rollout()``; steps per second."""
        before = self.model.num_timesteps
        started = time.perf_counter()
        for _ in range(rollouts):
            self.model.learn_rollout()
        return (self.model.num_timesteps - before) / (time.perf_counter() - started)

    def calibrate(self, seconds: float) -> None:
        """One warm-up rollout; then whole rollouts lasting about ``seconds`` per round."""
        rate = self.learn(1)
        self.rollouts = max(1, round(rate * seconds / self.config.rollout_size))


def matmul_peak(precision: str, seconds: float, trials: int) -> float:
    """FLOP/s of the best of ``trials`` runs of ``PEAK_SHAPE``'s product repeated for about
    ``seconds`` (at least once) in ``precision`` on torch's current threads: what this machine's
    matrix units give a well-shaped product, the ceiling for the training's products."""
    import torch

    m, k, n = PEAK_SHAPE
    dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
    generator = torch.Generator().manual_seed(0)
    a = torch.randn((m, k), generator=generator).to(dtype)
    b = torch.randn((k, n), generator=generator).to(dtype)
    out = torch.empty((m, n), dtype=dtype)
    torch.matmul(a, b, out=out)  # first call: kernel selection, buffers
    best = 0.0
    for _ in range(trials):
        products = 0
        started = time.perf_counter()
        while True:
            torch.matmul(a, b, out=out)
            products += 1
            elapsed = time.perf_counter() - started
            if elapsed >= seconds:
                break
        best = max(best, 2.0 * m * k * n * products / elapsed)
    return best


@dataclass
class LearnResults:
    """What a ``--learn`` run measured: per-round samples by env name (an env a backend did
    not run is absent from that backend's dicts)."""

    rounds: int
    seconds: float
    backends: tuple[str, ...]
    sb3_rates: dict[str, list[float]] = field(default_factory=dict)
    sb3_shares: dict[str, list[float]] = field(default_factory=dict)
    vector_rates: dict[str, list[float]] = field(default_factory=dict)
    #: FLOPs per learner decision of each cardarena env's default vector config.
    flops: dict[str, float] = field(default_factory=dict)
    #: Matmul peak FLOP/s by precision (measured only when vector runs).
    peaks: dict[str, float] = field(default_factory=dict)
    #: The vector config's precision (one for all games: ``default_precision``).
    precision: str = "float32"
    #: Epochs per rollout of each backend's models (both 5 by default).
    epochs: dict[str, set[int]] = field(default_factory=dict)
    #: The SB3 geometry's in-process envs, the vector one in words (for the notes).
    sb3_envs: int = 0
    vector_geometry: str = ""


def measure_learn(args: argparse.Namespace) -> LearnResults:
    """Build every bench, warm each up, then run ``args.rounds`` interleaved rounds."""
    import torch

    from cardarena.training.train_args import TrainArgs
    from cardarena.training.vector.ppo import PRECISIONS, PPOConfig, flops_per_step

    defaults = TrainArgs()
    torch.set_num_threads(defaults.torch_threads)
    torch.manual_seed(0)
    backends = learn_backends(args)
    results = LearnResults(args.rounds, args.seconds, backends)
    sb3: dict[str, SB3LearnBench] = {}
    vector: dict[str, VectorLearnBench] = {}
    if "sb3" in backends:
        factories: dict[str, Callable[[], Any]] = {REFERENCE: classic_factory(REFERENCE)}
        factories.update({name: partial(make, name) for name in args.env})
        sb3 = {name: SB3LearnBench(name, fn, defaults.n_envs, 0) for name, fn in factories.items()}
        results.epochs["sb3"] = {bench.model.n_epochs for bench in sb3.values()}
        results.sb3_envs = defaults.n_envs
    if "vector" in backends:
        vector = {name: VectorLearnBench(name, seed=0) for name in args.env}
    for name, bench in vector.items():
        results.flops[name] = bench.flops
        results.epochs.setdefault("vector", set()).add(bench.config.n_epochs)
        results.precision = bench.config.precision  # default_precision: one for every game
    if vector:
        sizes = ", ".join(f"{name} {b.config.minibatch_size}" for name, b in vector.items())
        first = next(iter(vector.values())).config
        results.vector_geometry = (
            f"{first.num_envs} games x {first.rollout_steps} steps, minibatches {sizes}"
        )
    peak_seconds = min(PEAK_SECONDS, args.seconds)

    def peak_trials(trials: int) -> None:  # the best so far of each precision
        for precision in PRECISIONS:
            best = results.peaks.get(precision, 0.0)
            results.peaks[precision] = max(best, matmul_peak(precision, peak_seconds, trials))

    if vector:
        peak_trials(PEAK_TRIALS)
    else:  # the same FLOPs per step on SB3, from its own spaces and the default settings
        from cardarena.training.vector.run import ppo_config

        for name in args.env:
            same: PPOConfig = ppo_config(_train_args(name, "vector"))
            results.flops[name] = flops_per_step(*sb3[name].sizes, same)
            results.precision = same.precision
    benches: list[SB3LearnBench | VectorLearnBench] = [*sb3.values(), *vector.values()]
    for each in benches:
        each.calibrate(args.seconds)
    for _round in range(args.rounds):
        if vector:  # one more trial per round, so load at the start does not set the peak
            peak_trials(1)
        for name in [REFERENCE, *args.env]:
            if name in sb3:
                rate, share = sb3[name].learn(sb3[name].steps)
                results.sb3_rates.setdefault(name, []).append(rate)
                results.sb3_shares.setdefault(name, []).append(share)
            if name in vector:
                results.vector_rates.setdefault(name, []).append(
                    vector[name].learn(vector[name].rollouts)
                )
    return results


def _cell(value: float | None, form: str) -> str:
    return "-" if value is None else format(value, form)


def learn_table(results: LearnResults) -> list[str]:
    """The printed lines: a header, one row per env (tictactoe first when SB3 ran), notes."""
    peak_name = results.precision
    peak = results.peaks.get(peak_name)
    header = (
        "env", "sb3 steps/s", "sb3 env share", "vector steps/s", "vector/sb3", "MFLOP/step",
        "vector GFLOP/s", f"% {peak_name} peak",
    )  # fmt: skip
    rows = []
    for name in ([REFERENCE] if REFERENCE in results.sb3_rates else []) + list(results.flops):
        sb3 = _median(results.sb3_rates.get(name))
        rate = _median(results.vector_rates.get(name))
        flops = results.flops.get(name)
        achieved = rate * flops if rate is not None and flops is not None else None
        rows.append(
            (
                name,
                _cell(sb3, ",.0f"),
                _cell(_median(results.sb3_shares.get(name)), ".0%"),
                _cell(rate, ",.0f"),
                _cell(rate / sb3 if rate is not None and sb3 else None, ".2f"),
                _cell(flops / 1e6 if flops is not None else None, ".2f"),
                _cell(achieved / 1e9 if achieved is not None else None, ",.1f"),
                _cell(achieved / peak if achieved is not None and peak else None, ".1%"),
            )
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]
    epochs = sorted(set().union(*results.epochs.values())) if results.epochs else []
    lines.append(
        f"({results.rounds} interleaved rounds of ~{results.seconds:g} s per backend, medians; "
        f"{' and '.join(results.backends)} with the game's net_arch and "
        f"{'/'.join(map(str, epochs))} epochs"
        + (" (the same on both)" if len(results.backends) > 1 and len(epochs) == 1 else "")
        + ", random opponents, 1 torch thread)"
    )
    if "sb3" in results.backends:
        lines.append(
            f"(sb3: MaskablePPO learn(), {results.sb3_envs} DummyVecEnv envs, n_steps and "
            "batch_size from DEFAULTS, tictactoe with promise_war's; env share = time in the "
            "vec env's reset/step_wait)"
        )
    if "vector" in results.backends:
        lines.append(
            "(vector: VectorPPO learn_rollout() in cardarena train --backend vector's default "
            f"geometry, {results.vector_geometry}, {results.precision})"
        )
    lines.append(
        "(MFLOP/step: training.vector.ppo.flops_per_step, the rollout's forward pass and each "
        "epoch's forward and backward passes: the same per step on both backends)"
    )
    if results.peaks:
        m, k, n = PEAK_SHAPE
        shown = ", ".join(f"{p} {v / 1e9:,.0f} GFLOP/s" for p, v in results.peaks.items())
        lines.append(
            f"(matmul peak, [{m}, {k}] x [{k}, {n}], 1 torch thread, best of "
            f"{PEAK_TRIALS + results.rounds} trials: "
            f"{shown}; the share is of the {peak_name} peak, the vector config's precision)"
        )
    return lines


def _median(samples: Sequence[float] | None) -> float | None:
    return statistics.median(samples) if samples else None


def run_learn(args: argparse.Namespace) -> None:
    """``--learn``: measure the backends ``args.backends`` names and print the table."""
    check_args(args)
    if learn_backends(args) == ("vector",) and not args.env:
        raise InvalidConfigError(
            "--backends vector measures the cardarena envs (no tictactoe_v3 reference row): "
            "give at least one --env, or leave --env out for all of them"
        )
    try:
        import torch  # noqa: F401 (only checked here)

        if "sb3" in learn_backends(args):
            import sb3_contrib  # noqa: F401
    except ImportError as missing:
        raise CardArenaError(
            f"bench --learn needs the 'train' extra ({missing.name} is missing): "
            f"{install_hint('train')}"
        ) from missing
    for line in learn_table(measure_learn(args)):
        print(line)


__all__ = [
    "PEAK_SHAPE",
    "LearnResults",
    "SB3LearnBench",
    "VectorLearnBench",
    "learn_backends",
    "learn_table",
    "matmul_peak",
    "measure_learn",
    "run_learn",
]
