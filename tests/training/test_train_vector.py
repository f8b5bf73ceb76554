"""``cardarena train --backend vector``: the masked PPO pieces against references, a run that
is deterministic for its seed, checkpoints every reader plays, and a run killed (SIGKILL) and
resumed that ends bit for bit where the uninterrupted run ends."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardarena.agents import EnvSpec, make_agent  # noqa: E402
from cardarena.agents.sb3_state import expected_shapes  # noqa: E402
from cardarena.cli import main  # noqa: E402
from cardarena.envs.core import InvalidConfigError  # noqa: E402
from cardarena.training.checkpoint import load_checkpoint  # noqa: E402
from cardarena.training.train import train  # noqa: E402
from cardarena.training.train_args import TrainArgs  # noqa: E402
from cardarena.training.vector.ppo import (  # noqa: E402
    ActorCritic,
    PPOConfig,
    Rollout,
    flops_per_step,
    gae,
    masked_entropy,
    masked_log_probs,
)

ROLLOUT = 8 * 8  # --num-envs 8 --rollout-steps 8
SMALL = dict(
    backend="vector", num_envs=8, rollout_steps=8, minibatch_size=32, n_epochs=2,
    net_arch=[16, 16], checkpoint_every=2 * ROLLOUT, eval_every=4 * ROLLOUT, eval_games=8,
    final_eval_games=8, selfplay=True, snapshot_every=2 * ROLLOUT, league_eval_games=4,
    seed=3, progress=False, torch_threads=1, precision="float32",
)  # fmt: skip
STEPS = 10 * ROLLOUT


def _flags(settings: dict) -> list[str]:
    flags = []
    for key, value in settings.items():
        flag = "--" + key.replace("_", "-")
        if key == "progress":
            flags.append("--no-progress")
        elif value is True:
            flags.append(flag)
        elif isinstance(value, list):
            flags += [flag, *map(str, value)]
        else:
            flags += [flag, str(value)]
    return flags


def _step_on_disk(out: Path) -> int:
    """``out/latest``'s step, read without ``read_meta`` (whose recovery would tidy away the
    running writer's temporary folder)."""
    try:
        return int(json.loads((out / "latest" / "meta.json").read_text())["step"])
    except (OSError, ValueError, KeyError):
        return 0


def _network(path: Path) -> dict[str, np.ndarray]:
    return load_checkpoint(path).network


# --- the pieces ------------------------------------------------------------------------------
def test_masked_log_probs_and_entropy_see_only_legal_actions():
    logits = torch.tensor([[1.0, 2.0, 3.0, -1.0], [0.5, 0.5, 9.0, 0.0]])
    masks = torch.tensor([[True, False, True, True], [False, True, False, False]])
    log_probs = masked_log_probs(logits, masks)
    probs = log_probs.exp()
    assert torch.all(probs[~masks] == 0)
    legal = torch.softmax(torch.tensor([1.0, 3.0, -1.0]), 0)
    assert torch.allclose(probs[0, masks[0]], legal)
    assert probs[1, 1] == pytest.approx(1.0)
    entropy = masked_entropy(log_probs, masks)
    assert entropy[0] == pytest.approx(float(-(legal * legal.log()).sum()), rel=1e-6)
    assert entropy[1] == pytest.approx(0.0, abs=1e-6)  # one legal action: no uncertainty


def test_gae_matches_a_step_by_step_reference():
    rng = np.random.default_rng(0)
    steps, games, gamma, lam = 7, 5, 0.9, 0.8
    rollout = Rollout.allocate(steps, games, 3, 2, torch.float32)
    rollout.rewards[:] = rng.normal(size=(steps, games))
    rollout.values[:] = rng.normal(size=(steps, games))
    rollout.dones[:] = rng.random((steps, games)) < 0.3
    last = rng.normal(size=games).astype(np.float32)
    gae(rollout, last, gamma, lam)
    for game in range(games):
        advantage = 0.0
        for t in reversed(range(steps)):
            following = last[game] if t == steps - 1 else rollout.values[t + 1, game]
            alive = 0.0 if rollout.dones[t, game] else 1.0
            delta = rollout.rewards[t, game] + gamma * following * alive - rollout.values[t, game]
            advantage = delta + gamma * lam * alive * advantage
            assert rollout.advantages[t, game] == pytest.approx(advantage, rel=1e-5, abs=1e-6)
    np.testing.assert_allclose(rollout.returns, rollout.advantages + rollout.values, rtol=1e-6)


def test_the_network_has_sb3s_state_dict_names_and_shapes():
    network = ActorCritic(106, 11, (64, 32), "float32")
    shapes = {name: tuple(p.shape) for name, p in network.state_dict().items()}
    assert shapes == dict(expected_shapes(106, [64, 32], 11, "test"))


