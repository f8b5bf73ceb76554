"""The contract between a game's pure rules module and the shared AEC adapter.

A rules module (``envs/<game>/rules.py``) exposes a ``Game`` (validated config, immutable) that
creates ``GameState`` objects. States are mutable and advanced in place; ``clone()`` gives an
independent copy for search or tests. Rules modules import numpy and the standard library only,
never PettingZoo or gymnasium.

Legality is checked in one function, ``legal_index`` (the Pgx idea: its base ``step`` checks
``legal_action_mask[action]`` for every game): the type, the range and the legal mask, with one
error message. ``CheckedActions.apply_action``, ``GameAECEnv.step`` and ``GameWrapper.step`` all
call it and then the game's unchecked ``apply_legal_action``, so nothing is checked twice on the
hot path, and a bad direct call to the rules raises the same ``IllegalActionError`` as a bad
call through the env.

``RulesState`` is the base of every game's state: the protocol getters that do not depend on
the game, the checked ``apply_action`` and ``clone()`` (``clone_state``) written once.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from .actions import coerce_action
from .errors import IllegalActionError
from .events import EventLog

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
        if state.current_player() == NO_PLAYER:
            raise IllegalActionError(f"the game is over; no action is legal (got {action!r})")
        state.apply_legal_action(legal_index(state, action, state.legal_action_mask()))


class RulesState(CheckedActions, EventLog):
    """Base of the four games' states: what every ``GameState`` answers the same way.

    A subclass sets ``game`` (whose ``agent_names`` names the seats), ``terminal``,
    ``truncated`` and ``_returns`` (or overrides the getter reading them), and implements the
    game-specific rest of the protocol. ``clone()`` copies arrays, lists (one level of nested
    lists) and random generators and shares everything else (``game`` and immutable values);
    ``shared_on_clone`` names further attributes that are read-only in play. ``EventLog``
    gives the opt-in log of what the table saw (``record_events``, ``log``).
    """

    terminal: bool
    truncated: bool
    _returns: tuple[float, ...]
    shared_on_clone: ClassVar[frozenset[str]] = frozenset()
    #: What ``scores()`` counts, in words a player reads at the end ("cards won").
    score_name: ClassVar[str] = "scores"

    @property
    def agent_names(self) -> tuple[str, ...]:
        return self.game.agent_names  # type: ignore[attr-defined]

    def legal_actions(self) -> list[int]:
        """The legal actions of the current player, ascending (OpenSpiel's name)."""
        mask: np.ndarray = self.legal_action_mask()  # type: ignore[attr-defined]
        return np.flatnonzero(mask).tolist()

    def is_terminal(self) -> bool:
        return self.terminal

    def is_truncated(self) -> bool:
        return self.truncated

    def returns(self) -> tuple[float, ...]:
        return self._returns

    def clone(self: StateT) -> StateT:
        """Independent copy, random generator included; the immutable game is shared."""
        return clone_state(self, type(self).shared_on_clone)  # type: ignore[attr-defined]


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state: both then draw the same numbers (setting
    the state of a fresh bit generator is faster than copying or deep-copying one)."""
    bit_generator = type(rng.bit_generator)(0)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def detached_generator(rng: Any) -> np.random.Generator:
    """A generator for a resampled copy's later shuffles that knows nothing of the true
    state's: ``rng``'s bit generator jumped far ahead (``rng`` itself does not move, so a
    caller's stream of draws is the same with or without it), or, for a stand-in without a
    bit generator (``agents.ismcts``' sorting one), one seeded by ``rng.integers``."""
    bit_generator = getattr(rng, "bit_generator", None)
    jumped = getattr(bit_generator, "jumped", None)
    if jumped is not None:
        return np.random.Generator(jumped())
    return np.random.default_rng(int(rng.integers(2**63)))


def clone_state(state: StateT, shared: Collection[str] = ()) -> StateT:
    """A copy of ``state`` that shares nothing mutable with it, much faster than
    ``deepcopy``: arrays and lists (with their nested lists) are copied, generators are
    forked, and the rest (the game, ints, tuples, the attributes in ``shared``) is shared."""
    twin = object.__new__(type(state))
    attributes = twin.__dict__
    for name, value in state.__dict__.items():
        if name in shared:
            pass
        elif isinstance(value, np.ndarray):
            value = value.copy()
        elif isinstance(value, list):
            value = [v[:] if isinstance(v, list) else v for v in value]
        elif isinstance(value, np.random.Generator):
            value = copy_generator(value)
        attributes[name] = value
    return twin


def legal_index(state: Any, action: Any, mask: np.ndarray) -> int:
    """``action`` as an index, if it is an integer in range that ``mask`` (the current
    player's legal mask) allows; else ``IllegalActionError`` naming it (and the legal ones).

    The one legality check: the rules, the raw env and the wrapper all call it.
    """
    if type(action) is int and 0 <= action < len(mask) and mask[action]:
        return action
    index = coerce_action(action, len(mask), state.agent_names[state.current_player()])
    if not mask[index]:
        raise IllegalActionError(illegal_action_message(state, index, mask))
    return index


def illegal_action_message(state: Any, action: int, mask: np.ndarray) -> str:
    """``action`` is not legal for the current player: name it and list the legal ones."""
    legal = ", ".join(f"{a} ({state.action_to_string(a)})" for a in np.flatnonzero(mask).tolist())
    agent = state.agent_names[state.current_player()]
    return (
        f"illegal action {action} ({state.action_to_string(action)}) for {agent}; "
        f"legal actions: {legal}"
    )
