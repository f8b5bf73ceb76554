"""A trained SB3 (sb3-contrib MaskablePPO) policy as an ``Agent``.

Observations are scaled exactly as ``cardarena.training.SingleAgentEnv`` scaled them in
training, so a model plays the same game it learned.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from cardarena.envs.core import unit_scale

from .base import Observation, legal_actions


class MaskablePolicyAgent:
    """Acts with ``model.predict(..., action_masks=...)``; the mask keeps it legal."""

    def __init__(
        self, model: Any, observation_space: spaces.Box, deterministic: bool = True
    ) -> None:
        self.model = model
        self.scale = unit_scale(observation_space)
        self.deterministic = deterministic

    def act(self, observation: Observation) -> int:
        legal_actions(observation)
        action, _ = self.model.predict(
            observation["observation"] * self.scale,
            action_masks=observation["action_mask"].astype(bool),
            deterministic=self.deterministic,
        )
        return int(np.asarray(action).reshape(()))
