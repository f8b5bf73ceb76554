"""Random-play throughput of every cardarena env beside PettingZoo's own classic envs.

Every env is driven the same way: the wrapped ``env()`` through the AEC API (``agent_iter``,
``last``, ``step``) with a uniformly random legal action drawn from one seeded generator.
Rounds interleave the envs so that load on a noisy machine hits all of them alike; the table
reports the median steps per second and the ratio to tictactoe_v3 measured in the same run.

    python bench/throughput.py [--seconds 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np

from cardarena.envs import ENVS, make

REFERENCE = "tictactoe_v3"


def pettingzoo_classic(name: str) -> Callable[[], object]:
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


def steps_per_second(env_fn: Callable[[], object], seconds: float, seed: int) -> float:
    env = env_fn()
    rng = np.random.default_rng(seed)
    steps = 0
    game = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per env per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    candidates: dict[str, Callable[[], object]] = {
        REFERENCE: pettingzoo_classic(REFERENCE),
        "connect_four_v3": pettingzoo_classic("connect_four_v3"),
    }
    for name in ENVS:
        candidates[name] = lambda name=name: make(name)
    results: dict[str, list[float]] = {name: [] for name in candidates}
    for round_index in range(args.rounds):
        for name, env_fn in candidates.items():
            results[name].append(steps_per_second(env_fn, args.seconds, seed=round_index))

    reference = statistics.median(results[REFERENCE])
    print(f"{'env':<20} {'steps/s (median)':>17} {'min':>9} {'max':>9} {'x ' + REFERENCE:>16}")
    for name, samples in results.items():
        median = statistics.median(samples)
        print(f"{name:<20} {median:>17,.0f} {min(samples):>9,.0f} {max(samples):>9,.0f} "
              f"{median / reference:>16.2f}")  # fmt: skip
    print(
        f"({args.rounds} interleaved rounds of {args.seconds:g} s each, wrapped env(), "
        "random legal actions)"
    )


if __name__ == "__main__":
    main()
