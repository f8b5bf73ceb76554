"""The vector learner's network and its masked distribution (parts 1 and 2 of
``training.vector.ppo``), and what a network to start from must be.

``ActorCritic`` is SB3's ``MlpPolicy`` (tanh, separate policy and value branches, orthogonal
initialisation with SB3's gains) under SB3's ``state_dict`` names, so a checkpoint of this
trainer is a checkpoint every reader plays. Illegal logits are set to the lowest float before
the log-softmax (``masked_log_probs``), so an illegal action has probability 0 in sampling,
log-probs and entropy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from gymnasium import spaces
from torch import nn

from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs.core import matching_scaler

from .config import PPOConfig


# --- 1. the network ----------------------------------------------------------------------
class _Branch(nn.Module):
    """SB3's ``MlpExtractor``: a policy and a value MLP (``policy_net``, ``value_net``)."""

    def __init__(self, inputs: int, net_arch: tuple[int, ...]) -> None:
        super().__init__()
        self.policy_net = _mlp(inputs, net_arch)
        self.value_net = _mlp(inputs, net_arch)


def _mlp(inputs: int, units: tuple[int, ...]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in units:
        layers += [nn.Linear(inputs, width), nn.Tanh()]
        inputs = width
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Logits and value of scaled observations; SB3 ``MlpPolicy`` names and initialisation."""

    def __init__(
        self, observation_size: int, actions: int, net_arch: tuple[int, ...], precision: str
    ) -> None:
        super().__init__()
        self.observation_size = observation_size
        self.mlp_extractor = _Branch(observation_size, tuple(net_arch))
        last = net_arch[-1] if net_arch else observation_size
        self.action_net = nn.Linear(last, actions)
        self.value_net = nn.Linear(last, 1)
        self.use_bfloat16 = precision == "bfloat16"
        for module, gain in (
            (self.mlp_extractor, math.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ):
            for layer in module.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.use_bfloat16:  # cast once for both branches (autocast would cast it per layer)
            observations = observations.to(torch.bfloat16)
        policy = self._hidden(self.mlp_extractor.policy_net, observations)
        value = self._hidden(self.mlp_extractor.value_net, observations)
        return self.action_net(policy), self.value_net(value).squeeze(-1)

    def _hidden(self, layers: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
        """The hidden layers: products in bfloat16 if asked, tanh always in float32 (torch's
        bfloat16 tanh is several times slower than its float32 one)."""
        for layer in layers:
            if isinstance(layer, nn.Linear):
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.use_bfloat16):
                    x = layer(x)
            else:
                x = torch.tanh(x.float())
        return x.float()


# --- 2. the masked distribution ----------------------------------------------------------
def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities with every illegal action at (effectively) minus infinity."""
    lowest = torch.finfo(logits.dtype).min
    return torch.log_softmax(logits.masked_fill(~masks, lowest), dim=-1)


def masked_entropy(log_probs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions. The illegal log-probs are set to 0 before ``exp``, so
    their ``p log p`` is ``1 * 0``: an illegal one's true ``0 * -inf`` has no value, and
    ``exp`` of huge negative numbers takes torch's slow path (7x slower at 444 actions)."""
    legal = log_probs.masked_fill(~masks, 0.0)
    return -(legal.exp() * legal).sum(-1)


def masked_kl(
    log_probs: torch.Tensor, reference_log_probs: torch.Tensor, masks: torch.Tensor
) -> torch.Tensor:
    """``KL(p || q)`` per row over the legal actions, ``sum p (log p - log q)``, from the
    masked log-probs of ``p`` (the policy) and ``q`` (the magnet); illegal actions count 0."""
    p_log = log_probs.masked_fill(~masks, 0.0)
    q_log = reference_log_probs.masked_fill(~masks, 0.0)
    return (p_log.exp() * (p_log - q_log)).sum(-1).masked_fill(~masks.any(-1), 0.0)


def uniform_log_probs(masks: torch.Tensor) -> torch.Tensor:
    """The uniform policy over each row's legal actions, as masked log-probs."""
    legal = masks.sum(-1, keepdim=True).clamp(min=1).to(torch.float32)
    return (-torch.log(legal)).expand(masks.shape).masked_fill(~masks, torch.finfo().min)


# --- starting from another network -------------------------------------------------------
@dataclass(frozen=True)
class WarmStart:
    """A network to start training from: an agent's acting half (``NumpyPolicy``: a shipped
    or exported policy, a checkpoint's) and, when known, its value branch (a checkpoint's
    ``state_dict`` arrays by SB3 name). ``source`` names it in messages."""

    policy: NumpyPolicy
    value: Mapping[str, np.ndarray] | None = None
    source: str = ""


def warm_start_problem(
    policy: NumpyPolicy, net_arch: Sequence[int], box: spaces.Box, actions: int
) -> str | None:
    """Why ``policy`` cannot seed an ``ActorCritic`` of ``net_arch`` on an env of observation
    ``box`` and ``actions`` (None: it can): what ``VectorPPO.warm_start`` checks. A policy
    trained with either of the box's ``known_scalers`` fits (``rescaled_inputs``)."""
    widths = [int(weight.shape[0]) for weight, _ in policy.layers[:-1]]
    if policy.activation != "tanh":
        return f"its activation is {policy.activation}, the trainer's network is tanh only"
    if widths != [int(width) for width in net_arch]:
        return f"its hidden layers are {widths}, the learner's {list(net_arch)}"
    size = int(np.prod(box.shape))
    if policy.offset.size != size or policy.actions != actions:
        return (
            f"it takes {policy.offset.size} observation values and {policy.actions} actions, "
            f"the env {size} and {actions}"
        )
    bounds = policy.meta.get("observation_bounds")
    if matching_scaler(box, policy.offset, policy.factor, bounds) is None:
        return "its observation scaler differs from the env's (the env changed since)"
    return None


def rescaled_inputs(weight: np.ndarray, trained: np.ndarray, now: np.ndarray) -> np.ndarray:
    """A first layer's ``weight`` (outputs x inputs) trained on inputs scaled by ``trained``,
    rewritten for inputs scaled by ``now`` (same offset): the same outputs for every
    observation, since ``W (x - low) * trained = (W * trained / now) (x - low) * now``."""
    ratio = np.divide(trained, now, out=np.zeros_like(now), where=now != 0)
    return (np.asarray(weight, np.float32) * ratio[None, :]).astype(np.float32)


# --- cost --------------------------------------------------------------------------------
def flops_per_step(observation_size: int, actions: int, config: PPOConfig) -> float:
    """Floating-point operations per learner decision: the rollout's forward pass plus
    ``n_epochs`` forward and backward passes (weight gradients for every layer, input
    gradients for every layer but the first, whose input is the observation)."""
    forward = backward = 0.0
    for head in (actions, 1):
        inputs = observation_size
        for index, width in enumerate([*config.net_arch, head]):
            forward += 2 * inputs * width
            backward += 2 * inputs * width * (1 if index == 0 else 2)
            inputs = width
    return forward + config.n_epochs * (forward + backward)


__all__ = [
    "ActorCritic",
    "WarmStart",
    "flops_per_step",
    "masked_entropy",
    "masked_kl",
    "masked_log_probs",
    "uniform_log_probs",
    "warm_start_problem",
]
