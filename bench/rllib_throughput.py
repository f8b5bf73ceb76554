"""Env steps per second of the RLlib backend with 1 and 2 env runners, beside SB3 on the same
box in the same run (needs the ``rllib`` and ``train`` extras: ``make .venv-rllib/.installed``).

    .venv-rllib/bin/python bench/rllib_throughput.py [--env promise_war_v0] [--iterations 3]

Two rates per backend:

- **train**: env steps per second of whole training iterations (sampling plus PPO updates):
  RLlib ``algo.train()`` with batches of 2048 env steps and 5 epochs (``RLlibSettings``); SB3
  ``MaskablePPO.learn()`` in ``cardarena train``'s geometry (8 in-process envs, 1024-step
  rollouts, 5 epochs, the game's ``DEFAULTS``, random opponents).
- **sample**: env steps per second of sampling alone (envs and policy forward passes, no
  update): RLlib env runners' ``sample()``; SB3's ``collect_rollouts``.

RLlib's steps count every seat's decisions (self-play: both seats are the learner); SB3's
count the learner's only (the opponent's moves happen inside the env step), so per SB3 step
the env does about twice the work. A local Ray is started with one CPU per env runner.
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial
from typing import Any


def sb3_rates(env: str, iterations: int) -> tuple[float, float]:
    """(train, sample) steps/s of MaskablePPO in ``cardarena train``'s geometry."""
    import torch

    from cardarena.bench.learning import SB3LearnBench
    from cardarena.envs import make
    from cardarena.training.train_args import TrainArgs

    torch.set_num_threads(TrainArgs().torch_threads)
    bench = SB3LearnBench(env, partial(make, env), TrainArgs().n_envs, seed=0)
    bench.calibrate(3.0)
    collect = bench.model.collect_rollouts
    sampling = {"seconds": 0.0}

    def timed_collect(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            sampling["seconds"] += time.perf_counter() - started

    bench.model.collect_rollouts = timed_collect
    trains, samples = [], []
    for _ in range(iterations):
        sampling["seconds"] = 0.0
        before = bench.model.num_timesteps
        rate, _ = bench.learn(bench.steps)
        trains.append(rate)
        samples.append((bench.model.num_timesteps - before) / sampling["seconds"])
    return statistics.median(trains), statistics.median(samples)


def rllib_rates(env: str, runners: int, iterations: int) -> tuple[float, float]:
    """(train, sample) env steps/s of masked PPO self-play with ``runners`` env runners."""
    import ray

    from cardarena.training import rllib

    ray.init(num_cpus=runners, include_dashboard=False, log_to_driver=False)
    try:
        algo = rllib.build_ppo_config(env, num_env_runners=runners).build_algo()
        algo.train()  # warm-up: actors start, first forward passes
        trains = []
        for _ in range(iterations):
            started = time.perf_counter()
            result = algo.train()
            sampled = result["env_runners"]["num_env_steps_sampled"]
            trains.append(sampled / (time.perf_counter() - started))
        per_runner = 4096

        def sample(runner: Any) -> int:
            return sum(len(episode) for episode in runner.sample(num_timesteps=per_runner))

        started = time.perf_counter()
        steps = sum(algo.env_runner_group.foreach_env_runner(sample, local_env_runner=False))
        rate = steps / (time.perf_counter() - started)
        algo.stop()
        return statistics.median(trains), rate
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="promise_war_v0")
    parser.add_argument("--iterations", type=int, default=3, help="timed iterations per row")
    args = parser.parse_args()
    rows = [("SB3 MaskablePPO, 8 in-process envs", *sb3_rates(args.env, args.iterations))]
    for runners in (1, 2):
        label = f"RLlib PPO, {runners} env runner{'s' if runners > 1 else ''}"
        rows.append((label, *rllib_rates(args.env, runners, args.iterations)))
    print(f"{args.env}: env steps per second (median of {args.iterations} iterations)")
    print(f"{'backend':<36} {'train steps/s':>13} {'sample steps/s':>15}")
    for label, train, sample in rows:
        print(f"{label:<36} {train:>13,.0f} {sample:>15,.0f}")


if __name__ == "__main__":
    main()
