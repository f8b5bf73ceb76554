"""What a person reads for each Cardline event (``describe``): one plain-English line, in the
second person for the viewer, with full card names and the values printed on the cards.

Every Cardline event is public (hands are public by name, a placed card is turned over for
all, CL-3). The kinds ``CardlineState`` logs, and their fields (seats are ints, values floats):

- ``dealt``: ``deck``, ``characteristic``, ``first_player``, ``initial`` and
  ``initial_value`` (the card that starts the line), ``hands`` (names per seat), ``pile``
  (cards in the draw pile) and ``top`` (the name on its top card). Logged once, when a state
  starts recording at its deal (CL-2).
- ``placed``: ``seat``, ``card``, ``value``, ``gap``, ``left`` / ``right`` (the neighbours in
  the line as ``[name, value]``, ``[]`` at an open end), ``correct`` (CL-4) and ``hand`` (cards
  left in that hand before any penalty draw: 0 after a right card means that player finished).
- ``drew``: ``seat``, ``card``, ``reason`` (``"penalty"`` after a wrong card, CL-4, or
  ``"finisher"``, CL-5), ``pile`` (cards left), ``top`` (the pile's new top card) and ``hand``.
- ``no_card``: ``seat``, ``reason``: the pile and the box were both empty (CL-6; play never
  gets there today: a wrong card is in the box before its penalty draw, and finishers are
  dealt only when there are cards enough, but the rule is written and so is its line).
- ``reshuffled``: ``cards``: the box became the new draw pile (CL-6).
- ``round_over``: ``round``, ``finishers`` (seats whose last card was right this round,
  CL-5); logged only when there are finishers (a round nobody finished changes nothing).
- ``eliminated``: ``seat``, ``cards`` (the hand that went to the box, CL-5).
- ``game_over``: ``winners``, ``reason`` (``"alone"``, or ``"too_few_cards"``: a shared win,
  CL-6), ``turns``.
- ``truncated``: ``turns``, ``cap`` (C-5).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.events import Event, describe_generic


def show_value(value: float) -> str:
    """A card's printed number: ``80,000``, ``45``, ``-753``, ``1,066.5``."""
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:.6g}"


def _who(seat: int, viewer: int, names: Sequence[str]) -> str:
    return "you" if seat == viewer else names[seat]


def _together(seats: Sequence[int], viewer: int, names: Sequence[str]) -> str:
    """``you``, ``you and player_2``, ``player_1, player_2 and you`` (the viewer first)."""
    ordered = sorted(seats, key=lambda seat: seat != viewer)
    words = [_who(seat, viewer, names) for seat in ordered]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _card(neighbour: Sequence[object]) -> str:
    name, value = neighbour
    return f"{name} ({show_value(float(value))})"  # type: ignore[arg-type]


def _where(left: Sequence[object], right: Sequence[object]) -> str:
    if left and right:
        return f"between {_card(left)} and {_card(right)}"
    if right:
        return f"left of {_card(right)}"
    if left:
        return f"right of {_card(left)}"
    return "into the line"


def _placed(fields: dict, viewer: int, names: Sequence[str]) -> str:
    seat = fields["seat"]
    who = _who(seat, viewer, names)
    card = f"{fields['card']} ({show_value(fields['value'])})"
    line = f"{who} placed {card} {_where(fields['left'], fields['right'])}: "
    if not fields["correct"]:
        return line + "wrong, to the box"
    line += "right, it stays"
    if fields["hand"] == 0:
        has = "have" if seat == viewer else "has"
        line += f"; {who} {has} no cards left and finish{'' if seat == viewer else 'es'}"
        line += " this round"
    return line


def _drew(fields: dict, viewer: int, names: Sequence[str]) -> str:
    who = _who(fields["seat"], viewer, names)
    draws = "draw" if fields["seat"] == viewer else "draws"
    kind = "a penalty card" if fields["reason"] == "penalty" else "a new card (finisher)"
    top = f"; top of the pile: {fields['top']}" if fields["top"] else ""
    return f"{who} {draws} {kind}: {fields['card']} ({fields['pile']} left in the pile{top})"


def _round_over(fields: dict, viewer: int, names: Sequence[str]) -> str:
    finishers = fields["finishers"]
    head = f"round {fields['round']} is over: "
    if not finishers:
        return head + "nobody placed their last card"
    if len(finishers) == 1:
        who = _who(finishers[0], viewer, names)
        whose = "your" if finishers[0] == viewer else "their"
        return head + f"{who} alone placed {whose} last card"
    return head + f"{_together(finishers, viewer, names)} placed their last cards"


def _game_over(fields: dict, viewer: int, names: Sequence[str]) -> str:
    winners = fields["winners"]
    if fields["reason"] == "too_few_cards":
        return (
            f"game over: {_together(winners, viewer, names)} share the win (too few cards "
            "left in the pile and the box to deal every finisher)"
        )
    who = _who(winners[0], viewer, names)
    return f"game over: {who} win{'' if winners[0] == viewer else 's'}"


def describe(event: Event, viewer: int, names: Sequence[str]) -> str:
    """The line ``viewer`` (a seat) reads for ``event``; ``names`` are the agent names."""
    fields = dict(event.fields)
    kind = event.kind
    if kind == "placed":
        return _placed(fields, viewer, names)
    if kind == "drew":
        return _drew(fields, viewer, names)
    if kind == "dealt":
        start = f"{fields['initial']} ({show_value(fields['initial_value'])})"
        first = _who(fields["first_player"], viewer, names)
        hand = ", ".join(fields["hands"][viewer]) if 0 <= viewer < len(fields["hands"]) else ""
        return (
            f"new game with the {fields['deck']}, comparing {fields['characteristic']}: the line "
            f"starts with {start}; {first} start{'' if first == 'you' else 's'} every round"
            + (f"; your hand: {hand}" if hand else "")
        )
    if kind == "no_card":
        who = _who(fields["seat"], viewer, names)
        return f"nothing for {who} to draw: the draw pile and the box are empty"
    if kind == "reshuffled":
        cards = fields["cards"]
        moved = "card is" if cards == 1 else f"{cards} cards are"
        return f"the draw pile is empty: the box's {moved} shuffled into a new pile"
    if kind == "round_over":
        return _round_over(fields, viewer, names)
    if kind == "eliminated":
        who = _who(fields["seat"], viewer, names)
        verb = "are" if fields["seat"] == viewer else "is"
        cards = ", ".join(fields["cards"])
        return f"{who} {verb} eliminated" + (f"; to the box: {cards}" if cards else "")
    if kind == "game_over":
        return _game_over(fields, viewer, names)
    if kind == "truncated":
        return f"the game stops at its cap of {fields['cap']} turns: nobody wins"
    return describe_generic(event, tuple(names), viewer)


__all__ = ["describe", "show_value"]
