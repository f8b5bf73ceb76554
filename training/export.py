"""``cardarena export CHECKPOINT OUT.npz``: a checkpoint's policy as a small numpy-only file.

The exported file (format in ``cardarena.agents.numpy_policy``) keeps the acting network and
the observation scaler, nothing else, so it plays without torch (agent spec
``pretrained:path=OUT.npz``) and weighs a fraction of the checkpoint (no value network, no
optimiser state). The shipped ``pretrained`` agents are files written by this command.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs.core import InvalidConfigError, ObservationScaler

from .checkpoint import load_checkpoint, read_meta
from .records import package_version


def from_sb3_policy(policy: Any, scaler: ObservationScaler, meta: Mapping[str, Any]) -> NumpyPolicy:
    """The acting half of an SB3 ``MaskableActorCriticPolicy`` (``model.policy``) as numpy.

    Supports the ``MlpPolicy`` shape: a flatten features extractor, ``mlp_extractor.policy_net``
    made of ``Linear`` and ``Tanh``/``ReLU`` modules, and the ``action_net`` head.
    """
    import torch.nn as nn

    layers: list[tuple[np.ndarray, np.ndarray]] = []
    activation: str | None = None
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, nn.Linear):
            layers.append(_linear(module))
        elif isinstance(module, nn.Tanh | nn.ReLU):
            kind = "tanh" if isinstance(module, nn.Tanh) else "relu"
            if activation not in (None, kind):
                raise InvalidConfigError("mixed activations cannot be exported")
            activation = kind
        else:
            raise InvalidConfigError(f"cannot export a policy layer {type(module).__name__}")
    if not isinstance(policy.features_extractor, _flatten_extractor()):
        raise InvalidConfigError(
            f"cannot export features extractor {type(policy.features_extractor).__name__} "
            "(only MlpPolicy's FlattenExtractor)"
        )
    layers.append(_linear(policy.action_net))
    return NumpyPolicy(layers, activation or "tanh", scaler.offset, scaler.scale, meta)


def _linear(module: Any) -> tuple[np.ndarray, np.ndarray]:
    return (
        module.weight.detach().cpu().numpy().astype(np.float32),
        module.bias.detach().cpu().numpy().astype(np.float32),
    )


def _flatten_extractor() -> type:
    from stable_baselines3.common.torch_layers import FlattenExtractor

    return FlattenExtractor


def export_checkpoint(
    checkpoint: str | Path, out: str | Path, provenance: Mapping[str, Any] | None = None
) -> NumpyPolicy:
    """Export ``checkpoint``'s policy to ``out``; returns the exported policy.

    The meta records the env, the training step, the package version and, when the
    checkpoint sits in a ``cardarena train`` output folder, that run's arguments (how to
    reproduce it); ``provenance`` adds or overrides entries.
    """
    checkpoint = Path(checkpoint)
    loaded = load_checkpoint(checkpoint)
    checkpoint_meta = read_meta(checkpoint)
    meta: dict[str, Any] = {
        "env": loaded.env_spec.name,
        "config": loaded.env_spec.config,
        "observation_shape": list(loaded.scaler.offset.shape),
        "actions": int(loaded.model.action_space.n),
        "step": int(checkpoint_meta.get("step", 0)),
        "exported_by": package_version(),
        "source": checkpoint.name,
    }
    run_args = _run_args(checkpoint)
    if run_args is not None:
        meta["train_args"] = run_args
    meta.update(provenance or {})
    policy = from_sb3_policy(loaded.model.policy, loaded.scaler, meta)
    policy.save(out)
    return policy


def _run_args(checkpoint: Path) -> dict[str, Any] | None:
    """``args.json`` of the ``cardarena train`` run the checkpoint belongs to, if any."""
    for folder in (checkpoint.parent, checkpoint.parent.parent):
        path = folder / "args.json"
        if path.is_file():
            try:
                args = json.loads(path.read_text())
            except json.JSONDecodeError:
                return None
            return {k: v for k, v in args.items() if k not in ("resume", "progress")}
    return None


def check_export(
    policy: NumpyPolicy, model: Any, observations: np.ndarray, masks: np.ndarray
) -> int:
    """How many of the given observations get a different greedy action from ``policy`` than
    from the SB3 ``model`` (0 for a faithful export)."""
    actions, _ = model.predict(
        np.stack([(o - policy.offset) * policy.factor for o in observations]).astype(np.float32),
        action_masks=masks.astype(bool),
        deterministic=True,
    )
    mine = [policy.act(o, m) for o, m in zip(observations, masks, strict=True)]
    return int(np.sum(np.asarray(actions).reshape(-1) != np.asarray(mine)))


__all__ = ["check_export", "export_checkpoint", "from_sb3_policy"]
