"""Learning curves: win rate against ``random`` and ``heuristic`` over training steps, read
from the ``eval.jsonl`` that ``cardarena train`` appends to at every evaluation.

``plot_learning_curves(runs, "curves.png")`` draws one panel per run with a 95% Wilson band
around each evaluation; ``cardarena curves runs/a runs/b --out curves.png`` does the same
from the shell. Needs matplotlib (the ``plot`` extra).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardarena.envs.core import InvalidConfigError

from .stats import wilson_interval

OPPONENTS = ("random", "heuristic")


def read_curve(run: str | Path) -> list[dict[str, Any]]:
    """The evaluation rows of a run folder, one per step (a resumed run's repeat of a step
    keeps the later row), sorted by step; the final evaluation is flagged ``final``."""
    path = Path(run) / "eval.jsonl"
    if not path.is_file():
        raise InvalidConfigError(f"{str(run)!r} has no eval.jsonl (not a cardarena train --out)")
    games = _eval_games(Path(run))
    rows: dict[tuple[int, bool], dict[str, Any]] = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (int(row["step"]), bool(row.get("final", False)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise InvalidConfigError(f"{path}:{number}: not an evaluation row ({error})") from error
        for name in OPPONENTS:
            row.setdefault(f"games_{name}", games[1] if key[1] else games[0])
        rows[key] = row
    return [rows[key] for key in sorted(rows)]


def _eval_games(run: Path) -> tuple[int, int]:
    """(periodic, final) games per opponent from the run's ``args.json`` (rows written before
    the games were recorded in each row)."""
    try:
        args = json.loads((run / "args.json").read_text())
        return int(args["eval_games"]), int(args["final_eval_games"])
    except (OSError, KeyError, ValueError, TypeError):
        return 100, 400


def plot_learning_curves(
    runs: Sequence[str | Path], out: str | Path, title: str | None = None
) -> Path:
    """One panel per run: win rate (wins / games, as the training evaluations count it)
    against each baseline over training steps."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            "learning curves need matplotlib: pip install 'cardarena[plot]'"
        ) from error
    if not runs:
        raise InvalidConfigError("plot_learning_curves needs at least one run folder")
    curves = [(Path(run), read_curve(run)) for run in runs]
    columns = min(len(curves), 2)
    rows = (len(curves) + columns - 1) // columns
    figure = Figure(figsize=(6.0 * columns, 3.8 * rows), layout="constrained")
    axes_grid = figure.subplots(rows, columns, squeeze=False)
    for axes, (run, curve) in zip(axes_grid.flat, curves, strict=False):
        for name, colour in zip(OPPONENTS, ("tab:blue", "tab:red"), strict=True):
            points = [r for r in curve if f"win_rate_{name}" in r and not r.get("final")]
            steps = [r["step"] for r in points]
            rates = [r[f"win_rate_{name}"] for r in points]
            bands = [
                wilson_interval(r[f"win_rate_{name}"] * r[f"games_{name}"], r[f"games_{name}"])
                for r in points
            ]
            axes.plot(steps, rates, marker="o", markersize=3, color=colour, label=f"vs {name}")
            axes.fill_between(
                steps, [b[0] for b in bands], [b[1] for b in bands], color=colour, alpha=0.2
            )
        axes.axhline(0.5, color="0.5", linewidth=0.8, linestyle="--")
        axes.set_ylim(0.0, 1.0)
        axes.set_xlabel("training steps (learner decisions)")
        axes.set_ylabel("win rate (wins / games)")
        axes.set_title(_run_name(run, curve))
        axes.legend(loc="lower right")
    for axes in list(axes_grid.flat)[len(curves) :]:
        axes.set_visible(False)
    if title:
        figure.suptitle(title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    return out


def _run_name(run: Path, curve: list[dict[str, Any]]) -> str:
    """``env`` (and the league's sampling mode for a self-play run)."""
    try:
        args = json.loads((run / "args.json").read_text())
        name = str(args["env"])
    except (OSError, KeyError, ValueError):
        return run.name
    return f"{name}, self-play league ({args.get('league_mode')})" if args.get("selfplay") else name


__all__ = ["plot_learning_curves", "read_curve"]
