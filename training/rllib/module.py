"""``MaskedPPOTorchRLModule``: RLlib's default PPO torch module with illegal actions' logits
pushed to the float minimum, so sampling and greedy acting only pick legal moves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from cardarena.envs.core import InvalidConfigError


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module (MLP encoder, pi and value heads) that reads a Dict
    observation ``{"observations", "action_mask"}``: the networks see ``observations`` only,
    and illegal actions' logits get ``FLOAT_MIN`` added, in training, exploration and
    inference alike. (RLlib's ``ActionMaskingTorchRLModule`` lives in its examples package;
    this is the same idea without mutating the caller's batch.)"""

    def __init__(self, *, observation_space: gymnasium.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, spaces.Dict):
            raise InvalidConfigError(
                "MaskedPPOTorchRLModule needs a Dict observation space with 'observations' "
                f"and 'action_mask', got {observation_space!r}"
            )
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        # The networks are built for the inner Box; the module reports the env's Dict space.
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], Mapping):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(mask, a shallow copy of ``batch`` whose OBS is the inner observation)."""
    observation = batch[Columns.OBS]
    inner = dict(batch)
    inner[Columns.OBS] = observation["observations"]
    return observation["action_mask"], inner


def _mask_logits(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
    outputs[Columns.ACTION_DIST_INPUTS] = outputs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
        torch.log(mask), min=FLOAT_MIN
    )
    return outputs


__all__ = ["MaskedPPOTorchRLModule"]
