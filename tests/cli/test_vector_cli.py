"""``cardarena eval --vector`` and ``cardarena bench --vector`` as a user runs them."""

from __future__ import annotations

import io
import json
import math
import re

import pytest

from cardarena.cli import main
from cardarena.evaluation.tournament import run_tournament
from cardarena.evaluation.tournament_vector import run_vector_tournament


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


def test_eval_vector_prints_the_ratings_table_and_writes_records(tmp_path):
    code, text = run(["eval", "promise_war_v0", "heuristic", "random", "--games", "3000",
                      "--vector", "--quiet", "--out", str(tmp_path)])  # fmt: skip
    assert code == 0, text
    assert "## promise_war_v0: 2 agents, 3000 games, seed 0" in text
    assert re.search(r"\| `heuristic` \| `random` \| \d+ \| \d+ \| \d+ \| 3000 \|", text)
    assert not (tmp_path / "games.jsonl").exists()  # records without actions do not replay
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["env"] == "promise_war_v0" and results["games"] == 3000


def test_vector_tournament_agrees_with_the_plain_one_within_intervals():
    """Same agents, different deals: the win rates agree within their 99% intervals."""
    vector = run_vector_tournament("ironman_war_v0", ["heuristic", "random"], 20_000, seed=1)
    plain = run_tournament("ironman_war_v0", ["heuristic", "random"], 600, seed=1)
    a, b = vector.pairs[("heuristic", "random")], plain.pairs[("heuristic", "random")]
    spread = 2.576 * math.sqrt(a.win_rate * (1 - a.win_rate) / a.games
                               + b.win_rate * (1 - b.win_rate) / b.games)  # fmt: skip
    assert abs(a.win_rate - b.win_rate) <= spread, (a, b)


def test_vector_tournament_is_reproducible_and_seats_multi_player_tables():
    first = run_vector_tournament("promise_war_v0", ["heuristic", "random"], 500,
                                  config={"num_players": 3}, seed=4)  # fmt: skip
    again = run_vector_tournament("promise_war_v0", ["heuristic", "random"], 500,
                                  config={"num_players": 3}, seed=4)  # fmt: skip
    assert [r.returns for r in first.games] == [r.returns for r in again.games]
    assert [r.returns for r in first.games] == [r.returns for r in again.games]
    # Seating rotates per game as in the plain tournament.
    assert [r.lineup for r in first.games[:2]] == [
        {"player_0": "heuristic", "player_1": "random", "player_2": "heuristic"},
        {"player_0": "random", "player_1": "heuristic", "player_2": "random"},
    ]
    assert all(r.actions == [] and r.steps > 0 for r in first.games)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "cardline_v0", "oracle", "random", "--vector"], "'oracle' has none"),
        (["eval", "promise_war_v0", "random", "random", "--vector"], "repeated"),
        (["eval", "promise_war_v0", "nobody", "random", "--vector"], "nobody"),
    ],
)
def test_eval_vector_refuses_what_it_cannot_play(argv, message, capsys):
    code, _ = run(argv)
    assert code == 2
    assert message in capsys.readouterr().err


def test_bench_vector_prints_every_row(capsys):
    code, _ = run(["bench", "--vector", "--env", "promise_war_v0", "--seconds", "0.02",
                   "--rounds", "1", "--num-envs", "8", "32"])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    for row in ("promise_war_v0 env()", "promise_war_v0 x8", "promise_war_v0 x32",
                "memory of promise_war_v0 x4096", "write bandwidth"):  # fmt: skip
        assert row in text, text


def test_bench_vector_and_learn_are_exclusive(capsys):
    code, _ = run(["bench", "--vector", "--learn"])
    assert code == 2
    assert "choose one" in capsys.readouterr().err


def test_vector_tournament_in_worker_processes_gives_the_same_records():
    specs = ["heuristic", "random", "pretrained"]
    one = run_vector_tournament("ironman_war_v0", specs, 300, seed=3)
    two = run_vector_tournament("ironman_war_v0", specs, 300, seed=3, jobs=2)
    assert len(one.games) == 900
    assert [(r.lineup, r.returns, r.steps) for r in one.games] == [
        (r.lineup, r.returns, r.steps) for r in two.games
    ]