def test_bfloat16_keeps_weights_heads_and_outputs_float32():
    network = ActorCritic(20, 5, (8,), "bfloat16")
    logits, values = network(torch.rand(4, 20))
    assert logits.dtype == values.dtype == torch.float32
    assert all(p.dtype == torch.float32 for p in network.parameters())


def test_flops_per_step_by_hand():
    config = PPOConfig(net_arch=(4,), n_epochs=2)
    # policy 3->4->2 and value 3->4->1: forward 2*(12+8) + 2*(12+4) = 72; backward: the
    # first layers' weight gradients only (2*12 each), the heads' both (2*2*8, 2*2*4).
    forward, backward = 72, 2 * 12 + 2 * 2 * 8 + 2 * 12 + 2 * 2 * 4
    assert flops_per_step(3, 2, config) == forward + 2 * (forward + backward)
    wider = PPOConfig(net_arch=(8,), n_epochs=2)
    assert flops_per_step(3, 2, wider) > flops_per_step(3, 2, config)


# --- runs ------------------------------------------------------------------------------------
def _train(out: Path, steps: int = STEPS, **changes) -> Path:
    return train(TrainArgs(env="promise_war_v0", out=out, steps=steps, **{**SMALL, **changes}))


def test_a_run_is_deterministic_for_its_seed_and_another_seed_differs(tmp_path):
    first = _train(tmp_path / "a", steps=4 * ROLLOUT)
    second = _train(tmp_path / "b", steps=4 * ROLLOUT)
    third = _train(tmp_path / "c", steps=4 * ROLLOUT, seed=4)
    a, b, c = _network(first), _network(second), _network(third)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)
    rows = [json.loads(line) for line in (tmp_path / "a" / "eval.jsonl").read_text().splitlines()]
    again = [json.loads(line) for line in (tmp_path / "b" / "eval.jsonl").read_text().splitlines()]
    drop = ("time", "cpu_seconds", "league_loss_rates")
    assert [{k: v for k, v in r.items() if k not in drop} for r in rows] == [
        {k: v for k, v in r.items() if k not in drop} for r in again
    ]


def test_checkpoints_are_the_safe_format_every_reader_plays(tmp_path, capsys):
    final = _train(tmp_path / "run", steps=4 * ROLLOUT)
    checkpoint = load_checkpoint(final, EnvSpec("promise_war_v0"))
    assert checkpoint.step == 4 * ROLLOUT and checkpoint.n_updates == 4 * SMALL["n_epochs"]
    assert checkpoint.settings["n_steps"] == 8 and checkpoint.settings["batch_size"] == 32
    agent = make_agent(str(final))
    assert agent is not None
    assert main(["export", str(tmp_path / "run" / "latest"), str(tmp_path / "p.npz")]) == 0
    assert main(["eval", "promise_war_v0", f"pretrained:path={tmp_path / 'p.npz'}", "random",
                 "--games", "4", "--quiet"]) == 0  # fmt: skip
    assert (tmp_path / "run" / "logs" / "run_0" / "progress.csv").read_text().count("\n") == 5
    snapshots = sorted(p.name for p in (tmp_path / "run" / "snapshots").iterdir())
    assert snapshots == [f"step_{2 * ROLLOUT}", f"step_{4 * ROLLOUT}"]
    assert (tmp_path / "run" / "league" / f"step_{2 * ROLLOUT}.json").is_file()
    capsys.readouterr()


def test_a_run_folder_means_its_latest_checkpoint_wherever_a_checkpoint_is_read(tmp_path, capsys):
    run = tmp_path / "run"
    _train(run, steps=2 * ROLLOUT)
    shutil.rmtree(run / "checkpoints")  # so that only latest/ can be what the run names
    a, b = _network(run), _network(run / "latest")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert make_agent(str(run)).act is not None
    assert main(["eval", "promise_war_v0", str(run), "random", "--games", "2", "--quiet"]) == 0
    assert main(["export", str(run), str(tmp_path / "p.npz")]) == 0
    assert main(["eval", "promise_war_v0", str(tmp_path), "random", "--games", "2"]) == 2
    told = capsys.readouterr().err
    assert f"{str(tmp_path)!r} is not a checkpoint: no meta.json (name a checkpoint " in told
    with pytest.raises(InvalidConfigError, match=r"no checkpoint at .*latest"):
        load_checkpoint(run / "latest" / "latest")


