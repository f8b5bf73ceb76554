"""The RLlib ``PPOConfig``: one shared policy for all seats (self-play) or one policy per seat,
the masked module, the settings (``RLlibSettings``, from the ``cardarena train --rllib-*``
flags) and the per-node sample counter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from cardarena.agents import Agent
from cardarena.envs import ENVS, make
from cardarena.envs.core import InvalidConfigError

from ..train_args import TrainArgs
from .env import CardArenaMultiAgentEnv
from .module import MaskedPPOTorchRLModule

#: The shared policy's id in self-play (every seat maps to it).
SHARED = "shared"
#: Key under ``result["env_runners"]`` with env steps sampled per Ray node id.
STEPS_BY_NODE = "cardarena_env_steps_by_node"
#: Where ``RLlibSettings`` takes its defaults: the ``cardarena train`` flags' defaults.
_FLAGS = TrainArgs()


class NodeStepsCallback(RLlibCallback):
    """Counts env steps per Ray node id (``result["env_runners"][STEPS_BY_NODE]``), so a
    cluster run shows every node sampled."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        node = ray.get_runtime_context().get_node_id()
        metrics_logger.log_value((STEPS_BY_NODE, node), episode.env_steps(), reduce="lifetime_sum")


@dataclass(frozen=True)
class RLlibSettings:
    """PPO hyper-parameters of the RLlib backend (small batches: 2-core machines); the
    defaults are those of the ``cardarena train --rllib-*`` flags (``TrainArgs``)."""

    hidden: tuple[int, ...] = tuple(_FLAGS.rllib_hidden)
    train_batch_size: int = _FLAGS.rllib_train_batch_size
    minibatch_size: int = _FLAGS.rllib_minibatch_size
    num_epochs: int = _FLAGS.rllib_num_epochs
    lr: float = _FLAGS.rllib_lr
    entropy_coeff: float = _FLAGS.rllib_entropy_coeff
    gamma: float = _FLAGS.rllib_gamma
    #: ``"auto"``: RLlib derives it from the batch size and the number of env runners.
    rollout_fragment_length: int | str = _FLAGS.rllib_rollout_fragment_length or "auto"
    num_envs_per_env_runner: int = _FLAGS.rllib_num_envs_per_env_runner

    @classmethod
    def from_args(cls, args: TrainArgs) -> RLlibSettings:
        """The settings ``cardarena train --backend rllib`` flags ask for."""
        return cls(
            hidden=tuple(args.rllib_hidden),
            train_batch_size=args.rllib_train_batch_size,
            minibatch_size=args.rllib_minibatch_size,
            num_epochs=args.rllib_num_epochs,
            lr=args.rllib_lr,
            entropy_coeff=args.rllib_entropy_coeff,
            gamma=args.rllib_gamma,
            rollout_fragment_length=args.rllib_rollout_fragment_length or "auto",
            num_envs_per_env_runner=args.rllib_num_envs_per_env_runner,
        )


def shared_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Self-play: every seat acts and learns with the one shared policy."""
    return SHARED


def per_seat_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """One policy per seat, named after the seat."""
    return agent_id


def policy_ids(env: str, env_config: Mapping[str, Any] | None, policies: str) -> list[str]:
    """The policy ids for ``policies`` = ``"shared"`` or ``"per_seat"``."""
    if policies == "shared":
        return [SHARED]
    if policies == "per_seat":
        return list(make(env, **dict(env_config or {})).possible_agents)
    raise InvalidConfigError(f"policies must be 'shared' or 'per_seat', got {policies!r}")


def build_ppo_config(
    env: str,
    env_config: Mapping[str, Any] | None = None,
    num_env_runners: int = 1,
    policies: str = "shared",
    seed: int = 0,
    settings: RLlibSettings | None = None,
    opponents: Sequence[Agent | str] = (),
    opponent_share: float = 0.0,
    num_cpus_per_env_runner: int = 1,
) -> PPOConfig:
    """A ``PPOConfig`` training masked PPO on ``env``: shared self-play or per-seat policies.

    The learner runs in the driver (``num_learners=0``: no extra Ray actor, no CPU reserved),
    so ``num_env_runners`` Ray actors of ``num_cpus_per_env_runner`` CPUs each do all the
    sampling; with 0 the driver samples too.
    """
    if env not in ENVS:
        raise InvalidConfigError(f"unknown env {env!r}; available: {', '.join(sorted(ENVS))}")
    settings = settings or RLlibSettings()
    ids = policy_ids(env, env_config, policies)
    model = DefaultModelConfig(
        fcnet_hiddens=list(settings.hidden), fcnet_activation="tanh", vf_share_layers=False
    )
    specs = {pid: RLModuleSpec(module_class=MaskedPPOTorchRLModule) for pid in ids}
    env_settings = {
        "env": env,
        "env_config": dict(env_config or {}),
        "opponents": list(opponents),
        "opponent_share": float(opponent_share),
    }
    mapping: Any = shared_policy_mapping if policies == "shared" else per_seat_policy_mapping
    return (
        PPOConfig()
        .environment(CardArenaMultiAgentEnv, env_config=env_settings)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=settings.num_envs_per_env_runner,
            num_cpus_per_env_runner=num_cpus_per_env_runner,
            rollout_fragment_length=settings.rollout_fragment_length,
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=settings.train_batch_size,
            minibatch_size=settings.minibatch_size,
            num_epochs=settings.num_epochs,
            lr=settings.lr,
            entropy_coeff=settings.entropy_coeff,
            gamma=settings.gamma,
        )
        .rl_module(
            model_config=model,
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs),
        )
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping, policies_to_train=ids)
        .callbacks(NodeStepsCallback)
        .debugging(seed=seed)
    )


__all__ = [
    "SHARED",
    "STEPS_BY_NODE",
    "NodeStepsCallback",
    "RLlibSettings",
    "build_ppo_config",
    "per_seat_policy_mapping",
    "policy_ids",
    "shared_policy_mapping",
]
