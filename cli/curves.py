"""``cardarena curves``: a learning-curve PNG from ``cardarena train`` output folders."""

from __future__ import annotations

import argparse
from typing import TextIO

from cardarena.envs.core.untrusted import printable


def cmd_curves(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.training.curves import plot_learning_curves

    path = plot_learning_curves(args.runs, args.out)
    print(f"wrote {printable(path)}", file=out)
    return 0
