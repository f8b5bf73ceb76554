"""Export of a trained RLlib policy: the torch actor MLP (encoder + pi head) as a
``NumpyPolicy`` (``pretrained:path=FILE.npz``), which ``cardarena eval``/``play`` use without
ray or torch, the check that the export acts like the module, and its evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from cardarena.agents import NumpyPolicy
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.evaluation.evaluate import MatchResult, evaluate
from cardarena.evaluation.records import package_version

from ..export import random_decisions

#: Written next to every RLlib checkpoint: which env and policies it holds (for export).
META_FILE = "cardarena_rllib.json"
#: Sub-path of an Algorithm checkpoint where each policy's RLModule is saved.
MODULE_PATH = ("learner_group", "learner", "rl_module")


def numpy_layers(module: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The actor path of a default PPO torch RLModule (actor encoder MLP, then the pi head)
    as ``NumpyPolicy`` layers and their activation; refuses anything else (LayerNorm, mixed
    activations, a pi head with hidden layers of another activation)."""
    import torch.nn as nn

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    sequence: list[Any] = []
    for part in (actor, module.pi):
        sequence += [m for m in part.modules() if not list(m.children())]
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    kinds: set[str] = set()
    for index, layer in enumerate(sequence):
        if isinstance(layer, nn.Linear):
            if layers and not isinstance(sequence[index - 1], nn.Tanh | nn.ReLU):
                raise InvalidConfigError("two linear layers without an activation between")
            layers.append(_linear(layer))
        elif isinstance(layer, nn.Tanh | nn.ReLU):
            kinds.add("tanh" if isinstance(layer, nn.Tanh) else "relu")
        elif not isinstance(layer, nn.Identity):
            raise InvalidConfigError(f"cannot export a policy layer {type(layer).__name__}")
    if len(kinds) > 1:
        raise InvalidConfigError(f"mixed activations {sorted(kinds)} cannot be exported")
    if not isinstance(sequence[-1], nn.Linear):
        raise InvalidConfigError("the pi head must end in a Linear layer (the logits)")
    return layers, kinds.pop() if kinds else "tanh"


def _linear(layer: Any) -> tuple[np.ndarray, np.ndarray]:
    return (
        layer.weight.detach().cpu().numpy().astype(np.float32),
        layer.bias.detach().cpu().numpy().astype(np.float32),
    )


def load_module(checkpoint: str | Path, policy_id: str) -> RLModule:
    """One policy's RLModule from an Algorithm checkpoint, without starting Ray."""
    path = Path(checkpoint).joinpath(*MODULE_PATH, policy_id)
    if not path.is_dir():
        raise InvalidConfigError(f"no policy {policy_id!r} in checkpoint {str(checkpoint)!r}")
    return RLModule.from_checkpoint(path)


def read_checkpoint_meta(checkpoint: str | Path) -> dict[str, Any]:
    """What ``train_rllib`` wrote next to the checkpoint (env, config, policies, steps)."""
    path = Path(checkpoint) / META_FILE
    if not path.is_file():
        raise InvalidConfigError(f"{str(checkpoint)!r} is not a cardarena RLlib checkpoint")
    return dict(json.loads(path.read_text()))


def export_rllib_policy(
    source: Algorithm | str | Path,
    policy_id: str,
    out_npz: str | Path,
    env: str | None = None,
    env_config: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> NumpyPolicy:
    """Write ``policy_id`` of an Algorithm (or of a ``train_rllib`` checkpoint folder) as a
    ``NumpyPolicy`` file; ``pretrained:path=out_npz`` then plays it without ray or torch.

    The scaler is rebuilt from the env's Box exactly as the training env built it, and the
    meta names env and config, so ``PretrainedAgent`` refuses a mismatched env.
    """
    meta: dict[str, Any] = {"trained_with": "rllib", "policy_id": policy_id}
    if isinstance(source, str | Path):
        saved = read_checkpoint_meta(source)
        env = env or saved["env"]
        env_config = env_config if env_config is not None else saved.get("env_config")
        meta.update(step=saved.get("env_steps", 0), source=str(source))
        module: RLModule | None = load_module(source, policy_id)
    else:
        env_settings = dict(source.config.env_config) if source.config else {}
        env = env or env_settings["env"]
        env_config = env_config if env_config is not None else env_settings.get("env_config")
        module = source.get_module(policy_id)
    if env is None or module is None:
        raise InvalidConfigError(f"export needs the env name and policy {policy_id!r}")
    aec = make(env, **dict(env_config or {}))
    seat = aec.possible_agents[0]
    scaler = ObservationScaler(aec.observation_space(seat)["observation"])
    layers, activation = numpy_layers(module)
    meta.update(
        env=env,
        config=dict(env_config or {}),
        observation_shape=list(scaler.offset.shape),
        actions=int(aec.action_space(seat).n),
        exported_by=package_version(),
    )
    meta.update(provenance or {})
    policy = NumpyPolicy(layers, activation, scaler.offset, scaler.scale, meta)
    policy.save(out_npz)
    return policy


def module_greedy_actions(module: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The RLModule's greedy actions on raw observations (scaled like the env scales them):
    the reference ``check_rllib_export`` compares the numpy export against."""
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(masks, dtype=torch.float32),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return np.asarray(logits.argmax(dim=-1).cpu().numpy())


def check_rllib_export(policy: NumpyPolicy, module: Any, env: str, games: int = 20) -> int:
    """Play ``games`` random games of ``env`` and count the decisions where the numpy export
    and the RLModule pick different greedy actions (0 for a faithful export)."""
    raw_obs, masks = random_decisions(env, games, policy.meta.get("config"))
    scaled = np.stack([(o - policy.offset) * policy.factor for o in raw_obs]).astype(np.float32)
    theirs = module_greedy_actions(module, scaled, masks)
    mine = np.array([policy.act(o, m) for o, m in zip(raw_obs, masks, strict=True)])
    return int(np.sum(theirs != mine))


def evaluate_export(
    path: str | Path,
    env: str,
    env_config: Mapping[str, Any] | None = None,
    games: int = 400,
    seed: int = 0,
    opponent: str = "random",
) -> MatchResult:
    """An exported policy (``pretrained:path=...``) against ``opponent``, seats rotating."""
    from cardarena.agents import PretrainedAgent

    agent = PretrainedAgent(path=str(path))
    return evaluate(lambda: make(env, **dict(env_config or {})), agent, opponent, games, seed)


__all__ = [
    "META_FILE",
    "MODULE_PATH",
    "check_rllib_export",
    "evaluate_export",
    "export_rllib_policy",
    "load_module",
    "module_greedy_actions",
    "numpy_layers",
    "read_checkpoint_meta",
]
