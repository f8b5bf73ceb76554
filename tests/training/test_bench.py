"""``cardarena bench --learn``, PettingZoo's tictactoe_v3 through the SB3 bridge, and the
bench flags' checks."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import numpy as np
import pytest

from cardarena.envs.core import InvalidConfigError
from cardarena.training import bench
from cardarena.training.bench import REFERENCE, main, pettingzoo_classic, run
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


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "0"], "argument --seconds: must be a finite number in (0, 3600], got '0'"),
        (["--seconds", "nan"], "argument --seconds: must be a finite number in (0, 3600]"),
        (["--seconds", "-1"], "argument --seconds: must be a finite number in (0, 3600]"),
        (["--rounds", "0"], "argument --rounds: must be an integer in [1, 1000], got '0'"),
        (["--rounds", "1.5"], "argument --rounds: must be an integer in [1, 1000]"),
    ],
)
def test_bench_flags_are_checked(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"seconds": 0.0}, "--seconds must be a finite number in (0, 3600], got 0.0"),
        ({"seconds": float("inf")}, "--seconds must be a finite number"),
        ({"rounds": 0}, "--rounds must be an integer in [1, 1000], got 0"),
        ({"env": ["chess_v6"]}, "--env: unknown env 'chess_v6'; available: "),
    ],
)
def test_run_checks_a_namespace_built_in_python(values, message):
    args = argparse.Namespace(**{"seconds": 1.0, "rounds": 1, "env": [], "learn": False, **values})
    with pytest.raises(InvalidConfigError, match=re.escape(message)):
        run(args)


def test_the_script_turns_errors_and_ctrl_c_into_one_line(capsys, monkeypatch):
    with pytest.raises(SystemExit) as stop:
        main(["--env", "chess_v6"])
    assert stop.value.code == 2 and "unknown env 'chess_v6'" in capsys.readouterr().err

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "decisions_per_second", interrupted)
    with pytest.raises(SystemExit) as stop:
        main(["--seconds", "0.01", "--rounds", "1", "--env"])
    assert stop.value.code == 130 and capsys.readouterr().err.strip().endswith(": stopped")
