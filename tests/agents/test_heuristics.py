"""Baseline heuristics (issue 9, point 2): legal play everywhere, each beats random with a 95%
interval above 50%, Cardline's knowledge levels behave as documented, specs parse."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from helpers import env_names

import cardarena.agents.heuristics as heuristics  # registers heuristic, oracle, noisy, memory
from cardarena.agents import Agent, EnvSpec, make_agent
from cardarena.envs import ENVS, InvalidConfigError, make_raw

CARDLINE_AGENTS = ("oracle", "noisy", "noisy:sigma=1.5", "memory", "heuristic")

#: A deck with distinct values (years), rows in no value order (CL-1 warns otherwise).
_YEARS = (
    *(1517, -753, 1945, 80, 2008, -2560, 1215, 1789, 537, 1969, -49, 1871, 1066),
    *(2020, 1492, 1918, -490, 1648, 1989, 800, 1939, 1815, 2001, 1848, 1914),
)
YEARS = [{"name": f"event {year}", "colour": "history", "year": year} for year in _YEARS]


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); ``successes`` may be
    fractional (draws counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half


def play(
    env_name: str,
    config: dict[str, Any],
    lineup: Sequence[Agent],
    seed: int,
    after_step: Callable[[Any, str, int], None] | None = None,
) -> list[float]:
    """One game on the raw env (an illegal action raises); ``lineup[i]`` plays seat ``i``.
    Returns each seat's reward, in seat order."""
    env = make_raw(env_name, **config)
    spec = EnvSpec(env_name, dict(config))
    by_seat = dict(zip(env.possible_agents, lineup, strict=True))
    for seat, agent in by_seat.items():
        agent.start_game(seat, spec)
    env.reset(seed=seed)
    rewards: dict[str, float] = {}
    for seat in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            rewards[seat] = float(reward)
            env.step(None)
            continue
        action = by_seat[seat].act(observation)
        assert observation["action_mask"][action] == 1, (env_name, seat, action)
        env.step(action)
        if after_step is not None:
            after_step(env, seat, action)
    return [rewards[seat] for seat in env.possible_agents]


def match(
    env_name: str, spec: str, games: int, seed: int, config: dict[str, Any] | None = None
) -> tuple[int, int, int]:
    """``spec`` against ``random``, 2 players, seats alternated, one instance per seat kept
    for the whole match. Returns wins, draws, losses (by comparing the two returns)."""
    config = config or {}
    agent, opponent = make_agent(spec, seed=seed), make_agent("random", seed=seed + 1)
    wins = draws = losses = 0
    for game in range(games):
        lineup = [agent, opponent] if game % 2 == 0 else [opponent, agent]
        rewards = play(env_name, config, lineup, seed=seed * 10_000 + game)
        mine, theirs = (rewards[0], rewards[1]) if game % 2 == 0 else (rewards[1], rewards[0])
        wins += mine > theirs
        draws += mine == theirs
        losses += mine < theirs
    return wins, draws, losses


# --- legal play everywhere ---------------------------------------------------------------------
LEGAL_CASES = [
    (name, config)
    for name in env_names(heuristic=True)
    for config in ENVS[name].raw_env.example_configs
] + [
    ("promise_war_v0", {"num_players": 5}),
    ("promise_war_v0", {"decks": [[1, 2, 3, 4] * 5, [0, 7, 9] * 4], "max_tricks": 40}),
    ("cardline_v0", {"num_players": 5, "hand_size": 6, "characteristic": "combat_power"}),
    ("cardline_v0", {"num_players": 3, "hand_size": 3, "deck": YEARS}),
    ("beast_wars_v0", {"team_size": 12}),
]


