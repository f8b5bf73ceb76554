"""Issue 18: array-at-a-time numpy vs per-game numba loops, measured on Iron Man 2 Game of War.

    .venv/bin/python bench/prototypes/compare_ironman.py            # speed table and ratio
    .venv/bin/python bench/prototypes/compare_ironman.py --check    # prove the numpy prototype

Speed: decisions per second of one vector step (autoreset, rules, legal masks [N, 17] and
observation rows [N, 259] float32 of the player to act) at 64, 256, 1024 and 4096 games, for
the numpy prototype (``ironman_numpy.py``) and, if ``envs/ironman_war/vector.py`` exists and
works, for ``make_vec("ironman_war_v0", N, seed=0)``. Random legal actions are chosen outside
the timed call. The engines alternate round by round (order flipped every round) on this noisy
2-core box; the table shows the median round of each and the spread of per-round ratios.

Check: random legal play in the prototype while the reference rules (``rules.py``) replay the
same actions; the prototype's deck orders are fed to the reference through its generator's
``shuffle`` (so every deal and reshuffle is the same and every transition is compared). After
each transition both seats' observations must equal ``raw_env().observe`` bit for bit, the
mask ``legal_action_mask()``, and player to act, ends and rewards the reference's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter, deque
from typing import Any

for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # one core each: the numpy prototype's matmuls too

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ironman_numpy import NumpyIronManWar  # noqa: E402

SIZES = (64, 256, 1024, 4096)


def random_legal_actions(
    mask: np.ndarray, rng: np.random.Generator, concede: float = 1.0
) -> np.ndarray:
    """A random legal action per row (0 where none is legal), uniform as tests/vector does,
    except that conceding has weight ``concede`` (below 1: longer games, more reshuffles)."""
    keys = rng.random(mask.shape)
    if concede != 1.0:
        keys[:, 8] **= 1.0 / concede  # P(max) of a key u**(1/w) among uniforms: weight w
    return np.where(mask, keys, -1.0).argmax(axis=1).astype(np.int64)


class FeedRng:
    """Stands in for the reference state's generator: each ``shuffle`` lays out the next deck
    order the prototype drew for that game (after checking it holds the same cards)."""

    def __init__(self, queue: deque[np.ndarray]) -> None:
        self.queue = queue

    def shuffle(self, pile: np.ndarray) -> None:
        assert self.queue, "the reference shuffles where the prototype did not"
        order = self.queue.popleft()[: len(pile)]
        assert len(order) == len(pile) and np.array_equal(np.sort(order), np.sort(pile)), (
            "the reference shuffles other cards than the prototype"
        )
        pile[:] = order


#: Check runs: (name, config, weight of conceding). The default config is the one measured;
#: the small deck of ``raw_env.example_configs`` makes reshuffles, empty hands and the round
#: cap frequent (same code paths).
CHECKS: tuple[tuple[str, dict[str, Any], float], ...] = (
    ("default, uniform", {}, 1.0),
    ("default, rarely conceding", {}, 0.02),
    (
        "small deck, max_rounds 4",
        {"deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2}, "max_rounds": 4},
        1.0,
    ),
)


def check(
    transitions: int = 30_000,
    config: dict[str, Any] | None = None,
    concede: float = 1.0,
    num_envs: int = 64,
    seed: int = 1,
) -> Counter[str]:
    """Random legal play, every transition of every game compared with the reference."""
    from cardarena.envs.ironman_war.env import raw_env
    from cardarena.envs.ironman_war.rules import GAME_OVER, IronManWarState

    raw = raw_env(**(config or {}))
    game = raw.game
    agents = raw.possible_agents
    proto = NumpyIronManWar(num_envs, seed, game.deck, max_rounds=game.max_rounds, record=True)
    queues: list[deque[np.ndarray]] = [deque() for _ in range(num_envs)]

    def drain() -> None:
        for games, piles in proto.shuffle_log:
            for row, index in enumerate(games.tolist()):
                queues[index].append(piles[row])
        proto.shuffle_log.clear()

    def deal(index: int) -> IronManWarState:
        state = game.new_initial_state(FeedRng(queues[index]))
        counts["deals"] += 1
        return state

    counts: Counter[str] = Counter()
    proto.reset()
    drain()
    refs = [deal(i) for i in range(num_envs)]
    rng = np.random.default_rng(seed)
    by_seat = np.zeros((2, num_envs, proto.obs.shape[1]), np.float32)
    ended = np.zeros(num_envs, np.bool_)
    while True:
        for seat in (0, 1):
            proto.observations(np.full(num_envs, seat), by_seat[seat])
        for i, ref in enumerate(refs):
            where = f"game {i} after {counts['transitions']} transitions"
            assert not queues[i], f"{where}: the prototype shuffled more than the reference"
            assert np.array_equal(proto.mask[i], ref.legal_action_mask()), where
            assert proto.current_player[i] == ref.current_player(), where
            assert proto.terminated[i] == ref.terminal, where
            assert proto.truncated[i] == ref.truncated, where
            returns = ref.returns() if ended[i] else (0.0, 0.0)
            assert np.array_equal(proto.rewards[i], np.array(returns, np.float32)), where
            raw.set_state(ref)
            for seat, agent in enumerate(agents):
                expected = raw.observe(agent)["observation"]
                assert expected.dtype == np.float32, where
                if not np.array_equal(by_seat[seat, i], expected):
                    bad = np.flatnonzero(by_seat[seat, i] != expected).tolist()
                    raise AssertionError(f"{where}: seat {seat} observation differs at {bad}")
            assert np.array_equal(proto.obs[i], by_seat[proto.viewers()[i], i]), where
            if ref.decision != GAME_OVER:
                counts[f"decision {ref.decision}"] += 1
            counts["empty hand in battle"] += ref.decision != 0 and min(ref.hand_sizes) == 0
        if counts["transitions"] >= transitions:
            return counts
        done = proto.terminated | proto.truncated
        actions = random_legal_actions(proto.mask, rng, concede)
        proto.step(actions)
        drain()
        reshuffles = sum(len(q) for q in queues)
        for i in range(num_envs):
            if done[i]:
                refs[i] = deal(i)
                reshuffles -= 2
                continue
            ref = refs[i]
            cancels = ref.last_reveal
            ref.apply_action(int(actions[i]))
            counts["transitions"] += 1
            counts["cancel (last reveal)"] += (
                ref.last_reveal is not cancels and min(ref.last_reveal) >= 5
            )
            ended[i] = ref.terminal or ref.truncated
            counts["won"] += ref.terminal
            counts["truncated"] += ref.truncated
        counts["reshuffles"] += reshuffles
        ended &= ~done


# --- speed -------------------------------------------------------------------------------
class NumpyRunner:
    name = "numpy prototype"

    def __init__(self, n: int) -> None:
        self.engine = NumpyIronManWar(n, seed=0)
        self.engine.reset()
        self.rng = np.random.default_rng(0)

    def run(self, seconds: float) -> float:
        engine, rng = self.engine, self.rng
        spent, decisions = 0.0, 0
        while spent < seconds:
            actions = random_legal_actions(engine.mask, rng)
            decisions += int((~(engine.terminated | engine.truncated)).sum())
            start = time.perf_counter()
            engine.step(actions)
            spent += time.perf_counter() - start
        return decisions / spent


class NumbaRunner:
    name = "numba make_vec"

    def __init__(self, n: int) -> None:
        from cardarena.envs.vector import make_vec

        self.venv = make_vec("ironman_war_v0", n, seed=0)
        self.batch = self.venv.reset()
        self.rng = np.random.default_rng(0)

    def run(self, seconds: float) -> float:
        venv, rng = self.venv, self.rng
        spent, decisions = 0.0, 0
        batch = self.batch
        while spent < seconds:
            actions = random_legal_actions(batch.action_mask, rng)
            decisions += int((~batch.done).sum())
            start = time.perf_counter()
            batch = venv.step(actions)
            spent += time.perf_counter() - start
        self.batch = batch
        return decisions / spent


def numba_available() -> str | None:
    """None if the numba engine runs, else why not."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "envs", "ironman_war", "vector.py")
    if not os.path.exists(path):
        return "envs/ironman_war/vector.py does not exist"
    try:
        runner = NumbaRunner(8)
        runner.run(0.05)
    except Exception as error:  # report any failure of a half-done engine
        return f"make_vec('ironman_war_v0') fails: {type(error).__name__}: {error}"
    return None


