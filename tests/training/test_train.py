"""``cardarena train``: smoke runs on every env, the self-play league, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError
from cardarena.training.league import LeaguePool

TINY = ["--n-steps", "16", "--batch-size", "64", "--n-envs", "4", "--eval-games", "4",
        "--final-eval-games", "4", "--no-progress"]  # fmt: skip


def _run_cli(args: list[str]) -> str:
    import io

    from cardarena.cli import main

    out = io.StringIO()
    assert main(args, out=out) == 0
    return out.getvalue()


# --- the league sampler ----------------------------------------------------------------------
def _pool(mode: str, tmp_path: Path) -> LeaguePool:
    pool = LeaguePool(["random", "heuristic"], mode=mode)
    for name in ("a", "b"):
        pool.add_snapshot(tmp_path / name)
    return pool


def _counts(pool: LeaguePool, draws: int = 4000) -> dict[str, int]:
    rng = np.random.default_rng(0)
    counts = dict.fromkeys(pool.entries, 0)
    for _ in range(draws):
        counts[pool.sample(rng)] += 1
    return counts


def test_league_latest_mostly_draws_the_newest_snapshot(tmp_path):
    pool = _pool("latest", tmp_path)
    counts = _counts(pool)
    newest = str((tmp_path / "b").resolve())
    assert 0.75 < counts[newest] / 4000 < 0.85
    assert all(counts[e] > 0 for e in pool.entries)
    assert LeaguePool(["random"], mode="latest").sample(np.random.default_rng(0)) == "random"


def test_league_uniform_draws_every_entry_equally(tmp_path):
    counts = _counts(_pool("uniform", tmp_path))
    assert all(0.2 < c / 4000 < 0.3 for c in counts.values())


def test_league_prioritised_prefers_entries_the_learner_loses_to(tmp_path):
    pool = _pool("prioritised", tmp_path)
    hard = str((tmp_path / "a").resolve())
    for entry in pool.entries:
        pool.record_result(entry, 0.9 if entry == hard else 0.0)
    counts = _counts(pool)
    assert counts[hard] > 3 * max(c for e, c in counts.items() if e != hard)
    # Seeded: the same generator state gives the same draws.
    first = [pool.sample(np.random.default_rng(5)) for _ in range(3)]
    assert first == [pool.sample(np.random.default_rng(5)) for _ in range(3)]


def test_league_max_snapshots_drops_the_oldest(tmp_path):
    pool = LeaguePool(["random"], mode="uniform", max_snapshots=2)
    for name in "abc":
        pool.add_snapshot(tmp_path / name)
    assert [Path(s).name for s in pool.snapshots] == ["b", "c"]


def test_league_baseline_share_keeps_the_baselines_in_play(tmp_path):
    pool = LeaguePool(["random", "heuristic"], mode="latest", baseline_share=0.5)
    assert list(pool.weights()) == pytest.approx([0.5, 0.5])  # no snapshot yet
    for name in ("a", "b"):
        pool.add_snapshot(tmp_path / name)
    weights = dict(zip(pool.entries, pool.weights(), strict=True))
    older, newest = (str((tmp_path / n).resolve()) for n in "ab")
    assert weights["random"] == weights["heuristic"] == pytest.approx(0.25)
    # "latest" divides the other half: 0.8 to the newest, 0.2 to the older snapshot.
    assert weights[newest] == pytest.approx(0.4) and weights[older] == pytest.approx(0.1)
    counts = _counts(pool)
    assert 0.45 < (counts["random"] + counts["heuristic"]) / 4000 < 0.55
    pool = LeaguePool(["random", "heuristic"], [tmp_path / "a"], "prioritised", baseline_share=0.5)
    pool.record_result("random", 0.0)  # weight 0.05
    pool.record_result("heuristic", 0.95)  # weight 1.0
    assert list(pool.weights()) == pytest.approx([0.5 * 0.05 / 1.05, 0.5 * 1.0 / 1.05, 0.5])
    uniform = LeaguePool(
        ["random"], [tmp_path / "a", tmp_path / "b"], "uniform", baseline_share=0.2
    )
    assert list(uniform.weights()) == pytest.approx([0.2, 0.4, 0.4])
    with pytest.raises(InvalidConfigError, match="baseline_share must be in"):
        LeaguePool(["random"], baseline_share=1.5)
    with pytest.raises(InvalidConfigError, match="needs a baseline"):
        LeaguePool([], [tmp_path / "a"], baseline_share=0.5)


# --- learning curves --------------------------------------------------------------------------
def _write_eval(run: Path, rows: list[dict]) -> None:
    run.mkdir(parents=True, exist_ok=True)
    (run / "args.json").write_text(json.dumps({"env": "promise_war_v0", "eval_games": 50,
                                               "final_eval_games": 400}))  # fmt: skip
    (run / "eval.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_read_curve_keeps_the_later_row_of_a_resumed_step(tmp_path):
    from cardarena.training.curves import read_curve

    row = {"win_rate_random": 0.5, "win_rate_heuristic": 0.2}
    _write_eval(tmp_path, [{**row, "step": 20}, {**row, "step": 10},
                           {**row, "step": 20, "win_rate_random": 0.7},
                           {**row, "step": 30, "final": True}])  # fmt: skip
    curve = read_curve(tmp_path)
    assert [(r["step"], r.get("final", False)) for r in curve] == [
        (10, False),
        (20, False),
        (30, True),
    ]
    assert curve[1]["win_rate_random"] == 0.7
    assert curve[0]["games_random"] == 50 and curve[2]["games_random"] == 400
    (tmp_path / "eval.jsonl").write_text('{"step": 1}\nnot json\n')
    with pytest.raises(InvalidConfigError, match=r"eval\.jsonl:2"):
        read_curve(tmp_path)
    with pytest.raises(InvalidConfigError, match=r"no eval\.jsonl"):
        read_curve(tmp_path / "elsewhere")


def test_cardarena_curves_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [{"step": s, "win_rate_random": 0.5 + s / 100, "win_rate_heuristic": s / 100}
            for s in (10, 20, 30)]  # fmt: skip
    _write_eval(tmp_path / "a", rows)
    _write_eval(tmp_path / "b", rows[:2])
    printed = _run_cli(["curves", str(tmp_path / "a"), str(tmp_path / "b"),
                        "--out", str(tmp_path / "c.png")])  # fmt: skip
    assert "c.png" in printed
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_multi_player_run_is_titled_with_its_table_and_its_fair_share(tmp_path):
    from cardarena.training.curves import _players, _run_name

    _write_eval(tmp_path / "a", [{"step": 1, "win_rate_random": 0.5}])
    (tmp_path / "a" / "args.json").write_text(
        json.dumps(
            {"env": "cardline_v0", "num_players": 4, "selfplay": True, "league_mode": "latest"}
        )
    )
    assert _players(tmp_path / "a") == 4
    assert _run_name(tmp_path / "a", []) == "cardline_v0, 4 players, self-play league (latest)"
    (tmp_path / "a" / "args.json").write_text(
        json.dumps({"env": "cardline_v0", "num_players": None})
    )
    assert _players(tmp_path / "a") == 2 and _run_name(tmp_path / "a", []) == "cardline_v0"


def test_best_checkpoint_picks_the_best_evaluated_step_with_a_checkpoint(tmp_path):
    from cardarena.training.export import best_checkpoint

    rates = {10: 0.4, 20: 0.7, 30: 0.7, 40: 0.9, 50: 0.2}
    _write_eval(tmp_path, [{"step": s, "win_rate_random": 0.9, "win_rate_heuristic": r}
                           for s, r in rates.items()]
                + [{"step": 60, "final": True, "win_rate_heuristic": 1.0}])  # fmt: skip
    for step in (10, 20, 30, 50, 60):  # no checkpoint at 40
        (tmp_path / "checkpoints" / f"step_{step}").mkdir(parents=True)
        (tmp_path / "checkpoints" / f"step_{step}" / "meta.json").write_text("{}")
    assert best_checkpoint(tmp_path).name == "step_30"  # tie with 20: the later one
    assert best_checkpoint(tmp_path, min_step=31).name == "step_50"
    assert best_checkpoint(tmp_path, "random").name == "step_50"
    with pytest.raises(InvalidConfigError, match="from step 70 on"):
        best_checkpoint(tmp_path, min_step=70)


def test_backend_rllib_without_ray_says_which_extra(tmp_path):
    from importlib.util import find_spec

    if find_spec("ray") is not None:
        pytest.skip("ray is installed here; tests/training/test_rllib.py covers the backend")
    from cardarena.training.train import TrainArgs, train

    venv = r"needs the 'rllib' extra \(ray is missing\), in a venv of its own.*make \.venv-rllib/"
    with pytest.raises(SystemExit, match=venv):
        train(TrainArgs("promise_war_v0", steps=10, backend="rllib", out=tmp_path))
    with pytest.raises(InvalidConfigError, match="backend must be one of"):
        TrainArgs("promise_war_v0", backend="tf").resolved()


def test_resume_refuses_other_league_flags(tmp_path):
    from cardarena.training.train import TrainArgs, train

    (tmp_path / "args.json").write_text(json.dumps({"selfplay": True, "league_mode": "latest",
                                                    "baseline_share": 0.5}))  # fmt: skip
    args = TrainArgs("promise_war_v0", selfplay=True, resume=True, out=tmp_path)
    with pytest.raises(InvalidConfigError, match=r"--league-mode 'latest' \(now 'prioritised'\)"):
        train(args)


def test_backend_rllib_warns_about_the_flags_it_ignores(tmp_path, monkeypatch):
    from cardarena.training import train as train_module

    monkeypatch.setattr(train_module, "has_module", lambda module: True)
    called = {}

    def train_from_args(args):  # stands in for the Ray run
        called["args"] = args
        return {"policies": {}}

    rllib_module = type(sys)("cardarena.training.rllib")
    rllib_module.train_from_args = train_from_args  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cardarena.training.rllib", rllib_module)
    args = train_module.TrainArgs("promise_war_v0", backend="rllib", n_envs=4, ent_coef=0.1)
    with pytest.warns(UserWarning, match="ignores --ent-coef, --n-envs"):
        out = train_module.train(args)
    assert out == Path("runs") / "promise_war_v0_rllib" == called["args"].out


# --- training runs ---------------------------------------------------------------------------
@pytest.mark.parametrize("env", sorted(ENVS))
def test_train_smoke_every_env(env, tmp_path):
    pytest.importorskip("sb3_contrib")
    from cardarena.agents import make_agent, start_game
    from cardarena.agents.base import EnvSpec
    from cardarena.training.checkpoint import load_checkpoint

    printed = _run_cli(
        ["train", env, "--steps", "128", "--out", str(tmp_path), "--checkpoint-every", "64",
         "--eval-every", "0", *TINY]
    )  # fmt: skip
    del printed  # train() prints to stdout itself
    final = sorted((tmp_path / "checkpoints").iterdir(), key=lambda p: int(p.name[5:]))[-1]
    checkpoint = load_checkpoint(final, expect_env=env)
    assert checkpoint.step >= 128 and checkpoint.opponents == ["random"]
    agent = make_agent(str(tmp_path / "latest"))
    start_game(agent, checkpoint.env_spec.make_raw().possible_agents[0], EnvSpec(env, {}))
    assert list((tmp_path / "logs").glob("run_0/progress.csv"))


def test_train_prints_the_final_evaluation(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    _run_cli(["train", "promise_war_v0", "--steps", "64", "--out", str(tmp_path), *TINY])
    stdout = capsys.readouterr().out
    assert "final evaluation vs random:    4 games:" in stdout
    assert "final evaluation vs heuristic: 4 games:" in stdout
    rows = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert rows[-1]["final"] is True


@pytest.mark.parametrize("backend", ["sb3", "vector"])
def test_no_final_evaluation_games_is_said_not_crashed(tmp_path, capsys, backend):
    """``--final-eval-games 0`` (the flag allows it) trains and says nothing was played."""
    pytest.importorskip("sb3_contrib")
    vector = ["--num-envs", "8", "--rollout-steps", "8", "--minibatch-size", "32",
              "--eval-games", "4", "--no-progress"]  # fmt: skip
    _run_cli(["train", "promise_war_v0", "--steps", "64", "--out", str(tmp_path),
              *(vector if backend == "vector" else TINY), "--final-eval-games", "0",
              "--backend", backend])  # fmt: skip
    stdout = capsys.readouterr().out
    assert "final evaluation vs random:    none (0 games asked)" in stdout
    final = json.loads((tmp_path / "eval.jsonl").read_text().splitlines()[-1])
    assert final["final"] and final["baselines"] == []
    assert final["not_evaluated"] == {"random": "0 games asked", "heuristic": "0 games asked"}


def test_selfplay_adds_snapshots_and_samples_them(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from cardarena.training import league
    from cardarena.training.checkpoint import load_checkpoint

    drawn: list[str] = []
    original = league.LeaguePool.sample

    def spy(self, rng):
        entry = original(self, rng)
        drawn.append(entry)
        return entry

    monkeypatch.setattr(league.LeaguePool, "sample", spy)
    _run_cli(
        ["train", "promise_war_v0", "--steps", "256", "--out", str(tmp_path), "--selfplay",
         "--snapshot-every", "64", "--eval-every", "128", "--checkpoint-every", "128",
         "--league-eval-games", "2", *TINY]
    )  # fmt: skip
    snapshots = sorted(str(p.resolve()) for p in (tmp_path / "snapshots").iterdir())
    assert len(snapshots) >= 2
    meta = json.loads((tmp_path / "latest" / "meta.json").read_text())
    assert meta["opponents"][:2] == [{"spec": "random"}, {"spec": "heuristic"}]
    assert all(entry["path"].startswith("../snapshots/") for entry in meta["opponents"][2:])
    opponents = load_checkpoint(tmp_path / "latest").opponents
    assert set(snapshots) <= {str(Path(o).resolve()) for o in opponents[2:]} | {snapshots[-1]}
    assert set(drawn) & set(snapshots), "no snapshot was ever drawn as an opponent"
    rows = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert any(row.get("league_loss_rates") for row in rows)
    # The measured loss rates survive a resume (a prioritised league samples as before).
    saved = json.loads((tmp_path / "league.json").read_text())["loss_rates"]
    assert {"random", "heuristic"} <= set(saved)
    restored: dict[str, float] = {}
    original_record = league.LeaguePool.record_result

    def record(self, entry, loss_rate):
        restored.setdefault(entry, loss_rate)  # the first value recorded after the resume
        original_record(self, entry, loss_rate)

    monkeypatch.setattr(league.LeaguePool, "record_result", record)
    _run_cli(["train", "promise_war_v0", "--steps", "320", "--out", str(tmp_path), "--selfplay",
              "--resume", "--snapshot-every", "64", "--eval-every", "0", *TINY])  # fmt: skip
    assert all(restored[entry] == rate for entry, rate in saved.items() if entry in restored)
    assert restored["heuristic"] == saved["heuristic"]


def _latest_step(out: Path) -> int:
    try:
        return int(json.loads((out / "latest" / "meta.json").read_text())["step"])
    except (OSError, ValueError, KeyError):
        return -1


def test_resume_after_sigkill_continues_and_loses_nothing(tmp_path):
    pytest.importorskip("sb3_contrib")
    from cardarena.training.checkpoint import load_checkpoint
    from cardarena.training.train import resume_point

    out = tmp_path / "run"
    command = [sys.executable, "-m", "cardarena.cli", "train", "promise_war_v0",
               "--checkpoint-every", "512", "--eval-every", "0", "--out", str(out), "--seed", "3",
               "--n-steps", "32", "--batch-size", "128", "--final-eval-games", "4",
               "--no-progress"]  # fmt: skip
    process = subprocess.Popen(
        [*command, "--steps", "400000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        # Killed once a checkpoint at step >= 1024 is on disk; the deadline only bounds a
        # hang (it takes seconds; a loaded machine takes longer, not a different path).
        deadline = time.monotonic() + 300
        while _latest_step(out) < 1024:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "no checkpoint at step >= 1024 within 300 s"
            time.sleep(0.05)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    seen = _latest_step(out)
    before = {p.name: (p / "meta.json").read_text() for p in (out / "checkpoints").iterdir()
              if (p / "meta.json").exists()}  # fmt: skip
    assert seen >= 1024 and before
    resumed_from = load_checkpoint(resume_point(out)).step
    assert resumed_from >= seen
    done = subprocess.run(
        [*command, "--steps", str(resumed_from + 600), "--resume"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    final = load_checkpoint(out / "latest")
    assert final.step >= resumed_from + 600
    steps = sorted(int(p.name[5:]) for p in (out / "checkpoints").iterdir())
    assert [s for s in steps if s > resumed_from], "the resumed run wrote no new checkpoint"
    for name, meta in before.items():  # every checkpoint before the kill is intact and loads
        assert (out / "checkpoints" / name / "meta.json").read_text() == meta
        load_checkpoint(out / "checkpoints" / name)
    assert (out / "logs" / "run_0" / "progress.csv").exists()
    assert (out / "logs" / f"run_{resumed_from}" / "progress.csv").exists()
    assert "final evaluation vs random" in done.stdout