@pytest.mark.parametrize(("env_name", "config"), LEGAL_CASES, ids=repr)
def test_only_legal_actions(env_name: str, config: dict[str, Any]) -> None:
    seats = len(make_raw(env_name, **config).possible_agents)
    specs = ["heuristic", "random"]
    if env_name == "cardline_v0":
        specs = list(CARDLINE_AGENTS)
    games = 16 if env_name == "beast_wars_v0" else 30
    lineups = [
        [make_agent(specs[(seat + shift) % len(specs)], seed=seat) for seat in range(seats)]
        for shift in range(len(specs))
    ] + [[make_agent("heuristic", seed=seat) for seat in range(seats)]]
    for game in range(games):
        play(env_name, config, lineups[game % len(lineups)], seed=game)


# --- strength against random -------------------------------------------------------------------
#: Games per match: enough for a 95% interval well above 50% at the measured strength,
#: few enough for CI (the README's numbers come from 1000 games per row).
STRENGTH_CASES = [
    ("ironman_war_v0", "heuristic", 200),
    ("promise_war_v0", "heuristic", 300),
    ("beast_wars_v0", "heuristic", 200),
    ("cardline_v0", "heuristic", 300),
    ("cardline_v0", "oracle", 100),
    ("cardline_v0", "noisy:sigma=0.3", 100),
    ("cardline_v0", "memory", 100),
]


@pytest.mark.parametrize(("env_name", "spec", "games"), STRENGTH_CASES)
def test_beats_random(env_name: str, spec: str, games: int) -> None:
    wins, draws, losses = match(env_name, spec, games, seed=7)
    low, high = wilson(wins + 0.5 * draws, games)
    assert low > 0.5, f"{spec} in {env_name}: {wins}/{draws}/{losses}, 95% [{low:.3f}, {high:.3f}]"


def test_every_builtin_env_has_a_heuristic() -> None:
    assert env_names(builtin=True) == env_names(builtin=True, heuristic=True)
    for name in env_names(heuristic=True):
        agent = make_agent("heuristic", seed=0)
        agent.start_game(make_raw(name).possible_agents[0], EnvSpec(name))


# --- Cardline knowledge levels -----------------------------------------------------------------
def test_memory_remembers_across_games() -> None:
    config = {"characteristic": "strength"}
    truth = make_raw("cardline_v0", **config).game.scaled[0].astype(np.float64)
    memory = make_agent("memory", seed=1)
    assert isinstance(memory, heuristics.MemoryAgent)
    opponent = make_agent("random", seed=2)
    play("cardline_v0", config, [memory, opponent], seed=0)
    errors, exact = [], []
    for game in range(1, 25):
        lineup = [memory, opponent] if game % 2 else [opponent, memory]
        play("cardline_v0", config, lineup, seed=game)  # start_game keeps the memory
        guesses = np.array([memory.estimate(card, "strength") for card in range(truth.size)])
        errors.append(float(np.abs(guesses - truth).mean()))
        exact.append(int(np.isclose(guesses, truth, atol=1e-6).sum()))
    remembered = memory.memory[memory.strategy.deck_key][0]
    seen = ~np.isnan(remembered)
    # Every card it has seen revealed is now known exactly, and it has seen more and more.
    assert np.allclose(remembered[seen], truth[seen], atol=1e-6)
    assert all(later >= earlier for earlier, later in itertools.pairwise(exact))
    assert exact[-1] > exact[0] and seen.sum() > truth.size // 2
    assert errors[-1] < errors[0] / 2
    # A fresh agent knows nothing yet; the memory is per instance.
    fresh = make_agent("memory", seed=3)
    play("cardline_v0", config, [fresh, make_agent("random", seed=4)], seed=99)
    fresh_seen = ~np.isnan(fresh.memory[fresh.strategy.deck_key][0])
    assert fresh_seen.sum() < seen.sum()


@pytest.mark.parametrize(
    ("config", "players"),
    [({"num_players": 3, "hand_size": 3, "deck": YEARS}, 3), ({"num_players": 4}, 4)],
    ids=["distinct values", "marvel (equal values too)"],
)
def test_oracle_never_places_wrong(config: dict[str, Any], players: int) -> None:
    oracles = {f"player_{seat}" for seat in range(0, players, 2)}
    placed = []

    def check(env: Any, seat: str, action: int) -> None:
        if seat in oracles:
            state = env.game_state
            assert state.last_right[int(seat.split("_")[1])], f"oracle placed wrong: {action}"
            placed.append(action)

    for game in range(15):
        lineup = [
            make_agent("oracle" if seat % 2 == 0 else "random", seed=seat)
            for seat in range(players)
        ]
        play("cardline_v0", config, lineup, seed=game, after_step=check)
    assert len(placed) > 30


