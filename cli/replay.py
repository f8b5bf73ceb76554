"""``cardarena replay``: a recorded game step by step, every name from the file escaped."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from cardarena.envs.core import CardArenaError, InvalidConfigError
from cardarena.envs.core.untrusted import printable

from .args import GAME_INDEX
from .common import block, check_number, shown


def cmd_replay(args: argparse.Namespace, out: TextIO, read: Callable[[str], str] = input) -> int:
    from cardarena.evaluation.records import read_records
    from cardarena.evaluation.replay import initial_text, replay

    check_number("--game", GAME_INDEX, args.game)
    where = shown(str(args.file))
    try:
        records = read_records(args.file)
    except (CardArenaError, OSError):
        raise
    except (ValueError, RecursionError) as error:  # not UTF-8, a 5,000-digit number ...
        raise InvalidConfigError(
            f"{where} is not a file of match records ({type(error).__name__}: "
            f"{printable(error, 120)})"
        ) from None
    if not records:
        raise InvalidConfigError(f"{where} holds no games")
    if not 0 <= args.game < len(records):
        raise InvalidConfigError(
            f"--game must be in 0..{len(records) - 1} ({where} holds {len(records)} games), "
            f"got {args.game}"
        )
    record = records[args.game]
    check_version = not args.any_version
    lineup = ", ".join(
        f"{printable(seat, 40)}: {printable(spec, 120)}" for seat, spec in record.lineup.items()
    )
    print(
        f"{printable(record.env, 60)} (cardarena {printable(record.version, 40)}), "
        f"seed {record.seed}; {lineup}",
        file=out,
    )
    print(f"\nthe deal:\n{block(initial_text(record, check_version=check_version))}", file=out)
    pausing = args.step
    for number, step in enumerate(replay(record, check_version=check_version), start=1):
        print(
            f"\nstep {number}: {printable(step.agent, 40)} {printable(step.description)}\n"
            f"{block(step.text)}",
            file=out,
        )
        if pausing:
            try:
                read("(enter for the next step) ")
            except EOFError:  # input ran out: show the rest without pausing
                pausing = False
    print(
        f"\noutcome: {printable(record.outcome, 40)}; returns {printable(record.returns)}",
        file=out,
    )
    return 0
