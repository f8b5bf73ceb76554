"""The contract between a game's pure rules module and the shared AEC adapter.

A rules module (``envs/<game>/rules.py``) exposes a ``Game`` (validated config, immutable) that
creates ``GameState`` objects. States are mutable and advanced in place by ``apply_action``;
``clone()`` gives an independent copy for search or tests. Rules modules import numpy and the
standard library only, never PettingZoo or gymnasium.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

import numpy as np

#: ``GameState.current_player()`` when nobody is to act (the game ended or was truncated).
NO_PLAYER = -1

StateT = TypeVar("StateT", bound="GameState")


class GameState(Protocol):
    """One game in progress. Seats are integers ``0 .. num_players - 1``."""

    def current_player(self) -> int:
        """Seat that must act now, or ``NO_PLAYER`` once the game is over."""
        ...

    def legal_action_mask(self) -> np.ndarray:
        """Boolean array over the whole action space for the current player."""
        ...

    def apply_action(self, action: int) -> None:
        """Advance the game; raises ``IllegalActionError`` for an action that is not legal."""
        ...

    def is_terminal(self) -> bool:
        """True once a rule has ended the game."""
        ...

    def is_truncated(self) -> bool:
        """True once the game's cap was reached without a rule ending it (C-5)."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Final reward per seat; all zeros unless the game is terminal."""
        ...

    def action_to_string(self, action: int) -> str:
        """Short human-readable name of an action, used in error messages and renders."""
        ...

    def clone(self: StateT) -> StateT:
        """Independent deep copy (including the random generator)."""
        ...


class Game(Protocol):
    """A validated game configuration: names the seats and sizes the action space."""

    @property
    def agent_names(self) -> tuple[str, ...]:
        """One name per seat, in seat order."""
        ...

    @property
    def num_actions(self) -> int:
        """Size of the ``Discrete`` action space, the same for every seat."""
        ...

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> GameState:
        """Deal a new game, drawing all randomness from ``rng``; ``options`` fix the deal."""
        ...