def test_noisy_spec_options() -> None:
    agent = make_agent("noisy:sigma=0.5", seed=0)
    assert isinstance(agent, heuristics.NoisyAgent)
    assert agent.sigma == 0.5 and agent.spec == "noisy:sigma=0.5"
    assert make_agent("noisy", seed=0).sigma == 0.3
    exact = make_agent("noisy:sigma=0", seed=0)
    play("cardline_v0", {}, [exact, make_agent("random", seed=1)], seed=0)
    truth = make_raw("cardline_v0").game.scaled
    assert exact.estimate(5, 1) == pytest.approx(float(truth[1][5]))
    with pytest.raises(InvalidConfigError, match="sigma"):
        make_agent("noisy:sigma=-1")
    with pytest.raises(InvalidConfigError, match="oracle"):
        make_agent("oracle:sigma=1")
    assert isinstance(make_agent("heuristic"), heuristics.HeuristicAgent)


def test_noise_draws_from_the_agents_own_generator() -> None:
    estimates = []
    for seed in (5, 5, 6):
        agent = make_agent("noisy:sigma=0.3", seed=seed)
        agent.start_game("player_0", EnvSpec("cardline_v0"))
        estimates.append([agent.estimate(card, 0) for card in range(10)])
    assert estimates[0] == estimates[1] != estimates[2]


# --- errors and determinism --------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["heuristic", "oracle", "noisy", "memory"])
def test_unknown_env_raises(spec: str) -> None:
    agent = make_agent(spec, seed=0)
    with pytest.raises(InvalidConfigError, match="no_such_game_v0"):
        agent.start_game("player_0", EnvSpec("no_such_game_v0"))


@pytest.mark.parametrize("spec", ["oracle", "noisy:sigma=0.3", "memory"])
def test_cardline_agents_refuse_other_envs(spec: str) -> None:
    agent = make_agent(spec, seed=0)
    with pytest.raises(InvalidConfigError, match="promise_war_v0"):
        agent.start_game("player_0", EnvSpec("promise_war_v0"))


def test_act_before_start_game_is_a_clear_error() -> None:
    agent = make_agent("heuristic", seed=0)
    observation = make_raw("promise_war_v0")
    observation.reset(seed=0)
    with pytest.raises(RuntimeError, match="start_game"):
        agent.act(observation.observe("player_0"))


@pytest.mark.parametrize("env_name", env_names(heuristic=True))
def test_same_seeds_same_game(env_name: str) -> None:
    def steps(seed: int) -> list[int]:
        actions: list[int] = []
        lineup = [make_agent("heuristic", seed=seed), make_agent("heuristic", seed=seed + 1)]
        play(env_name, {}, lineup, seed=3, after_step=lambda env, seat, a: actions.append(a))
        return actions

    assert steps(1) == steps(1)


def main() -> None:
    """The README's table: ``python tests/agents/test_heuristics.py [--games N] [--seed S]``."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| game | agent | games | win / draw / loss | win rate | 95% interval | seconds |")
    print("|---|---|---|---|---|---|---|")
    for env_name, spec, _ in STRENGTH_CASES:
        start = time.perf_counter()
        wins, draws, losses = match(env_name, spec, args.games, seed=args.seed)
        low, high = wilson(wins + 0.5 * draws, args.games)
        rate = (wins + 0.5 * draws) / args.games
        print(
            f"| {env_name} | {spec} | {args.games} | {wins} / {draws} / {losses} | {rate:.1%} "
            f"| [{low:.1%}, {high:.1%}] | {time.perf_counter() - start:.1f} |"
        )


if __name__ == "__main__":
    main()
