"""``cardarena bench``: decisions or training steps per second (the flags and the measuring
are ``cardarena.bench``'s, which ``bench/throughput.py`` runs as a script too)."""

from __future__ import annotations

import argparse
from typing import TextIO


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.bench import run

    run(args)
    return 0
