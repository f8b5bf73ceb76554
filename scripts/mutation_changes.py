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
    mutants that touch a change (``summarize``'s dict); the rest keep the kept outcomes."""
    if len(old_mutants) != kept["mutants"]:
        raise ValueError(
            f"{kept['module']}: the source found for the kept run makes {len(old_mutants)} "
            f"mutants, the kept result counts {kept['mutants']}: rerun it whole"
        )
    mapping = unchanged_lines(old_source, new_source)
    old_kept_lines, new_kept_lines = set(mapping), set(mapping.values())
    gone = [m for m in old_mutants if touches_change(m, old_kept_lines)]
    gone_keys = {(m.start, m.operator, m.occurrence) for m in gone}

    def is_gone(entry: dict) -> bool:
        return (entry["line"], entry["operator"], entry["occurrence"]) in gone_keys

    old_rank = rank_on_line(old_mutants)
    old_by_key = {(m.start, m.operator, m.occurrence): m for m in old_mutants}
    new_by_rank = {(m.operator, m.start, r): m for m, r in rank_on_line(new_mutants).items()}

    def renumbered(entry: dict) -> dict:
        old = old_by_key[entry["line"], entry["operator"], entry["occurrence"]]
        line = mapping[old.start]
        new = new_by_rank[old.operator, line, old_rank[old]]
        return {**entry, "line": line, "occurrence": new.occurrence}

    survivors = [renumbered(s) for s in kept["survivors"] if not is_gone(s)]
    survivors += fresh["survivors"]
    survivors.sort(key=lambda s: (s["line"], s["operator"], s["occurrence"]))

    outcomes = Counter(kept["outcomes"])
    by_operator = {op: Counter(c) for op, c in kept["by_operator"].items()}
    gone_survivors = {(s["line"], s["operator"], s["occurrence"]): s for s in kept["survivors"]}
    gone_killed = 0
    for mutant in gone:
        survivor = gone_survivors.get((mutant.start, mutant.operator, mutant.occurrence))
        if survivor is not None:
            outcome = survivor["outcome"]
        else:  # killed then: the kept result does not say whether killed or incompetent
            outcome = "killed" if outcomes["killed"] > 0 else "incompetent"
            gone_killed += 1
        outcomes[outcome] -= 1
        counts = by_operator[mutant.operator]
        counts[outcome if counts[outcome] > 0 else "incompetent"] -= 1
    outcomes.update(fresh["outcomes"])
    for op, counts in fresh["by_operator"].items():
        by_operator.setdefault(op, Counter()).update(counts)

    mutants = kept["mutants"] - len(gone) + fresh["mutants"]
    killed = kept["killed"] - gone_killed + fresh["killed"]
    later_kills = [
        {**k, "line": mapping[k["line"]]}
        for k in kept.get("killed_by_new_tests", [])
        if not is_gone(k) and k["line"] in mapping
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
            op: {k: v for k, v in sorted(c.items()) if v}
            for op, c in sorted(by_operator.items())
            if any(c.values())
        },
        "kill_rate_percent": round(100.0 * killed / mutants, 1) if mutants else 100.0,
        "survivors": survivors,
        "killed_by_new_tests": later_kills,
        "changed": {
            "kept_run": kept.get("changed", {}).get("kept_run", kept["date"]),
            "merged": datetime.date.today().isoformat(),
            "mutants_run": fresh["mutants"],
            "mutants_removed": len(gone),
            "lines_changed": len(set(range(1, len(new_source.splitlines()) + 1)) - new_kept_lines),
        },
    }
    if not later_kills:
        merged.pop("killed_by_new_tests")
    return merged
