"""Flags generated from documented dataclasses (``training.schema``), the ``cardarena train``
fields that reach the model, per-backend warnings, and the layers' import rules."""

from __future__ import annotations

import argparse
import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from cardarena import cli
from cardarena.envs.core import InvalidConfigError
from cardarena.training.schema import Number, Pattern, add_dataclass_arguments, meta
from cardarena.training.train_args import BACKENDS, TrainArgs, backends_of, ignored_by

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class _Toy:
    name: str = field(metadata=meta(positional=True))
    """The name."""
    count: int = field(default=3, metadata=meta(rule=Number(int, 1, 9)))
    """How many (100% sure)."""
    rate: float | None = None
    """A rate."""
    fast: bool = False
    """Go fast."""
    color: bool = True
    """Use colour."""
    sizes: list[int] = field(default_factory=lambda: [1, 2])
    """Sizes."""
    tags: list[str] | None = None
    """Tags."""
    where: Path = Path("here")
    """A folder."""
    mode: Literal["a", "b"] = "a"
    """Mode."""
    code: str = field(default="x1", metadata=meta(rule=Pattern(r"x[0-9]", "x and a digit")))
    """A code."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy")
    add_dataclass_arguments(parser, _Toy)
    return parser


def test_a_documented_dataclass_becomes_flags_with_its_types_and_defaults():
    parsed = _parser().parse_args(["n"])
    assert vars(parsed) == {
        "name": "n", "count": 3, "rate": None, "fast": False, "color": True, "sizes": [1, 2],
        "tags": None, "where": Path("here"), "mode": "a", "code": "x1",
    }  # fmt: skip
    parsed = _parser().parse_args(
        ["n", "--count", "4", "--rate", "0.5", "--fast", "--no-color", "--sizes", "7", "8",
         "--tags", "p", "--tags", "q", "--where", "there", "--mode", "b", "--code", "x7"]
    )  # fmt: skip
    assert (parsed.count, parsed.rate, parsed.fast, parsed.color) == (4, 0.5, True, False)
    assert (parsed.sizes, parsed.tags, parsed.where) == ([7, 8], ["p", "q"], Path("there"))
    assert (parsed.mode, parsed.code) == ("b", "x7")


@pytest.mark.parametrize(
    "argv", [["n", "--count", "0"], ["n", "--mode", "c"], ["n", "--code", "y"], []]
)
def test_the_generated_flags_refuse_bad_values(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        _parser().parse_args(argv)
    assert stop.value.code == 2


def test_field_docs_are_the_help_with_percent_signs_kept(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "How many (100% sure). Allowed: an integer in [1, 9]." in text
    assert "--no-color Use colour." in text and "Tags. Repeatable." in text


def test_every_train_field_has_a_doc_and_every_flag_shows_it(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--clip-range", "--gae-lambda", "--vf-coef", "--max-grad-norm", "--device",
                 "--rllib-lr", "--rllib-train-batch-size", "--rllib-minibatch-size",
                 "--rllib-num-epochs", "--rllib-entropy-coeff",
                 "--rllib-rollout-fragment-length"):  # fmt: skip
        assert flag in text, flag
    assert "[rllib only]" in text and "[sb3 only]" in text


@pytest.mark.parametrize("device", ["cpu", "auto", "cuda", "cuda:1", "mps"])
def test_device_accepts_torch_devices(device):
    assert TrainArgs(device=device).resolved().device == device


@pytest.mark.parametrize("device", ["gpu", "cuda:", "", "cpu "])
def test_device_refuses_anything_else(device, capsys):
    with pytest.raises(InvalidConfigError, match="--device must be auto, cpu"):
        TrainArgs(device=device).resolved()
    with pytest.raises(SystemExit) as stop:
        cli.main(["train", "promise_war_v0", "--device", device])
    assert stop.value.code == 2
    assert "argument --device: must be auto, cpu" in capsys.readouterr().err


def test_rllib_minibatch_is_at_most_the_train_batch():
    with pytest.raises(InvalidConfigError, match="--rllib-minibatch-size must be at most"):
        TrainArgs(rllib_train_batch_size=64, rllib_minibatch_size=128).resolved()


def test_every_field_names_its_backends_and_the_other_one_is_warned_about():
    assert all(set(backends_of(name)) <= set(BACKENDS) for name in vars(TrainArgs()))
    assert backends_of("n_envs") == ("sb3",) and backends_of("rllib_lr") == ("rllib",)
    assert set(backends_of("steps")) == set(BACKENDS)
    args = TrainArgs(n_envs=4, rllib_lr=0.1, steps=10)
    assert ignored_by(args, "rllib") == ["n_envs"] and ignored_by(args, "sb3") == ["rllib_lr"]


def test_sb3_warns_about_rllib_only_flags(tmp_path, monkeypatch):
    from cardarena.training import train as train_module
    from cardarena.training.sb3 import run as sb3_run

    monkeypatch.setattr(sb3_run, "RunLock", _Refuse)
    ignored = r"--backend sb3 ignores --rllib-lr \(other backends only\)"
    with pytest.warns(UserWarning, match=ignored), pytest.raises(_Stop):
        train_module.train(TrainArgs(rllib_lr=0.1, out=tmp_path))


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_default_is_warned_about_by_the_run_it_starts(backend, capsys):
    """A default the same command then warns about is a wrong default: the notes and the
    ignored-flag warnings of ``cardarena train`` stay silent for flags left alone."""
    from cardarena.training.vector.run import _warn_emulated_bfloat16, warn_short_checkpoints

    args = TrainArgs(env="ironman_war_v0", backend=backend)
    resolved = args.resolved()
    assert ignored_by(resolved, backend) == []
    if backend == "vector":
        warn_short_checkpoints(resolved)
        _warn_emulated_bfloat16(resolved)
    assert capsys.readouterr().err == ""


def test_checkpoint_every_defaults_per_backend_and_a_short_one_set_by_hand_is_pointed_out(
    capsys,
):
    from cardarena.training.train_args import CHECKPOINT_EVERY, MIN_CHECKPOINT_ROLLOUTS
    from cardarena.training.vector.run import warn_short_checkpoints

    assert TrainArgs(backend="sb3").resolved().checkpoint_every == CHECKPOINT_EVERY == 20_000
    assert TrainArgs(backend="rllib").resolved().checkpoint_every is None  # not an rllib flag
    small = TrainArgs(backend="vector", num_envs=8, rollout_steps=8, minibatch_size=64).resolved()
    assert small.checkpoint_every == CHECKPOINT_EVERY  # 10 rollouts are only 640 steps
    big = TrainArgs(backend="vector", num_envs=512, rollout_steps=16).resolved()
    assert big.checkpoint_every == MIN_CHECKPOINT_ROLLOUTS * 512 * 16 == 81_920
    assert TrainArgs(backend="vector", checkpoint_every=7).resolved().checkpoint_every == 7
    with pytest.raises(ValueError, match=r"resolved\(\); call it first"):
        _ = TrainArgs().checkpoint_steps
    warn_short_checkpoints(TrainArgs(backend="vector", num_envs=512, rollout_steps=16,
                                     checkpoint_every=81_919).resolved())  # fmt: skip
    assert "note: --checkpoint-every 81,919 is under 10 rollouts (81,920 steps" in (
        capsys.readouterr().err
    )


class _Stop(Exception):
    pass


class _Refuse:
    def __init__(self, out: Path) -> None:
        raise _Stop


def test_rllib_settings_default_to_the_flags():
    """``RLlibSettings`` (ray only) reads its defaults from these fields; the values it had."""
    args = TrainArgs()
    assert (args.rllib_hidden, args.rllib_train_batch_size, args.rllib_minibatch_size) == (
        [128, 128], 2048, 256,
    )  # fmt: skip
    assert (args.rllib_num_epochs, args.rllib_lr, args.rllib_entropy_coeff) == (5, 3e-4, 0.01)
    assert (args.rllib_gamma, args.rllib_rollout_fragment_length) == (0.99, 0)


# --- the PPO settings reach the model ---------------------------------------------------------
def test_ppo_flags_reach_the_checkpointed_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    from cardarena.training.checkpoint import load_checkpoint

    argv = ["train", "promise_war_v0", "--steps", "64", "--out", str(tmp_path), "--n-steps",
            "16", "--batch-size", "64", "--n-envs", "4", "--eval-every", "0", "--final-eval-games",
            "0", "--no-progress", "--clip-range", "0.1", "--gae-lambda", "0.9", "--vf-coef",
            "0.25", "--max-grad-norm", "1.5", "--device", "cpu"]  # fmt: skip
    assert cli.main(argv) == 0
    settings = load_checkpoint(tmp_path / "latest").settings
    assert (settings["clip_range"], settings["gae_lambda"]) == (0.1, 0.9)
    assert (settings["vf_coef"], settings["max_grad_norm"]) == (0.25, 1.5)
    saved = json.loads((tmp_path / "args.json").read_text())
    assert saved["device"] == "cpu" and saved["clip_range"] == 0.1


def test_checkpoint_settings_and_the_reader_name_the_same_keys():
    from cardarena.agents.checkpoint_reader import SETTING_NAMES
    from cardarena.training.sb3.model import SETTINGS

    assert tuple(SETTINGS) == SETTING_NAMES


# --- a game without a heuristic ------------------------------------------------------------------
def _without_heuristic(monkeypatch: pytest.MonkeyPatch, env: str) -> None:
    from cardarena.agents.heuristics import STRATEGIES

    monkeypatch.delitem(STRATEGIES, env)


def test_available_baselines_leave_out_a_missing_heuristic(monkeypatch):
    from cardarena.agents import EnvSpec
    from cardarena.evaluation.evaluate import available_baselines

    spec = EnvSpec("promise_war_v0", {})
    assert available_baselines(spec) == ["random", "heuristic"]
    _without_heuristic(monkeypatch, "promise_war_v0")
    assert available_baselines(spec) == ["random"]


def test_an_env_without_a_heuristic_trains_and_is_evaluated_against_random(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("sb3_contrib")
    from cardarena.training.checkpoint import load_checkpoint

    _without_heuristic(monkeypatch, "promise_war_v0")
    argv = ["train", "promise_war_v0", "--steps", "128", "--out", str(tmp_path), "--n-steps",
            "16", "--batch-size", "64", "--n-envs", "4", "--eval-every", "64", "--eval-games",
            "2", "--final-eval-games", "2", "--no-progress", "--selfplay",
            "--snapshot-every", "64", "--league-eval-games", "1"]  # fmt: skip
    assert cli.main(argv) == 0
    rows = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert rows and all(row["baselines"] == ["random"] for row in rows)
    assert all("heuristic" in row["not_evaluated"] for row in rows)
    assert not any("win_rate_heuristic" in row for row in rows)
    out = capsys.readouterr().out
    assert "final evaluation vs random:" in out and "vs heuristic: none" in out
    opponents = load_checkpoint(tmp_path / "latest").opponents
    assert "heuristic" not in opponents and "random" in opponents


# --- the layers ---------------------------------------------------------------------------------
def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the file's package
                package = ["cardarena", *path.relative_to(ROOT).parent.parts]
                base = ".".join([*package[: len(package) - node.level + 1], base]).rstrip(".")
            found.add(base)
    return found


def test_agents_never_import_training_evaluation_or_the_command_line():
    """Data flows one way: a checkpoint agent reads its folder with agents' own reader, and
    the terminal prompt (``agents.terminal``) is the command line's to use, not to import."""
    above = ("cardarena.training", "cardarena.evaluation", "cardarena.cli")
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _imports(path) if name.startswith(above)
        )
        for path in sorted((ROOT / "agents").rglob("*.py"))
    }
    assert not {path: names for path, names in offenders.items() if names}


def test_the_import_scan_sees_relative_imports():
    path = ROOT / "training" / "rllib" / "loop.py"
    assert "cardarena.training.league" in _imports(path)
    assert "cardarena.training.rllib.config" in _imports(path)
