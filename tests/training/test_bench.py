"""``cardarena bench --learn`` and PettingZoo's tictactoe_v3 through the SB3 bridge."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cardarena.training.bench import REFERENCE, pettingzoo_classic
from cardarena.training.single_agent import SingleAgentEnv


def test_tictactoe_plays_whole_games_through_the_bridge():
    env = SingleAgentEnv(pettingzoo_classic(REFERENCE)(), opponent="random")
    assert env.observation_space.shape == (3, 3, 2)
    assert env.observation_space.dtype == np.float32
    for seed in range(5):
        observation, info = env.reset(seed=seed)
        assert info["learner"] in env.aec.possible_agents
        done = False
        while not done:
            assert env.observation_space.contains(observation)
            legal = np.flatnonzero(env.action_masks())
            observation, reward, terminated, truncated, _ = env.step(int(legal[0]))
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)


def test_bench_learn_prints_the_table():
    pytest.importorskip("sb3_contrib")
    command = ["bench", "--learn", "--seconds", "0.01", "--rounds", "1", "--env", "promise_war_v0"]
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.training.cli", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "learn steps/s" in lines[0] and "env share" in lines[0]
    assert lines[1].startswith(REFERENCE) and lines[2].startswith("promise_war_v0")
    assert "1.00" in lines[1]
