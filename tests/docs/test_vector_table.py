"""The vector engine's 100,000-game table (``docs/site/vector.md``) quotes the ``results.json``
files kept in ``docs/site/data/vector_eval``: every cell is its pairing's win rate and 95%
interval, and every kept file has its row, so a figure edited by hand, or a rerun whose page
was not updated, fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEPT = sorted((ROOT / "docs" / "site" / "data" / "vector_eval").glob("*.json"))
PAGE = (ROOT / "docs" / "site" / "vector.md").read_text()
COLUMNS = [("pretrained", "heuristic"), ("pretrained", "random"), ("heuristic", "random")]


def _cell(pair: dict) -> str:
    return f"{100 * pair['win_rate']:.1f}% ({100 * pair['low']:.1f}-{100 * pair['high']:.1f})"


def test_every_env_with_a_vector_engine_has_a_kept_run():
    from cardarena.envs import ENVS
    from cardarena.envs.vector import has_vector

    builtin = {n for n in ENVS if ENVS[n].__name__.startswith("cardarena.envs.") and has_vector(n)}
    assert {path.stem for path in KEPT} == builtin


@pytest.mark.parametrize("path", KEPT, ids=lambda path: path.stem)
def test_each_row_is_its_kept_run(path: Path):
    run = json.loads(path.read_text())
    assert run["env"] == path.stem and run["seed"] == 2026 and run["config"] == {}
    pairs = {(p["agent"], p["opponent"]): p for p in run["pairs"]}
    assert all(pairs[column]["games"] == 100_000 for column in COLUMNS)
    row = f"| `{run['env']}` | " + " | ".join(_cell(pairs[c]) for c in COLUMNS) + " |"
    assert row in PAGE.splitlines(), row
