"""``cardarena train --sample``: an agent that plays by sampling from its policy does so
everywhere it plays: its evaluations, its snapshots in the league, the main agent its
exploiters answer, its checkpoints and the files exported from them (``pretrained:path=``),
unless an agent spec says ``deterministic=true``. A run without it plays greedily, as before;
a corrupt ``samples`` entry is refused by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.agents.vector import VectorPolicy, vector_agent
from cardarena.cli import main
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate_vector import evaluate_on_vector
from cardarena.training.checkpoint import load_checkpoint
from cardarena.training.run import evaluation_seed
from cardarena.training.train import train
from cardarena.training.train_args import TrainArgs

ENV = "promise_war_v0"
ROLLOUT = 8 * 8
SMALL = dict(
    backend="vector", num_envs=8, rollout_steps=8, minibatch_size=32, n_epochs=2,
    net_arch=[16, 16], checkpoint_every=2 * ROLLOUT, eval_every=2 * ROLLOUT, eval_games=200,
    final_eval_games=0, selfplay=True, snapshot_every=2 * ROLLOUT, league_eval_games=4,
    seed=3, progress=False, torch_threads=1, precision="float32",
)  # fmt: skip


def _train(out: Path, steps: int = 4 * ROLLOUT, **changes) -> Path:
    return train(TrainArgs(env=ENV, out=out, steps=steps, **{**SMALL, **changes}))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sample")
    return {
        "sampled": _train(root / "sampled", sample=True).parent.parent,
        "greedy": _train(root / "greedy").parent.parent,
    }


def _meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text())


def test_every_checkpoint_and_snapshot_of_a_sampling_run_says_it_samples(runs):
    sampled, greedy = runs["sampled"], runs["greedy"]
    folders = [sampled / "latest", *(sampled / "checkpoints").iterdir()]
    folders += list((sampled / "snapshots").iterdir())
    assert len(folders) == 5
    assert all(_meta(folder)["samples"] is True for folder in folders)
    assert load_checkpoint(sampled / "latest").samples
    assert not any("samples" in _meta(folder) for folder in (greedy / "snapshots").iterdir())
    assert not load_checkpoint(greedy / "latest").samples


def test_a_checkpoint_plays_as_its_run_trained_unless_the_spec_says_otherwise(runs):
    sampled, greedy = str(runs["sampled"] / "latest"), str(runs["greedy"] / "latest")
    assert make_agent(sampled).deterministic is False
    assert make_agent(f"{sampled}:deterministic=true").deterministic is True
    assert make_agent(greedy).deterministic is True
    assert make_agent(f"{greedy}:deterministic=false").deterministic is False
    spec = EnvSpec(ENV)
    assert vector_agent(sampled, spec).deterministic is False
    assert vector_agent(f"{sampled}:deterministic=true", spec).deterministic is True
    assert vector_agent(greedy, spec).deterministic is True


def test_an_export_keeps_it_and_pretrained_plays_the_file_as_it_says(runs, tmp_path, capsys):
    exported = tmp_path / "sampled.npz"
    assert main(["export", str(runs["sampled"] / "latest"), str(exported)]) == 0
    assert main(["export", str(runs["greedy"] / "latest"), str(tmp_path / "greedy.npz")]) == 0
    capsys.readouterr()
    assert NumpyPolicy.load(exported).samples
    assert not NumpyPolicy.load(tmp_path / "greedy.npz").samples
    spec = EnvSpec(ENV)
    for name, greedy in ((f"pretrained:path={exported}", False), (str(exported), False),
                         (f"pretrained:path={exported},deterministic=true", True),
                         (f"pretrained:path={tmp_path / 'greedy.npz'}", True)):  # fmt: skip
        agent = make_agent(name, seed=0)
        agent.start_game("player_0", spec)
        assert agent.deterministic is greedy, name
        assert vector_agent(name, spec).deterministic is greedy, name


def test_the_training_evaluations_of_a_sampling_run_sample(runs):
    """Each ``eval.jsonl`` row is the sampled policy's result on the row's own seed, which
    the greedy policy on the same games does not reproduce."""
    lines = (runs["sampled"] / "eval.jsonl").read_text().splitlines()
    rows = [row for row in map(json.loads, lines) if not row["final"]]
    assert [row["step"] for row in rows] == [2 * ROLLOUT, 4 * ROLLOUT]
    for row in rows:
        checkpoint = load_checkpoint(runs["sampled"] / "checkpoints" / f"step_{row['step']}")
        policy = checkpoint.numpy_policy()
        seed = evaluation_seed(SMALL["seed"], row["step"])

        def wins(greedy: bool, policy: NumpyPolicy = policy, seed: int = seed) -> int:
            result = evaluate_on_vector(
                EnvSpec(ENV), VectorPolicy(policy, greedy), "random", 200, seed
            )
            return result.wins

        assert wins(greedy=False) == round(row["win_rate_random"] * 200)
        assert wins(greedy=True) != round(row["win_rate_random"] * 200)


def test_a_resume_keeps_the_flag(runs, tmp_path):
    out = tmp_path / "run"
    _train(out, steps=2 * ROLLOUT, sample=True)
    with pytest.raises(InvalidConfigError, match=r"--sample True \(now False\)"):
        _train(out, steps=4 * ROLLOUT, resume=True)


def test_the_exploiters_answer_the_sampling_main_agent(tmp_path):
    out = tmp_path / "run"
    _train(out, steps=2 * ROLLOUT, sample=True, exploiter_every=2 * ROLLOUT,
           exploiter_steps=2 * ROLLOUT, exploiter_games=20, eval_every=0)  # fmt: skip
    main_agent = out / "exploiters" / f"step_{2 * ROLLOUT}" / "main"
    assert _meta(main_agent)["samples"] is True
    assert make_agent(str(main_agent)).deterministic is False


def test_a_corrupt_samples_entry_is_refused_by_name(runs, tmp_path):
    folder = tmp_path / "ckpt"
    shutil.copytree(runs["sampled"] / "latest", folder)
    meta = _meta(folder)
    meta["samples"] = "yes"
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InvalidConfigError, match=r"samples is 'yes'; it must be true or false"):
        make_agent(str(folder))
    exported = tmp_path / "p.npz"
    load_checkpoint(runs["sampled"] / "latest").numpy_policy().save(exported)
    with np.load(exported) as arrays:
        entries = dict(arrays)
    policy_meta = json.loads(str(entries["meta"][()]))
    policy_meta["samples"] = 1
    entries["meta"] = np.array(json.dumps(policy_meta))
    np.savez(exported, **entries)
    with pytest.raises(InvalidConfigError, match=r"meta 'samples' is 1; it must be true or false"):
        NumpyPolicy.load(exported)


def test_the_sb3_backend_ignores_the_flag_and_its_checkpoints_say_so(tmp_path):
    """``--sample`` is the vector trainer's: SB3 warns that it ignores it, evaluates greedily
    and writes checkpoints that play greedily (kills a base-class default of True)."""
    with pytest.warns(UserWarning, match="--backend sb3 ignores .*--sample"):
        final = train(
            TrainArgs(env=ENV, out=tmp_path / "sb3", steps=64, backend="sb3", n_envs=2,
                      n_steps=32, batch_size=32, n_epochs=1, net_arch=[8], checkpoint_every=64,
                      eval_every=0, final_eval_games=0, sample=True, seed=0, progress=False)
        )  # fmt: skip
    assert "samples" not in _meta(final)
    assert make_agent(str(final)).deterministic is True
