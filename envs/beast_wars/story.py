"""The Beast Wars story: one plain line per event a player saw (``core.events``).

``BeastWarsState`` logs these kinds while it records (``record_events``); the fields are
JSON-able. Characters carry their full ``name`` and the numbers printed on the card: ``beast``
and ``robot`` (red, blue, gold, green), or ``face`` and that face's ``numbers``. Cells are
indices ``row * 3 + col`` (shown as ``r<row>c<col>``), seats are 0 maximal, 1 predacon.

- ``draft_started`` (public): ``team_size``, ``first_player``, ``whole_faction`` (seats whose
  whole faction is the team, so they pick nothing).
- ``picked`` (private to the picker): ``seat``, ``id``, ``name``, ``beast``, ``robot``,
  ``count``, ``team_size``.
- ``opponent_picked`` (seen by the other seat only; no name): ``seat``, ``count``,
  ``team_size``.
- ``placed`` (private): ``seat``, ``cell``, ``column``, ``id``, ``name``, ``beast``, ``robot``.
- ``opponent_placed`` (seen by the other seat only): ``seat``, ``cell``, ``column``.
- ``play_started`` (public, BW-4: both teams revealed): ``first_player``, ``board`` (per seat,
  the characters with their ``cell``), ``reserve`` (per seat).
- ``moved``: ``seat``, ``source``, ``target``, ``direction``, ``name``, ``face``, ``numbers``.
- ``reinforced``: ``seat``, ``cell``, ``id``, ``name``, ``beast``, ``robot``, ``reserve_left``.
- ``reshuffled``: ``cards`` (the discard pile shuffled into a new battle deck).
- ``battle`` (BW-6/BW-7; pairs are attacker, defender): ``seat`` (the attacker's), ``names``,
  ``cells``, ``direction``, ``cards`` ("colour:type"), ``mutated``, ``faces`` (after the
  battle), ``base``, ``bonus``, ``numbers`` (base + bonus), ``winner`` (seat, -1 called off),
  ``outcome`` (push, capture, fall, called off), ``pushed_to``, ``left_before`` and ``left``
  (characters left per seat), ``deck`` and ``discards`` (cards after the battle).
- ``passed``: ``seat``.
- ``game_over``: ``winner`` (seat, -1 a draw), ``reason`` (eliminated, full_board, cap),
  ``left``, ``turn``, ``max_turns``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.events import Event, describe_generic
from .rules import cell_name


def numbers_text(numbers: Sequence[int]) -> str:
    """A face's four numbers as printed, red/blue/gold/green: ``9/7/5/8``."""
    return "/".join(str(int(number)) for number in numbers)


def character_text(fields: Any) -> str:
    """``Rhinox (beast 9/7/5/8, robot 6/6/3/5)``: the full name and both faces' numbers."""
    return (
        f"{fields['name']} (beast {numbers_text(fields['beast'])}, "
        f"robot {numbers_text(fields['robot'])})"
    )


