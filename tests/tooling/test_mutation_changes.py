"""``make mutate ... CHANGED=1`` (scripts/mutation_changes.py): a kept mutation result brought to
today's source by running only the mutants of changed lines. The merge must count exactly
what a whole run of the new source would (given the same outcomes), and a kept survivor must
be renumbered to the line and occurrence cosmic-ray gives it in the new source, or
``--recheck`` would apply a different mutant."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


changes = _load("mutation_changes")
Mutant = changes.Mutant

OLD = "a = 1\nb = a + 2 + 3\nc = b - 1\nd = c * 2\n"
# b's line removed; a new line (e) inserted before d, so d moves from 4 to 4 and c from 3 to 2.
NEW = "a = 1\nc = b - 1\ne = c + 5\nd = c * 2\n"

OLD_MUTANTS = [
    Mutant("Add_Sub", 0, 2, 2),  # b: two + on one line
    Mutant("Add_Sub", 1, 2, 2),
    Mutant("Sub_Add", 0, 3, 3),  # c
    Mutant("Mul_Div", 0, 4, 4),  # d
]
NEW_MUTANTS = [
    Mutant("Sub_Add", 0, 2, 2),  # c, now line 2
    Mutant("Add_Sub", 0, 3, 3),  # e, new
    Mutant("Mul_Div", 0, 4, 4),  # d
]


def _survivor(line: int, operator: str, occurrence: int, original: str, mutated: str) -> dict:
    return {"line": line, "operator": operator, "occurrence": occurrence, "outcome": "survived",
            "original": original, "mutated": mutated}  # fmt: skip


def _kept() -> dict:
    """Four mutants: one of b's and c's survive, the rest killed."""
    return {
        "module": "m.py", "date": "2026-01-01", "command": "old", "baseline_seconds": 1.0,
        "mutants": 4, "killed": 2, "survived": 2,
        "outcomes": {"killed": 2, "survived": 2},
        "by_operator": {"Add_Sub": {"killed": 1, "survived": 1}, "Sub_Add": {"survived": 1},
                        "Mul_Div": {"killed": 1}},
        "kill_rate_percent": 50.0, "seconds_per_mutant": 2.0,
        "survivors": [_survivor(2, "Add_Sub", 1, "b = a + 2 + 3", "b = a + 2 - 3"),
                      _survivor(3, "Sub_Add", 0, "c = b - 1", "c = b + 1")],
    }  # fmt: skip


def _fresh(survives: bool) -> dict:
    """The run of the one mutant on the new line (e)."""
    survivors = [_survivor(3, "Add_Sub", 0, "e = c + 5", "e = c - 5")] if survives else []
    outcome = "survived" if survives else "killed"
    return {
        "module": "m.py", "date": "2026-02-02", "command": "new", "baseline_seconds": 2.0,
        "mutants": 1, "killed": 0 if survives else 1, "outcomes": {outcome: 1},
        "by_operator": {"Add_Sub": {outcome: 1}}, "survivors": survivors,
    }  # fmt: skip


def test_unchanged_lines_maps_each_kept_line_to_its_new_number() -> None:
    assert changes.unchanged_lines(OLD, NEW) == {1: 1, 3: 2, 4: 4}


def test_only_mutants_touching_a_changed_line_run_again() -> None:
    kept_new_lines = set(changes.unchanged_lines(OLD, NEW).values())
    rerun = [m for m in NEW_MUTANTS if changes.touches_change(m, kept_new_lines)]
    assert rerun == [Mutant("Add_Sub", 0, 3, 3)]
    # a mutant spanning a kept line and a changed one runs again
    assert changes.touches_change(Mutant("Add_Sub", 0, 2, 3), kept_new_lines)


@pytest.mark.parametrize("survives", [False, True])
def test_the_merge_counts_what_a_whole_run_would(survives: bool) -> None:
    merged = changes.merge(_kept(), _fresh(survives), OLD, NEW, OLD_MUTANTS, NEW_MUTANTS)
    # b's two mutants (one killed, one survivor) are gone; c's survivor and d's kill stay
    assert merged["mutants"] == 3
    assert merged["killed"] == (1 if survives else 2)
    assert merged["survived"] == merged["mutants"] - merged["killed"]
    assert merged["outcomes"] == ({"killed": 1, "survived": 2} if survives
                                  else {"killed": 2, "survived": 1})  # fmt: skip
    assert merged["by_operator"]["Add_Sub"] == ({"survived": 1} if survives else {"killed": 1})
    assert merged["by_operator"]["Mul_Div"] == {"killed": 1}
    assert merged["kill_rate_percent"] == round(100 * merged["killed"] / 3, 1)
    lines = [(s["line"], s["original"]) for s in merged["survivors"]]
    assert lines == [(2, "c = b - 1")] + ([(3, "e = c + 5")] if survives else [])
    assert merged["date"] == "2026-02-02" and merged["command"] == "new"
    assert merged["changed"]["mutants_run"] == 1 and merged["changed"]["mutants_removed"] == 2


def test_a_kept_survivor_gets_its_occurrence_in_the_new_source() -> None:
    """Two ``+`` on a line: the second one survived as occurrence 3; an edit above removes two
    ``+`` mutants, so cosmic-ray numbers it 1 now, and ``--recheck`` must apply that one."""
    old = "x = 1 + 1\ny = 2 + 2\nz = 3 + 3 + 3\n"
    new = "y = 2 - 2\nz = 3 + 3 + 3\n"
    old_mutants = [Mutant("Add_Sub", i, line, line) for i, line in enumerate([1, 2, 3, 3])]
    new_mutants = [Mutant("Sub_Add", 0, 1, 1), Mutant("Add_Sub", 0, 2, 2),
                   Mutant("Add_Sub", 1, 2, 2)]  # fmt: skip
    kept = {**_kept(), "mutants": 4, "killed": 3, "survived": 1,
            "outcomes": {"killed": 3, "survived": 1},
            "by_operator": {"Add_Sub": {"killed": 3, "survived": 1}},
            "survivors": [_survivor(3, "Add_Sub", 3, "z = 3 + 3 + 3", "z = 3 + 3 - 3")],
            }  # fmt: skip
    fresh = {**_fresh(False), "by_operator": {"Sub_Add": {"killed": 1}}}
    merged = changes.merge(kept, fresh, old, new, old_mutants, new_mutants)
    (survivor,) = merged["survivors"]
    assert (survivor["line"], survivor["occurrence"]) == (2, 1)
    assert merged["mutants"] == 3 and merged["killed"] == 2


def test_an_operator_the_kept_run_counted_otherwise_runs_again_whole() -> None:
    """The source found makes a Mul_Div mutant on an unchanged line that the kept run did
    not count: that operator's kept outcomes cannot be trusted, so all its mutants run again
    (``fresh`` holds them) and none of its kept outcomes is carried over."""
    kept = {**_kept(), "mutants": 3, "killed": 1,
            "outcomes": {"killed": 1, "survived": 2},
            "by_operator": {**_kept()["by_operator"], "Mul_Div": {}}}  # fmt: skip
    gone = [m for m in OLD_MUTANTS if m.start == 2]
    assert changes.operators_to_rerun(kept, OLD_MUTANTS, gone) == {"Mul_Div"}
    assert changes.operators_to_rerun(_kept(), OLD_MUTANTS, gone) == set()
    fresh = {**_fresh(False), "mutants": 2, "killed": 1,
             "outcomes": {"killed": 1, "survived": 1},
             "by_operator": {"Add_Sub": {"killed": 1}, "Mul_Div": {"survived": 1}},
             "survivors": [_survivor(4, "Mul_Div", 0, "d = c * 2", "d = c / 2")]}  # fmt: skip
    merged = changes.merge(kept, fresh, OLD, NEW, OLD_MUTANTS, NEW_MUTANTS)
    assert merged["mutants"] == 3 and merged["killed"] == 1
    assert [s["line"] for s in merged["survivors"]] == [2, 4]
    assert merged["by_operator"]["Mul_Div"] == {"survived": 1}
    assert merged["changed"]["operators_rerun"] == ["Mul_Div"]
    # one more Sub_Add than the kept run had, and no changed line to hold it
    extra = [*OLD_MUTANTS, Mutant("Sub_Add", 1, 3, 3)]
    assert changes.operators_to_rerun(_kept(), extra, gone) == {"Sub_Add"}


def test_extra_mutants_that_can_lie_on_changed_lines_are_accepted() -> None:
    """A kept run of an uncommitted version that differed on a line changed since: the
    committed old source has a mutant more there, which leaves with that line."""
    extra = [*OLD_MUTANTS, Mutant("Add_Sub", 2, 2, 2)]
    merged = changes.merge(_kept(), _fresh(False), OLD, NEW, extra, NEW_MUTANTS)
    exact = changes.merge(_kept(), _fresh(False), OLD, NEW, OLD_MUTANTS, NEW_MUTANTS)
    assert {k: v for k, v in merged.items() if k != "changed"} == {
        k: v for k, v in exact.items() if k != "changed"
    }


def test_mutants_of_counts_what_cosmic_ray_makes_and_leaves_the_file(tmp_path: Path) -> None:
    """The real cosmic-ray init on a tiny module, as ``--changed`` counts the old source's."""
    pytest.importorskip("cosmic_ray")
    mutants = _load("mutants")
    module = tmp_path / "m.py"
    module.write_text("keep = 0\n")
    config = mutants.tomllib.loads(mutants.CONFIG.read_text())
    # the | inside the annotation is never mutated; + and < get the one operator kept each
    text = (
        "from __future__ import annotations\n\n"
        "def f(a: int | None) -> bool:\n    return a + 1 < 3\n"
    )
    found = mutants.mutants_of(config, "m.py", text, tmp_path, tmp_path)
    assert sorted(m.operator for m in found) == [
        "NumberReplacer", "NumberReplacer", "NumberReplacer", "NumberReplacer",
        "ReplaceBinaryOperator_Add_Sub", "ReplaceComparisonOperator_Lt_LtE",
    ]  # fmt: skip
    assert {m.start for m in found} == {4}
    assert module.read_text() == "keep = 0\n"
    assert not list(tmp_path.glob("*.sqlite"))


def test_status_says_which_reports_are_of_todays_source(tmp_path: Path) -> None:
    """``make mutate-status`` exits 1 only while a report is not of today's source: a result
    whose digest matches is current, an edited module and a module never run are not."""
    mutants = _load("mutants")
    (tmp_path / "kept.py").write_text("a = 1\n")
    (tmp_path / "edited.py").write_text("b = 2\n")
    digest = mutants.source_digest(tmp_path / "kept.py")
    reports = tmp_path / "reports"
    reports.mkdir()
    kept = {
        name: {"date": "2026-12-05", "source_sha256": digest} for name in ("kept.py", "edited.py")
    }
    (reports / "results.json").write_text(json.dumps(kept))
    config = {"modules": {"kept.py": {}, "edited.py": {}, "new.py": {}}}
    states = {m: s for m, _, s in mutants.report_states(config, reports, tmp_path)}
    assert states == {"kept.py": "current", "edited.py": "source changed since the run",
                      "new.py": "never run"}  # fmt: skip
    assert [mutants.is_current(s) for s in states.values()] == [True, False, False]
    assert mutants.is_current("no digest; by git history: current")
    assert not mutants.is_current("no digest; by git history: source changed since the report")
