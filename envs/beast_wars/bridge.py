"""Beast Wars: one slot of the vector engine to and from a reference state.

The engine never needs these: the tests prove it exact through them (``state_of`` after a
vector step must be the state the reference rules reach, ``state_difference``), and agents
that think on reference states (search, row-by-row play) read a slot through ``state_of``.
``VectorRules`` finds this module beside the engine (``envs/vector/rules.py``)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..core.game import GameState
from ..core.kernels import generator_of
from .rules import (
    DRAW,
    MAX_FACTION,
    NEIGHBOURS,
    NUM_CARD_KINDS,
    OVER,
    PLAY,
    Battle,
    BeastWarsState,
)
from .vector import (
    _ATTACK_BASE,
    B_CARDS,
    B_CELLS,
    B_NUMBERS,
    B_OUTCOME,
    B_PIECES,
    B_PUSHED,
    B_SEAT,
    B_TURN,
    B_WINNER,
    BOARD,
    BOARD_COUNTS,
    CARDS,
    DECK,
    DECK_LEN,
    FACES,
    FIRST,
    HAS_BATTLE,
    LOCATION,
    OWNER,
    PHASE,
    PLACED,
    RESERVE_COUNTS,
    STATE_SIZE,
    TEAM_LEN,
    TEAMS,
    TO_ACT,
    TURN,
    WINNER,
    VectorBeastWars,
)


def state_of(engine: VectorBeastWars, slot: int) -> BeastWarsState:
    st = engine.state[slot].astype(np.int64)
    game = engine.game
    state: Any = object.__new__(BeastWarsState)
    state.game = game
    state._rng = generator_of(engine.rng, slot)
    state._numbers = game.characters.numbers
    state._deck = st[DECK : DECK + st[DECK_LEN]].tolist()
    state.card_counts = st[CARDS:DECK].reshape(2, NUM_CARD_KINDS).copy()
    state.owner = st[OWNER:BOARD].copy()
    state.board = st[BOARD:LOCATION].copy()
    state.location = st[LOCATION:FACES].copy()
    state.faces = st[FACES:TEAMS].copy()
    state.teams = [
        st[TEAMS + s * MAX_FACTION : TEAMS + s * MAX_FACTION + st[TEAM_LEN + s]].tolist()
        for s in (0, 1)
    ]
    state.placed = st[PLACED : PLACED + 2].tolist()
    state.board_counts = st[BOARD_COUNTS : BOARD_COUNTS + 2].tolist()
    state.reserve_counts = st[RESERVE_COUNTS : RESERVE_COUNTS + 2].tolist()
    state.first_player = int(st[FIRST])
    state.turn = int(st[TURN])
    state.winner = int(st[WINNER])
    state.last_battle = None
    if st[HAS_BATTLE]:
        state.last_battle = Battle(
            attacker_seat=int(st[B_SEAT]),
            cells=(int(st[B_CELLS]), int(st[B_CELLS + 1])),
            pieces=(int(st[B_PIECES]), int(st[B_PIECES + 1])),
            cards=(int(st[B_CARDS]), int(st[B_CARDS + 1])),
            numbers=(int(st[B_NUMBERS]), int(st[B_NUMBERS + 1])),
            winner=int(st[B_WINNER]),
            outcome=int(st[B_OUTCOME]),
            pushed_to=int(st[B_PUSHED]),
            turn=int(st[B_TURN]),
        )
    state._returns = (0.0, 0.0)
    if st[PHASE] == OVER and st[WINNER] != DRAW:
        state._returns = (1.0, -1.0) if st[WINNER] == 0 else (-1.0, 1.0)
    state.phase = int(st[PHASE])
    state.to_act = int(st[TO_ACT])
    return cast(BeastWarsState, state)


def set_state(engine: VectorBeastWars, slot: int, state: GameState) -> None:
    state = cast(BeastWarsState, state)
    st = np.zeros(STATE_SIZE, np.int64)
    st[PHASE] = state.phase
    st[TO_ACT] = state.to_act
    st[FIRST] = state.first_player
    st[TURN] = state.turn
    st[WINNER] = state.winner
    deck = state._deck
    st[DECK_LEN] = len(deck)
    st[DECK : DECK + len(deck)] = deck
    st[CARDS:DECK] = np.asarray(state.card_counts).ravel()
    st[OWNER:BOARD] = state.owner
    st[BOARD:LOCATION] = state.board
    st[LOCATION:FACES] = state.location
    st[FACES:TEAMS] = state.faces
    for seat in (0, 1):
        team = state.teams[seat]
        st[TEAMS + seat * MAX_FACTION : TEAMS + seat * MAX_FACTION + len(team)] = team
        st[TEAM_LEN + seat] = len(team)
        st[PLACED + seat] = state.placed[seat]
        st[BOARD_COUNTS + seat] = state.board_counts[seat]
        st[RESERVE_COUNTS + seat] = state.reserve_counts[seat]
    battle = state.last_battle
    if battle is not None:
        st[HAS_BATTLE] = 1
        st[B_SEAT] = battle.attacker_seat
        st[B_CELLS : B_CELLS + 2] = battle.cells
        st[B_PIECES : B_PIECES + 2] = battle.pieces
        st[B_CARDS : B_CARDS + 2] = battle.cards
        st[B_NUMBERS : B_NUMBERS + 2] = battle.numbers
        st[B_WINNER] = battle.winner
        st[B_OUTCOME] = battle.outcome
        st[B_PUSHED] = battle.pushed_to
        st[B_TURN] = battle.turn
    engine.state[slot] = st
    over = state.phase == OVER
    engine.current_player[slot] = state.to_act
    engine.terminated[slot] = over
    engine.truncated[slot] = False
    engine.rewards[slot] = state.returns() if over else (0.0, 0.0)


def state_difference(previous: GameState, expected: GameState, actual: GameState) -> str | None:
    """Field by field; a battle that drew from a reshuffled discard pile (the deck held
    fewer than two cards) is replayed in the reference with the batch's new deck order,
    which must be a permutation of that pile, and then compared field by field."""
    previous = cast(BeastWarsState, previous)
    expected = cast(BeastWarsState, expected)
    actual = cast(BeastWarsState, actual)
    battle = expected.last_battle
    reshuffled = (
        previous.phase == PLAY
        and battle is not None
        and battle.turn == previous.turn + 1
        and len(previous._deck) < 2
    )
    if battle is None or not reshuffled:
        return _differences(expected, actual)
    # The battle drew from a reshuffled discard pile: replay the reference step with the
    # vector engine's order forced into that shuffle (if it is a permutation of the pile).
    drawn = actual.last_battle
    if drawn is None or drawn.turn != previous.turn + 1:
        return f"last_battle: expected a battle of turn {previous.turn + 1}, got {drawn}"
    top = [drawn.cards[1]] if len(previous._deck) == 1 else [drawn.cards[1], drawn.cards[0]]
    rigged = _RiggedShuffle(list(actual._deck) + top)
    replay = previous.clone()
    replay._rng = rigged  # type: ignore[assignment]
    cell, target = battle.cells
    direction = NEIGHBOURS[cell].tolist().index(target)
    replay.apply_legal_action(_ATTACK_BASE + cell * 4 + direction)
    if rigged.problem:
        return rigged.problem
    return _differences(replay, actual)


class _RiggedShuffle:
    """Stands in for the reference state's generator in a replay: its one ``shuffle`` puts
    the pile in the given order, after checking that order holds the same cards."""

    def __init__(self, order: list[int]) -> None:
        self.order = order
        self.problem: str | None = None

    def shuffle(self, pile: np.ndarray) -> None:
        if sorted(pile.tolist()) != sorted(self.order):
            self.problem = (
                f"_deck: the reshuffled deck {self.order} (with the cards drawn from it) is "
                f"not a permutation of the discard pile {sorted(pile.tolist())}"
            )
            return
        pile[:] = self.order


_SCALARS = ("phase", "to_act", "first_player", "turn", "winner", "last_battle", "_returns")
_ARRAYS = ("owner", "board", "location", "faces", "card_counts", "_numbers")
#: Not compared: the generator (the batch's streams are its own) and the configuration
#: (compared as a whole below).
_UNCOMPARED = {"_rng", "game"}
_LISTS = ("_deck", "teams", "placed", "board_counts", "reserve_counts")


def _differences(expected: BeastWarsState, actual: BeastWarsState) -> str | None:
    """The first field in which ``actual`` differs from ``expected`` (None: all equal): the
    same fields, scalars and lists of the same types (``True`` is not ``1``), arrays of the
    same dtype, shape and values."""
    want_fields, got_fields = set(vars(expected)) - _UNCOMPARED, set(vars(actual)) - _UNCOMPARED
    if want_fields != got_fields:
        return f"fields differ: {sorted(want_fields ^ got_fields)} present in only one state"
    unknown = want_fields - set(_SCALARS + _LISTS + _ARRAYS)
    if unknown:  # a field the rules gained: it must be compared, not skipped
        return f"fields {sorted(unknown)} are not compared (add them to the bridge's lists)"
    for name in _SCALARS + _LISTS:
        want, got = getattr(expected, name), getattr(actual, name)
        if not _same(want, got):
            return f"{name}: expected {want!r}, got {got!r}"
    for name in _ARRAYS:
        want, got = getattr(expected, name), getattr(actual, name)
        if not (
            isinstance(got, np.ndarray)
            and want.dtype == got.dtype
            and want.shape == got.shape
            and np.array_equal(want, got)
        ):
            return f"{name}: expected {want!r}, got {got!r}"
    if actual.game != expected.game:
        return "game: another configuration"
    return None


def _same(want: Any, got: Any) -> bool:
    """Equal, and of the same type all the way down (lists and tuples element by element)."""
    if type(want) is not type(got):
        return False
    if isinstance(want, (list, tuple)):
        return len(want) == len(got) and all(_same(a, b) for a, b in zip(want, got, strict=True))
    return bool(want == got)
