"""Ray RLlib backend: every cardarena env as an RLlib multi-agent env, PPO self-play on a
local Ray or an existing cluster, and export of the trained policy to a numpy-only file.

Needs the ``rllib`` extra (``ray[rllib]``, which pins its own gymnasium). Nothing else in
``cardarena`` imports this package (``cardarena train --backend rllib`` only when asked), so
the package and the SB3 path never import ray.

One module per job (RLlib's new API stack: RLModule, EnvRunner, Learner):

- ``env``: ``CardArenaMultiAgentEnv``, a turn-based ``MultiAgentEnv`` over the AEC env, with
  cardarena agents (random, heuristic, exported snapshots) playing a share of the games.
- ``module``: ``MaskedPPOTorchRLModule``, RLlib's default PPO torch module with illegal
  actions' logits pushed to the float minimum.
- ``config``: ``build_ppo_config`` (one shared policy for all seats, or one per seat) and
  ``RLlibSettings``, whose defaults are the ``cardarena train --rllib-*`` flags'.
- ``export``: ``export_rllib_policy``, the torch actor MLP as a ``NumpyPolicy``
  (``pretrained:path=FILE.npz``), which ``cardarena eval``/``play`` use without ray or torch.
- ``loop``: ``train_rllib`` (train, checkpoint each iteration, ``--resume``, a snapshot
  league on ``training.league.LeaguePool``, export and evaluate) and ``train_from_args``.
"""

from __future__ import annotations

from .config import (
    SHARED,
    STEPS_BY_NODE,
    NodeStepsCallback,
    RLlibSettings,
    build_ppo_config,
    per_seat_policy_mapping,
    policy_ids,
    shared_policy_mapping,
)
from .env import CardArenaMultiAgentEnv, observation_space
from .export import (
    META_FILE,
    MODULE_PATH,
    check_rllib_export,
    evaluate_export,
    export_rllib_policy,
    load_module,
    module_greedy_actions,
    numpy_layers,
    read_checkpoint_meta,
)
from .loop import (
    MAX_SNAPSHOTS,
    env_steps,
    league_pool,
    set_opponent_pool,
    train_from_args,
    train_rllib,
)
from .module import MaskedPPOTorchRLModule

__all__ = [
    "MAX_SNAPSHOTS",
    "META_FILE",
    "MODULE_PATH",
    "SHARED",
    "STEPS_BY_NODE",
    "CardArenaMultiAgentEnv",
    "MaskedPPOTorchRLModule",
    "NodeStepsCallback",
    "RLlibSettings",
    "build_ppo_config",
    "check_rllib_export",
    "env_steps",
    "evaluate_export",
    "export_rllib_policy",
    "league_pool",
    "load_module",
    "module_greedy_actions",
    "numpy_layers",
    "observation_space",
    "per_seat_policy_mapping",
    "policy_ids",
    "read_checkpoint_meta",
    "set_opponent_pool",
    "shared_policy_mapping",
    "train_from_args",
    "train_rllib",
]
