"""The Parallel view (``parallel_env()``): PettingZoo's own Parallel API test, one move a step,
the mask in the info, and the same game as the AEC env it views."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from cardarena.envs import ENVS, make, make_parallel, pettingzoo_id
from cardarena.envs.core import INFO_KEYS, IllegalActionError, Outcome

CASES = [
    pytest.param(name, config, id=f"{name}-{index}")
    for name, module in sorted(ENVS.items())
    for index, config in enumerate(module.raw_env.example_configs)
]


@pytest.mark.parametrize(("name", "config"), CASES)
def test_pettingzoos_parallel_api_and_seed_tests_pass(name, config):
    parallel_api_test(make_parallel(name, **config), num_cycles=300)
    parallel_seed_test(lambda: make_parallel(name, **config), num_cycles=100)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_each_step_is_the_aec_envs_move_with_the_mask_in_the_info(name, config):
    """Driven with the actions an AEC game took, the view shows every live agent the AEC
    env's observation array, reward and ends; the mask sits in the info only, ones for the
    agent to act and zeros for the rest; infos keep one key set and dtype."""
    view, aec = make_parallel(name, **config), make(name, **config)
    rng = np.random.default_rng(0)
    observations, infos = view.reset(seed=3)
    aec.reset(seed=3)
    moves = 0
    while view.agents:
        mover = aec.agent_selection
        for agent in view.agents:
            seen = aec.observe(agent)
            np.testing.assert_array_equal(observations[agent], seen["observation"])
            np.testing.assert_array_equal(infos[agent]["action_mask"], seen["action_mask"])
            assert set(infos[agent]) == {*INFO_KEYS, "action_mask"}
            assert infos[agent]["action_mask"].any() == (agent == mover)
        action = int(rng.choice(np.flatnonzero(infos[mover]["action_mask"])))
        others = {agent: 0 for agent in view.agents if agent != mover}  # ignored
        observations, rewards, terminations, truncations, infos = view.step(
            {**others, mover: action}
        )
        aec.step(action)
        moves += 1
        assert rewards == {a: float(aec.rewards[a]) for a in rewards}
        assert terminations == {a: aec.terminations[a] for a in terminations}
        assert truncations == {a: aec.truncations[a] for a in truncations}
        while aec.agents and (
            aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]
        ):
            aec.step(None)
        assert view.agents == aec.agents
    assert moves > 0 and all(info["outcome"] != Outcome.ONGOING for info in infos.values())
    assert not any(info["action_mask"].any() for info in infos.values())


def test_a_missing_move_is_refused_by_name_and_changes_nothing():
    view = make_parallel("promise_war_v0")
    observations, infos = view.reset(seed=0)
    mover = next(a for a in view.agents if infos[a]["action_mask"].any())
    with pytest.raises(IllegalActionError, match=f"{mover} is to act"):
        view.step({a: 0 for a in view.agents if a != mover})
    again, _ = view.unwrapped.observe(mover)["observation"], None
    np.testing.assert_array_equal(again, observations[mover])


def test_an_illegal_move_ends_the_game_as_env_does():
    view = make_parallel("ironman_war_v0")
    _, infos = view.reset(seed=0)
    mover = next(a for a in view.agents if infos[a]["action_mask"].any())
    illegal = int(np.flatnonzero(infos[mover]["action_mask"] == 0)[0])
    view.aec_env.warn_on_illegal = False
    _, rewards, terminations, _, infos = view.step({mover: illegal})
    assert rewards[mover] == -1.0 and all(terminations.values()) and view.agents == []
    assert infos[mover]["outcome"] == Outcome.ILLEGAL_ACTION
    assert infos[mover]["offender"] == view.possible_agents.index(mover)


def test_pettingzoo_makes_the_parallel_view_by_id():
    env = pettingzoo.make("parallel", pettingzoo_id("cardline_v0"), num_players=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.observation_space("player_0").shape == env.reset(seed=0)[0]["player_0"].shape