def bench(sizes: tuple[int, ...], rounds: int, seconds: float) -> None:
    missing = numba_available()
    if missing:
        print(f"numba engine not measured: {missing}")
    kinds: list[Any] = [NumpyRunner] + ([] if missing else [NumbaRunner])
    print(f"decisions/s (median of {rounds} interleaved rounds of {seconds:g} s each)")
    header = f"{'games':>6} " + " ".join(f"{k.name:>16}" for k in kinds)
    print(header + ("   numba/numpy" if len(kinds) == 2 else ""))
    for n in sizes:
        runners = [kind(n) for kind in kinds]
        for runner in runners:
            runner.run(min(0.2, seconds))  # warm up (caches, JIT, a few autoresets)
        speeds: list[list[float]] = [[] for _ in runners]
        for round_ in range(rounds):
            order = range(len(runners)) if round_ % 2 == 0 else reversed(range(len(runners)))
            for index in order:
                speeds[index].append(runners[index].run(seconds))
        medians = [statistics.median(s) for s in speeds]
        line = f"{n:>6} " + " ".join(f"{m:>16,.0f}" for m in medians)
        if len(medians) == 2:
            ratios = [b / a for a, b in zip(*speeds, strict=True)]
            spread = f"rounds {min(ratios):.1f}-{max(ratios):.1f}"
            line += f"   {medians[1] / medians[0]:6.1f}x ({spread})"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="prove the prototype instead")
    parser.add_argument("--transitions", type=int, default=30_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per engine and round")
    args = parser.parse_args()
    if args.check:
        for name, config, concede in CHECKS:
            start = time.perf_counter()
            counts = check(args.transitions, config, concede)
            seconds = time.perf_counter() - start
            print(f"{name}: passed in {seconds:.0f} s: {dict(sorted(counts.items()))}", flush=True)
    else:
        bench(tuple(args.sizes), args.rounds, args.seconds)


if __name__ == "__main__":
    main()
