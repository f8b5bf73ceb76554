"""A trained SB3 (sb3-contrib MaskablePPO) policy as an ``Agent``.

Observations are scaled by the same ``ObservationScaler`` that
``cardarena.training.SingleAgentEnv`` used in training (built from the env's observation Box),
so a model plays the same game it learned.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from cardarena.envs.core import ObservationScaler

from .base import Observation, legal_actions


class MaskablePolicyAgent:
    """Acts with ``model.predict(..., action_masks=...)``; the mask keeps it legal."""

    def __init__(
        self,
        model: Any,
        scaler: ObservationScaler | spaces.Box,
        deterministic: bool = True,
    ) -> None:
        """``scaler``: the bridge's ``ObservationScaler`` (``SingleAgentEnv.scaler``), or the
        env's observation Box, from which the identical scaler is built."""
        self.model = model
        self.scaler = scaler if isinstance(scaler, ObservationScaler) else ObservationScaler(scaler)
        self.deterministic = deterministic

    def act(self, observation: Observation) -> int:
        legal_actions(observation)
        action, _ = self.model.predict(
            self.scaler(observation["observation"]),
            action_masks=observation["action_mask"].astype(bool),
            deterministic=self.deterministic,
        )
        return int(np.asarray(action).reshape(()))
