"""Cardline habits: where a person puts a card by habit.

A card's value is public data (the deck), so a person who knows the deck places by the
printed value, roughly; one who does not falls back on a fixed place in the line. Values are
on the observation's rank scale ([0, 1], the scale of the gap bounds). An action is
``slot * (deck size + 1) + gap`` (CL-4); the open gaps are ``0 .. line length``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base import EnvSpec, Observation
from ..heuristics.cardline import CardlineStrategy
from ..heuristics.common import Strategy
from .base import Habit


class _Habit(Habit):
    """``place(view, lower, upper, rng)`` per habit returns (slot, gap)."""

    def __init__(self, env_spec: EnvSpec) -> None:
        super().__init__(env_spec)
        self.gaps: int = self.data.game.num_gaps

    def decide(self, view: dict, actions: np.ndarray, rng: np.random.Generator) -> int:
        open_gaps = int(view["line_length"][0]) + 1
        lower = view["gap_lower"][:open_gaps].astype(np.float64)
        upper = view["gap_upper"][:open_gaps].astype(np.float64)
        slot, gap = self.place(view, lower, upper, rng)
        action = slot * self.gaps + gap
        return int(action) if action in actions else int(actions[0])

    def place(self, view, lower, upper, rng) -> tuple[int, int]:
        raise NotImplementedError


def _known_gap(value: float, lower: np.ndarray, upper: np.ndarray) -> int:
    """The first gap whose bounds hold ``value``."""
    return int(np.flatnonzero((lower <= value) & (value <= upper))[0])


class LeftEnd(_Habit):
    """The first card in hand, always at the left end of the line."""

    def place(self, view, lower, upper, rng):
        return 0, 0


class RightEnd(_Habit):
    """The first card in hand, always at the right end of the line."""

    def place(self, view, lower, upper, rng):
        return 0, len(lower) - 1


class Middle(_Habit):
    """The first card in hand, always in the middle of the line."""

    def place(self, view, lower, upper, rng):
        return 0, len(lower) // 2


class WidestGap(_Habit):
    """The first card in hand, in the gap with the widest bounds."""

    def place(self, view, lower, upper, rng):
        width = np.minimum(upper, 1.0) - np.maximum(lower, 0.0)
        return 0, int(np.argmax(width))


class Median(_Habit):
    """Every card it has not seen is taken as the median value: a card revealed earlier goes
    where its value belongs (played first), any other where the median would."""

    def place(self, view, lower, upper, rng):
        known = view["hand_known_value"][: int(view["hand_sizes"][0])]
        slot = int(np.argmax(known)) if (known >= 0).any() else 0
        value = float(known[slot]) if known[slot] >= 0 else 0.5
        return slot, _known_gap(value, lower, upper)


class RandomPlace(_Habit):
    """A random card in a random place."""

    def place(self, view, lower, upper, rng):
        return int(rng.integers(int(view["hand_sizes"][0]))), int(rng.integers(len(lower)))


class _Printed:
    """Places by the printed values it half remembers: true value plus noise (the ``noisy``
    agent's estimate, ``sigma`` times the characteristic's spread), the surest card first."""

    sigma = 0.3

    def __init__(self, env_spec: EnvSpec) -> None:
        self.inner = CardlineStrategy(env_spec, "noisy", sigma=self.sigma)

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        self.inner.start_game(seat, rng)

    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        return self.inner.act(observation, rng)


class Printed(_Printed):
    """Places by the printed values, remembered with noise of 0.3 times their spread."""


class PrintedRoughly(_Printed):
    """Places by the printed values, remembered with noise as wide as their spread."""

    sigma = 1.0


#: Plan name -> habit (the ``habit:plan=NAME`` agent spec).
HABITS: dict[str, Callable[[EnvSpec], Strategy]] = {
    "printed": Printed,
    "printed_roughly": PrintedRoughly,
    "median": Median,
    "widest_gap": WidestGap,
    "middle": Middle,
    "left_end": LeftEnd,
    "right_end": RightEnd,
    "random_place": RandomPlace,
}
