"""MaskablePPO as plain data: built from JSON settings, its state saved and restored as arrays.

A checkpoint must never need unpickling, so it keeps no SB3 ``.zip``: the model is rebuilt by
``build_model`` from the settings ``model_settings`` writes as JSON, and its learned state
(the network, Adam's moments, the step and update counters) is moved in and out as numpy
arrays by ``model_state`` and ``restore_model_state``.

``build_model(..., after_update=hook)`` calls ``hook()`` right after every PPO update, the one
moment at which the step counter and the network agree (SB3's callbacks fire while a rollout
is collected, before its update): ``cardarena train`` checkpoints there, so a resumed run has
performed exactly one update per rollout its step counter claims.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cardarena.envs.core import InvalidConfigError, install_hint

#: MaskablePPO constructor settings a checkpoint keeps, with SB3's defaults for the ones the
#: per-game table leaves out.
SETTINGS: dict[str, Any] = {
    "n_steps": None,
    "batch_size": None,
    "n_epochs": 10,
    "learning_rate": None,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": None,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
    "normalize_advantage": True,
    "target_kl": None,
    "net_arch": None,
}


def build_model(
    vec_env: Any,
    hyper: Mapping[str, Any],
    *,
    seed: int,
    after_update: Callable[[], None] | None = None,
    device: str = "cpu",
    **overrides: Any,
) -> Any:
    """A new MaskablePPO MlpPolicy on ``vec_env`` with ``hyper`` (a ``DEFAULTS`` entry,
    ``TrainArgs.hyper`` or a checkpoint's settings; ``overrides``, keys of ``SETTINGS`` such
    as ``n_epochs`` or ``clip_range``, win unless None): the one place the hyper-parameters
    meet the model (``cardarena bench --learn`` builds its models here too, so it measures
    what training runs). ``device`` is torch's (``auto``, ``cpu``, ``cuda:1``); checkpoints
    always hold CPU arrays."""
    from sb3_contrib import MaskablePPO

    unknown = sorted(set(overrides) - set(SETTINGS))
    if unknown:
        raise InvalidConfigError(f"unknown model settings {unknown}; known: {sorted(SETTINGS)}")
    settings = {key: hyper.get(key, default) for key, default in SETTINGS.items()}
    settings.update({key: value for key, value in overrides.items() if value is not None})
    missing = [key for key, value in settings.items() if value is None and key != "target_kl"]
    if missing:
        raise InvalidConfigError(f"model settings lack {', '.join(missing)}")
    net_arch = list(settings.pop("net_arch"))

    class CardArenaMaskablePPO(MaskablePPO):
        def train(self) -> None:
            super().train()
            if after_update is not None:
                after_update()

    return CardArenaMaskablePPO(
        "MlpPolicy",
        vec_env,
        **settings,
        policy_kwargs={"net_arch": net_arch},
        seed=seed,
        device=device,
        verbose=0,
    )


def _constant(value: Any, name: str) -> float:
    if callable(value):
        start, end = float(value(1.0)), float(value(0.0))
        if start != end:
            raise InvalidConfigError(f"cannot checkpoint a {name} schedule (only constants)")
        return start
    return float(value)


def model_settings(model: Any) -> dict[str, Any]:
    """``model``'s constructor settings as JSON-ready values (constant schedules only, an
    ``MlpPolicy`` with nothing but ``net_arch`` in its ``policy_kwargs``)."""
    kwargs = dict(model.policy_kwargs or {})
    if set(kwargs) - {"net_arch"}:
        raise InvalidConfigError(
            f"cannot checkpoint policy_kwargs {sorted(set(kwargs) - {'net_arch'})} "
            "(only net_arch is kept)"
        )
    if getattr(model, "clip_range_vf", None) is not None:
        raise InvalidConfigError("cannot checkpoint clip_range_vf (not kept)")
    return {
        "n_steps": int(model.n_steps),
        "batch_size": int(model.batch_size),
        "n_epochs": int(model.n_epochs),
        "learning_rate": _constant(model.learning_rate, "learning_rate"),
        "gamma": float(model.gamma),
        "gae_lambda": float(model.gae_lambda),
        "clip_range": _constant(model.clip_range, "clip_range"),
        "ent_coef": float(model.ent_coef),
        "vf_coef": float(model.vf_coef),
        "max_grad_norm": float(model.max_grad_norm),
        "normalize_advantage": bool(model.normalize_advantage),
        "target_kl": None if model.target_kl is None else float(model.target_kl),
        "net_arch": list(kwargs.get("net_arch", [64, 64])),
    }


def model_state(model: Any) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[Any]]:
    """``(network arrays, optimiser arrays, optimiser param_groups as JSON)``."""
    network = {k: v.detach().cpu().numpy() for k, v in model.policy.state_dict().items()}
    optimizer = model.policy.optimizer.state_dict()
    moments = {
        f"{index}.{key}": value.detach().cpu().numpy()
        for index, per_parameter in optimizer["state"].items()
        for key, value in per_parameter.items()
    }
    groups = [
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in group.items()}
        for group in optimizer["param_groups"]
    ]
    return network, moments, groups


def restore_model_state(
    model: Any,
    network: Mapping[str, np.ndarray],
    moments: Mapping[str, np.ndarray] | None = None,
    groups: list[Any] | None = None,
) -> None:
    """Put arrays from ``model_state`` (checked by the checkpoint reader) back into ``model``."""
    import torch

    model.policy.load_state_dict({k: torch.as_tensor(np.array(v)) for k, v in network.items()})
    if moments is None or groups is None:
        return
    state: dict[int, dict[str, Any]] = {}
    for name, value in moments.items():
        index, _, key = name.partition(".")
        state.setdefault(int(index), {})[key] = torch.as_tensor(np.array(value))
    param_groups = [
        {k: (tuple(v) if k == "betas" else v) for k, v in group.items()} for group in groups
    ]
    model.policy.optimizer.load_state_dict({"state": state, "param_groups": param_groups})


def missing_train_extra(missing: ImportError) -> SystemExit:
    """The exit for a training run without the ``train`` extra, naming the missing module
    (both backends: SB3's MaskablePPO here, torch for ``--backend vector``)."""
    return SystemExit(
        f"training needs the 'train' extra ({missing.name} is missing): {install_hint('train')}"
    )


__all__ = [
    "SETTINGS",
    "build_model",
    "missing_train_extra",
    "model_settings",
    "model_state",
    "restore_model_state",
]
