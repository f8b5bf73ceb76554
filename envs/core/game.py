"""The contract between a game's pure rules module and the shared AEC adapter.

A rules module (``envs/<game>/rules.py``) exposes a ``Game`` (validated config, immutable) that
creates ``GameState`` objects. States are mutable and advanced in place; ``clone()`` gives an
independent copy for search or tests. Rules modules import numpy and the standard library only,
never PettingZoo or gymnasium.

Legality is checked once (the Pgx idea): ``CheckedActions.apply_action`` validates the type,
the range and the legal mask, then calls the game's unchecked ``apply_legal_action``. The env
adapter checks the mask itself and calls ``apply_legal_action`` directly, so nothing is checked
twice on the hot path, and a bad direct call to the rules raises the same
``IllegalActionError`` as a bad call through the env.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

import numpy as np

from .actions import coerce_action
from .errors import IllegalActionError

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

    def apply_action(self, action: Any) -> None:
        """Check ``action`` and advance; raises ``IllegalActionError`` for anything not legal."""
        ...

    def apply_legal_action(self, action: int) -> None:
        """Advance by ``action``, which the caller has already checked against the mask."""
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

    def scores(self) -> tuple[float, ...]:
        """Each seat's score as the rules count it (cards won, pawn position ...)."""
        ...

    def action_to_string(self, action: int) -> str:
        """Short human-readable name of an action, used in error messages and renders."""
        ...

    def clone(self: StateT) -> StateT:
        """Independent deep copy (including the random generator)."""
        ...

    def resample_from_infostate(self: StateT, seat: int, rng: np.random.Generator) -> StateT:
        """A copy in which everything ``seat`` cannot see is redrawn from ``rng`` while all it
        can see stays the same (OpenSpiel's name). Used for determinized search and by the
        hidden-information tests: ``seat``'s observation of the copy must equal its
        observation of this state."""
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

    @property
    def zero_sum(self) -> bool:
        """Whether the rules' returns always sum to 0 under this configuration."""
        ...

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> GameState:
        """Deal a new game, drawing all randomness from ``rng``; ``options`` fix the deal."""
        ...


class CheckedActions:
    """Mixin for rules states: the one checked ``apply_action`` every game shares.

    The state needs ``legal_action_mask``, ``apply_legal_action``, ``current_player``,
    ``action_to_string`` and ``agent_names`` (a tuple, via its game or itself).
    """

    def apply_action(self, action: Any) -> None:
        """Play ``action`` for the current player; ``IllegalActionError`` (naming the action
        and the legal ones) if it is malformed or not legal now. Nothing changes then."""
        state: Any = self
        seat = state.current_player()
        if seat == NO_PLAYER:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        mask = state.legal_action_mask()
        if type(action) is int and 0 <= action < len(mask) and mask[action]:
            state.apply_legal_action(action)
            return
        index = coerce_action(action, len(mask), state.agent_names[seat])
        if not mask[index]:
            raise IllegalActionError(illegal_action_message(state, index, mask))
        state.apply_legal_action(index)


def illegal_action_message(state: Any, action: int, mask: np.ndarray) -> str:
    """``action`` is not legal for the current player: name it and list the legal ones."""
    legal = ", ".join(f"{a} ({state.action_to_string(a)})" for a in np.flatnonzero(mask).tolist())
    agent = state.agent_names[state.current_player()]
    return (
        f"illegal action {action} ({state.action_to_string(action)}) for {agent}; "
        f"legal actions: {legal}"
    )
