"""The lines a person reads for Promise War's events (``core.events``), one per event.

Event kinds the rules log (``envs/promise_war/rules.py``), with their fields:

- ``picked`` (private to ``seat``): ``seat``, ``power``, ``phase`` ("trick": face down;
  "tiebreak": the card to play face up, hidden until every tied player has picked).
- ``revealed``: ``trick`` (1-based), ``phase``, ``cards`` ([seat, power] per contender),
  ``face_down`` ([seat, count] per contender: cards put face down in a tiebreak).
- ``put_face_down`` (private to ``seat``): ``seat``, ``powers`` (that seat's face-down
  tiebreak cards; everyone else learns only the count from ``revealed``).
- ``tie``: ``seats`` (the tied players), ``power``.
- ``drew``: ``when`` ("trick_end": everyone draws back up to 3; "tiebreak": the tied players
  do), ``draws`` ([seat, cards drawn, cards left in that seat's deck]); counts only, told as
  "you draw 1 (36 left in your deck), player_1 draws 1 (36 left in their deck)".
- ``drops_out``: ``seat`` (a tied player with no card left after drawing).
- ``trick_won``: ``trick``, ``winner``, ``cards`` (the pot), ``face_down`` (of them),
  ``tiebreak`` (1 if the trick had a tie), ``unopposed`` (1 if the winner was the last tied
  player with cards and did not play), ``before`` and ``after`` (the winner's victory pile).
- ``pot_discarded``: ``trick``, ``cards``, ``face_down`` (no tied player had a card left).
- ``sits_out``: ``seat`` (no card in hand at the start of a trick: out for good, PW-6).
- ``cap_reached``: ``tricks``, ``scores`` (PW-7: the game stops with no winner).
- ``game_over``: ``tricks``, ``scores`` (cards won, per seat), ``winners`` (the top seats).

Own face-down cards are told only to their owner: those events are private, so another seat's
line never carries them (``visible_events`` filters before ``describe`` is called).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.events import Event, describe_generic


def _joined(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(count: int, noun: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _powers(powers: Sequence[int]) -> str:
    return _joined([str(power) for power in powers])


def _scores(scores: Sequence[int], who) -> str:
    return ", ".join(f"{who(seat)} {score}" for seat, score in enumerate(scores))


def describe(event: Event, viewer: int, names: Sequence[str]) -> str:
    """The line ``viewer`` reads for ``event`` ("you" for the viewer's own seat)."""

    def who(seat: int) -> str:
        return "you" if seat == viewer else names[seat]

    def verb(seat: int, you_form: str, other_form: str) -> str:
        return f"{who(seat)} {you_form if seat == viewer else other_form}"

    f = event.fields
    kind = event.kind
    if kind == "picked":
        if f["phase"] == "tiebreak":
            return (
                f"{verb(f['seat'], 'picked', 'picked')} {f['power']} to play face up "
                "(hidden until every tied player has picked)"
            )
        return f"{verb(f['seat'], 'picked', 'picked')} {f['power']} face down"
    if kind == "revealed":
        down = dict((seat, count) for seat, count in f["face_down"])
        shown = []
        for seat, power in f["cards"]:
            line = f"{who(seat)} {power}"
            if down.get(seat):
                line += f" (+{down[seat]} face down)"
            shown.append(line)
        stage = f"trick {f['trick']}" + (" tiebreak" if f["phase"] == "tiebreak" else "")
        return f"{stage} revealed: {', '.join(shown)}"
    if kind == "put_face_down":
        return f"{verb(f['seat'], 'put', 'put')} {_powers(f['powers'])} face down into the pot"
    if kind == "tie":
        tied = _joined([who(seat) for seat in f["seats"]])
        return f"tie at {f['power']} between {tied}: a tiebreak for the whole pot"
    if kind == "drew":
        draws = ", ".join(
            f"{verb(seat, 'draw', 'draws')} {count} ({left} left in "
            f"{'your' if seat == viewer else 'their'} deck)"
            for seat, count, left in f["draws"]
        )
        opening = (
            "the tied players draw back up to 3"
            if f["when"] == "tiebreak"
            else "everyone draws back up to 3"
        )
        return f"{opening}: {draws}"
    if kind == "drops_out":
        return (
            f"{verb(f['seat'], 'have', 'has')} no card left and "
            f"{'drop' if f['seat'] == viewer else 'drops'} out of the tiebreak"
        )
    if kind == "trick_won":
        won = f"won {f['before']} -> {f['after']}"
        cards = plural(f["cards"], "card")
        if f["face_down"]:
            cards += f", {f['face_down']} of them face down"
        if f["unopposed"]:
            return (
                f"{verb(f['winner'], 'are', 'is')} the last tied player with cards and "
                f"{'take' if f['winner'] == viewer else 'takes'} the pot of trick {f['trick']} "
                f"without playing ({cards}): {won}"
            )
        if f["tiebreak"]:
            return (
                f"{verb(f['winner'], 'win', 'wins')} the tiebreak and "
                f"{'take' if f['winner'] == viewer else 'takes'} the pot of trick {f['trick']} "
                f"({cards}): {won}"
            )
        return f"{verb(f['winner'], 'take', 'takes')} trick {f['trick']} ({cards}): {won}"
    if kind == "pot_discarded":
        extra = f", {f['face_down']} of them face down" if f["face_down"] else ""
        return (
            f"no tied player has a card left: the pot of trick {f['trick']} "
            f"({plural(f['cards'], 'card')}{extra}) is discarded"
        )
    if kind == "sits_out":
        return (
            f"{verb(f['seat'], 'have', 'has')} no cards left and "
            f"{'sit' if f['seat'] == viewer else 'sits'} out for the rest of the game"
        )
    if kind == "cap_reached":
        return (
            f"the game stops at the cap of {plural(f['tricks'], 'trick')} with no winner "
            f"(cards won: {_scores(f['scores'], who)})"
        )
    if kind == "game_over":
        winners = f["winners"]
        if len(winners) == 1:
            result = verb(winners[0], "win", "wins")
        else:
            result = f"{_joined([who(s) for s in winners])} tie for the most cards"
        played = plural(f["tricks"], "trick")
        return f"game over after {played} (cards won: {_scores(f['scores'], who)}): {result}"
    return describe_generic(event, tuple(names), viewer)


__all__ = ["describe", "plural"]
