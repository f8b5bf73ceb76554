"""A vector-PPO rollout of 4 envs x 4 steps filled with fixed random values (observations of 6,
4 actions, action 0 always legal), for the tests of PPO's terms and of its update."""

from __future__ import annotations

import numpy as np
import torch


def fill_rollout(rollout, seed: int = 1) -> None:
    """Fill ``rollout`` (``VectorPPO.rollout`` of a 4 x 4 config) in place."""
    rng = np.random.default_rng(seed)
    rollout.observations[:] = torch.from_numpy(rng.normal(size=(4, 4, 6)).astype(np.float32))
    masks = rng.random((4, 4, 4)) < 0.6
    masks[..., 0] = True
    rollout.masks.numpy()[:] = masks
    rollout.actions[:] = np.argmax(masks * rng.random((4, 4, 4)), axis=-1)
    rollout.log_probs[:] = np.log(rng.uniform(0.2, 0.9, size=(4, 4)))
    rollout.advantages[:] = rng.normal(size=(4, 4))
    rollout.returns[:] = rng.normal(size=(4, 4))