def describe(event: Event, viewer: int, names: Sequence[str]) -> str:
    """The line ``viewer`` reads for ``event``: "you" for the viewer, other seats by name."""
    f = event.fields

    def who(seat: int) -> str:
        return "you" if seat == viewer else names[seat]

    def whose(seat: int) -> str:
        return "your" if seat == viewer else f"{names[seat]}'s"

    kind = event.kind
    if kind == "draft_started":
        whole = [f"{whose(seat)} whole faction is the team" for seat in f["whole_faction"]]
        first = f"{who(f['first_player'])} {'play' if f['first_player'] == viewer else 'plays'}"
        return (
            f"the draft starts: each side picks {f['team_size']} characters (maximal first), "
            f"then places three in its first row, hidden until play starts; {first} first"
            + "".join(f"; {line}" for line in whole)
        )
    if kind == "picked":
        return f"you picked {character_text(f)} ({f['count']} of {f['team_size']})"
    if kind == "opponent_picked":
        return (
            f"{who(f['seat'])} picked a character, hidden until play starts "
            f"({f['count']} of {f['team_size']})"
        )
    if kind == "placed":
        return (
            f"you placed {f['name']} at {cell_name(f['cell'])} (column {f['column']}), "
            "hidden until play starts"
        )
    if kind == "opponent_placed":
        return (
            f"{who(f['seat'])} placed a character at {cell_name(f['cell'])} "
            f"(column {f['column']}), hidden until play starts"
        )
    if kind == "play_started":
        sides = []
        for seat in (0, 1):
            board = ", ".join(
                f"{cell_name(c['cell'])} {c['name']} {numbers_text(c['beast'])}"
                for c in sorted(f["board"][seat], key=lambda c: c["cell"])
            )
            reserve = ", ".join(
                f"{c['name']} {numbers_text(c['beast'])}" for c in f["reserve"][seat]
            )
            sides.append(f"{whose(seat)} team: {board}; reserve: {reserve or 'none'}")
        first = f["first_player"]
        return (
            f"play starts, {who(first)} {'move' if first == viewer else 'moves'} first; "
            f"all beast side up (numbers red/blue/gold/green): {' | '.join(sides)}"
        )
    if kind == "moved":
        return (
            f"{who(f['seat'])} moved {f['name']} ({f['face']} {numbers_text(f['numbers'])}) "
            f"{f['direction']} from {cell_name(f['source'])} to {cell_name(f['target'])}"
        )
    if kind == "reinforced":
        left = f["reserve_left"]
        return (
            f"{who(f['seat'])} brought {character_text(f)} from the reserve to "
            f"{cell_name(f['cell'])} (reserve {left + 1} -> {left})"
        )
    if kind == "reshuffled":
        return (
            f"the battle deck ran out: the {f['cards']} discarded cards are shuffled "
            "into a new deck"
        )
    if kind == "battle":
        return _battle_line(f, viewer, who, whose)
    if kind == "passed":
        return f"{who(f['seat'])} passed (nothing else was possible)"
    if kind == "game_over":
        return _game_over_line(f, viewer, names, who)
    return describe_generic(event, tuple(names), viewer)


def _battle_line(f: Any, viewer: int, who: Any, whose: Any) -> str:
    attacker_seat = f["seat"]
    seats = (attacker_seat, 1 - attacker_seat)
    attacker, defender = f["names"]
    draws = []
    for index in (0, 1):
        colour = f["cards"][index].split(":")[0]
        value = f"{colour} {f['base'][index]}"
        if f["bonus"][index]:
            value += f" + {f['bonus'][index]} = {f['numbers'][index]}"
        mutated = f", mutated to {f['faces'][index]}" if f["mutated"][index] else ""
        draws.append(f"{f['names'][index]} drew {f['cards'][index]}{mutated}, {value}")
    line = (
        f"{whose(seats[0])} {attacker} ({cell_name(f['cells'][0])}) attacked {whose(seats[1])} "
        f"{defender} ({cell_name(f['cells'][1])}, {f['direction']}): {'; '.join(draws)}; "
    )
    if f["winner"] < 0:
        line += "equal numbers: called off, nobody moves"
    else:
        winner_index = 0 if f["winner"] == attacker_seat else 1
        winner, loser = f["names"][winner_index], f["names"][1 - winner_index]
        loser_seat, loser_cell = seats[1 - winner_index], f["cells"][1 - winner_index]
        line += f"{whose(f['winner'])} {winner} wins: {loser} "
        if f["outcome"] == "push":
            line += f"is pushed to {cell_name(f['pushed_to'])}"
        else:
            how = "off the board" if f["outcome"] == "fall" else "into an occupied space"
            what = "falls" if f["outcome"] == "fall" else "is captured"
            line += (
                f"is pushed {how} and {what} ({who(loser_seat)} "
                f"{'have' if loser_seat == viewer else 'has'} "
                f"{f['left_before'][loser_seat]} -> {f['left'][loser_seat]} characters left)"
            )
        line += f"; {winner} takes {cell_name(loser_cell)}"
    return line + f" (discard pile {f['discards']}, deck {f['deck']})"


def _game_over_line(f: Any, viewer: int, names: Sequence[str], who: Any) -> str:
    left = f["left"]
    counts = f"characters left: {who(0)} {left[0]}, {who(1)} {left[1]}"
    winner = f["winner"]
    if winner < 0:
        return f"game over at the {f['max_turns']}-turn cap: a draw ({counts})"
    result = "you win" if winner == viewer else f"{names[winner]} wins"
    loser = 1 - winner
    if f["reason"] == "eliminated":
        why = f"{who(loser)} {'have' if loser == viewer else 'has'} no characters left"
    elif f["reason"] == "full_board":
        why = f"{who(winner)} {'fill' if winner == viewer else 'fills'} all 12 cells"
    else:
        why = f"the {f['max_turns']}-turn cap, more characters left"
    return f"game over: {result} ({why}; {counts})"


__all__ = ["character_text", "describe", "numbers_text"]
