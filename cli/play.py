"""``cardarena play``: a person plays an env at the terminal against agents. The table loop is
``agents.table``'s and the prompt ``agents.terminal``'s; ``--record`` writes the game as a
match record made by the same code path as every other record."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from cardarena.agents.terminal import ask_human, menu_keys
from cardarena.envs.core import check_seed
from cardarena.envs.core.untrusted import printable

from .args import SEED
from .common import block, check_number, env_name, parse_config


def cmd_play(args: argparse.Namespace, out: TextIO, read: Callable[[str], str] = input) -> int:
    from cardarena.agents.table import Table
    from cardarena.envs.rules_docs import how_to_win

    name = env_name(args.env)
    config = parse_config(args.config)
    if args.seed is not None:
        check_number("--seed", SEED, args.seed)
        check_seed(args.seed)
    table = Table(name, args.vs, seat=args.seat, seed=args.seed, config=config)
    human = table.human
    print(
        f"{name}: you are {human}; opponents: {printable(args.vs)}; seed {table.seed} "
        f"(the same deal again: --seed {table.seed})",
        file=out,
    )
    print(f"How to win: {how_to_win(name)}", file=out)
    print(
        "Type a move's letter or its name; ? for the rules in short, ?? for the game's rules.",
        file=out,
    )
    while not table.is_over():
        _tell(table.story(), out)
        legal = table.legal_actions()
        names = [label for _, label in legal]

        def show(names: list[str] = names) -> None:
            print("\n" + block(table.text()), file=out)
            for key, text in zip(menu_keys(len(names)), names, strict=True):
                print(f"  {key:>3}) {printable(text)}", file=out)

        show()
        choice = ask_human(f"{human}, your move: ", names, read, out, env_name=name, redraw=show)
        table.act(legal[choice][0])
    _tell(table.story(), out)
    print("\n" + block(table.text()), file=out)
    outcome = table.outcome()
    if outcome is not None:
        print(outcome.line, file=out)
    if args.record:
        from cardarena.evaluation.records import play_match, write_records

        seats = table.seats
        actions = list(table.actions)
        lineup: dict[str, Any] = {s: _Scripted(s, actions, seats) for s in seats}
        record = play_match(name, lineup, table.seed, config)
        seat_specs = {s: ("human" if s == human else args.vs) for s in seats}
        write_records(args.record, [dataclasses.replace(record, lineup=seat_specs)])
        print(f"recorded to {printable(args.record)}", file=out)
    return 0


def _tell(lines: list[str], out: TextIO) -> None:
    """The public events since the person's last move, one line each."""
    for line in lines:
        print(f"  > {printable(line, 1000)}", file=out)


class _Scripted:
    """Replays the actions of the game just played, so the record is made by the same code
    path as every other record (and checked by it)."""

    def __init__(self, seat: str, actions: list[int], seats: list[str]) -> None:
        self.seat, self.shared, self.spec = seat, actions, "scripted"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.shared.pop(0)
