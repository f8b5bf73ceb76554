"""PPO with action masking, written for the vector engine: read it top to bottom.

``cardarena train ENV --backend vector`` runs this. The SB3 backend steps 8 envs and updates on
minibatches of 256, so most of its time is Python per step; here one rollout is
``num_envs x rollout_steps`` decisions (32,768 by default) collected from one ``LearnerBatch``
(``training.vector.batch``: the learner in every game, opponents played inside it), kept in arrays
allocated once, and the update runs on minibatches of thousands of rows, where the matrix
products dominate. The parts, in the order they run (1, 2 and the warm start live in
``training.vector.network``, 6 in ``training.vector.magnet``, the settings in
``training.vector.config``; this module re-exports them):

1. **Network** (``ActorCritic``): the same two MLPs as SB3's ``MlpPolicy`` (tanh, separate
   policy and value branches, orthogonal initialisation with SB3's gains), under SB3's
   ``state_dict`` names, so a checkpoint of this trainer is a checkpoint of the project's safe
   format that every reader (agent specs, ``export``, ``eval``) already plays.
2. **Masked distribution** (``masked_log_probs``): illegal logits are set to the lowest float
   before the log-softmax, so an illegal action has probability 0 in sampling, log-probs and
   entropy (the entropy sums over legal actions only).
3. **Rollout** (``VectorPPO.collect``): per step one forward pass over all games, one sampled
   action per game (Gumbel-max on a seeded torch generator), one engine step. A game cut by the
   step cap (truncated, not terminated) gets the discounted value of its last observation added
   to its reward, as SB3 does (``bootstrap_truncated``); ``done`` then stops the bootstrap
   across the new deal.
4. **Advantages** (``gae``): generalised advantage estimation over the time axis, all games at
   once.
5. **Update** (``VectorPPO.update``): ``n_epochs`` passes over the rollout in shuffled
   minibatches; clipped policy loss on per-minibatch normalised advantages, value MSE, entropy
   bonus and, when ``kl_coef > 0``, the magnet term (``ppo_losses``, each term a function of
   its own), gradient norm clipping, Adam (eps 1e-5 as SB3).
6. **Magnet** (``Magnet``): the KL divergence from the policy to a reference policy, times
   ``kl_coef``, added to the loss, as in Magnetic Mirror Descent (Sokota et al. 2023; tuned for
   imperfect-information games by Rudolph et al. 2025). It holds self-play near a reference
   so that it does not chase its own last move into a habit a fixed plan can beat. The
   reference: ``uniform`` (the KL is then ``log(legal actions)`` minus the entropy: a second
   entropy bonus), ``copy`` (the network as it was, copied every ``magnet_every`` rollouts) or
   ``average`` (an exponential average of the network's weights, moved ``magnet_rate`` of the
   way after every rollout). Its weights are part of a checkpoint (``magnet.npz``), so a
   resumed run continues bit for bit.

Precision: the hidden layers run in bfloat16 under ``torch.autocast`` when
``precision="bfloat16"`` (the default where the CPU has AMX or AVX-512 BF16 matrix units,
``default_precision``): their matrix products are where the time goes, and bfloat16 runs them
several times faster there. The weights, Adam's state, the heads (logits, value), the
log-softmax and the losses stay float32, so probability ratios are not rounded to bfloat16.

Determinism: the network's initialisation comes from ``torch.manual_seed(seed)``, every sampled
action and minibatch order from one ``torch.Generator`` seeded with ``seed``, every deal from the
``LearnerBatch`` streams; with one torch thread the same seed gives the same run bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs.core import InvalidConfigError, ObservationScaler, bounds_digest

from ..learner import LearnerState, load_torch_state, torch_state
from .config import PRECISIONS, PPOConfig, default_precision
from .magnet import Magnet
from .network import (
    ActorCritic,
    WarmStart,
    flops_per_step,
    masked_entropy,
    masked_kl,
    masked_log_probs,
    rescaled_inputs,
    uniform_log_probs,
    warm_start_problem,
)


# --- the rollout buffer ------------------------------------------------------------------
@dataclass
class Rollout:
    """One rollout, ``[rollout_steps, num_envs, ...]``, allocated once and refilled. The
    observations are a torch tensor in the network's input precision (bfloat16 halves the
    bytes every minibatch gathers) and the masks a torch tensor (written through a numpy
    view); the rest are numpy arrays."""

    observations: torch.Tensor
    masks: torch.Tensor
    actions: np.ndarray
    log_probs: np.ndarray
    values: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    advantages: np.ndarray = field(init=False)
    returns: np.ndarray = field(init=False)

    @classmethod
    def allocate(
        cls, steps: int, games: int, observation_size: int, actions: int, dtype: torch.dtype
    ) -> Rollout:
        rollout = cls(
            observations=torch.zeros((steps, games, observation_size), dtype=dtype),
            masks=torch.zeros((steps, games, actions), dtype=torch.bool),
            actions=np.zeros((steps, games), np.int64),
            log_probs=np.zeros((steps, games), np.float32),
            values=np.zeros((steps, games), np.float32),
            rewards=np.zeros((steps, games), np.float32),
            dones=np.zeros((steps, games), np.bool_),
        )
        rollout.advantages = np.zeros((steps, games), np.float32)
        rollout.returns = np.zeros((steps, games), np.float32)
        return rollout


# --- 3. the step cap's bootstrap ---------------------------------------------------------
def bootstrap_truncated(
    reward: np.ndarray, rows: np.ndarray, final_values: np.ndarray, gamma: float
) -> None:
    """Add ``gamma * final_values`` to ``reward[rows]`` in place: the games of ``rows`` were
    cut by the step cap, and ``final_values`` are the values of their last observations (the
    cut state's, not the new deal's), so the return does not pretend the game ended there."""
    reward[rows] += gamma * final_values


# --- 4. advantages -----------------------------------------------------------------------
def gae(rollout: Rollout, last_values: np.ndarray, gamma: float, lam: float) -> None:
    """Fill ``rollout.advantages`` and ``rollout.returns`` (GAE(lambda); ``dones[t]``: the game
    of step ``t`` ended there, so ``values[t + 1]`` belongs to a new deal)."""
    steps = rollout.rewards.shape[0]
    running = np.zeros_like(last_values, np.float32)
    next_values = last_values.astype(np.float32)
    for t in reversed(range(steps)):
        alive = 1.0 - rollout.dones[t].astype(np.float32)
        delta = rollout.rewards[t] + gamma * next_values * alive - rollout.values[t]
        running = delta + gamma * lam * alive * running
        rollout.advantages[t] = running
        next_values = rollout.values[t]
    np.add(rollout.advantages, rollout.values, out=rollout.returns)


# --- 5. the losses -----------------------------------------------------------------------
def normalize_advantages(advantages: torch.Tensor) -> torch.Tensor:
    """Centred and scaled over the minibatch (torch's unbiased std, as SB3); a single row is
    left as it is (its std is undefined)."""
    if advantages.numel() > 1:
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return advantages


def clipped_policy_loss(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    clip_range: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's clipped surrogate, negated to be minimised: ``-mean(min(r A, clip(r) A))`` with
    ``r = exp(log_probs - old_log_probs)``; and the fraction of rows whose ratio is outside
    ``1 +- clip_range`` (a diagnostic, no gradient)."""
    ratio = torch.exp(log_probs - old_log_probs)
    clipped = torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
    loss = -torch.min(advantages * ratio, advantages * clipped).mean()
    clip_fraction = (torch.abs(ratio.detach() - 1) > clip_range).float().mean()
    return loss, clip_fraction


@dataclass(frozen=True)
class PPOLosses:
    """One minibatch's terms; ``total`` is what the optimiser minimises."""

    total: torch.Tensor
    policy: torch.Tensor
    value: torch.Tensor
    entropy: torch.Tensor
    clip_fraction: torch.Tensor
    kl: torch.Tensor


def ppo_losses(
    logits: torch.Tensor,
    values: torch.Tensor,
    masks: torch.Tensor,
    actions: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    *,
    clip_range: float,
    vf_coef: float,
    ent_coef: float,
    kl_coef: float = 0.0,
    magnet_log_probs: torch.Tensor | None = None,
) -> PPOLosses:
    """The loss of one minibatch from the network's ``logits`` and ``values`` and the rollout's
    rows: the clipped policy loss on normalised advantages, plus ``vf_coef`` times the value
    MSE (unclipped: ``clip_range_vf`` is None), minus ``ent_coef`` times the mean masked
    entropy (a bonus: minimising the total raises the entropy), plus ``kl_coef`` times the
    mean ``KL(policy || magnet)`` (``magnet_log_probs``, masked; None: no magnet, KL 0)."""
    log_probs = masked_log_probs(logits, masks)
    chosen = log_probs.gather(1, actions[:, None]).squeeze(1)
    policy, clip_fraction = clipped_policy_loss(
        chosen, old_log_probs, normalize_advantages(advantages), clip_range
    )
    value = torch.mean((returns - values) ** 2)
    entropy = masked_entropy(log_probs, masks).mean()
    total = policy + vf_coef * value - ent_coef * entropy
    kl = torch.zeros(())
    if magnet_log_probs is not None:
        kl = masked_kl(log_probs, magnet_log_probs, masks).mean()
        total = total + kl_coef * kl
    return PPOLosses(total, policy, value, entropy, clip_fraction, kl)


class VectorPPO:
    """The learner: ``learn_rollout()`` collects one rollout from ``batch`` and updates on it.

    A ``training.learner.Learner``: ``learner_state()`` is what a checkpoint keeps of it, in
    the settings and names of an SB3 MaskablePPO checkpoint (``n_steps`` is
    ``rollout_steps``, ``batch_size`` is ``minibatch_size``), so every reader plays it."""

    def __init__(self, batch: Any, config: PPOConfig, seed: int) -> None:
        self.batch = batch
        self.config = config
        torch.manual_seed(seed)
        size, actions = batch.scaler.offset.size, batch.num_actions
        self.network = ActorCritic(size, actions, tuple(config.net_arch), config.precision)
        self.optimizer = torch.optim.Adam(
            self.network.parameters(), lr=config.learning_rate, eps=1e-5
        )
        #: The KL term's reference policy (None when ``kl_coef`` is 0: no term, no cost).
        self.magnet = Magnet(self.network, config) if config.kl_coef > 0 else None
        self.generator = torch.Generator().manual_seed(seed)
        dtype = torch.bfloat16 if config.precision == "bfloat16" else torch.float32
        self.rollout = Rollout.allocate(config.rollout_steps, config.num_envs, size, actions, dtype)
        self.num_timesteps = 0
        self.n_updates = 0
        #: Finished games of the last rollout: returns and lengths (for progress output).
        self.finished_returns: list[float] = []
        self.finished_lengths: list[int] = []

    # --- what a checkpoint keeps ----------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The constructor settings under ``training.sb3.model.SETTINGS`` names: advantages are
        always normalised per minibatch, and there is no early stop on the KL."""
        config = self.config
        return {
            "n_steps": int(config.rollout_steps),
            "batch_size": int(config.minibatch_size),
            "n_epochs": int(config.n_epochs),
            "learning_rate": float(config.learning_rate),
            "gamma": float(config.gamma),
            "gae_lambda": float(config.gae_lambda),
            "clip_range": float(config.clip_range),
            "ent_coef": float(config.ent_coef),
            "vf_coef": float(config.vf_coef),
            "max_grad_norm": float(config.max_grad_norm),
            "normalize_advantage": True,
            "target_kl": None,
            "net_arch": list(config.net_arch),
        }

    def learner_state(self) -> LearnerState:
        network, moments, groups = torch_state(self.network, self.optimizer)
        return LearnerState(
            settings=self.settings(),
            network=network,
            moments=moments,
            groups=groups,
            n_updates=self.n_updates,
            magnet=self.magnet.state() if self.magnet is not None else None,
        )

    def restore(self, checkpoint: Any) -> None:
        """Continue from a ``Checkpoint`` (the reader checked its arrays): network, Adam's
        state, counters and the magnet (one the checkpoint lacks starts from the network)."""
        load_torch_state(
            self.network,
            self.optimizer,
            checkpoint.network,
            checkpoint.moments or None,
            checkpoint.param_groups or None,
        )
        self.num_timesteps, self.n_updates = checkpoint.step, checkpoint.n_updates
        if self.magnet is not None and checkpoint.magnet is not None:
            self.magnet.load(checkpoint.magnet)
        elif self.magnet is not None:  # a run that had no magnet to keep: it starts here
            self.magnet.follow()

    # --- 3. the rollout -------------------------------------------------------------------
    @torch.no_grad()
    def _act(self, observations: torch.Tensor, masks: torch.Tensor) -> tuple[np.ndarray, ...]:
        logits, values = self.network(observations)
        log_probs = masked_log_probs(logits, masks)
        uniform = torch.rand(log_probs.shape, generator=self.generator).clamp_(min=1e-20)
        actions = torch.argmax(log_probs - torch.log(-torch.log(uniform)), dim=-1)
        chosen = log_probs.gather(1, actions[:, None]).squeeze(1)
        return actions.numpy(), chosen.numpy(), values.numpy()

    @torch.no_grad()
    def values_of(self, observations: np.ndarray) -> np.ndarray:
        if observations.shape[0] == 0:
            return np.zeros(0, np.float32)
        return self.network(torch.from_numpy(np.ascontiguousarray(observations)))[1].numpy()

    def collect(self) -> np.ndarray:
        """Fill the rollout; returns the values of the observations after its last step."""
        batch, rollout, gamma = self.batch, self.rollout, self.config.gamma
        self.finished_returns, self.finished_lengths = [], []
        for t in range(self.config.rollout_steps):
            rollout.observations[t].copy_(torch.from_numpy(batch.observation))
            rollout.masks[t].numpy()[:] = batch.mask
            actions, log_probs, values = self._act(rollout.observations[t], rollout.masks[t])
            rollout.actions[t], rollout.log_probs[t], rollout.values[t] = (
                actions,
                log_probs,
                values,
            )
            batch.step(actions)
            reward = batch.reward.copy()
            cut = batch.truncated & ~batch.terminated
            if cut.any():  # bootstrap a game the step cap ended from its last observation
                finals = batch.final_observations()
                rows = np.flatnonzero(cut)
                final_values = self.values_of(np.stack([finals[r] for r in rows]))
                bootstrap_truncated(reward, rows, final_values, gamma)
            rollout.rewards[t] = reward
            rollout.dones[t] = batch.done
            ended = np.flatnonzero(batch.done)
            self.finished_returns += batch.final_return[ended].tolist()
            self.finished_lengths += batch.final_length[ended].tolist()
        return self.values_of(batch.observation)

    # --- 5. the update --------------------------------------------------------------------
    def update(self) -> dict[str, float]:
        """``n_epochs`` passes of clipped PPO over the rollout; the mean losses."""
        config, rollout = self.config, self.rollout
        n = config.rollout_size
        observations = rollout.observations.reshape(n, -1)
        masks = rollout.masks.reshape(n, -1)
        actions = torch.from_numpy(rollout.actions.reshape(n))
        old_log_probs = torch.from_numpy(rollout.log_probs.reshape(n))
        advantages = torch.from_numpy(rollout.advantages.reshape(n))
        returns = torch.from_numpy(rollout.returns.reshape(n))
        optimizer = self.optimizer
        parameters = list(self.network.parameters())
        totals = dict.fromkeys(("policy_loss", "value_loss", "entropy", "clip_fraction", "kl"), 0.0)
        updates = 0
        for _ in range(config.n_epochs):
            order = torch.randperm(n, generator=self.generator)
            for start in range(0, n, config.minibatch_size):
                rows = order[start : start + config.minibatch_size]
                logits, values = self.network(observations[rows])
                magnet = None
                if self.magnet is not None:
                    magnet = self.magnet.log_probs(observations[rows], masks[rows])
                losses = ppo_losses(
                    logits,
                    values,
                    masks[rows],
                    actions[rows],
                    old_log_probs[rows],
                    advantages[rows],
                    returns[rows],
                    clip_range=config.clip_range,
                    vf_coef=config.vf_coef,
                    ent_coef=config.ent_coef,
                    kl_coef=config.kl_coef,
                    magnet_log_probs=magnet,
                )
                optimizer.zero_grad(set_to_none=True)
                losses.total.backward()
                nn.utils.clip_grad_norm_(parameters, config.max_grad_norm)
                optimizer.step()
                totals["policy_loss"] += float(losses.policy.detach())
                totals["value_loss"] += float(losses.value.detach())
                totals["entropy"] += float(losses.entropy.detach())
                totals["clip_fraction"] += float(losses.clip_fraction)
                totals["kl"] += float(losses.kl.detach())
                updates += 1
        self.n_updates += config.n_epochs
        return {key: value / max(updates, 1) for key, value in totals.items()}

    def learn_rollout(self) -> dict[str, float]:
        """One rollout and its update; ``num_timesteps`` grows by the rollout's size."""
        last_values = self.collect()
        gae(self.rollout, last_values, self.config.gamma, self.config.gae_lambda)
        stats = self.update()
        self.num_timesteps += self.config.rollout_size
        if self.magnet is not None:
            self.magnet.after_rollout(self.num_timesteps // self.config.rollout_size)
        return stats

    # --- starting from another network ----------------------------------------------------
    def warm_start(self, start: WarmStart) -> str:
        """Put ``start``'s weights into the network before the first rollout (``cardarena
        exploit``: a best response that begins as the agent it answers). The policy branch
        and the action head are copied from ``start.policy``; the value branch from
        ``start.value`` when it is given and fits (a checkpoint's whole state dict, SB3
        names), else it keeps its fresh initialisation (an exported policy has no value
        network). Refused with ``InvalidConfigError``, saying what differs, unless the hidden
        widths, the activation (tanh), the observation size and the actions are this
        learner's and its scaler is one of the env Box's ``known_scalers`` (the first layers
        are rewritten for this learner's, ``rescaled_inputs``). Returns which parts were
        loaded."""
        box = self.batch.engine.observation_space
        problem = warm_start_problem(
            start.policy, self.config.net_arch, box, self.batch.num_actions
        )
        if problem is not None:
            raise InvalidConfigError(
                f"cannot start from {start.source or 'that policy'}: {problem}"
            )
        arrays: dict[str, np.ndarray] = {}
        for index, (weight, bias) in enumerate(start.policy.layers[:-1]):
            arrays[f"mlp_extractor.policy_net.{2 * index}.weight"] = weight
            arrays[f"mlp_extractor.policy_net.{2 * index}.bias"] = bias
        arrays["action_net.weight"], arrays["action_net.bias"] = start.policy.layers[-1]
        own = self.network.state_dict()
        value = {k: v for k, v in (start.value or {}).items() if "value_net" in k}
        # Trained on inputs of another known scaler: the first layers take ours, exactly.
        trained, now = start.policy.factor, self.batch.scaler.scale
        for first in ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"):
            for source in (arrays, value):
                if first in source:
                    source[first] = rescaled_inputs(source[first], trained, now)
        value_fits = bool(value) and set(value) == {k for k in own if "value_net" in k}
        value_fits = value_fits and all(
            tuple(v.shape) == tuple(own[k].shape) for k, v in value.items()
        )
        if value_fits:
            arrays.update(value)
        with torch.no_grad():
            for name, array in arrays.items():
                own[name].copy_(torch.from_numpy(np.asarray(array, np.float32)))
        if self.magnet is not None:
            self.magnet.follow()
        if value_fits:
            return "policy and value networks"
        if value:
            return "policy network (the value network has other shapes: it starts fresh)"
        return "policy network (no value network to copy: it starts fresh)"

    # --- playing the current policy elsewhere ---------------------------------------------
    def numpy_policy(self, scaler: ObservationScaler, meta: dict[str, Any]) -> NumpyPolicy:
        """The acting half as a ``NumpyPolicy`` (greedy evaluation, snapshots in memory)."""
        state = {k: v.detach().numpy().copy() for k, v in self.network.state_dict().items()}
        hidden = len(self.config.net_arch)
        layers = [
            (
                state[f"mlp_extractor.policy_net.{2 * i}.weight"],
                state[f"mlp_extractor.policy_net.{2 * i}.bias"],
            )
            for i in range(hidden)
        ]
        layers.append((state["action_net.weight"], state["action_net.bias"]))
        bounds = bounds_digest(self.batch.engine.observation_space)
        meta = {"observation_bounds": bounds, **meta}
        return NumpyPolicy(layers, "tanh", scaler.offset, scaler.scale, meta)


__all__ = [
    "PRECISIONS",
    "ActorCritic",
    "Magnet",
    "PPOConfig",
    "PPOLosses",
    "Rollout",
    "VectorPPO",
    "WarmStart",
    "bootstrap_truncated",
    "clipped_policy_loss",
    "default_precision",
    "flops_per_step",
    "gae",
    "masked_entropy",
    "masked_kl",
    "masked_log_probs",
    "normalize_advantages",
    "ppo_losses",
    "uniform_log_probs",
    "warm_start_problem",
]
