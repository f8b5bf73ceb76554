"""Iron Man 2 Game of War: one slot of the vector engine to and from a reference state.

The engine never needs these: the tests prove it exact through them (``state_of`` after a
vector step must be the state the reference rules reach, ``state_difference``), and agents
that think on reference states (search, row-by-row play) read a slot through ``state_of``.
``VectorRules`` finds this module beside the engine (``envs/vector/rules.py``)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.game import GameState
from ..core.kernels import generator_of
from .rules import (
    HAND_DRAW,
    IronManWarState,
)
from .vector import (
    BATTLE,
    BC,
    COMMITTED,
    COUNTS,
    DECISION,
    DECKC,
    DISC,
    DSIZE,
    FACE_DOWN,
    FLIPPED,
    HANDS,
    HAS_PENDING,
    HSIZE,
    LAST_REVEAL,
    NUM_TO_PICK,
    PAWNS,
    PENDING,
    PREV_FLIPPED,
    PREV_RESULTS,
    RESULTS,
    ROUND,
    SEAT,
    SLOT,
    TABLE,
    TERMINAL,
    TO_PICK,
    TOTALS,
    TRUNCATED,
    WIDTH,
    WINNER,
    WON,
    B,
    K,
    VectorIronManWar,
)


def state_of(engine: VectorIronManWar, slot: int) -> IronManWarState:
    row = engine.S[slot].tolist()
    state = object.__new__(IronManWarState)

    def table(start: int, width: int) -> np.ndarray:
        return np.array(row[start : start + 2 * width], np.int64).reshape(2, width)

    def pair(start: int) -> list[int]:
        return row[start : start + 2]

    sizes = pair(DSIZE)
    state.game = engine.game
    state._rng = generator_of(engine.rng, slot)
    state._beginner = engine.game.beginner
    state._piles = [engine.piles[slot, seat, : sizes[seat]].tolist() for seat in range(2)]
    state.deck_counts = table(DECKC, K)
    state.deck_sizes = sizes
    state.hands = table(HANDS, K)
    state.hand_sizes = pair(HSIZE)
    state.discards = table(DISC, K)
    state.table = table(TABLE, K)
    state.battle_cards = table(BC, K)
    state.battle_totals = pair(TOTALS)
    state.battle_card_counts = pair(COUNTS)
    state.committed = table(COMMITTED, B)
    state.face_down = table(FACE_DOWN, B).astype(bool)
    state.flipped = table(FLIPPED, B)
    state.pending_play = pair(PENDING)
    state.has_pending = [bool(x) for x in pair(HAS_PENDING)]
    state.last_reveal = pair(LAST_REVEAL)
    state.battle_results = row[RESULTS : RESULTS + B]
    state.battles_won = pair(WON)
    state.previous_results = row[PREV_RESULTS : PREV_RESULTS + B]
    state.previous_flipped = table(PREV_FLIPPED, B)
    state.pawns = pair(PAWNS)
    state.round = row[ROUND]
    state.battle = row[BATTLE]
    state.commit_slot = row[SLOT]
    state.decision = row[DECISION]
    state.current_seat = row[SEAT]
    state.winner = row[WINNER]
    state.terminal = bool(row[TERMINAL])
    state.truncated = bool(row[TRUNCATED])
    if state.terminal:
        state._returns = (1.0, -1.0) if state.winner == 0 else (-1.0, 1.0)
    else:
        state._returns = (0.0, 0.0)
    state._to_pick = row[TO_PICK : TO_PICK + row[NUM_TO_PICK]]
    return state


def set_state(engine: VectorIronManWar, slot: int, state: Any) -> None:
    s = state
    row = np.zeros(WIDTH, np.int64)

    def put(start: int, values: Any) -> None:
        flat = np.asarray(values, np.int64).ravel()
        row[start : start + flat.size] = flat

    piles = s._piles
    for seat in range(2):
        if len(piles[seat]) > engine.capacity:
            raise InvalidConfigError(
                f"{s.game.agent_names[seat]}'s deck holds {len(piles[seat])} cards, more "
                f"than the {engine.capacity} this configuration's decks can (D-17)"
            )
    put(HANDS, s.hands)
    put(DECKC, s.deck_counts)
    put(DISC, s.discards)
    put(TABLE, s.table)
    put(BC, s.battle_cards)
    put(COMMITTED, s.committed)
    put(FACE_DOWN, s.face_down)
    put(FLIPPED, s.flipped)
    put(PREV_FLIPPED, s.previous_flipped)
    put(PENDING, s.pending_play)
    put(HAS_PENDING, s.has_pending)
    put(LAST_REVEAL, s.last_reveal)
    put(RESULTS, s.battle_results)
    put(PREV_RESULTS, s.previous_results)
    put(TOTALS, s.battle_totals)
    put(COUNTS, s.battle_card_counts)
    put(WON, s.battles_won)
    put(HSIZE, s.hand_sizes)
    put(DSIZE, [len(piles[0]), len(piles[1])])
    put(PAWNS, s.pawns)
    row[ROUND] = s.round
    row[BATTLE] = s.battle
    row[SLOT] = s.commit_slot
    row[DECISION] = s.decision
    row[SEAT] = s.current_seat
    row[WINNER] = s.winner
    row[TERMINAL] = bool(s.terminal)
    row[TRUNCATED] = bool(s.truncated)
    row[TO_PICK : TO_PICK + 2] = -1
    put(TO_PICK, list(s._to_pick))
    row[NUM_TO_PICK] = len(s._to_pick)
    engine.S[slot] = row
    engine.piles[slot] = 0
    for seat in range(2):
        engine.piles[slot, seat, : len(piles[seat])] = piles[seat]
    engine.current_player[slot] = s.current_seat
    engine.terminated[slot] = bool(s.terminal)
    engine.truncated[slot] = bool(s.truncated)
    engine.rewards[slot] = s.returns() if s.terminal else (0.0, 0.0)


def state_difference(previous: GameState, expected: GameState, actual: GameState) -> str | None:
    """Field by field, except a seat whose deck the step may have reshuffled (a round
    started and the draw emptied its deck, IM-2): there the cards drawn after the
    reshuffle are chance, so its hand + deck are compared as a multiset, its hand must
    hold its old hand (but the card played this step) and its whole old deck, and its
    deck must be as long as expected and match its counts."""
    previous = cast(IronManWarState, previous)
    expected = cast(IronManWarState, expected)
    actual = cast(IronManWarState, actual)
    new_round = expected.round != previous.round
    shuffled = [new_round and len(previous._piles[seat]) <= HAND_DRAW for seat in range(2)]
    names = set(expected.__dict__) | set(actual.__dict__)
    for name in sorted(names - {"_rng", "game", "hands", "deck_counts", "_piles"}):
        if name not in expected.__dict__ or name not in actual.__dict__:
            return f"attribute {name} is missing on one side"
        if not _same(expected.__dict__[name], actual.__dict__[name]):
            return f"{name}: expected {expected.__dict__[name]!r}, got {actual.__dict__[name]!r}"
    if actual.game != expected.game:
        return "the states are of different game configurations"
    for name in ("hands", "deck_counts"):
        mine, theirs = getattr(expected, name), getattr(actual, name)
        if not (
            isinstance(theirs, np.ndarray)
            and theirs.dtype == mine.dtype
            and theirs.shape == mine.shape
        ):
            return f"{name}: expected an {mine.dtype} array, got {theirs!r}"
    for seat in range(2):
        hand_e, hand_a = expected.hands[seat], actual.hands[seat]
        deck_e, deck_a = expected.deck_counts[seat], actual.deck_counts[seat]
        pile_e, pile_a = expected._piles[seat], actual._piles[seat]
        if not isinstance(pile_a, list):
            return f"_piles[{seat}] must be a list, got {type(pile_a).__name__}"
        if not shuffled[seat]:
            for name, e, a in (("hands", hand_e, hand_a), ("deck_counts", deck_e, deck_a)):
                if not np.array_equal(e, a):
                    return f"{name}[{seat}]: expected {e.tolist()}, got {a.tolist()}"
            if not _same(pile_e, pile_a):
                return f"_piles[{seat}]: expected {pile_e}, got {pile_a}"
            continue
        where = f"seat {seat} (deck reshuffled this step)"
        if not np.array_equal(hand_e + deck_e, hand_a + deck_a):
            return (
                f"{where}: hand + deck expected {(hand_e + deck_e).tolist()}, "
                f"got {(hand_a + deck_a).tolist()}"
            )
        # Drawn first: the whole old deck; kept: the old hand but the card played now.
        kept = previous.hands[seat] + np.bincount(previous._piles[seat], minlength=K)[:K]
        played = 1 if seat == previous.current_player() else 0
        if np.maximum(kept - hand_a, 0).sum() > played:
            return f"{where}: hand {hand_a.tolist()} lacks cards of {kept.tolist()}"
        if not np.array_equal(np.bincount(pile_a, minlength=K)[:K], deck_a) or len(pile_a) != len(
            pile_e
        ):
            return f"{where}: deck {pile_a} does not match deck_counts {deck_a.tolist()}"
    return None


def _kind(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    return type(value).__name__


def _same(a: Any, b: Any) -> bool:
    """Equal in value and in kind (arrays: dtype and shape; sequences: type and each item)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if type(a) is type(b) and a == b and repr(a) == repr(b):
            return True  # the common case, at C speed (repr tells True from 1, 1.0 from 1)
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    return _kind(a) == _kind(b) and a == b
