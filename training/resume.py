"""Where a ``cardarena train --resume`` continues, and whether it may: the newest complete
checkpoint of a run (``resume_point``, ``resume_latest``) and the league flags it must repeat
(``check_same_league``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import read_json

from .checkpoint import copy_checkpoint, read_meta
from .train_args import TrainArgs

#: League settings a resume must repeat (they shape what the learner plays against).
LEAGUE_SETTINGS = ("selfplay", "league_mode", "baseline_share", "snapshot_every", "max_snapshots")


def check_same_league(out: Path, args: TrainArgs) -> None:
    """Refuse a resume whose league flags differ from the run's ``args.json`` (a default
    that changed between versions would otherwise switch the sampling silently)."""
    check_same_settings(out, args, LEAGUE_SETTINGS, "league flags")


def check_same_settings(out: Path, args: TrainArgs, keys: Sequence[str], what: str) -> None:
    """Refuse a resume whose ``keys`` differ from the run's ``args.json``, naming each flag,
    the run's value and the new one (a run without a readable ``args.json`` is not checked)."""
    try:
        saved = read_json(out / "args.json", "run arguments")
    except InvalidConfigError:
        return
    if not isinstance(saved, dict):
        return
    differ = [
        f"--{key.replace('_', '-')} {saved[key]!r} (now {getattr(args, key)!r})"
        for key in keys
        if key in saved and saved[key] != getattr(args, key)
    ]
    if differ:
        raise InvalidConfigError(
            f"{out} was trained with {', '.join(differ)}; pass the same {what} to "
            "--resume it, or train into another --out"
        )


def resume_point(out: Path) -> Path:
    """The newest complete checkpoint of a run: ``out/latest``, or a ``checkpoints/step_N``
    written after it when a kill came between the two saves (``step_N`` is written first)."""
    best, best_step = out / "latest", -1
    candidates = [out / "latest", *sorted((out / "checkpoints").glob("step_*"))]
    for path in candidates:
        step = read_step(path)
        if step is not None and step > best_step:
            best, best_step = path, step
    return best


def resume_latest(out: Path) -> Path:
    """Where a resume continues: ``out/latest``, first brought up to ``resume_point(out)``
    when a kill came between a save's two writes. Without it a run killed while saving its
    final step would, resumed, have nothing left to train and leave ``latest`` a step
    behind for good."""
    point = resume_point(out)
    latest = out / "latest"
    if point != latest:
        copy_checkpoint(point, latest)
    return latest


def read_step(path: Path) -> int | None:
    """The step of the checkpoint at ``path``, or None when there is none."""
    try:
        return int(read_meta(path)["step"])
    except InvalidConfigError:
        return None


__all__ = [
    "LEAGUE_SETTINGS",
    "check_same_league",
    "check_same_settings",
    "read_step",
    "resume_latest",
    "resume_point",
]
