"""Learning curves: win rate against ``random`` and ``heuristic`` over training steps, read
from the ``eval.jsonl`` that ``cardarena train`` appends to at every evaluation.

``plot_learning_curves(runs, "curves.png")`` draws one panel per run with a 95% Wilson band
around each evaluation; ``cardarena curves runs/a runs/b --out curves.png`` does the same
from the shell. Needs matplotlib (the ``plot`` extra).

A run folder may come from someone else, and ``eval.jsonl`` may end in a line torn by a
crash: it is read as crash-tolerant JSON lines (``training.jsonl``: the torn last line is
dropped with a warning, a bad line elsewhere refused naming file and line, the file at most
512 MiB), and ``args.json`` within the limits of ``cardarena.envs.core.untrusted``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardarena.envs.core import InvalidConfigError, install_hint
from cardarena.envs.core.untrusted import printable, read_json, show
from cardarena.evaluation.stats import wilson_interval

from .jsonl import BadLineError, read_jsonl

OPPONENTS = ("random", "heuristic")


def read_curve(run: str | Path) -> list[dict[str, Any]]:
    """The evaluation rows of a run folder, one per step (a resumed run's repeat of a step
    keeps the later row), sorted by step; the final evaluation is flagged ``final``."""
    path = Path(run) / "eval.jsonl"
    if not path.is_file():
        raise InvalidConfigError(f"{str(run)!r} has no eval.jsonl (not a cardarena train --out)")
    games = _eval_games(Path(run))
    rows: dict[tuple[int, bool], dict[str, Any]] = {}
    try:
        lines = read_jsonl(path, "evaluation log")
    except BadLineError as error:
        raise InvalidConfigError(f"{path}:{error.line}: not an evaluation row ({error})") from None
    for number, row in lines:
        rows[_row_key(row, f"{path}:{number}")] = row
        final = bool(row.get("final", False))
        for name in OPPONENTS:
            row.setdefault(f"games_{name}", games[1] if final else games[0])
            _check_row(row, name, f"{path}:{number}")
    return [rows[key] for key in sorted(rows)]


def _row_key(row: Any, where: str) -> tuple[int, bool]:
    if not isinstance(row, dict):
        raise InvalidConfigError(
            f"{where}: not an evaluation row (a JSON {type(row).__name__}, not an object)"
        )
    step, final = row.get("step"), row.get("final", False)
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise InvalidConfigError(
            f"{where}: not an evaluation row ('step' must be a non-negative integer, got "
            f"{show(step)})"
        )
    if not isinstance(final, bool):
        raise InvalidConfigError(f"{where}: 'final' must be true or false, got {show(final)}")
    return step, final


def _check_row(row: dict[str, Any], name: str, where: str) -> None:
    """A win rate in [0, 1] and a positive whole number of games, so plotting cannot fail."""
    games = row[f"games_{name}"]
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise InvalidConfigError(
            f"{where}: 'games_{name}' must be a positive integer, got {show(games)}"
        )
    rate = row.get(f"win_rate_{name}")
    if rate is not None and not (
        isinstance(rate, (int, float)) and not isinstance(rate, bool) and 0.0 <= rate <= 1.0
    ):
        raise InvalidConfigError(
            f"{where}: 'win_rate_{name}' must be a number in [0, 1], got {show(rate)}"
        )


def _args(run: Path) -> dict[str, Any] | None:
    """The run's ``args.json`` as a dict, None if it is missing or not a readable object."""
    try:
        args = read_json(run / "args.json", "run arguments")
    except InvalidConfigError:
        return None
    return args if isinstance(args, dict) else None


def _eval_games(run: Path) -> tuple[int, int]:
    """(periodic, final) games per opponent from the run's ``args.json`` (rows written before
    the games were recorded in each row)."""
    args = _args(run) or {}
    counts = args.get("eval_games"), args.get("final_eval_games")
    if all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in counts):
        return counts[0], counts[1]  # type: ignore[return-value]
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
            f"learning curves need matplotlib, from the 'plot' extra: {install_hint('plot')}"
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
        # The fair share: one half at two seats, 1 / N alone against a field of N - 1.
        axes.axhline(1.0 / _players(run), color="0.5", linewidth=0.8, linestyle="--")
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


def _players(run: Path) -> int:
    """The run's table size (``num_players``; 2 when the run took the env's default)."""
    args = _args(run) or {}
    players = args.get("num_players")
    valid = isinstance(players, int) and not isinstance(players, bool) and 2 <= players <= 64
    return players if valid else 2  # type: ignore[return-value]


def _run_name(run: Path, curve: list[dict[str, Any]]) -> str:
    """``env`` (its table size when not the default, the league's sampling mode for a
    self-play run)."""
    args = _args(run)
    if args is None or not isinstance(args.get("env"), str):
        return run.name
    name = printable(args["env"], 60)
    if _players(run) != 2:
        name += f", {_players(run)} players"
    if args.get("selfplay"):
        return f"{name}, self-play league ({printable(args.get('league_mode'), 40)})"
    return name


__all__ = ["plot_learning_curves", "read_curve"]
