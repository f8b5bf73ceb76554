"""Promise War habits: which card a person plays by habit, blind to the count of the cards.

Actions are powers (PW-3), so each habit ranks the powers in hand and plays its pick; a
tiebreak (PW-4) is played by the same habit unless the plan says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardarena.envs.promise_war.rules import TIEBREAK

from ..base import EnvSpec
from ..heuristics.common import Strategy
from .base import Habit


class _Habit(Habit):
    """``pick(view, powers, rng)`` per habit: the powers in hand are the legal actions."""

    def decide(self, view: dict, actions: np.ndarray, rng: np.random.Generator) -> int:
        return self.pick(view, actions, rng)

    def pick(self, view: dict, powers: np.ndarray, rng: np.random.Generator) -> int:
        raise NotImplementedError


def _tiebreak(view: dict[str, np.ndarray]) -> bool:
    return int(np.argmax(view["phase"])) == TIEBREAK


def _opponents_last_best(view: dict[str, np.ndarray]) -> int:
    """The highest power an opponent showed in the last trick (-1: none yet)."""
    shown = view["last_revealed"][1:]
    powers = np.flatnonzero(shown.sum(axis=0))
    return int(powers.max()) if powers.size else -1


class Highest(_Habit):
    """Always the highest card."""

    def pick(self, view, powers, rng):
        return powers[-1]


class Lowest(_Habit):
    """Always the lowest card."""

    def pick(self, view, powers, rng):
        return powers[0]


class Middle(_Habit):
    """The middle card of the hand (the lower of two middles)."""

    def pick(self, view, powers, rng):
        return powers[(len(powers) - 1) // 2]


class Alternate(_Habit):
    """High on even tricks, low on odd ones."""

    def pick(self, view, powers, rng):
        return powers[-1] if int(view["tricks_played"][0]) % 2 == 0 else powers[0]


class SaveTheBest(_Habit):
    """The second highest card, keeping the best for a tiebreak (where it plays the best)."""

    def pick(self, view, powers, rng):
        if _tiebreak(view) or len(powers) == 1:
            return powers[-1]
        return powers[-2]


class LowInTiebreaks(_Habit):
    """The highest card in a trick, the lowest in a tiebreak (the pot is lost anyway, it
    thinks)."""

    def pick(self, view, powers, rng):
        return powers[0] if _tiebreak(view) else powers[-1]


class BeatTheLast(_Habit):
    """The lowest card above the best card an opponent showed last trick, else the lowest."""

    def pick(self, view, powers, rng):
        above = powers[powers > _opponents_last_best(view)]
        return above[0] if above.size else powers[0]


class Coin(_Habit):
    """The highest or the lowest card, on a coin flip."""

    def pick(self, view, powers, rng):
        return powers[-1] if rng.random() < 0.5 else powers[0]


#: Plan name -> habit (the ``habit:plan=NAME`` agent spec).
HABITS: dict[str, Callable[[EnvSpec], Strategy]] = {
    "highest": Highest,
    "lowest": Lowest,
    "middle": Middle,
    "alternate": Alternate,
    "save_the_best": SaveTheBest,
    "low_in_tiebreaks": LowInTiebreaks,
    "beat_the_last": BeatTheLast,
    "coin": Coin,
}