def test_resume_continues_exactly_as_the_uninterrupted_run(tmp_path):
    whole = _train(tmp_path / "whole")
    _train(tmp_path / "parts", steps=4 * ROLLOUT)
    resumed = _train(tmp_path / "parts", resume=True)
    a, b = _network(whole), _network(resumed)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert load_checkpoint(resumed).n_updates == 10 * SMALL["n_epochs"]


def test_killed_between_the_final_steps_two_saves_a_resume_brings_latest_up(tmp_path):
    """The kill the random-kill test below can only hit by luck: after the last step's
    ``checkpoints/step_N`` was written and before ``latest`` was. Resumed, nothing is left to
    train, and ``latest`` must still end at step N (it used to stay a checkpoint behind)."""
    whole = _train(tmp_path / "whole")
    out = tmp_path / "killed"
    shutil.copytree(tmp_path / "whole", out)
    shutil.rmtree(out / "latest")  # ``latest`` as the save before the last one left it:
    shutil.copytree(_train(tmp_path / "part", steps=STEPS - 2 * ROLLOUT).parent.parent / "latest",
                    out / "latest")  # fmt: skip
    rows = (out / "eval.jsonl").read_text().splitlines()
    assert json.loads(rows[-1])["final"]
    (out / "eval.jsonl").write_text("\n".join(rows[:-1]) + "\n")  # the kill came before it
    _train(out, resume=True)
    assert load_checkpoint(out / "latest").step == STEPS
    a, b = _network(whole), _network(out / "latest")
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert json.loads((out / "eval.jsonl").read_text().splitlines()[-1])["final"]


def test_resume_refuses_another_geometry_and_a_run_of_another_backend(tmp_path):
    _train(tmp_path / "run", steps=2 * ROLLOUT)
    with pytest.raises(InvalidConfigError, match=r"--num-envs 8 \(now 16\)"):
        _train(tmp_path / "run", resume=True, num_envs=16)
    with pytest.raises(InvalidConfigError, match="already holds a run"):
        _train(tmp_path / "run")


@pytest.mark.parametrize("native", ["bfloat16", "float32"])
def test_bfloat16_on_a_cpu_that_only_emulates_it_is_pointed_out(tmp_path, capsys, monkeypatch,
                                                                native):  # fmt: skip
    from cardarena.training.vector import config as vector_config

    monkeypatch.setattr(vector_config, "default_precision", lambda: native)
    _train(tmp_path / "run", steps=ROLLOUT, precision="bfloat16")
    note = "torch emulates it" in capsys.readouterr().err
    assert note == (native == "float32")


def test_bad_vector_flags_are_refused_naming_the_flag(tmp_path, capsys):
    flags = ["--num-envs", "4", "--rollout-steps", "4", "--minibatch-size", "64"]
    code = main(["train", "promise_war_v0", "--backend", "vector", *flags, "--out", str(tmp_path)])
    assert code == 2
    assert "--minibatch-size must be at most --num-envs x --rollout-steps = 4 x 4 = 16" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as stop:
        main(["train", "promise_war_v0", "--backend", "vector", "--precision", "half"])
    assert stop.value.code == 2
    assert "--precision: invalid choice: 'half'" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_with_sigkill_and_resumed_it_ends_where_the_uninterrupted_run_ends(tmp_path):
    whole = _train(tmp_path / "whole")
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "cardarena.cli", "train", "promise_war_v0",
               "--out", str(out), "--steps", str(STEPS), *_flags(SMALL)]  # fmt: skip
    rng = np.random.default_rng(19)
    kills = 0
    for attempt in range(8):
        # Any checkpoint (a kill between a save's two renames leaves ``latest`` moved aside).
        started = (out / "latest").is_dir() or any((out / "checkpoints").glob("step_*"))
        resume = ["--resume"] if started else []
        before = _step_on_disk(out)
        process = subprocess.Popen([*command, *resume], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)  # fmt: skip
        # Killed a random moment after its next checkpoint (not after a fixed delay, which a
        # fast machine outruns): always mid-run while checkpoints remain to be written.
        deadline = time.monotonic() + 300
        while attempt < 3 and process.poll() is None and time.monotonic() < deadline:
            if _step_on_disk(out) > before:
                time.sleep(float(rng.uniform(0.0, 0.3)))
                os.kill(process.pid, signal.SIGKILL)
                break
            time.sleep(0.01)
        _, stderr = process.communicate(timeout=300)
        if process.returncode == 0:
            break
        assert process.returncode == -signal.SIGKILL, stderr
        kills += 1
    assert process.returncode == 0, stderr
    assert kills >= 1
    a, b = _network(whole), _network(out / "latest")
    assert all(np.array_equal(a[k], b[k]) for k in a)
