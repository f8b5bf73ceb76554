"""The chance protocol: the one way a rules module may draw randomness.

A rules state gets a generator from ``Game.new_initial_state(rng)``, keeps it in one attribute
and draws from it during play. It may call only these three methods, always on that object:

- ``rng.integers(high)``: one uniform integer in ``0 .. high - 1`` (``high`` a positive int);
- ``rng.shuffle(x)``: shuffle ``x`` in place (a list or a 1-d numpy array of non-negative ints);
- ``rng.permutation(n)``: a uniformly random ordering of ``0 .. n - 1`` as an int64 array.

Nothing else: no other ``Generator`` method, no ``random`` module, no ``np.random`` functions.
``resample_from_infostate`` (search, not play) may use its own ``rng`` argument freely.
tests/openspiel/test_openspiel_chance_protocol.py plays every game with ``StrictChance`` (which
has these methods and no others) while the global generators raise, so any other draw fails
the test; it also reads the rules' source for other generator calls.

Three sources of chance speak this protocol, and the rules cannot tell them apart:

- ``numpy.random.Generator``: the envs' seeded play (``reset(seed=...)``); the rules run
  exactly as they always have, so seeded games stay bit for bit the same.
- ``ScriptedChance(script)``: takes each outcome from ``script`` in order and raises
  ``NeedChance`` (naming every possible outcome and its probability) when the script runs out.
  ``cardarena.openspiel`` turns that into a chance node: it keeps the state from before the
  move, and re-runs the move from it with the script one outcome longer once chance has spoken.
- ``StrictChance(rng)``: a ``ScriptedChance`` that answers every draw from ``rng`` instead of
  raising, and records the outcomes in ``script`` (so a game can be replayed exactly).

How a draw becomes outcomes (all exact, so a solver walking the tree sees the true game):

- ``integers(high)``: one draw, outcomes ``0 .. high - 1`` with probability ``1 / high`` each
  (no draw at all when ``high == 1``).
- ``shuffle(x)``: Fisher-Yates as sequential dealing: position 0, then 1, ... each is a draw
  over the *values* still to place, a value with probability (its copies left) / (items left).
  Equal values are merged: whichever copy goes to a position, the shuffled ``x`` is the same
  list, so the merge cannot change any state. A position where one value is left is not a
  draw (the rest is forced).
- ``permutation(n)``: ``shuffle`` of ``0 .. n - 1`` (distinct values, so ``n - 1`` draws).

Each outcome is an int: the drawn integer or the value placed. ``ScriptedChance`` produces the
same distribution as a ``Generator`` (uniform over orderings), not the same numbers: a seeded
game and a scripted one agree when both are given the same outcomes, which is what
tests/openspiel checks (the env driven with a ``ScriptedChance`` against the OpenSpiel game).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["CHANCE_METHODS", "NeedChance", "ScriptedChance", "StrictChance"]

#: The generator methods a rules module may call during play.
CHANCE_METHODS = ("integers", "shuffle", "permutation")


class NeedChance(Exception):
    """The script ran out: chance must choose one of ``outcomes`` (value, probability) pairs,
    values ascending, exact ``Fraction`` probabilities summing to 1. ``label`` says which draw
    it is (e.g. ``"shuffle of 12, position 3"``)."""

    def __init__(self, outcomes: list[tuple[int, Fraction]], label: str) -> None:
        super().__init__(f"{label}: {len(outcomes)} outcomes")
        self.outcomes = outcomes
        self.label = label


class ScriptedChance:
    """A stand-in for ``numpy.random.Generator`` that speaks the chance protocol above and
    takes its outcomes from ``script``; ``used`` counts the outcomes consumed so far."""

    __slots__ = ("script", "used")

    def __init__(self, script: Sequence[int] = ()) -> None:
        self.script = list(script)
        self.used = 0

    def _draw(self, outcomes: list[tuple[int, Fraction]], label: str) -> int:
        if self.used < len(self.script):
            value = self.script[self.used]
            if not any(value == possible for possible, _ in outcomes):
                allowed = [possible for possible, _ in outcomes]
                raise ValueError(f"chance outcome {value} is not possible at {label}: {allowed}")
            self.used += 1
            return value
        return self._unscripted(outcomes, label)

    def _unscripted(self, outcomes: list[tuple[int, Fraction]], label: str) -> int:
        raise NeedChance(outcomes, label)

    def integers(self, high: int) -> np.int64:
        """One uniform integer in ``0 .. high - 1``; only the one-argument form exists."""
        high = _count(high, "integers(high)", 1)
        if high == 1:
            return np.int64(0)
        weight = Fraction(1, high)
        return np.int64(self._draw([(v, weight) for v in range(high)], f"integers({high})"))

    def shuffle(self, x: Any) -> None:
        """Shuffle the list or 1-d int array ``x`` in place, one draw per position."""
        values = [int(v) for v in x]
        if any(v < 0 for v in values):
            raise ValueError("the chance protocol shuffles non-negative ints only")
        left: dict[int, int] = {}
        for v in values:
            left[v] = left.get(v, 0) + 1
        size = len(values)
        placed: list[int] = []
        for position in range(size):
            if len(left) == 1:
                (only,) = left
                placed.extend([only] * left[only])
                break
            remaining = size - position
            outcomes = [(v, Fraction(left[v], remaining)) for v in sorted(left)]
            value = self._draw(outcomes, f"shuffle of {size}, position {position}")
            placed.append(value)
            left[value] -= 1
            if not left[value]:
                del left[value]
        x[:] = placed if isinstance(x, list) else np.asarray(placed, dtype=x.dtype)

    def permutation(self, n: int) -> np.ndarray:
        """A random ordering of ``0 .. n - 1``, drawn position by position."""
        n = _count(n, "permutation(n)", 0)
        order = np.arange(n, dtype=np.int64)
        self.shuffle(order)
        return order


def _count(value: Any, call: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"the chance protocol draws {call} with one int argument, got {value!r}")
    if value < low:
        raise ValueError(f"the chance protocol draws {call} with an int >= {low}, got {value}")
    return int(value)


class StrictChance(ScriptedChance):
    """``ScriptedChance`` that never runs out: each unscripted draw is sampled from ``rng``
    with the protocol's probabilities and appended to ``script``."""

    __slots__ = ("rng",)

    def __init__(self, rng: np.random.Generator, script: Sequence[int] = ()) -> None:
        super().__init__(script)
        self.rng = rng

    def _unscripted(self, outcomes: list[tuple[int, Fraction]], label: str) -> int:
        weights = np.array([float(p) for _, p in outcomes])
        value = outcomes[int(self.rng.choice(len(outcomes), p=weights / weights.sum()))][0]
        self.script.append(value)
        self.used += 1
        return value
