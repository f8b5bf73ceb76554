"""``cardarena bench --vector``: the vector engines beside OpenSpiel and the games' own env().

In one process on one core, rounds interleave every candidate so that load on a noisy machine
hits all alike, and the table reports medians:

- ``leduc_poker+obs``: OpenSpiel's leduc_poker driven from Python, the player to act's
  ``observation_tensor`` and legal mask taken at every decision (chance nodes sampled, not
  counted), the usual yardstick of a fast C++ game from Python;
- each game's own ``env()`` through the AEC API (as plain ``cardarena bench``);
- each game's ``make_vec`` engine at 64, 256, 1,024 and 4,096 games: the time of ``step``
  (action checks, rules, autoreset deals, the observation rows and masks for the seat to act)
  with one uniform legal action per game drawn outside the clock
  (``kernels.random_legal_actions``); finished games are dealt anew and not counted.

Beside the rates: the memory a 4,096-game batch holds (numpy allocations traced while it is
built and stepped), and how close each engine comes to the limit of writing its observation
rows at the memory bandwidth measured in the same run (``out[:] = rows`` on a 4,096-row
float32 array: a decision cannot cost less than writing its row).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cardarena.envs import make
from cardarena.envs.core import CardArenaError
from cardarena.envs.core.kernels import JIT_ENABLED, random_legal_actions
from cardarena.envs.vector import has_vector, make_vec

from .engines import decisions_per_second, env_games

LEDUC = "leduc_poker+obs"
#: Batch sizes of the table.
SIZES = (64, 256, 1024, 4096)


def leduc_round(seconds: float, seed: int) -> float:
    """Decisions per second of OpenSpiel's leduc_poker with observation tensors and masks."""
    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    rng = np.random.default_rng(seed)
    decisions = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            player = state.current_player()
            np.asarray(state.observation_tensor(player), np.float32)
            np.asarray(state.legal_actions_mask(player), np.int8)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions / (time.perf_counter() - started)


class VectorRound:
    """One engine at one batch size, kept between rounds (it is built and warmed once)."""

    def __init__(self, name: str, num_envs: int, seed: int) -> None:
        self.venv = make_vec(name, num_envs, seed=seed)
        self.rng = np.random.default_rng(seed)
        self.batch = self.venv.reset()
        self(0.05)  # compiles (or loads the cache) and warms up

    def __call__(self, seconds: float) -> float:
        venv, rng = self.venv, self.rng
        batch = self.batch
        decisions = 0
        stepping = 0.0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            playing = int(batch.current_player.size - np.count_nonzero(batch.current_player < 0))
            actions = random_legal_actions(batch.action_mask, rng)
            started = time.perf_counter()
            batch = venv.step(actions)
            stepping += time.perf_counter() - started
            decisions += playing
        self.batch = batch
        return decisions / stepping


def _engine_round(engine: VectorRound, seconds: float, _seed: int) -> float:
    return engine(seconds)


def env_round(name: str, seconds: float, seed: int) -> float:
    return decisions_per_second(env_games(partial(make, name), seed), seconds, seed)


def write_bandwidth(width: int, rows: int = 4096, repeats: int = 20) -> float:
    """Bytes per second of copying a float32 ``[rows, width]`` block into another (the write
    of a batch's observation rows), best of ``repeats``."""
    source = np.ones((rows, width), np.float32)
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        target[:] = source
        best = min(best, time.perf_counter() - started)
    return source.nbytes / best


def batch_memory(name: str, num_envs: int = 4096) -> int:
    """Peak bytes numpy allocates to build a ``num_envs`` batch and step it a few times."""
    tracemalloc.start()
    try:
        venv = make_vec(name, num_envs, seed=0)
        rng = np.random.default_rng(0)
        batch = venv.reset()
        for _ in range(5):
            batch = venv.step(random_legal_actions(batch.action_mask, rng))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_vector(names: list[str], seconds: float, rounds: int, sizes: tuple[int, ...] = SIZES,
               print_line: Callable[[str], Any] = print) -> dict[str, float]:  # fmt: skip
    """Measure and print the table; returns the median rate per row label."""
    names = [name for name in names if has_vector(name)]
    if not names:
        raise CardArenaError("bench --vector: none of the chosen envs has a vector engine")
    candidates: dict[str, Callable[[float, int], float]] = {}
    try:
        import pyspiel  # noqa: F401

        candidates[LEDUC] = leduc_round
    except ImportError:
        print_line("(OpenSpiel is not installed: pip install open_spiel for the leduc column)")
    engines: dict[tuple[str, int], VectorRound] = {}
    for name in names:
        candidates[f"{name} env()"] = partial(env_round, name)
        for size in sizes:
            engine = engines[(name, size)] = VectorRound(name, size, seed=0)
            candidates[f"{name} x{size}"] = partial(_engine_round, engine)
    results: dict[str, list[float]] = {label: [] for label in candidates}
    for round_index in range(rounds):
        for label, measure in candidates.items():
            results[label].append(measure(seconds, round_index))
    medians = {label: statistics.median(samples) for label, samples in results.items()}
    leduc = medians.get(LEDUC)
    header = (f"{'engine':<26} {'decisions/s':>12} {'x leduc+obs':>11} {'x env()':>8} "
              f"{'obs floats':>10} {'of write limit':>14}")  # fmt: skip
    print_line(header)
    if leduc is not None:
        print_line(f"{LEDUC:<26} {leduc:>12,.0f} {1.0:>11.2f}")
    bandwidth: dict[int, float] = {}
    for name in names:
        own = medians[f"{name} env()"]
        width = engines[(name, sizes[0])].venv.observation_size
        bandwidth[width] = bandwidth.get(width) or write_bandwidth(width)
        limit = bandwidth[width] / (4 * width)  # rows per second the memory can take
        print_line(f"{name + ' env()':<26} {own:>12,.0f} "
                   f"{own / leduc if leduc else float('nan'):>11.2f} {1.0:>8.2f}")  # fmt: skip
        for size in sizes:
            rate = medians[f"{name} x{size}"]
            print_line(
                f"{name + f' x{size}':<26} {rate:>12,.0f} "
                f"{rate / leduc if leduc else float('nan'):>11.2f} {rate / own:>8.1f} "
                f"{width:>10} {rate / limit:>13.1%}"
            )
    for name in names:
        print_line(f"memory of {name} x4096: {batch_memory(name) / 2**20:,.0f} MiB")
    for width, rate in sorted(bandwidth.items()):
        print_line(f"write bandwidth ({width}-float rows x4096): {rate / 1e9:.1f} GB/s")
    print_line(
        f"({rounds} interleaved rounds of {seconds:g} s each, one process, one core; JIT "
        f"{'on (numba)' if JIT_ENABLED else 'OFF: install the fast extra (numba)'}; vector: "
        "time in step() with random legal actions, observation rows and masks for the seat "
        "to act included, finished games not counted; 'of write limit': decisions/s over "
        "the rows/s the measured bandwidth allows)"
    )
    return medians


def run(args: argparse.Namespace) -> None:
    """``cardarena bench --vector`` with the parsed bench flags."""
    run_vector(list(args.env), args.seconds, args.rounds, tuple(args.num_envs))
