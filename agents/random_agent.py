"""Uniformly random legal play: the baseline every trained agent must beat."""

from __future__ import annotations

import numpy as np

from .base import Observation, legal_actions


class RandomAgent:
    """Picks uniformly among legal actions with its own seeded generator (never global RNG)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
