"""The ladder's page (``docs/site/exploitability.md``, moved there from the README) quotes the
measured files kept in ``docs/ladder``: each kept best response's win rate and interval stands
in its agent's row of its game's table (or in its checkpoint's row of the generations table),
and each kept round robin fills its cells, so a figure edited by hand, or a rerun whose page
was not updated, fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "docs" / "ladder"
README = (ROOT / "docs" / "site" / "exploitability.md").read_text()


def _percent(found: dict) -> str:
    return f"{100 * found['win_rate']:.1f}% ({100 * found['low']:.1f}-{100 * found['high']:.1f})"


def _kept(pattern: str) -> list[Path]:
    return sorted(KEPT.glob(pattern))


def _game_table(env: str) -> list[str]:
    """The lines of the README's ladder table for ``env`` (from its bold title to the next)."""
    lines = README.splitlines()
    start = lines.index(f"**{env}**")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("**"))
    return lines[start:end]


@pytest.mark.parametrize(
    "path", _kept("*/common/*/exploit.json") + _kept("*/exploit/*/exploit.json"),
    ids=lambda path: str(path.relative_to(KEPT).parent),
)  # fmt: skip
def test_each_kept_best_response_is_quoted_in_its_agents_row(path: Path):
    report = json.loads(path.read_text())
    row_start = f"| `{report['agent']}` |"
    rows = [line for line in _game_table(report["env"]) if line.startswith(row_start)]
    assert len(rows) == 1, f"no single row for {report['agent']} in the {report['env']} table"
    assert _percent(report["exploitability"]) in rows[0], (path, rows[0])


@pytest.mark.parametrize(
    "path", _kept("*/generations/*/exploit.json"),
    ids=lambda path: str(path.relative_to(KEPT).parent),
)  # fmt: skip
def test_each_kept_generation_is_quoted_in_the_generations_table(path: Path):
    report = json.loads(path.read_text())
    step = int(path.parent.name.removeprefix("step_"))
    rows = [line for line in README.splitlines()
            if line.startswith(f"| {report['env']}") and f"| {step:,} |" in line]  # fmt: skip
    assert len(rows) == 1, f"no single generations row for {report['env']} at {step:,}"
    self_play = f"{100 * report['self_play']['win_rate']:.1f}%"
    assert _percent(report["exploitability"]) in rows[0], (path, rows[0])
    assert rows[0].rstrip(" |").endswith(self_play), (path, rows[0])


@pytest.mark.parametrize(
    "path", _kept("*/round_robin/results.json"),
    ids=lambda path: str(path.relative_to(KEPT).parent),
)  # fmt: skip
def test_each_kept_round_robin_is_the_readmes_cells(path: Path):
    """Each pairing's wins / games, both ways, in the row agent's cell under the column
    agent's heading (a draw is no one's win, as in the tables)."""
    from cardarena.evaluation.stats import wilson_interval

    results = json.loads(path.read_text())
    table = _game_table(results["env"])
    header = [
        cell.strip() for cell in next(x for x in table if x.startswith("| agent |")).split("|")
    ]

    def cell(row_agent: str, column_agent: str) -> str:
        row = next(line for line in table if line.startswith(f"| `{row_agent}` |"))
        return row.split("|")[header.index(f"vs {column_agent}")].strip()

    assert results["pairs"]
    for pair in results["pairs"]:
        games = pair["games"]
        for row, column, wins in ((pair["agent"], pair["opponent"], pair["wins"]),
                                  (pair["opponent"], pair["agent"], pair["losses"])):  # fmt: skip
            low, high = wilson_interval(wins, games)
            found = {"win_rate": wins / games, "low": low, "high": high}
            assert cell(row, column) == _percent(found), (path, row, column)


def test_results_are_kept_for_every_game():
    """The tests above must have something to check: each game keeps its common budget."""
    for env in ("promise_war_v0", "ironman_war_v0", "beast_wars_v0", "cardline_v0"):
        assert _kept(f"{env}/common/*/exploit.json"), env
