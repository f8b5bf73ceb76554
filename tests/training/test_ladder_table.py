"""``scripts/ladder_table.py``: the README's ladder tables come from the files that
``cardarena eval`` and ``cardarena exploit`` write. A real (tiny) round robin and a real
(tiny) exploit run feed it, so a change in either file's format fails here."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from cardarena import cli
from cardarena.training.exploit import exploit

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ladder_table.py"
PW = "promise_war_v0"
TINY = {"num_envs": 16, "rollout_steps": 16, "minibatch_size": 128, "eval_games": 10,
        "final_eval_games": 10}  # fmt: skip


def _script():
    spec = importlib.util.spec_from_file_location("ladder_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def ladder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ladder")
    here = root / PW
    argv = ["eval", PW, "random", "heuristic", "--games", "12", "--seed", "3", "--quiet",
            "--out", str(here / "round_robin")]  # fmt: skip
    assert cli.main(argv) == 0
    exploit(PW, "random", out=here / "exploit" / "random", steps=256, games=30, train=TINY,
            evaluations=1, progress=False)  # fmt: skip
    exploit(PW, "heuristic", warm_from="pretrained", out=here / "exploit" / "heuristic",
            steps=256, games=20, train=TINY, evaluations=1, progress=False)  # fmt: skip
    exploit(PW, "random", warm_from="pretrained", out=here / "common" / "random", steps=128,
            games=16, train=TINY, evaluations=1, progress=False)  # fmt: skip
    for step in (2, 1):  # out of order on disk: the table sorts them
        (here / "generations" / f"step_{step}").mkdir(parents=True)
        (here / "generations" / f"step_{step}" / "exploit.json").write_text(
            (here / "exploit" / "random" / "exploit.json").read_text()
        )
    return root


def _percent(report: dict) -> str:
    found = report["exploitability"]
    return f"{100 * found['win_rate']:.1f}% ({100 * found['low']:.1f}-{100 * found['high']:.1f})"


def test_the_table_holds_the_round_robin_and_each_best_response(ladder, capsys):
    module = _script()
    assert module.main([str(ladder)]) == 0
    text = capsys.readouterr().out
    results = json.loads((ladder / PW / "round_robin" / "results.json").read_text())
    pair = results["pairs"][0]
    first, second = pair["agent"], pair["opponent"]
    lines = text.splitlines()
    header = [
        cell.strip() for cell in next(x for x in lines if x.startswith("| agent |")).split("|")
    ]

    def cell(row_agent: str, column_agent: str) -> str:
        row = next(line for line in lines if line.startswith(f"| `{row_agent}` |"))
        return row.split("|")[header.index(f"vs {column_agent}")].strip()

    games = pair["games"]
    assert cell(first, second).startswith(f"{100 * pair['wins'] / games:.1f}% (")
    assert cell(second, first).startswith(f"{100 * pair['losses'] / games:.1f}% (")
    assert pair["wins"] != pair["losses"], "the seed should tell the two directions apart"
    random_row = next(line for line in text.splitlines() if line.startswith("| `random` |"))
    report = json.loads((ladder / PW / "exploit" / "random" / "exploit.json").read_text())
    assert f"{100 * report['exploitability']['win_rate']:.1f}%" in random_row
    assert "256 (scratch), 30 games" in random_row
    common = json.loads((ladder / PW / "common" / "random" / "exploit.json").read_text())
    cells = [cell.strip() for cell in random_row.split("|")]
    assert cells[-4] == _percent(common) and cells[-3] == _percent(report)
    assert "common budget 128 (from pretrained), 16 games" in text
    heuristic_row = next(line for line in text.splitlines() if line.startswith("| `heuristic` |"))
    assert "256 (from pretrained), 20 games" in heuristic_row
    assert second in text and "12 games per pairing, seed 3" in text
    generations = text[text.index("Self-play generations") :].splitlines()
    steps = [line.split("|")[1].strip() for line in generations if line.startswith("| ") and
             line.split("|")[1].strip().isdigit()]  # fmt: skip
    assert steps == ["1", "2"]
    own = f"| {100 * report['self_play']['win_rate']:.1f}% |"
    assert own in next(line for line in generations if line.startswith("| 1 |"))
    assert report["self_play"]["win_rate"] != report["exploitability"]["win_rate"]


def test_the_figure_is_written_and_an_empty_folder_says_so(ladder, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    module = _script()
    out = tmp_path / "generations.png"
    assert module.main([str(ladder), "--figure", str(out)]) == 0
    assert out.stat().st_size > 5000
    empty = tmp_path / "empty"
    (empty / PW).mkdir(parents=True)
    with pytest.raises(SystemExit, match="no generations measured"):
        module.main([str(empty), "--figure", str(tmp_path / "none.png")])
    assert module.main([]) == 2 and "usage:" in capsys.readouterr().err


def test_without_a_round_robin_the_best_responses_alone_are_listed(ladder, tmp_path, capsys):
    alone = tmp_path / "alone" / PW
    for kind in ("common", "exploit"):
        (alone / kind / "random").mkdir(parents=True)
        (alone / kind / "random" / "exploit.json").write_text(
            (ladder / PW / kind / "random" / "exploit.json").read_text()
        )
    assert _script().main([str(alone.parent)]) == 0
    text = capsys.readouterr().out
    assert "| agent | BR wins, common budget | BR wins, long budget | long budget |" in text
    assert "| `random` |" in text and "No round robin here." in text
    assert "vs heuristic" not in text
    assert "long budget measured on 30 fresh games each." in text


def test_a_game_without_a_long_budget_says_so(ladder, tmp_path, capsys):
    common_only = tmp_path / "common_only" / PW / "common" / "random"
    common_only.mkdir(parents=True)
    (common_only / "exploit.json").write_text(
        (ladder / PW / "common" / "random" / "exploit.json").read_text()
    )
    assert _script().main([str(tmp_path / "common_only")]) == 0
    text = capsys.readouterr().out
    assert "no long-budget best response here." in text and "measured on -" not in text


def test_the_habits_table_marks_each_agents_weakest_pairing(ladder, tmp_path, capsys):
    """A real (tiny) round robin of two agents and three habits: the table has a row per
    agent, a column per habit, and bolds the habit whose interval is lowest for that agent."""
    import shutil

    root = tmp_path / "ladder"
    shutil.copytree(ladder, root)
    habits = ["habit:plan=highest", "habit:plan=lowest", "habit:plan=coin"]
    argv = ["eval", PW, "random", "heuristic", *habits, "--games", "16", "--seed", "5",
            "--quiet", "--out", str(root / PW / "habits")]  # fmt: skip
    assert cli.main(argv) == 0
    assert _script().main([str(root)]) == 0
    text = capsys.readouterr().out
    lines = text[text.index("against the habits") :].splitlines()
    assert next(x for x in lines if x.startswith("| agent")).count("vs `") == 3
    results = json.loads((root / PW / "habits" / "results.json").read_text())
    from cardarena.evaluation.stats import wilson_interval

    for agent in ("random", "heuristic"):
        lows = {}
        for pair in results["pairs"]:
            if pair["agent"] == agent and pair["opponent"] in habits:
                lows[pair["opponent"]] = wilson_interval(pair["wins"], pair["games"])[0]
            if pair["opponent"] == agent and pair["agent"] in habits:
                lows[pair["agent"]] = wilson_interval(pair["losses"], pair["games"])[0]
        row = next(x for x in lines if x.startswith(f"| `{agent}` |")).split("|")[2:-1]
        bold = [habits[i] for i, cell in enumerate(row) if "**" in cell]
        assert bold == [min(habits, key=lambda h: lows[h])]
    assert not any(x.startswith("| `habit:") for x in lines)
