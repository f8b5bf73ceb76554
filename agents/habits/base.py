"""What every habit shares: the env's layout to read observations with, no per-game state,
and ``decide(view, actions, rng)`` to write per game."""

from __future__ import annotations

import numpy as np

from ..base import EnvSpec, Observation
from ..heuristics.common import EnvData, legal


class Habit:
    """A ``Strategy`` that reads its observation through the env's layout and keeps nothing
    between games; a game's habits override ``decide``."""

    def __init__(self, env_spec: EnvSpec) -> None:
        self.data = EnvData(env_spec)
        self.layout = self.data.layout

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        pass

    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        view = self.layout.view(observation["observation"])
        return int(self.decide(view, legal(observation), rng))

    def decide(self, view: dict, actions: np.ndarray, rng: np.random.Generator) -> int:
        """A legal action from the view and the legal ``actions`` (ascending)."""
        raise NotImplementedError
