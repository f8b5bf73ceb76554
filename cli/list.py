"""``cardarena list``: every registered env with its players and its game's title."""

from __future__ import annotations

import argparse
from typing import TextIO

from cardarena.envs import ENVS


def cmd_list(args: argparse.Namespace, out: TextIO) -> int:
    for name, module in sorted(ENVS.items()):
        metadata = module.raw_env.metadata
        players = f"{metadata['min_players']}-{metadata['max_players']}"
        if metadata["min_players"] == metadata["max_players"]:
            players = str(metadata["min_players"])
        title = next(line for line in (module.__doc__ or "").splitlines() if line.startswith("#"))
        print(f"{name:<16} {players:>4} players  {title.lstrip('# ').strip()}", file=out)
    return 0
