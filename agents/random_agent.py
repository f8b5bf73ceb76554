"""Uniformly random legal play: the baseline every trained agent must beat."""

from __future__ import annotations

from .base import BaseAgent, Observation, legal_actions


class RandomAgent(BaseAgent):
    """Picks uniformly among legal actions with its own seeded generator (never global RNG)."""

    spec = "random"

    def act(self, observation: Observation) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
