"""``cardarena bench --learn`` (both training backends side by side, the FLOP count behind its
columns), PettingZoo's tictactoe_v3 through the SB3 bridge, the bench flags' checks, and the
benchmark scripts run as files the way the Makefile and the docs run them."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardarena.bench import REFERENCE, main, pettingzoo_classic, run
from cardarena.bench import engines as engines_bench
from cardarena.envs.core import InvalidConfigError
from cardarena.training.single_agent import SingleAgentEnv

ROOT = Path(__file__).resolve().parents[2]


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


LEARN_HEADER = [
    "env", "sb3 steps/s", "sb3 env share", "vector steps/s", "vector/sb3", "MFLOP/step",
    "vector GFLOP/s",
]  # fmt: skip


def _number(cell):
    return float(cell.rstrip("%").replace(",", ""))


def test_bench_learn_prints_both_backends_side_by_side():
    pytest.importorskip("sb3_contrib")
    from cardarena.envs import make
    from cardarena.training.train_args import TrainArgs
    from cardarena.training.vector.ppo import flops_per_step
    from cardarena.training.vector.run import ppo_config

    command = ["bench", "--learn", "--seconds", "0.01", "--rounds", "1", "--env", "promise_war_v0"]
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *command],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    assert header[:-1] == LEARN_HEADER
    precision = re.fullmatch(r"% (float32|bfloat16) peak", header[-1]).group(1)
    reference, row = (line.split() for line in lines[1:3])
    assert reference[0] == REFERENCE and _number(reference[1]) > 0
    assert 0 < _number(reference[2]) <= 100 and reference[3:] == ["-"] * 5
    name, sb3, share, vector, ratio, mflop, gflops, peak_share = row
    assert name == "promise_war_v0"
    assert all(_number(cell) > 0 for cell in row[1:])
    assert _number(share) <= 100 and _number(peak_share) <= 100
    assert _number(ratio) == pytest.approx(_number(vector) / _number(sb3), rel=0.01)
    assert _number(gflops) == pytest.approx(_number(vector) * _number(mflop) / 1e3, rel=0.01)
    env = make("promise_war_v0")
    agent = env.possible_agents[0]
    config = ppo_config(TrainArgs(env="promise_war_v0", backend="vector").resolved())
    sizes = (env.observation_space(agent)["observation"].shape[0], env.action_space(agent).n)
    assert mflop == f"{flops_per_step(*sizes, config) / 1e6:.2f}"
    notes = " ".join(lines[3:])
    assert "5 epochs (the same on both)" in notes
    assert f"the share is of the {precision} peak" in notes and "GFLOP/s" in notes


def test_flops_per_step_is_what_the_network_computes():
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode

    from cardarena.training.vector.ppo import ActorCritic, PPOConfig, flops_per_step

    # 3 inputs, one hidden layer of 4, 2 actions: forward 2 * (3*4 + 4*2) (policy) plus
    # 2 * (3*4 + 4*1) (value) = 72; backward: the first layers' weight gradients (24 + 24),
    # the heads' weight and input gradients (2*16 + 2*8) = 96; one epoch: 72 + 168.
    tiny = PPOConfig(net_arch=(4,), n_epochs=1)
    assert flops_per_step(3, 2, tiny) == 72 + (72 + 96)
    assert flops_per_step(3, 2, PPOConfig(net_arch=(4,), n_epochs=2)) == 72 + 2 * (72 + 96)
    base = PPOConfig(net_arch=(64, 64), n_epochs=5)
    wider = PPOConfig(net_arch=(128, 128), n_epochs=5)
    longer = PPOConfig(net_arch=(64, 64), n_epochs=10)
    assert flops_per_step(50, 10, base) < flops_per_step(50, 10, wider)
    assert flops_per_step(50, 10, base) < flops_per_step(50, 10, longer)

    # The count agrees with torch's own of the network's forward and backward passes.
    rows, inputs, actions = 16, 7, 5
    config = PPOConfig(net_arch=(12, 9), n_epochs=3)
    network = ActorCritic(inputs, actions, config.net_arch, "float32")
    observations = torch.randn(rows, inputs)
    with FlopCounterMode(display=False) as forward, torch.no_grad():
        network(observations)
    with FlopCounterMode(display=False) as epoch:
        logits, values = network(observations)
        (logits.sum() + values.sum()).backward()
    counted = forward.get_total_flops() + config.n_epochs * epoch.get_total_flops()
    assert flops_per_step(inputs, actions, config) == counted / rows


def test_the_learn_table_shows_a_backend_that_did_not_run_as_dashes():
    from cardarena.bench.learning import LearnResults, learn_table

    both = LearnResults(3, 1.0, ("sb3", "vector"), precision="bfloat16")
    both.sb3_rates = {REFERENCE: [500.0, 700.0, 600.0], "promise_war_v0": [1000.0, 3000.0, 2000.0]}
    both.sb3_shares = {REFERENCE: [0.5] * 3, "promise_war_v0": [0.25, 0.3, 0.35]}
    both.vector_rates = {"promise_war_v0": [30_000.0, 10_000.0, 40_000.0]}
    both.flops = {"promise_war_v0": 2e6}
    both.peaks = {"float32": 1e11, "bfloat16": 1e12}
    both.epochs = {"sb3": {5}, "vector": {5}}
    lines = learn_table(both)
    assert lines[0].split()[-3:] == ["%", "bfloat16", "peak"]
    assert lines[1].split() == [REFERENCE, "600", "50%", "-", "-", "-", "-", "-"]
    # vector median 30,000 over sb3 median 2,000; 30,000 x 2 MFLOP = 60 GFLOP/s = 6% of 1 TFLOP/s
    assert lines[2].split() == ["promise_war_v0", "2,000", "30%", "30,000", "15.00", "2.00",
                                "60.0", "6.0%"]  # fmt: skip
    assert "5 epochs (the same on both)" in lines[3]
    assert "float32 100 GFLOP/s, bfloat16 1,000 GFLOP/s" in lines[-1]

    alone = LearnResults(1, 1.0, ("vector",), precision="float32")
    alone.vector_rates = {"promise_war_v0": [5_000.0]}
    alone.flops = {"promise_war_v0": 1e6}
    alone.peaks = {"float32": 1e11, "bfloat16": 1e12}
    alone.epochs = {"vector": {5}}
    lines = learn_table(alone)
    assert not any(line.startswith(REFERENCE) for line in lines)
    assert lines[1].split() == ["promise_war_v0", "-", "-", "5,000", "-", "1.00", "5.0", "5.0%"]
    assert "the same on both" not in lines[2] and "sb3:" not in " ".join(lines)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "0"], "argument --seconds: must be a finite number in (0, 3600], got '0'"),
        (["--seconds", "nan"], "argument --seconds: must be a finite number in (0, 3600]"),
        (["--seconds", "-1"], "argument --seconds: must be a finite number in (0, 3600]"),
        (["--rounds", "0"], "argument --rounds: must be an integer in [1, 1000], got '0'"),
        (["--rounds", "1.5"], "argument --rounds: must be an integer in [1, 1000]"),
        (["--learn", "--backends", "jax"], "argument --backends: invalid choice: 'jax'"),
        (["--learn", "--backends"], "argument --backends: expected at least one argument"),
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
        ({"learn": True, "backends": []}, "--backends must be a non-empty list of training "
         "backends (sb3, vector), got []"),
        ({"learn": True, "backends": "sb3"}, "--backends must be a non-empty list"),
        ({"learn": True, "backends": ["sb3", "jax", "tf"]},
         "--backends: unknown backends 'jax', 'tf'; --learn measures sb3, vector"),
        ({"backends": ["vector"]}, "--backends vector chooses what --learn measures: add --learn"),
        ({"learn": True, "backends": ["vector"]}, "--backends vector measures the cardarena envs"),
    ],
)  # fmt: skip
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

    monkeypatch.setattr(engines_bench, "decisions_per_second", interrupted)
    with pytest.raises(SystemExit) as stop:
        main(["--seconds", "0.01", "--rounds", "1", "--env"])
    assert stop.value.code == 130 and capsys.readouterr().err.strip().endswith(": stopped")


@pytest.mark.parametrize("script", ["throughput.py", "ismcts_time.py", "rllib_throughput.py"])
def test_the_scripts_run_as_files_from_the_clone(script):
    """``make bench`` runs ``python bench/throughput.py``; the docs show the other two so."""
    done = subprocess.run([sys.executable, f"bench/{script}", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: "), done.stdout
