"""Beast Wars habits: how a person plays the board by habit.

Every habit drafts and places its team as the heuristic does (the strongest characters by
their public numbers, a person reads the table), except ``first_picks``, which takes whoever
comes first; then it plays one fixed rule (BW-5): always attack, never attack, hold the first
row, march forward ... An action is a move ``cell * 4 + dir``, an attack ``48 + cell * 4 +
dir``, a reinforcement ``96 + cell * 12 + character`` or a pass (252).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardarena.envs.beast_wars.rules import (
    ATTACK_BASE,
    COLUMNS,
    FIRST_ROWS,
    MAX_FACTION,
    NEIGHBOURS,
    PICK_BASE,
    PLAY,
    REINFORCE_BASE,
)

from ..base import EnvSpec, Observation
from ..heuristics.beast_wars import BeastWarsStrategy
from ..heuristics.common import Strategy, legal

_NEIGHBOURS = NEIGHBOURS.tolist()


class _Habit:
    """Setup as the heuristic; ``play(view, moves, attacks, reinforcements, rng)`` per habit."""

    def __init__(self, env_spec: EnvSpec) -> None:
        self.setup = BeastWarsStrategy(env_spec)
        self.layout = self.setup.layout
        self.strength = self.setup.strength
        self.side = 0

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        self.setup.start_game(seat, rng)
        self.side = self.setup.side

    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        actions = legal(observation)
        view = self.layout.view(observation["observation"])
        if actions[0] >= PICK_BASE and actions[-1] < PICK_BASE + MAX_FACTION:
            return self.pick(observation, actions, rng)
        if int(np.argmax(view["phase"])) != PLAY or actions[0] >= PICK_BASE:
            return int(actions[0])  # a pass: the only action
        moves = actions[actions < ATTACK_BASE]
        attacks = actions[(actions >= ATTACK_BASE) & (actions < REINFORCE_BASE)]
        reinforcements = actions[(actions >= REINFORCE_BASE) & (actions < PICK_BASE)]
        return int(self.play(view, moves, attacks, reinforcements, rng))

    def pick(self, observation: Observation, actions: np.ndarray, rng) -> int:
        return self.setup.act(observation, rng)

    def play(self, view, moves, attacks, reinforcements, rng) -> int:
        raise NotImplementedError

    # --- what the rules of thumb look at ---------------------------------------------------
    def forward(self) -> int:
        """The direction toward the enemy's first row (BW-1: maximal is row 0, up is +1)."""
        return 0 if self.side == 0 else 2

    def row(self, cell: int) -> int:
        """How far ``cell`` is from this side's first row (0: in it)."""
        row = cell // COLUMNS
        return row if self.side == 0 else 3 - row

    def piece(self, view, cell: int) -> int:
        return self.side * MAX_FACTION + int(np.argmax(view["cell_character"][cell]))

    def strongest_reserve(self, view, reinforcements: np.ndarray) -> int:
        members = (reinforcements - REINFORCE_BASE) % MAX_FACTION
        return int(reinforcements[np.argmax(self.strength[self.side * MAX_FACTION + members])])


def _steps(moves: np.ndarray) -> list[tuple[int, int]]:
    """(cell, direction) of each move action."""
    return list(zip((moves // 4).tolist(), (moves % 4).tolist(), strict=True))


def _first(options: np.ndarray, *more: np.ndarray) -> int | None:
    for group in (options, *more):
        if group.size:
            return int(group[0])
    return None


class Rush(_Habit):
    """Attacks whenever it can (its first attack), else marches forward, else reinforces."""

    def play(self, view, moves, attacks, reinforcements, rng):
        ahead = moves[moves % 4 == self.forward()]
        return _first(attacks, ahead, reinforcements, moves)


class StrongestAttacks(_Habit):
    """Attacks with its strongest character that can, else reinforces, else advances."""

    def play(self, view, moves, attacks, reinforcements, rng):
        if attacks.size:
            cells = (attacks - ATTACK_BASE) // 4
            return int(attacks[np.argmax([self.strength[self.piece(view, c)] for c in cells])])
        ahead = moves[moves % 4 == self.forward()]
        reserve = [self.strongest_reserve(view, reinforcements)] if reinforcements.size else []
        return _first(np.array(reserve, int), ahead, moves)


class ReinforceFirst(_Habit):
    """Brings its strongest reserve character in whenever it can, then attacks, then
    advances."""

    def play(self, view, moves, attacks, reinforcements, rng):
        if reinforcements.size:
            return self.strongest_reserve(view, reinforcements)
        ahead = moves[moves % 4 == self.forward()]
        return _first(attacks, ahead, moves)


class Turtle(_Habit):
    """Never attacks while it can do anything else: reinforces, then shuffles sideways or
    back toward its own first row."""

    def play(self, view, moves, attacks, reinforcements, rng):
        if reinforcements.size:
            return self.strongest_reserve(view, reinforcements)
        homeward = moves[[self.row(_NEIGHBOURS[c][d]) <= self.row(c) for c, d in _steps(moves)]]
        return _first(homeward, moves, attacks)


class HoldTheLine(_Habit):
    """Keeps its characters in its first row: attacks only from there, reinforces, and moves
    only within the row."""

    def play(self, view, moves, attacks, reinforcements, rng):
        row = FIRST_ROWS[self.side]
        from_row = attacks[np.isin((attacks - ATTACK_BASE) // 4, row)]
        in_row = moves[[c in row and _NEIGHBOURS[c][d] in row for c, d in _steps(moves)]]
        reserve = [self.strongest_reserve(view, reinforcements)] if reinforcements.size else []
        return _first(from_row, np.array(reserve, int), in_row, moves, attacks)


class March(_Habit):
    """Marches forward whenever it can; attacks only what blocks the way."""

    def play(self, view, moves, attacks, reinforcements, rng):
        ahead = moves[moves % 4 == self.forward()]
        blocking = attacks[(attacks - ATTACK_BASE) % 4 == self.forward()]
        return _first(ahead, blocking, reinforcements, moves, attacks)


class RandomAttacks(_Habit):
    """A random attack when there is one, else a random action."""

    def play(self, view, moves, attacks, reinforcements, rng):
        pool = attacks if attacks.size else np.concatenate([moves, reinforcements])
        return int(rng.choice(pool))


class FirstPicks(Rush):
    """Drafts and places whoever comes first in the list, then attacks whenever it can."""

    def pick(self, observation, actions, rng):
        return int(actions[0])


#: Plan name -> habit (the ``habit:plan=NAME`` agent spec).
HABITS: dict[str, Callable[[EnvSpec], Strategy]] = {
    "rush": Rush,
    "strongest_attacks": StrongestAttacks,
    "reinforce_first": ReinforceFirst,
    "turtle": Turtle,
    "hold_the_line": HoldTheLine,
    "march": March,
    "random_attacks": RandomAttacks,
    "first_picks": FirstPicks,
}
