"""Bring a kept mutation result up to date by running only the mutants on changed lines.

A full run of a batched engine takes hours; most edits touch a few lines. ``--changed``
(scripts/mutants.py) runs the mutants whose lines changed since the kept run and merges them
with the kept result here: the mutants of unchanged lines keep their outcomes, those of
removed or rewritten lines leave the counts, and every kept survivor is renumbered to its
line (and cosmic-ray occurrence) in today's source, so ``--recheck`` still finds it.

What this trusts: that the tests did not lose power on the unchanged lines since the kept run
(a full run checks that again). It refuses to merge when the old source's mutants do not add
up to the kept result's count: then the old source found is not the one that was mutated.

Pure functions only (no cosmic-ray, no git): the caller gives them the two sources and the
mutants cosmic-ray makes of each, as ``Mutant`` tuples.
"""

from __future__ import annotations

import datetime
import difflib
from collections import Counter
from typing import NamedTuple


class Mutant(NamedTuple):
    """One mutant of a session: its operator (without ``core/``), occurrence and lines."""

    operator: str
    occurrence: int
    start: int
    end: int


def unchanged_lines(old: str, new: str) -> dict[int, int]:
    """Old line number -> new line number (1-based) for every line the edit kept."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    kept: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            kept[block.a + offset + 1] = block.b + offset + 1
    return kept


def touches_change(mutant: Mutant, kept_lines: set[int]) -> bool:
    """True when a line the mutant spans is not one the edit kept (so it must run again)."""
    return any(line not in kept_lines for line in range(mutant.start, mutant.end + 1))


def rank_on_line(mutants: list[Mutant]) -> dict[Mutant, int]:
    """Each mutant's place among the mutants of its operator starting on its line: the same
    line text gives the same mutants in the same order, whatever the occurrence numbers."""
    seen: Counter[tuple[str, int]] = Counter()
    ranks = {}
    for mutant in sorted(mutants, key=lambda m: (m.operator, m.start, m.occurrence)):
        ranks[mutant] = seen[mutant.operator, mutant.start]
        seen[mutant.operator, mutant.start] += 1
    return ranks


def merge(
    kept: dict,
    fresh: dict,
    old_source: str,
    new_source: str,
    old_mutants: list[Mutant],
    new_mutants: list[Mutant],
) -> dict:
    """The kept result brought to ``new_source``: ``fresh`` is the run of the new source's
    mutants that touch a change (``summarize``'s dict); every other mutant of the new source
    is on an unchanged line and keeps its kept outcome (killed unless a kept survivor).

    ``old_mutants`` (what cosmic-ray makes of ``old_source``) checks that ``old_source`` is
    the one the kept run mutated: the same number of mutants of each operator, or more only
    where the extra ones can all lie on lines that changed. ``fresh`` must have run every
    mutant of an operator that fails this (``operators_to_rerun``): none of its kept
    outcomes is carried over."""
    mapping = unchanged_lines(old_source, new_source)
    old_kept_lines, new_kept_lines = set(mapping), set(mapping.values())
    rerun = operators_to_rerun(kept, old_mutants, [
        m for m in old_mutants if touches_change(m, old_kept_lines)
    ])  # fmt: skip
    gone = [m for m in old_mutants if touches_change(m, old_kept_lines) or m.operator in rerun]
    gone_keys = {(m.start, m.operator, m.occurrence) for m in gone}

    def is_gone(entry: dict) -> bool:
        return (entry["line"], entry["operator"], entry["occurrence"]) in gone_keys

    old_rank = rank_on_line(old_mutants)
    old_by_key = {(m.start, m.operator, m.occurrence): m for m in old_mutants}
    new_by_rank = {(m.operator, m.start, r): m for m, r in rank_on_line(new_mutants).items()}

    def renumbered(entry: dict) -> dict:
        old = old_by_key.get((entry["line"], entry["operator"], entry["occurrence"]))
        if old is None:  # numbered otherwise in the kept run: its line holds only one such
            (old, *others) = [
                m for m in old_mutants
                if (m.start, m.operator) == (entry["line"], entry["operator"])
            ] or [None]  # fmt: skip
            if old is None or others:
                raise ValueError(
                    f"{kept['module']}: the kept survivor on line {entry['line']} "
                    f"({entry['operator']} #{entry['occurrence']}) is not one mutant of the "
                    "source found for the kept run: rerun it whole"
                )
        line = mapping[old.start]
        new = new_by_rank[old.operator, line, old_rank[old]]
        return {**entry, "line": line, "occurrence": new.occurrence}

    staying = [
        renumbered(s) for s in kept["survivors"] if not is_gone(s) and s["operator"] not in rerun
    ]
    survivors = sorted(
        staying + fresh["survivors"], key=lambda s: (s["line"], s["operator"], s["occurrence"])
    )
    unchanged = [
        m for m in new_mutants if not touches_change(m, new_kept_lines) and m.operator not in rerun
    ]
    outcomes: Counter[str] = Counter(fresh["outcomes"])
    outcomes["killed"] += len(unchanged) - len(staying)
    by_operator: dict[str, Counter[str]] = {}
    for mutant in unchanged:
        by_operator.setdefault(mutant.operator, Counter())["killed"] += 1
    for survivor in staying:
        counts = by_operator[survivor["operator"]]
        counts["killed"] -= 1
        counts[survivor["outcome"]] += 1
        outcomes[survivor["outcome"]] += 1
    for op, counts in fresh["by_operator"].items():
        by_operator.setdefault(op, Counter()).update(counts)

    mutants = len(unchanged) + fresh["mutants"]
    killed = len(unchanged) - len(staying) + fresh["killed"]
    later_kills = [
        {**k, "line": mapping[k["line"]]}
        for k in kept.get("killed_by_new_tests", [])
        if not is_gone(k) and k["line"] in mapping and k["operator"] not in rerun
    ]
    merged = {
        **kept,
        "date": fresh["date"],
        "command": fresh["command"],
        "baseline_seconds": fresh["baseline_seconds"],
        "mutants": mutants,
        "killed": killed,
        "survived": mutants - killed,
        "outcomes": {k: v for k, v in sorted(outcomes.items()) if v},
        "by_operator": {
            op: {k: v for k, v in sorted(c.items()) if v} for op, c in sorted(by_operator.items())
        },
        "kill_rate_percent": round(100.0 * killed / mutants, 1) if mutants else 100.0,
        "survivors": survivors,
        "killed_by_new_tests": later_kills,
        "changed": {
            "kept_run": kept.get("changed", {}).get("kept_run", kept["date"]),
            "merged": datetime.date.today().isoformat(),
            "mutants_run": fresh["mutants"],
            "mutants_removed": len(gone),
            "operators_rerun": sorted(rerun),
            "lines_changed": len(set(range(1, len(new_source.splitlines()) + 1)) - new_kept_lines),
        },
    }
    if not later_kills:
        merged.pop("killed_by_new_tests")
    return merged


def operators_to_rerun(kept: dict, old_mutants: list[Mutant], gone: list[Mutant]) -> set[str]:
    """The operators whose kept outcomes cannot be carried over: where the old source found
    makes another number of mutants than the kept run counted, beyond what its changed lines
    can hold (a run of an uncommitted version). Their mutants all run again."""
    made = Counter(m.operator for m in old_mutants)
    on_changed = Counter(m.operator for m in gone)
    counted = {op: sum(c.values()) for op, c in kept["by_operator"].items()}
    return {
        op
        for op in set(made) | set(counted)
        if not 0 <= made[op] - counted.get(op, 0) <= on_changed[op]
    }
