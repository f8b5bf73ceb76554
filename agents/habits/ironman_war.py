"""Iron Man 2 habits: which cards a person commits face down, and when they fight or concede.

Every habit answers the four decisions (IM-3 commit, IM-6 play or concede, IM-7 standoff,
IM-8 shield target) by a fixed rule; "cheapest" and "weakest" rank cards by what they are worth
kept in hand (the heuristic's ``WORTH``: attack value, specials about a 4 or 5). Where the
rule does not say, a habit plays the cheapest card that takes the lead, else concedes, and its
shield hits the opponent's strongest card.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardarena.envs.ironman_war.rules import (
    CONCEDE,
    ENERGY_SHIELD,
    SHIELD_BASE,
    UPGRADE,
)

from ..base import EnvSpec
from ..heuristics.common import Strategy
from ..heuristics.ironman_war import (
    COMMIT,
    PLAY_OR_CONCEDE,
    SHIELD_TARGET,
    STANDOFF_PLAY,
    STRIKE,
    WORTH,
    play,
    standing,
)
from .base import Habit

SPECIALS = (UPGRADE, ENERGY_SHIELD)


class _Habit(Habit):
    """The four decisions, each overridable; the defaults are the common fallbacks."""

    def decide(self, view: dict, actions: np.ndarray, rng: np.random.Generator) -> int:
        decision = int(np.argmax(view["decision"]))
        if decision == COMMIT:
            return int(self.commit(view, actions, rng))
        if decision == SHIELD_TARGET:
            return int(self.shield(actions))
        mine = view["battle_cards"][0].astype(np.int64)
        theirs = view["battle_cards"][1].astype(np.int64)
        cards = actions[actions != CONCEDE]
        if decision == STANDOFF_PLAY:
            return int(self.standoff(cards, rng))
        assert decision == PLAY_OR_CONCEDE
        return int(self.losing(cards, mine, theirs, view, rng))

    # --- the defaults ------------------------------------------------------------------------
    def commit(self, view: dict, actions: np.ndarray, rng: np.random.Generator) -> int:
        return _cheapest(actions)

    def losing(self, cards, mine, theirs, view, rng) -> int:
        return _cheapest_lead(cards, mine, theirs)

    def standoff(self, cards: np.ndarray, rng: np.random.Generator) -> int:
        return _cheapest(cards)

    def shield(self, actions: np.ndarray) -> int:
        return int(actions[np.argmax(STRIKE[actions - SHIELD_BASE])])


def _cheapest(cards: np.ndarray) -> int:
    return int(cards[np.argmin(WORTH[cards])])


def _strongest(cards: np.ndarray) -> int:
    return int(cards[np.argmax(STRIKE[cards])])


def _leading(cards: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    return np.array([k for k in cards if standing(*play(mine, theirs, int(k))) > (0, 0)], int)


def _cheapest_lead(cards: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> int:
    leading = _leading(cards, mine, theirs)
    return _cheapest(leading) if leading.size else CONCEDE


class CommitWeakest(_Habit):
    """The ten-line rule: the three weakest cards face down, then the cheapest card that
    takes the lead, else concede."""


class CommitStrongest(_Habit):
    """The three strongest cards face down; then the cheapest card that takes the lead."""

    def commit(self, view, actions, rng):
        return _strongest(actions)


class SpecialsFirst(_Habit):
    """Leads with its shields and upgrades: commits them first, and plays one whenever it
    takes the lead (before any attack card)."""

    def commit(self, view, actions, rng):
        specials = actions[np.isin(actions, SPECIALS)]
        return int(specials[0]) if specials.size else _cheapest(actions)

    def losing(self, cards, mine, theirs, view, rng):
        leading = _leading(cards, mine, theirs)
        specials = leading[np.isin(leading, SPECIALS)]
        if specials.size:
            return int(specials[0])
        return _cheapest(leading) if leading.size else CONCEDE


class NeverConcede(_Habit):
    """The three weakest face down; fights every battle to its last card: the cheapest card
    that leads, else its strongest."""

    def losing(self, cards, mine, theirs, view, rng):
        lead = _cheapest_lead(cards, mine, theirs)
        return lead if lead != CONCEDE else _strongest(cards)


class Turtle(_Habit):
    """Random cards face down; concedes every battle it is losing, keeping its hand."""

    def commit(self, view, actions, rng):
        return int(rng.choice(actions))

    def losing(self, cards, mine, theirs, view, rng):
        return CONCEDE


class Rush(_Habit):
    """The strongest cards face down, and the strongest card again whenever losing."""

    def commit(self, view, actions, rng):
        return _strongest(actions)

    def losing(self, cards, mine, theirs, view, rng):
        return _strongest(cards)

    def standoff(self, cards, rng):
        return _strongest(cards)


class SacrificeFirst(_Habit):
    """Always gives up battle 1: its cheapest card there, its strongest in battles 2 and 3."""

    def commit(self, view, actions, rng):
        slot = int(np.argmax(view["commit_slot"]))
        return _cheapest(actions) if slot == 0 else _strongest(actions)


class RandomCommit(_Habit):
    """Random cards face down; then the cheapest card that takes the lead, else concede."""

    def commit(self, view, actions, rng):
        return int(rng.choice(actions))


#: Plan name -> habit (the ``habit:plan=NAME`` agent spec).
HABITS: dict[str, Callable[[EnvSpec], Strategy]] = {
    "commit_weakest": CommitWeakest,
    "commit_strongest": CommitStrongest,
    "specials_first": SpecialsFirst,
    "never_concede": NeverConcede,
    "turtle": Turtle,
    "rush": Rush,
    "sacrifice_first": SacrificeFirst,
    "random_commit": RandomCommit,
}
