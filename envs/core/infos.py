"""What every cardarena env puts in ``infos``: numbers and arrays only (info schema 2).

Every agent's info holds the same six keys from ``reset()`` to the end of the game, each
with one type, dtype and shape, so every client can stack or tensorise them: Tianshou's
``Batch``, TorchRL's ``PettingZooWrapper`` (``torch.as_tensor`` on each value).

The Parallel view (``parallel_env()``, ``core.parallel``) adds a seventh, ``action_mask``
(int8 ``[num_actions]``, the same as ``observation["action_mask"]``: the legal actions of
the agent to act, zeros for the others), which AgileRL reads there. The AEC env keeps the mask
in the observation only: TorchRL's wrapper fails when an AEC env has it in both places.
- ``outcome``: an ``Outcome`` (an ``int``): 0 ``ONGOING`` during the game, then 1
  ``TERMINATED``, 2 ``TRUNCATED`` (the step cap) or 3 ``ILLEGAL_ACTION``.
- ``scores``: float32 ``[num_players]`` in ``possible_agents`` order, the game's own score
  (each env's docstring says what it counts); 0 until the end.
- ``winners``: int8 ``[num_players]``, 1 for each seat whose final reward is positive; 0 until
  the end.
- ``steps``: ``int``, decisions played; 0 until the end.
- ``offender``: a ``Seat`` (an ``int``), the seat index of the agent whose illegal action ended
  the game, else -1.
- ``illegal_action``: ``int``, that action, else -1.

Changed in cardarena 0.2.0 (CHANGELOG.md): ``outcome`` was a string (``""``,
``"terminated"`` ...), ``offender`` an agent name (``""`` for nobody) and ``scores`` a dict
agent -> float; TorchRL could not tensorise them. Code written for the old strings fails
loudly rather than silently: comparing an ``Outcome`` or a ``Seat`` with a ``str`` raises
``TypeError`` saying what to compare with instead (``Outcome.TERMINATED``,
``env.possible_agents.index(name)``), and indexing ``scores`` by name raises ``IndexError``.
``Outcome(code).label`` is the old string, which match records still store.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

#: The keys of every info, in order.
INFO_KEYS = ("outcome", "scores", "winners", "steps", "offender", "illegal_action")
#: ``info["illegal_action"]`` unless an illegal action ended the game.
NO_ILLEGAL_ACTION = -1


class _NumberCode:
    """``==`` for an int code that refuses a string (a schema-1 comparison) loudly."""

    _instead = ""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            raise TypeError(
                f"info values are numbers since cardarena 0.2.0 (info schema 2): "
                f"{type(self).__name__} {int(self)} compared with the string {other!r}; "  # type: ignore[call-overload]
                f"compare with {self._instead}"
            )
        if isinstance(other, int):
            return int(self) == int(other)  # type: ignore[call-overload]
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return int.__hash__(self)  # type: ignore[arg-type]


class Outcome(_NumberCode, IntEnum):
    """``info["outcome"]``: how the game stands for that agent (an int for tensors)."""

    _ignore_ = ["_instead"]
    ONGOING = 0
    TERMINATED = 1
    TRUNCATED = 2
    ILLEGAL_ACTION = 3

    @property
    def label(self) -> str:
        """The name match records and the text tables use: ``"terminated"`` etc. (``""`` for
        a game still going, as info schema 1 said)."""
        return "" if self is Outcome.ONGOING else self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> Outcome:
        """The code for a record's or schema-1 label (``"truncated"`` -> ``TRUNCATED``)."""
        for outcome in cls:
            if outcome.label == label:
                return outcome
        raise ValueError(f"unknown outcome {label!r}; expected one of {[o.label for o in cls]}")


Outcome._instead = "Outcome.TERMINATED etc., or compare .label"


class Seat(_NumberCode, int):
    """``info["offender"]``: a seat index (``possible_agents`` order), -1 for nobody."""

    _instead = "a seat index: env.possible_agents.index(name)"

    def __repr__(self) -> str:
        return f"Seat({int(self)})"


#: ``info["offender"]`` while nobody has made an illegal move.
NO_OFFENDER = Seat(-1)


def blank_info(num_players: int) -> dict[str, Any]:
    """An info at the start of a game: every key, with its neutral value."""
    return {
        "outcome": Outcome.ONGOING,
        "scores": np.zeros(num_players, np.float32),
        "winners": np.zeros(num_players, np.int8),
        "steps": 0,
        "offender": NO_OFFENDER,
        "illegal_action": NO_ILLEGAL_ACTION,
    }


def fresh_info(info: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``info`` down to its arrays, for callers that keep what each call returns."""
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in info.items()}
