"""docs/magnet.md quotes the sweep it was chosen from: its table is what
``scripts/magnet_sweep.py --table`` renders from the kept ``docs/magnet/sweep.json``, so a
figure edited by hand, or a rerun whose page was not updated, fails here."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "magnet_sweep", ROOT / "scripts" / "magnet_sweep.py"
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_page_holds_the_table_of_the_kept_sweep():
    results = json.loads((ROOT / "docs" / "magnet" / "sweep.json").read_text())
    table = _script().table(results)
    assert table in (ROOT / "docs" / "magnet.md").read_text()
    assert table == (ROOT / "docs" / "magnet" / "sweep.md").read_text()


def test_the_table_is_the_mean_over_seeds_of_the_end_and_the_second_half():
    seeds = {
        "0": {"sampled": [4.0, 3.0, 2.0, 1.0], "greedy": [2.0] * 4},
        "1": {"sampled": [4.0, 3.0, 2.0, 3.0], "greedy": [1.0] * 4},
    }
    curves = {"c": {"s": seeds}}
    row = _script().table({"curves": curves}).splitlines()[-1]
    assert row == "| c | s | 2.000 | 2.000 | 1.500 | 2 |"
