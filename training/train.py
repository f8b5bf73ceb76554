"""``cardarena train ENV``: the front door of training, one call for every backend.

``train(args)`` hands the run to its backend: SB3's MaskablePPO on the single-agent bridge
(``--backend sb3``, the default: ``training.sb3``), PPO on the vector engine (``--backend
vector``: ``training.vector``), both on the shared run loop of ``training.run`` (its docstring
shows the run folder), or RLlib (``--backend rllib``: ``training.rllib``, a venv of its own).
Flags a backend does not use are named in a warning rather than silently dropped. Needs the
``train`` extra (``rllib`` for RLlib).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from cardarena.envs.core import has_module

from .league import LEAGUE_FILE, restore_loss_rates, save_loss_rates
from .resume import LEAGUE_SETTINGS, read_step, resume_point
from .sb3.model import build_model
from .train_args import (
    DEFAULTS,
    FALLBACK,
    TrainArgs,
    add_arguments,
    args_from_namespace,
    flag_of,
    ignored_by,
)


def train(args: TrainArgs) -> Path:
    """Train as ``args`` say; returns the final checkpoint's path (with ``backend="rllib"``,
    the run folder)."""
    if args.backend == "rllib":
        return _train_rllib(args)
    if args.backend == "vector":
        from .vector.run import train_vector, warn_short_checkpoints

        args = args.resolved()
        _warn_ignored(args, "vector", "other backends only")
        warn_short_checkpoints(args)
        return train_vector(args)
    from .sb3.run import train_sb3

    args = args.resolved()
    _warn_ignored(args, "sb3", "other backends only")
    return train_sb3(args)


def _warn_ignored(args: TrainArgs, backend: str, why: str) -> None:
    """Warn about the flags set that ``backend`` does not use (each field's ``backends``)."""
    ignored = ignored_by(args, backend)
    if ignored:
        flags = ", ".join(flag_of(name) for name in ignored)
        warnings.warn(f"--backend {backend} ignores {flags} ({why})", UserWarning, stacklevel=3)


def _train_rllib(args: TrainArgs) -> Path:
    """``--backend rllib``: hand over to ``cardarena.training.rllib`` (imported only here)."""
    if not has_module("ray"):
        raise SystemExit(
            "--backend rllib needs the 'rllib' extra (ray is missing), in a venv of its own "
            "since Ray pins its own gymnasium: make .venv-rllib/.installed in the cardarena "
            "clone, then .venv-rllib/bin/cardarena train --backend rllib ..."
        )
    from .rllib import train_from_args

    _warn_ignored(args, "rllib", "other backends only")
    out = Path(args.out) if args.out is not None else Path("runs") / f"{args.env}_rllib"
    resolved = args.resolved()
    resolved.out = out
    summary = train_from_args(resolved)
    for policy, row in summary["policies"].items():
        print(f"{policy}: vs random {row.get('summary', '')}")
        print(f"  play it as pretrained:path={row['path']}")
    return out


__all__ = [
    "DEFAULTS",
    "FALLBACK",
    "LEAGUE_FILE",
    "LEAGUE_SETTINGS",
    "TrainArgs",
    "add_arguments",
    "args_from_namespace",
    "build_model",
    "read_step",
    "restore_loss_rates",
    "resume_point",
    "save_loss_rates",
    "train",
]
