"""The magnet term's reference policy (part 6 of ``training.vector.ppo``).

The KL divergence from the policy to a reference policy, times ``kl_coef``, is added to the
loss, as in Magnetic Mirror Descent (Sokota et al. 2023; tuned for imperfect-information games
by Rudolph et al. 2025). The reference: ``uniform``, ``copy`` (the network as it was, copied
every ``magnet_every`` rollouts) or ``average`` (an exponential average of the network's
weights, moved ``magnet_rate`` of the way after every rollout). Its weights are part of a
checkpoint (``magnet.npz``), so a resumed run continues bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from cardarena.envs.core import InvalidConfigError

from ..defaults import MAGNETS
from .config import PPOConfig
from .network import ActorCritic, masked_log_probs, uniform_log_probs


class Magnet:
    """The reference policy of the KL term (``PPOConfig.magnet``): ``log_probs`` of a
    minibatch, ``after_rollout`` moves it, ``state``/``load`` keep it in a checkpoint."""

    def __init__(self, network: ActorCritic, config: PPOConfig) -> None:
        if config.magnet not in MAGNETS:
            raise InvalidConfigError(f"magnet must be one of {MAGNETS}, got {config.magnet!r}")
        self.kind, self.every, self.rate = config.magnet, config.magnet_every, config.magnet_rate
        self.network = network
        #: A frozen float32 copy of the network for ``copy`` and ``average`` (None: uniform).
        self.reference: ActorCritic | None = None
        if self.kind != "uniform":
            self.reference = ActorCritic(
                network.observation_size,
                network.action_net.out_features,
                tuple(config.net_arch),
                "float32",
            )
            self.reference.requires_grad_(False)
            self.follow()

    @torch.no_grad()
    def follow(self) -> None:
        """Make the reference the network as it is now (at the start, after a warm start)."""
        if self.reference is not None:
            self.reference.load_state_dict(self.network.state_dict())

    @torch.no_grad()
    def log_probs(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        if self.reference is None:
            return uniform_log_probs(masks)
        return masked_log_probs(self.reference(observations.float())[0], masks)

    @torch.no_grad()
    def after_rollout(self, rollouts_done: int) -> None:
        """``copy``: the network's weights every ``every`` rollouts; ``average``:
        ``reference <- (1 - rate) reference + rate network`` after every rollout."""
        if self.reference is None:
            return
        own = self.network.state_dict()
        if self.kind == "copy":
            if rollouts_done % self.every == 0:
                self.follow()
            return
        for name, value in self.reference.state_dict().items():
            value.lerp_(own[name].float(), self.rate)

    def state(self) -> dict[str, np.ndarray] | None:
        """The reference's arrays by SB3 name (None: uniform, nothing to keep)."""
        if self.reference is None:
            return None
        return {k: v.detach().numpy().copy() for k, v in self.reference.state_dict().items()}

    def load(self, arrays: Mapping[str, np.ndarray]) -> None:
        assert self.reference is not None
        self.reference.load_state_dict(
            {k: torch.as_tensor(np.array(v, np.float32)) for k, v in arrays.items()}
        )


__all__ = ["Magnet"]
