"""``normalize_observation=True``, for every env and example config: PettingZoo's api_test
passes, the observation Box is ``[0, 1]`` float32, and each observation is exactly the SB3
bridge's ``ObservationScaler`` applied to the raw one (so a model trained either way matches).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import strict_api_test

from cardarena.envs import ENVS, make
from cardarena.envs.core import InvalidConfigError, ObservationScaler

CASES = [
    pytest.param(name, config, id=f"{name}-{index}")
    for name, module in sorted(ENVS.items())
    for index, config in enumerate(module.raw_env.example_configs)
]


@pytest.mark.parametrize(("name", "config"), CASES)
def test_pettingzoo_api_test_passes_with_normalized_observations(name, config):
    strict_api_test(make(name, normalize_observation=True, **config), num_cycles=300)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_normalized_observations_are_the_scaled_raw_ones_in_a_unit_box(name, config):
    raw, unit = make(name, **config), make(name, normalize_observation=True, **config)
    agent = raw.possible_agents[0]
    box = unit.observation_space(agent)["observation"]
    assert box.dtype == np.float32 and (box.low == 0).all() and (box.high == 1).all()
    scaler = ObservationScaler(raw.observation_space(agent)["observation"])
    rng = np.random.default_rng(0)
    for seed in range(2):
        raw.reset(seed=seed)
        unit.reset(seed=seed)
        for agent in raw.agent_iter():
            observation, _, terminated, truncated, _ = raw.last()
            scaled = unit.observe(agent)
            assert scaled["observation"].dtype == np.float32
            assert np.array_equal(scaled["observation"], scaler(observation["observation"]))
            assert np.array_equal(scaled["action_mask"], observation["action_mask"])
            assert unit.observation_space(agent).contains(scaled)
            done = terminated or truncated
            action = None if done else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            raw.step(action)
            unit.step(action)
        assert unit.agents == []
    assert np.array_equal(raw.state(), unit.state())  # the state is never scaled


@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_the_flag_must_be_a_bool(value):
    with pytest.raises(InvalidConfigError, match="normalize_observation must be True or False"):
        make("promise_war_v0", normalize_observation=value)
