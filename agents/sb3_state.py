"""An SB3 ``MlpPolicy``'s weights as checked numpy arrays, the meeting point of both safe
readers: cardarena checkpoints (``policy.npz``) and foreign SB3 ``.zip`` files
(``policy.pth`` read with ``torch.load(weights_only=True)``).

The arrays are named as in ``MaskableActorCriticPolicy.state_dict()``
(``mlp_extractor.policy_net.0.weight`` ...). Their names and shapes are derived from the
observation size, ``net_arch`` and the number of actions *before* any of them is trusted, so a
file with another layout, a NaN or a huge layer is refused naming the array, never half-used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardarena.envs.core import InvalidConfigError

#: Bounds on a network read from a file (the shipped agents use 2 layers of 256).
MAX_LAYERS = 8
MAX_UNITS = 4096


def net_arch_branches(net_arch: Any, where: str) -> tuple[list[int], list[int]]:
    """``(policy layers, value layers)`` from SB3's ``net_arch`` (a list for both, or
    ``{"pi": [...], "vf": [...]}``), each checked against ``MAX_LAYERS`` and ``MAX_UNITS``."""
    if isinstance(net_arch, Mapping) and set(net_arch) <= {"pi", "vf"}:
        branches = (net_arch.get("pi", []), net_arch.get("vf", []))
    else:
        branches = (net_arch, net_arch)
    checked = []
    for branch in branches:
        if (
            not isinstance(branch, list)
            or len(branch) > MAX_LAYERS
            or not all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_UNITS
                for n in branch
            )
        ):
            raise InvalidConfigError(
                f"{where}: net_arch {net_arch!r} is not a list of at most {MAX_LAYERS} layer "
                f"sizes from 1 to {MAX_UNITS} (or {{'pi': [...], 'vf': [...]}})"
            )
        checked.append(list(branch))
    return checked[0], checked[1]


def expected_shapes(
    observation_size: int, net_arch: Any, actions: int, where: str
) -> dict[str, tuple[int, ...]]:
    """Every array of the policy's ``state_dict()``, in its order, with its shape."""
    shapes: dict[str, tuple[int, ...]] = {}
    lasts = []
    for branch, layers in zip(
        ("policy_net", "value_net"), net_arch_branches(net_arch, where), strict=True
    ):
        inputs = observation_size
        for index, units in enumerate(layers):
            shapes[f"mlp_extractor.{branch}.{2 * index}.weight"] = (units, inputs)
            shapes[f"mlp_extractor.{branch}.{2 * index}.bias"] = (units,)
            inputs = units
        lasts.append(inputs)
    shapes["action_net.weight"] = (actions, lasts[0])
    shapes["action_net.bias"] = (actions,)
    shapes["value_net.weight"] = (1, lasts[1])
    shapes["value_net.bias"] = (1,)
    return shapes


def check_state(
    state: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]], where: str
) -> dict[str, np.ndarray]:
    """``state`` as float32 arrays, refused unless it has exactly ``shapes``' arrays, each of
    its shape, floating point and finite."""
    missing = [name for name in shapes if name not in state]
    extra = [name for name in state if name not in shapes]
    if missing or extra:
        raise InvalidConfigError(
            f"{where}: the network's arrays are not an MlpPolicy's "
            f"(missing {missing[:4] or 'none'}, unexpected {extra[:4] or 'none'})"
        )
    checked: dict[str, np.ndarray] = {}
    for name, shape in shapes.items():
        array = np.asarray(state[name])
        if array.dtype.kind != "f":
            raise InvalidConfigError(f"{where}: {name} has dtype {array.dtype}, not a float")
        if array.shape != shape:
            raise InvalidConfigError(f"{where}: {name} has shape {array.shape}, expected {shape}")
        if not np.isfinite(array).all():
            raise InvalidConfigError(f"{where}: {name} holds NaN or infinite weights")
        checked[name] = array.astype(np.float32, copy=False)
    return checked


def policy_layers(
    state: Mapping[str, np.ndarray], net_arch: Any, where: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The acting half (policy MLP, then the action head) of a checked state, as
    ``(weight, bias)`` pairs for ``NumpyPolicy``."""
    return _half(state, net_arch_branches(net_arch, where)[0], "policy_net", "action_net")


def value_layers(
    state: Mapping[str, np.ndarray], net_arch: Any, where: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The value half (value MLP, then the one-output value head) of a checked state, as
    ``(weight, bias)`` pairs for ``NumpyPolicy``'s ``value_layers``."""
    return _half(state, net_arch_branches(net_arch, where)[1], "value_net", "value_net")


def _half(
    state: Mapping[str, np.ndarray], sizes: list[int], branch: str, head: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """One branch of SB3's MLP extractor (its ``Linear`` layers are every other module),
    then its head."""
    prefix = f"mlp_extractor.{branch}"
    layers = [
        (state[f"{prefix}.{2 * i}.weight"], state[f"{prefix}.{2 * i}.bias"])
        for i in range(len(sizes))
    ]
    layers.append((state[f"{head}.weight"], state[f"{head}.bias"]))
    return layers


__all__ = [
    "MAX_LAYERS",
    "MAX_UNITS",
    "check_state",
    "expected_shapes",
    "policy_layers",
    "value_layers",
]
