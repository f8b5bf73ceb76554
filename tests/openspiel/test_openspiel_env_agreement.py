"""(a) The OpenSpiel game and ``env()`` are one game: driven with the same chance outcomes and
the same actions they show every seat the same observation and mask at every step, the same
seat to act, and the same returns at the end.

The env gets the chance outcomes through its generator: ``env.unwrapped.np_random`` is what
``reset()`` (without a seed) deals from, and a ``ScriptedChance`` there speaks the same chance
protocol as the OpenSpiel state (``cardarena.envs.core.chance``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from open_spiel.python.observation import make_observation
from openspiel_cases import ALL_CASES, case_id, env_config, load, random_step

from cardarena.envs import make, make_raw
from cardarena.envs.core.chance import ScriptedChance

GAMES_PER_CASE = 3


def play_openspiel(game: Any, rng: np.random.Generator) -> dict[str, Any]:
    """A random game through OpenSpiel: the chance outcomes, the actions, and at every
    decision point (and the end) each seat's observation and mask and the seat to act."""
    observer = make_observation(game)
    state = game.new_initial_state()
    chance: list[int] = []
    actions: list[int] = []
    points: list[dict[str, Any]] = []
    while True:
        if state.is_chance_node():
            outcome = random_step(state, rng)
            chance.append(outcome)
            state.apply_action(outcome)
            continue
        views = []
        for seat in range(game.num_players()):
            observer.set_from(state, seat)
            views.append((observer.dict["observation"].copy(), observer.dict["action_mask"].copy()))
        points.append({"to_act": state.current_player(), "views": views})
        if state.is_terminal():
            break
        action = random_step(state, rng)
        actions.append(action)
        state.apply_action(action)
    return {"chance": chance, "actions": actions, "points": points, "returns": state.returns()}


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_env_and_openspiel_play_the_same_game(case: tuple[str, dict[str, Any]]) -> None:
    env_name, params = case
    game = load(env_name, params)
    config = env_config(env_name, params)
    rng = np.random.default_rng(36)
    for _ in range(GAMES_PER_CASE):
        played = play_openspiel(game, rng)
        env = make(env_name, **config)
        script = ScriptedChance(played["chance"])
        env.unwrapped.np_random = script
        env.reset()
        agents = env.possible_agents
        totals = dict.fromkeys(agents, 0.0)
        for step, point in enumerate(played["points"]):
            for seat, agent in enumerate(agents):
                observation = env.observe(agent)
                expected, mask = point["views"][seat]
                np.testing.assert_array_equal(observation["observation"], expected)
                np.testing.assert_array_equal(observation["action_mask"], mask)
            if step == len(played["actions"]):
                break
            assert env.agent_selection == agents[point["to_act"]]
            env.step(played["actions"][step])
            for agent in agents:
                totals[agent] += env.rewards[agent]
        assert all(env.terminations[a] or env.truncations[a] for a in agents)
        assert [totals[a] for a in agents] == played["returns"]
        assert script.used == len(played["chance"])


@pytest.mark.parametrize("env_name", ["promise_war_v0", "ironman_war_v0", "cardline_v0"])
def test_an_openspiel_state_continues_in_the_env(env_name: str) -> None:
    """``state.rules_state()`` loads into an env (``set_state``), which then shows each seat
    what the OpenSpiel state shows it."""
    params = next(p for env, p in ALL_CASES if env == env_name)
    game = load(env_name, params)
    observer = make_observation(game)
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    for _ in range(12):
        while state.is_chance_node():
            state.apply_action(random_step(state, rng))
        if state.is_terminal():
            break
        state.apply_action(random_step(state, rng))
    while state.is_chance_node():
        state.apply_action(random_step(state, rng))
    env = make_raw(env_name, **env_config(env_name, params))
    env.set_state(state.rules_state())
    for seat, agent in enumerate(env.possible_agents):
        observer.set_from(state, seat)
        np.testing.assert_array_equal(
            env.observe(agent)["observation"], observer.dict["observation"]
        )
