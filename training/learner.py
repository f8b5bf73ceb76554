"""The learner interface: what a checkpoint keeps of a learner, whatever its backend.

A checkpoint (``training.checkpoint``) holds one learner's JSON settings, its network and
optimiser arrays, its update counter and, when it has one, its magnet's reference weights.
Each backend says what those are through ``learner_state()``, so the checkpoint code never
guesses from attributes: SB3's MaskablePPO through ``training.sb3.model.SB3Learner`` (what
``training.sb3.model.as_learner`` wraps a model in), the vector backend's ``VectorPPO`` itself.

Both backends keep their networks under SB3's ``state_dict`` names with the settings of
``training.sb3.model.SETTINGS``, so every reader (agent specs, ``export``, ``eval``) plays a
checkpoint of either the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class LearnerState:
    """One learner as a checkpoint writes it."""

    #: The constructor settings (``training.sb3.model.SETTINGS`` keys), JSON-ready.
    settings: dict[str, Any]
    #: The network's arrays by SB3 ``state_dict`` name.
    network: dict[str, np.ndarray]
    #: Adam's moments as ``"<parameter index>.<key>"`` arrays.
    moments: dict[str, np.ndarray]
    #: Adam's param groups as JSON.
    groups: list[Any]
    #: Gradient updates made so far.
    n_updates: int
    #: The magnet's reference network (None: no magnet, or the uniform one).
    magnet: dict[str, np.ndarray] | None = None


@runtime_checkable
class Learner(Protocol):
    """What the run loop and the checkpoint code need of a learner."""

    @property
    def num_timesteps(self) -> int: ...

    def learner_state(self) -> LearnerState: ...


def torch_state(
    module: Any, optimizer: Any
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[Any]]:
    """``(network arrays, optimiser moments, optimiser param groups as JSON)`` of a torch
    ``module`` (anything with ``state_dict()``) and its ``optimizer``."""
    network = {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
    state = optimizer.state_dict()
    moments = {
        f"{index}.{key}": value.detach().cpu().numpy()
        for index, per_parameter in state["state"].items()
        for key, value in per_parameter.items()
    }
    groups = [
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in group.items()}
        for group in state["param_groups"]
    ]
    return network, moments, groups


def load_torch_state(
    module: Any,
    optimizer: Any,
    network: Mapping[str, np.ndarray],
    moments: Mapping[str, np.ndarray] | None = None,
    groups: list[Any] | None = None,
) -> None:
    """Put arrays from ``torch_state`` (checked by the checkpoint reader) back; the
    optimiser only when both its moments and its groups are given."""
    import torch

    module.load_state_dict({k: torch.as_tensor(np.array(v)) for k, v in network.items()})
    if moments is None or groups is None:
        return
    state: dict[int, dict[str, Any]] = {}
    for name, value in moments.items():
        index, _, key = name.partition(".")
        state.setdefault(int(index), {})[key] = torch.as_tensor(np.array(value))
    param_groups = [
        {k: (tuple(v) if k == "betas" else v) for k, v in group.items()} for group in groups
    ]
    optimizer.load_state_dict({"state": state, "param_groups": param_groups})


__all__ = ["Learner", "LearnerState", "load_torch_state", "torch_state"]
