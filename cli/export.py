"""``cardarena export``: a checkpoint's policy (the best one of a run with ``--best``) as a
small numpy-only file that ``pretrained:path=...`` plays."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from cardarena.envs.core.untrusted import printable

from .args import MIN_STEP
from .common import check_number


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.training.export import best_checkpoint, export_checkpoint

    check_number("--min-step", MIN_STEP, args.min_step)
    checkpoint = (
        best_checkpoint(args.checkpoint, args.best, args.min_step) if args.best else args.checkpoint
    )
    if args.best:
        print(
            f"best against {args.best} in training evaluations: {printable(checkpoint)}",
            file=out,
        )
    policy = export_checkpoint(checkpoint, args.out, value=args.value)
    size = Path(args.out).stat().st_size
    where = printable(args.out)
    what = "policy and value networks" if policy.has_value else "policy"
    print(
        f"{where}: {printable(policy.meta.get('env'), 60)} {what} from step "
        f"{printable(policy.meta.get('step'), 40)} ({size / 1024:.0f} KB); "
        f"play it as pretrained:path={where}",
        file=out,
    )
    return 0
