"""The lines a player reads for Iron Man 2 Game of War's events (``core.events``).

``describe(event, viewer, names)`` turns one event the rules logged into one plain-English
line for ``viewer`` (a seat that saw it): "you" for the viewer, the other player by name, and
cards by the names printed on them, in one title-case style (``Attack 3``, ``Upgrade``,
``Energy Shield``, ``Final Attack (6)``). Every battle result names whose cards beat whose.

Event kinds (fields; cards are kind names from ``rules.KINDS``, None for no card; battles
and rounds are 1-based; seats are 0 iron_man, 1 war_machine; ``winner``/``leader``/``moved``
are -1 for nobody):

- ``round_started`` (round, pawns, victory_cards): a new round begins (round 1 starts before
  a game records, so its first line is the commit).
- ``drew`` (drawn, hands, decks): each player's IM-2 draw, with hand and deck sizes after it.
- ``reshuffled`` (seat, cards): D-1, a discard pile shuffled into a new deck.
- ``committed`` (seat, battle, card), seen only by ``seat``: its own face-down commit (IM-3).
- ``face_down`` (seat, battle), seen only by the other seat: that a card was committed.
- ``flipped`` (battle, cards): IM-4, both committed cards turn face up.
- ``cancelled`` (battle, cards): IM-9, two special cards revealed together are discarded.
- ``played`` (seat, card, battle): IM-6, a losing player's card played face up.
- ``picked`` (seat, card, battle), seen only by ``seat``: its face-down standoff pick (IM-7).
- ``picked_face_down`` (seat, battle), seen only by the other seat: that ``seat`` picked.
- ``revealed`` (battle, cards): the standoff picks turned face up together.
- ``shield_hit`` (seat, target, battle): IM-8, ``seat``'s Energy Shield discards ``target``.
- ``shield_no_target`` (seat, battle): IM-8 / D-8, a shield with nothing to hit.
- ``standing`` (battle, totals, counts, leader, players): IM-5, who leads now and who must
  play (``players``: the loser, or the standoff's players; empty: nobody can).
- ``conceded`` (seat, battle, auto): IM-6, a concession (``auto``: the loser had no cards).
- ``battle_ended`` (battle, winner, cards, totals): IM-10, each side's cards and totals.
- ``round_ended`` (round, won, draws, moved, pawns_before, pawns, victory_cards): IM-11.
- ``game_won`` (winner, round, victory_cards): IM-12.
- ``capped`` (round, max_rounds): C-5, the round cap ended the game with no winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.events import Event, describe_generic

#: The names printed on the cards (with Final Attack's printed value), all in title case so
#: an event line never mixes "Attack 5" with "UPGRADE".
CARD_NAMES = {
    "attack_1": "Attack 1",
    "attack_2": "Attack 2",
    "attack_3": "Attack 3",
    "attack_4": "Attack 4",
    "attack_5": "Attack 5",
    "upgrade": "Upgrade",
    "energy_shield": "Energy Shield",
    "final_attack": "Final Attack (6)",
}


def card_name(kind: str | None) -> str:
    """A card as a player reads it: ``Attack 3``, ``Upgrade`` ... (``no card`` for None)."""
    return "no card" if kind is None else CARD_NAMES.get(kind, kind)


def _list(cards: Sequence[str]) -> str:
    return " + ".join(card_name(card) for card in cards)


class _Words:
    """Second person for the viewer, the seat's name for everyone else."""

    def __init__(self, viewer: int, names: Sequence[str]) -> None:
        self.viewer, self.names = viewer, names

    def who(self, seat: int) -> str:
        return "you" if seat == self.viewer else self.names[seat]

    def whose(self, seat: int) -> str:
        return "your" if seat == self.viewer else f"{self.names[seat]}'s"

    def does(self, seat: int, verb: str) -> str:
        """``you play`` / ``war_machine plays``."""
        if seat == self.viewer:
            return f"you {verb}"
        ending = "es" if verb.endswith(("sh", "ch", "s")) else "s"
        return f"{self.names[seat]} {verb}{ending}"

    def side(self, seat: int, cards: Sequence[str], total: int) -> str:
        """One side of a battle: ``war_machine's Attack 5 + Attack 3 = 8``."""
        if not cards:
            return f"{self.whose(seat)} empty side = 0"
        return f"{self.whose(seat)} {_list(cards)} = {total}"


def _seats_first(words: _Words) -> tuple[int, int]:
    """The viewer's seat first (a seat outside the game: seat order)."""
    return (words.viewer, 1 - words.viewer) if words.viewer in (0, 1) else (0, 1)


def _reveal(words: _Words, cards: Sequence[str | None], verb: str) -> str:
    parts = []
    for seat in _seats_first(words):
        card = cards[seat]
        if card is None:
            has = "have" if seat == words.viewer else "has"
            parts.append(f"{words.who(seat)} {has} no card")
        else:
            parts.append(f"{words.does(seat, verb)} {card_name(card)}")
    return ", ".join(parts)


