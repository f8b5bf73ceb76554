"""What every game's strategy shares: the strategy interface, the env data a strategy may read
(layout and validated config, never a game state), and tie-breaking with the agent's generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ..base import EnvSpec, Observation, legal_actions


class Strategy(Protocol):
    """One game's heuristic, built once per env spec and reused for every game in it."""

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        """Forget the previous game's plans; ``seat`` is the agent name this agent plays,
        ``rng`` the agent's generator (for anything drawn once per game)."""
        ...

    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        """A legal action; ties are broken with ``rng`` (the agent's own generator)."""
        ...


class EnvData:
    """The public side of an env: its observation layout and its validated configuration
    (``game``: deck compositions, character tables ...), read from a freshly built env that
    never plays. Agents read the config from here, never a game state."""

    def __init__(self, env_spec: EnvSpec) -> None:
        raw = env_spec.make_raw()
        self.spec = env_spec
        self.layout = raw.layout
        self.game: Any = raw.game
        self.agent_names: tuple[str, ...] = tuple(raw.possible_agents)
        raw.close()

    def seat_index(self, seat: str) -> int:
        return self.agent_names.index(seat)


def check_rows_have_actions(masks: np.ndarray) -> None:
    """Refuse a batch of rows in which one has no legal action, naming the first such row: a
    vector heuristic is asked only for the seat to act, whose mask always has one."""
    empty = np.flatnonzero(~np.asarray(masks, np.bool_).any(axis=1))
    if empty.size:
        raise ValueError(
            f"row {int(empty[0])} has no legal action (all-False mask): only the seat to act "
            "may be asked for an action"
        )


def choose(
    actions: Sequence[int] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
    rng: np.random.Generator,
    tolerance: float = 1e-9,
) -> int:
    """The action with the highest score; equal scores (within ``tolerance``) are broken
    uniformly at random with ``rng``."""
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        raise ValueError("choose() needs at least one action")
    best = np.flatnonzero(values >= values.max() - tolerance)
    index = best[0] if best.size == 1 else best[rng.integers(best.size)]
    return int(actions[int(index)])


legal = legal_actions  # the one check, from agents.base
