"""Cardline: one slot of the vector engine to and from a reference state.

The engine never needs these: the tests prove it exact through them (``state_of`` after a
vector step must be the state the reference rules reach, ``state_difference``), and agents
that think on reference states (search, row-by-row play) read a slot through ``state_of``.
``VectorRules`` finds this module beside the engine (``envs/vector/rules.py``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..core.kernels import generator_of
from .rules import (
    IN_BOX,
    IN_HAND,
    IN_LINE,
    IN_PILE,
    OPEN_LOW,
    OUT_OF_GAME,
    CardlineGame,
    CardlineState,
)
from .vector import (
    ALL,
    BOX,
    BOX_LEN,
    CH_COUNT,
    CH_LINE,
    CHANGED,
    CHAR,
    CORRECT,
    ELIM,
    FIN_LEN,
    FINISHER,
    FIRST,
    HAND_LEN,
    LAST_CARD,
    LAST_MOVER,
    LAST_RIGHT,
    LINE,
    LINE_LEN,
    ORDER,
    ORDER_LEN,
    OUT,
    OUT_LEN,
    PILE,
    PILE_LEN,
    REVEALED,
    ROUNDS,
    TERMINAL,
    TO_ACT,
    TRUNCATED,
    TURN_INDEX,
    TURNS,
    WHERE,
    VectorCardline,
)


def state_of(engine: VectorCardline, slot: int) -> CardlineState:
    game: CardlineGame = engine.game
    n = engine.num_players
    scal = engine.scal[slot].tolist()
    seat = engine.seat[slot].tolist()
    piles = engine.piles[slot]
    c = scal[CHAR]
    state = object.__new__(CardlineState)
    state.game = game
    state.rng = generator_of(engine.rng, slot)
    state.num_players = n
    state.characteristic = c
    state.values = game.values[c]
    state.scaled = game.scaled[c]
    state.first_player = scal[FIRST]
    state.hands = [engine.hands[slot, s, : seat[s][HAND_LEN]].tolist() for s in range(n)]
    state.line = piles[LINE, : scal[LINE_LEN]].tolist()
    state.pile = piles[PILE, : scal[PILE_LEN]].tolist()
    state.box = piles[BOX, : scal[BOX_LEN]].tolist()
    state.out = piles[OUT, : scal[OUT_LEN]].tolist()
    deck = game.deck_size
    state.where = engine.cards[slot, WHERE, :deck].copy()
    state.revealed = engine.cards[slot, REVEALED, :deck].astype(np.bool_)
    known = np.full(deck, OPEN_LOW, np.float32)
    known[state.revealed] = game.scaled[c][state.revealed]
    state.known = known
    state.eliminated = [bool(seat[s][ELIM]) for s in range(n)]
    state.finishers = [seat[k][FINISHER] for k in range(scal[FIN_LEN])]
    state.last_card = [seat[s][LAST_CARD] for s in range(n)]
    state.last_right = [bool(seat[s][LAST_RIGHT]) for s in range(n)]
    state.last_mover = scal[LAST_MOVER]
    state.correct = [seat[s][CORRECT] for s in range(n)]
    state.turns = scal[TURNS]
    state.rounds = scal[ROUNDS]
    state.terminal = bool(scal[TERMINAL])
    state.truncated = bool(scal[TRUNCATED])
    state._returns = (0.0,) * n
    if state.terminal:
        state._returns = tuple(1.0 if s in state.finishers else -1.0 for s in range(n))
    state.order = [seat[k][ORDER] for k in range(scal[ORDER_LEN])]
    state.turn_index = scal[TURN_INDEX]
    state.to_act = scal[TO_ACT]
    return state


def set_state(engine: VectorCardline, slot: int, state: Any) -> None:
    if not isinstance(state, CardlineState) or state.game != engine.game:
        raise TypeError("set_state needs a CardlineState of this batch's game")
    n = engine.num_players
    scal, seat, piles = engine.scal[slot], engine.seat[slot], engine.piles[slot]
    scal[:] = 0
    seat[:] = 0
    piles[:] = 0
    scal[CHAR] = state.characteristic
    scal[FIRST] = state.first_player
    scal[TO_ACT] = state.to_act
    scal[LAST_MOVER] = state.last_mover
    scal[TURNS] = state.turns
    scal[ROUNDS] = state.rounds
    scal[TURN_INDEX] = state.turn_index
    scal[ORDER_LEN] = len(state.order)
    scal[FIN_LEN] = len(state.finishers)
    scal[TERMINAL] = state.terminal
    scal[TRUNCATED] = state.truncated
    for row, cards, column in (
        (LINE, state.line, LINE_LEN),
        (PILE, state.pile, PILE_LEN),
        (BOX, state.box, BOX_LEN),
        (OUT, state.out, OUT_LEN),
    ):
        piles[row, : len(cards)] = cards
        scal[column] = len(cards)
    for s in range(n):
        hand = state.hands[s]
        engine.hands[slot, s, : len(hand)] = hand
        seat[s, HAND_LEN] = len(hand)
        seat[s, ELIM] = state.eliminated[s]
        seat[s, LAST_CARD] = state.last_card[s]
        seat[s, LAST_RIGHT] = state.last_right[s]
        seat[s, CORRECT] = state.correct[s]
    seat[: len(state.order), ORDER] = state.order
    seat[: len(state.finishers), FINISHER] = state.finishers
    deck = len(state.where)
    engine.cards[slot, WHERE, :deck] = state.where
    engine.cards[slot, REVEALED, :deck] = state.revealed
    piles[CHANGED, CH_LINE] = 0
    piles[CHANGED, CH_COUNT] = ALL
    engine.current_player[slot] = state.to_act
    engine.terminated[slot] = state.terminal
    engine.truncated[slot] = state.truncated
    engine.rewards[slot] = state.returns() if state.terminal else 0.0


def state_difference(previous: Any, expected: Any, actual: Any) -> str | None:
    """Every field equal, except where the reference shuffled the box into the pile in
    this step: then the cards that went through a shuffle (``shuffled_cards``) are
    interchangeable among the pile, the box and the hands (each of the same size), and
    every other card must be exactly where the reference put it."""
    names = set(expected.__dict__) | set(actual.__dict__)
    names -= {"rng", "game", "hands", "pile", "box", "where"}
    for name in sorted(names):
        if name not in expected.__dict__ or name not in actual.__dict__:
            return f"{name}: present in only one of the states"
        difference = _field_difference(name, expected.__dict__[name], actual.__dict__[name])
        if difference:
            return difference
    if actual.game != expected.game:
        return "game: another configuration"
    consistency = _where_difference(actual)
    if consistency:
        return consistency
    exact = None
    for name in ("hands", "pile", "box", "where"):
        exact = _field_difference(name, expected.__dict__[name], actual.__dict__[name])
        if exact:
            break
    if exact is None:
        return None  # equal card for card: right whether or not the step shuffled
    action = implied_action(previous, expected)
    shuffled = set() if action is None else shuffled_cards(previous, action)
    if not shuffled:
        return exact
    for card in range(expected.game.deck_size):
        if card not in shuffled and expected.where[card] != actual.where[card]:
            return (
                f"where[{card}]: expected {expected.where[card]}, got {actual.where[card]} "
                f"(not a shuffled card; shuffled: {sorted(shuffled)})"
            )
    places = [("pile", expected.pile, actual.pile), ("box", expected.box, actual.box)]
    places += [
        (f"hands[{s}]", mine, theirs)
        for s, (mine, theirs) in enumerate(zip(expected.hands, actual.hands, strict=True))
    ]
    for name, mine, theirs in places:
        if _blurred(mine, shuffled) != _blurred(theirs, shuffled):
            return (
                f"{name}: expected {mine}, got {theirs} (shuffled cards "
                f"{sorted(shuffled)} are interchangeable)"
            )
    return None


class _ShuffleRecorder:
    """Stands in for a state's generator during a replay and records the box at every
    shuffle (the box's reshuffle is the rules' only draw in play: ``shuffle`` since the
    chance protocol, ``envs/core/chance.py``; ``permutation`` kept for older states)."""

    def __init__(self, rng: np.random.Generator, state: CardlineState) -> None:
        self.rng, self.state = rng, state
        self.cards: set[int] = set()

    def permutation(self, size: int) -> np.ndarray:
        self.cards.update(self.state.box)
        return self.rng.permutation(size)

    def shuffle(self, items: list[int]) -> None:
        self.cards.update(self.state.box)
        self.rng.shuffle(items)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rng, name)


def shuffled_cards(previous: CardlineState, action: int) -> set[int]:
    """The cards the reference shuffles from the box into the pile when ``action`` is played
    in ``previous`` (found by replaying it on a copy with a recording generator)."""
    twin = previous.clone()
    recorder = _ShuffleRecorder(twin.rng, twin)
    twin.rng = recorder  # type: ignore[assignment]
    twin.apply_legal_action(action)
    return recorder.cards


def _field_difference(name: str, expected: Any, actual: Any) -> str | None:
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        same = (
            isinstance(expected, np.ndarray)
            and isinstance(actual, np.ndarray)
            and expected.dtype == actual.dtype
            and np.array_equal(expected, actual)
        )
    elif isinstance(expected, (list, tuple)):
        same = type(expected) is type(actual) and list(expected) == list(actual)
    else:
        same = expected == actual
    if same:
        return None
    return f"{name}: expected {expected!r}, got {actual!r}"


def _where_difference(state: CardlineState) -> str | None:
    """``where`` must say where the lists put every card, and hands must be sorted."""
    where = np.full(state.game.deck_size, -1, np.int64)
    places = [(state.line, IN_LINE), (state.pile, IN_PILE), (state.box, IN_BOX)]
    places += [(state.out, OUT_OF_GAME)]
    places += [(hand, IN_HAND + seat) for seat, hand in enumerate(state.hands)]
    for cards, code in places:
        where[cards] = code
    if not np.array_equal(where, state.where):
        return f"where {state.where.tolist()} does not match the piles {where.tolist()}"
    for seat, hand in enumerate(state.hands):
        if hand != sorted(hand):
            return f"hands[{seat}] is not sorted: {hand}"
    return None


def _blurred(cards: list[int], shuffled: set[int]) -> Counter[int]:
    return Counter(-1 if card in shuffled else card for card in cards)


def implied_action(previous: CardlineState, expected: CardlineState) -> int | None:
    """An action of ``previous``'s player that leads to ``expected`` one turn later: the card
    it placed (``last_card``) into the gap where it now lies, or, if it was wrong, the first
    wrong gap (every wrong gap leads to the same state). None if ``expected`` is not one turn
    after ``previous``."""
    seat = previous.to_act
    if seat < 0 or expected.turns != previous.turns + 1:
        return None
    card = expected.last_card[seat]
    if card not in previous.hands[seat]:
        return None
    slot = previous.hands[seat].index(card)
    gaps = previous.game.num_gaps
    if expected.last_right[seat]:
        return slot * gaps + expected.line.index(card)
    values, line = previous.values, previous.line
    for gap in range(len(line) + 1):
        fits = (gap == 0 or values[line[gap - 1]] <= values[card]) and (
            gap == len(line) or values[card] <= values[line[gap]]
        )
        if not fits:
            return slot * gaps + gap
    return None  # wrong, yet every gap fits: not a turn of these rules


__all__ = ["implied_action", "set_state", "shuffled_cards", "state_difference", "state_of"]