def describe(event: Event, viewer: int, names: Sequence[str]) -> str:
    """The line ``viewer`` reads for ``event`` (second person for the viewer)."""
    words = _Words(viewer, names)
    f = event.fields
    kind = event.kind
    if kind == "round_started":
        pawns = ", ".join(f"{words.who(s)} on {f['pawns'][s]}" for s in _seats_first(words))
        return (
            f"round {f['round']} begins (pawns on the Victory Cards 1..{f['victory_cards']}: "
            f"{pawns})"
        )
    if kind == "drew":
        parts = [
            f"{words.does(s, 'draw')} {f['drawn'][s]} (hand {f['hands'][s]}, deck {f['decks'][s]})"
            for s in _seats_first(words)
        ]
        return "; ".join(parts)
    if kind == "reshuffled":
        return (
            f"{words.whose(f['seat'])} discard pile ({f['cards']} cards) is shuffled into a "
            "new deck"
        )
    if kind == "committed":
        return (
            f"{words.does(f['seat'], 'put')} {card_name(f['card'])} face down for battle "
            f"{f['battle']}"
        )
    if kind == "face_down":
        return f"{words.does(f['seat'], 'put')} a card face down for battle {f['battle']}"
    if kind == "flipped":
        return f"battle {f['battle']} begins: {_reveal(words, f['cards'], 'flip')}"
    if kind == "revealed":
        return f"the face-down cards are revealed: {_reveal(words, f['cards'], 'play')}"
    if kind == "cancelled":
        first, second = _seats_first(words)
        return (
            f"{words.whose(first)} {card_name(f['cards'][first])} and {words.whose(second)} "
            f"{card_name(f['cards'][second])} are both special cards: they cancel and are "
            "discarded"
        )
    if kind == "played":
        return f"{words.does(f['seat'], 'play')} {card_name(f['card'])} face up"
    if kind == "picked":
        return f"{words.does(f['seat'], 'pick')} {card_name(f['card'])} face down"
    if kind == "picked_face_down":
        return f"{words.does(f['seat'], 'pick')} a card face down"
    if kind == "shield_hit":
        seat = f["seat"]
        return (
            f"{words.whose(seat)} {card_name('energy_shield')} discards {words.whose(1 - seat)} "
            f"{card_name(f['target'])}"
        )
    if kind == "shield_no_target":
        seat = f["seat"]
        return (
            f"{words.whose(seat)} {card_name('energy_shield')} finds no card of "
            f"{words.who(1 - seat)} to discard: no effect"
        )
    if kind == "standing":
        return _standing(words, f)
    if kind == "conceded":
        seat = f["seat"]
        if f["auto"]:
            has = "have" if seat == viewer else "has"
            return (
                f"{words.who(seat)} {has} no cards left to play: "
                f"{words.does(seat, 'concede')} battle {f['battle']}"
            )
        return f"{words.does(seat, 'concede')} battle {f['battle']}"
    if kind == "battle_ended":
        return _battle_ended(words, f)
    if kind == "round_ended":
        return _round_ended(words, f)
    if kind == "game_won":
        seat = f["winner"]
        ending = "you win the game" if seat == viewer else f"{words.who(seat)} wins the game"
        return (
            f"{words.whose(seat)} pawn reaches the last Victory Card ({f['victory_cards']}): "
            f"{ending}"
        )
    if kind == "capped":
        return (
            f"round {f['round']} was the last one allowed (max_rounds {f['max_rounds']}): "
            "the game ends with no winner"
        )
    return describe_generic(event, tuple(names), viewer)


def _standing(words: _Words, f: Mapping[str, Any]) -> str:
    totals, counts, leader = f["totals"], f["counts"], f["leader"]
    players = list(f["players"])
    if leader < 0:
        first, second = _seats_first(words)
        each = "card" if counts[first] == 1 else "cards"
        line = f"standoff at {totals[first]} to {totals[second]} with {counts[first]} {each} each"
        if len(players) == 2:
            return f"{line}: both play a card face down"
        if players:
            return f"{line}: only {words.who(players[0])} can play, face down"
        return f"{line}: nobody has a card left"
    loser = 1 - leader
    score = f"{totals[leader]} to {totals[loser]}"
    if totals[leader] == totals[loser]:
        score += f" with more cards ({counts[leader]} to {counts[loser]})"
    line = f"{words.who(leader)} {'lead' if leader == words.viewer else 'leads'} {score}"
    if players:
        return f"{line}: {words.who(loser)} must play a card face up or concede"
    return line


def _battle_ended(words: _Words, f: Mapping[str, Any]) -> str:
    winner, cards, totals = f["winner"], f["cards"], f["totals"]
    if winner < 0:
        first, second = _seats_first(words)
        if not cards[0] and not cards[1]:
            return f"battle {f['battle']} is a draw: no card is left in it"
        return (
            f"battle {f['battle']} is a draw: {words.side(first, cards[first], totals[first])} "
            f"and {words.side(second, cards[second], totals[second])} are discarded"
        )
    loser = 1 - winner
    beats = "beat" if len(cards[winner]) > 1 else "beats"
    won = "you win" if winner == words.viewer else f"{words.who(winner)} wins"
    return (
        f"{won} battle {f['battle']}: {words.side(winner, cards[winner], totals[winner])} "
        f"{beats} {words.side(loser, cards[loser], totals[loser])}"
    )


def _round_ended(words: _Words, f: Mapping[str, Any]) -> str:
    won, moved = f["won"], f["moved"]
    first, second = _seats_first(words)
    tally = f"{words.who(first)} won {won[first]}, {words.who(second)} {won[second]}"
    if f["draws"]:
        tally += f", {f['draws']} drawn"
    if moved < 0:
        return (
            f"round {f['round']} ends: {tally}; nobody moves (it takes at least 2 wins and "
            "more than the other)"
        )
    return (
        f"round {f['round']} ends: {tally}; {words.whose(moved)} pawn moves from Victory "
        f"Card {f['pawns_before'][moved]} to {f['pawns'][moved]} of {f['victory_cards']}"
    )


__all__ = ["CARD_NAMES", "card_name", "describe"]
