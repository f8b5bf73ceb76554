"""War! for Promise TCG decks: one slot of the vector engine to and from a reference state.

The engine never needs these: the tests prove it exact through them (``state_of`` after a
vector step must be the state the reference rules reach, ``state_difference``), and agents
that think on reference states (search, row-by-row play) read a slot through ``state_of``.
``VectorRules`` finds this module beside the engine (``envs/vector/rules.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.kernels import generator_of
from .rules import PromiseWarGame, PromiseWarState
from .vector import (
    CONT,
    DOWN_BY,
    DOWN_LEN,
    DSIZE,
    HSIZE,
    LAST,
    NCONT,
    OUT,
    PHASE,
    PICK,
    PICK_INDEX,
    PICKED,
    RET,
    TERMINAL,
    TRICKS,
    TRUNCATED,
    VSIZE,
    WIDTH,
    VectorPromiseWar,
)


def state_of(engine: VectorPromiseWar, slot: int) -> PromiseWarState:
    game: PromiseWarGame = engine.game
    n = game.num_players
    row = engine.S[slot]
    counts = engine.C[slot].astype(np.int64)

    def seats(block: int) -> list[int]:
        return row[block : block + n].tolist()

    state = object.__new__(PromiseWarState)
    deck_sizes = seats(DSIZE)
    state.game = game
    state.rng = generator_of(engine.rng, slot)
    state.num_players = n
    state.draw_piles = [engine.piles[slot, s, : deck_sizes[s]].tolist() for s in range(n)]
    state.deck_counts = counts[n : 2 * n].copy()
    state.deck_sizes = deck_sizes
    state.hands = counts[:n].copy()
    state.hand_sizes = seats(HSIZE)
    state.victory = counts[2 * n : 3 * n].copy()
    state.victory_sizes = seats(VSIZE)
    state.discarded = counts[4 * n].copy()
    state.pot_face_up = counts[4 * n + 1].copy()
    codes = engine.pot_down[slot, : row[DOWN_LEN]].astype(np.int64)
    state.pot_face_down = (codes & 255).tolist()
    state.pot_face_down_owners = (codes >> 8).tolist()
    state.buried = counts[4 * n + 2 :].reshape(n, n + 1, -1).copy()
    state.pot_face_down_by_player = seats(DOWN_BY)
    state.picks = seats(PICK)
    state.has_picked = [bool(v) for v in seats(PICKED)]
    state.last_revealed = seats(LAST)
    state.revealed = counts[3 * n : 4 * n].copy()
    state.sitting_out = [bool(v) for v in seats(OUT)]
    state.contenders = row[CONT : CONT + row[NCONT]].tolist()
    state.pick_index = int(row[PICK_INDEX])
    state.phase = int(row[PHASE])
    state.tricks_played = int(row[TRICKS])
    state.terminal = bool(row[TERMINAL])
    state.truncated = bool(row[TRUNCATED])
    state._returns = tuple(float(v) for v in seats(RET)) if state.terminal else (0.0,) * n
    return state


def set_state(engine: VectorPromiseWar, slot: int, state: Any) -> None:
    game: PromiseWarGame = engine.game
    n = game.num_players
    piles = state.draw_piles
    if (
        max(map(len, piles)) > engine.piles.shape[2]
        or len(state.pot_face_down) > (engine.pot_down.shape[1])
    ):
        raise InvalidConfigError("the state holds more cards than this config's decks")
    row = np.zeros(WIDTH, np.int64)
    row[PHASE] = state.phase
    row[TRICKS] = state.tricks_played
    row[PICK_INDEX] = state.pick_index
    row[NCONT] = len(state.contenders)
    row[TERMINAL] = state.terminal
    row[TRUNCATED] = state.truncated
    row[DOWN_LEN] = len(state.pot_face_down)
    for block, values in (
        (HSIZE, state.hand_sizes),
        (DSIZE, [len(pile) for pile in piles]),
        (VSIZE, state.victory_sizes),
        (DOWN_BY, state.pot_face_down_by_player),
        (PICK, state.picks),
        (PICKED, state.has_picked),
        (LAST, state.last_revealed),
        (OUT, state.sitting_out),
        (RET, state.returns()),
    ):
        row[block : block + n] = np.asarray(values, np.int64)
    row[CONT : CONT + len(state.contenders)] = state.contenders
    engine.S[slot] = row
    counts = engine.C[slot]
    counts[:n] = state.hands
    counts[n : 2 * n] = state.deck_counts
    counts[2 * n : 3 * n] = state.victory
    counts[3 * n : 4 * n] = state.revealed
    counts[4 * n] = state.discarded
    counts[4 * n + 1] = state.pot_face_up
    counts[4 * n + 2 :] = np.asarray(state.buried).reshape(n * (n + 1), -1)
    engine.piles[slot] = 0
    for seat, pile in enumerate(piles):
        engine.piles[slot, seat, : len(pile)] = pile
    engine.pot_down[slot] = 0
    codes = np.asarray(state.pot_face_down, np.int64)
    codes += np.asarray(state.pot_face_down_owners, np.int64) << 8
    engine.pot_down[slot, : len(codes)] = codes
    engine.terminated[slot] = bool(state.terminal)
    engine.truncated[slot] = bool(state.truncated)
    engine.current_player[slot] = state.current_player()
    # A game that is already over shows its returns (``GameAECEnv.set_state``'s contract).
    engine.rewards[slot] = state.returns() if state.terminal else 0.0


def state_difference(previous: Any, expected: Any, actual: Any) -> str | None:
    """Field by field: Promise War shuffles only when dealing, never within a step."""
    want, got = vars(expected), vars(actual)
    if set(want) != set(got):
        return f"fields differ: {sorted(set(want) ^ set(got))}"
    for name, value in want.items():
        other = got[name]
        if name == "rng":
            continue
        if isinstance(value, np.ndarray):
            same = (
                isinstance(other, np.ndarray)
                and value.shape == other.shape
                and value.dtype == other.dtype
                and bool(np.array_equal(value, other))
            )
        else:
            same = type(value) is type(other) and value == other
        if not same:
            return f"{name}: expected {value!r}, got {other!r}"
    return None
