"""High Card: one slot of the vector engine to and from a reference state (the three
functions ``VectorRules`` looks for in ``bridge.py`` beside the engine)."""

from __future__ import annotations

import numpy as np

from cardarena.envs.core.game import NO_PLAYER
from cardarena.envs.core.kernels import generator_of

from .rules import HighCardState
from .vector import VectorHighCard


def state_of(engine: VectorHighCard, slot: int) -> HighCardState:
    state = object.__new__(HighCardState)
    state.game = engine.game
    state.rng = generator_of(engine.rng, slot)
    state.hands = engine.hands[slot].copy()
    state.stock = engine.stock[slot, : engine.stock_size[slot]].tolist()
    state.picks = engine.picks[slot].tolist()
    state.played = engine.played[slot].copy()
    state.won = engine.won[slot].tolist()
    state.rounds_played = int(engine.rounds[slot])
    state.terminal = bool(engine.current_player[slot] == NO_PLAYER)
    state.truncated = False
    sign = float(np.sign(state.won[0] - state.won[1]))
    state._returns = (sign, -sign) if state.terminal else (0.0, 0.0)
    return state


def set_state(engine: VectorHighCard, slot: int, state: HighCardState) -> None:
    engine.hands[slot] = state.hands
    engine.stock[slot] = 0
    engine.stock[slot, : len(state.stock)] = state.stock
    engine.stock_size[slot] = len(state.stock)
    engine.picks[slot] = state.picks
    engine.played[slot] = state.played
    engine.won[slot] = state.won
    engine.rounds[slot] = state.rounds_played
    engine.current_player[slot] = state.current_player()
    engine.terminated[slot] = state.is_terminal()
    engine.truncated[slot] = False
    engine.rewards[slot] = state.returns() if state.is_terminal() else 0.0


def state_difference(
    previous: HighCardState, expected: HighCardState, actual: HighCardState
) -> str | None:
    """High Card has no chance after the deal: every field must be equal."""
    for name in ("hands", "played"):
        if not np.array_equal(getattr(expected, name), getattr(actual, name)):
            return f"{name}: expected {getattr(expected, name)}, got {getattr(actual, name)}"
    for name in ("stock", "picks", "won", "rounds_played", "terminal", "truncated", "_returns"):
        if getattr(expected, name) != getattr(actual, name):
            return f"{name}: expected {getattr(expected, name)}, got {getattr(actual, name)}"
    return None
