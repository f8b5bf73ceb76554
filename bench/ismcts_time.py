"""How long an ``ismcts`` decision takes, per iteration budget and per game.

``python bench/ismcts_time.py [--budgets 25 50 100 200] [--positions 12] [--envs ...]
[--nodes observations|actions]``

The positions are decisions with a choice (a forced move costs nothing) taken from random
games of each env's default configuration, spread over the whole game (early decisions have
long rollouts ahead, late ones short). Each is timed once per budget, on one core, through
``choose`` exactly as a harness calls it (the resampling included). Prints the mean, median
and slowest decision in milliseconds of process CPU time (wall time on an idle core is the
same; CPU time does not grow when other programs share the machine).
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

import numpy as np

from cardarena.agents import EnvSpec, choose, make_agent, start_game
from cardarena.agents.ismcts import NODE_KINDS
from cardarena.envs import ENVS, make_raw


def positions(env_name: str, count: int, seed: int = 0) -> list[Any]:
    """``count`` rules states at decisions with a choice, each from its own random game and
    at a random point of it."""
    rng = np.random.default_rng(seed)
    found: list[Any] = []
    game = 0
    while len(found) < count:
        env = make_raw(env_name)
        env.reset(seed=game)
        game += 1
        states = []
        while not (env.game_state.is_terminal() or env.game_state.is_truncated()):
            legal = np.flatnonzero(env.game_state.legal_action_mask())
            if legal.size > 1:
                states.append(env.game_state.clone())
            env.step(int(legal[rng.integers(legal.size)]))
        if states:
            found.append(states[int(rng.integers(len(states)))])
    return found


def decision_times(
    env_name: str, budget: int, states: list[Any], nodes: str = "observations"
) -> np.ndarray:
    """CPU seconds per decision of ``ismcts:iterations=budget,nodes=nodes`` at each of
    ``states``."""
    env = make_raw(env_name)
    env.reset(seed=0)
    spec = EnvSpec(env_name)
    times = []
    for number, state in enumerate(states):
        env.set_state(state.clone())
        seat = env.agent_selection
        observation = env.observe(seat)
        agent = make_agent(f"ismcts:iterations={budget},nodes={nodes}", seed=number)
        start_game(agent, seat, spec)
        start = time.process_time()
        choose(agent, observation, env, seat)
        times.append(time.process_time() - start)
    return np.array(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[25, 50, 100, 200])
    parser.add_argument("--positions", type=int, default=12, help="decisions timed per game")
    parser.add_argument("--envs", nargs="+", default=list(ENVS))
    parser.add_argument("--nodes", choices=NODE_KINDS, default=NODE_KINDS[0])
    args = parser.parse_args(argv)
    print(
        f"ismcts decision time, CPU ms (mean / median / max over {args.positions} decisions from "
        f"random games, default configs, nodes={args.nodes}; {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    print(f"{'env':16s}" + "".join(f"{f'{b} iterations':>22s}" for b in args.budgets))
    for env_name in args.envs:
        states = positions(env_name, args.positions)
        cells = []
        for budget in args.budgets:
            ms = decision_times(env_name, budget, states, args.nodes) * 1000
            cells.append(f"{ms.mean():6.0f} /{np.median(ms):5.0f} /{ms.max():5.0f}")
        print(f"{env_name:16s}" + "".join(f"{cell:>22s}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()
