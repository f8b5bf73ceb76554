"""SB3's MaskablePPO as plain data: built from JSON settings, its state moved as arrays.

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
from typing import TYPE_CHECKING, Any

import numpy as np

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.moved import deprecate

from ..learner import Learner, LearnerState, load_torch_state, torch_state

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
    return torch_state(model.policy, model.policy.optimizer)


def restore_model_state(
    model: Any,
    network: Mapping[str, np.ndarray],
    moments: Mapping[str, np.ndarray] | None = None,
    groups: list[Any] | None = None,
) -> None:
    """Put arrays from ``model_state`` (checked by the checkpoint reader) back into ``model``."""
    load_torch_state(model.policy, model.policy.optimizer, network, moments, groups)


class SB3Learner:
    """An SB3 MaskablePPO model as a ``training.learner.Learner``: what a checkpoint keeps of
    it (constant schedules only, an ``MlpPolicy`` with nothing but ``net_arch``)."""

    def __init__(self, model: Any) -> None:
        self.model = model

    @property
    def num_timesteps(self) -> int:
        return int(self.model.num_timesteps)

    def learner_state(self) -> LearnerState:
        network, moments, groups = model_state(self.model)
        return LearnerState(
            settings=model_settings(self.model),
            network=network,
            moments=moments,
            groups=groups,
            n_updates=int(getattr(self.model, "_n_updates", 0)),
        )


def as_learner(model: Any) -> Learner:
    """``model`` as a ``Learner``: a learner as it is, an SB3 model wrapped in ``SB3Learner``;
    anything else is refused, naming what was given."""
    if isinstance(model, Learner):
        return model
    if all(hasattr(model, name) for name in ("policy", "policy_kwargs", "n_steps")):
        return SB3Learner(model)
    raise InvalidConfigError(
        f"a checkpoint saves a training.learner.Learner (the vector backend's VectorPPO) or "
        f"an SB3 MaskablePPO model, not {type(model).__name__}"
    )


if not TYPE_CHECKING:  # its old home (``cardarena.training.sb3.model``) re-exported it
    __getattr__ = deprecate(
        __name__, names={"missing_train_extra": "cardarena.training.run:missing_train_extra"}
    )

__all__ = [
    "SETTINGS",
    "SB3Learner",
    "as_learner",
    "build_model",
    "model_settings",
    "model_state",
    "restore_model_state",
]
