"""Where a training run stood at a given CPU budget: the last periodic evaluation it wrote
within that many CPU minutes (its ``eval.jsonl``: the training process's CPU time at the
evaluation, evaluations included, and the win rate against each baseline on fresh games).

    python scripts/equal_budget.py RUN:MINUTES [RUN:MINUTES ...]

The training page (docs/site/training.md) compares the vector backend's runs at the CPU time
of the SB3 runs whose agents they replaced (the SB3 figures are those runs' 1,000-game
ladders, listed there).
"""

from __future__ import annotations

import sys
from pathlib import Path

from cardarena.evaluation.stats import wilson_interval
from cardarena.training.curves import read_curve


def at_budget(run: Path, minutes: float) -> str:
    rows = [row for row in read_curve(run) if not row.get("final")]
    within = [row for row in rows if row["cpu_seconds"] <= minutes * 60]
    if not within:
        return f"{run}: no evaluation within {minutes:g} CPU minutes"
    row = within[-1]
    parts = [f"{run}: step {row['step']:,} at {row['cpu_seconds'] / 60:.1f} CPU min"]
    for name in row["baselines"]:
        rate, games = row[f"win_rate_{name}"], row[f"games_{name}"]
        low, high = wilson_interval(rate * games, games)
        parts.append(f"vs {name} {rate:.1%} ({low:.1%}-{high:.1%}, {games} games)")
    return "; ".join(parts)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for item in argv:
        run, _, minutes = item.rpartition(":")
        print(at_budget(Path(run), float(minutes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
