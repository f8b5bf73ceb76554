"""Reading a Stable-Baselines3 ``.zip`` model without running any code from it.

SB3's own loader (``MaskablePPO.load``) unpickles every entry of the archive's ``data`` file
that is not plain JSON (the policy class, the spaces, the schedules, buffers): a crafted file
runs whatever it likes on load. This reader never unpickles. It reads ``data`` as JSON and
rebuilds each serialized entry it knows from the readable fields SB3 writes beside the
pickle, refusing any other entry by name:

- ``policy_class``: only ``MaskableActorCriticPolicy`` (the ``MlpPolicy``), named in the
  readable fields; ``rollout_buffer_class``: only ``MaskableRolloutBuffer``;
- ``observation_space``: a ``Box`` (its shape); ``action_space``: a ``Discrete`` from 0;
- ``lr_schedule``, ``clip_range``: constant schedules (``ConstantSchedule(val=...)``);
- ``_last_obs``, ``_last_episode_starts``, ``_last_original_obs``, ``ep_info_buffer``,
  ``ep_success_buffer``: training leftovers that playing does not need, skipped unread.

The weights come from ``policy.pth`` through ``torch.load(weights_only=True)`` (tensors only)
and are checked as an ``MlpPolicy``'s (``sb3_state``). Sizes are checked from the zip's
directory before anything is decompressed. What it returns plays through ``NumpyPolicy``.

Loading the unsafe way remains possible for a file you made yourself: the agent spec option
``trust_pickle=true`` (``cardarena eval ENV model.zip:trust_pickle=true ...``).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import parse_json

from .sb3_state import check_state, expected_shapes

#: Bounds checked from the zip directory before reading.
MAX_ENTRIES = 32
MAX_DATA_BYTES = 8 * 1024 * 1024
MAX_WEIGHTS_BYTES = 256 * 1024 * 1024

_POLICIES = {("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy")}
_BUFFERS = {("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer")}
_SKIPPED = {
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
}
_CONSTANT = re.compile(r"^ConstantSchedule\(val=([-+0-9.eE]+)\)$")


@dataclass
class SB3Policy:
    """What a safe read of an SB3 ``MaskablePPO`` archive yields."""

    observation_shape: tuple[int, ...]
    actions: int
    net_arch: Any
    state: dict[str, np.ndarray]
    settings: dict[str, Any]


def _class_name(entry: dict[str, Any]) -> tuple[str, str]:
    """(module, class name) of a serialized class, from the readable ``__init__`` repr."""
    init = str(entry.get("__init__", ""))
    match = re.match(r"<function (\w+)\.__init__ at", init)
    return str(entry.get("__module__", "")), match.group(1) if match else "?"


def _constant(entry: dict[str, Any], name: str, where: str) -> float:
    match = _CONSTANT.match(str(entry.get("value_schedule", "")))
    if not match or "FloatSchedule" not in str(entry.get(":type:", "")):
        raise InvalidConfigError(
            f"{where}: {name} is {entry.get(':type:')!r}, not a constant schedule this reader "
            "can rebuild without unpickling"
        )
    return float(match.group(1))


def _rebuild(data: dict[str, Any], where: str) -> dict[str, Any]:
    """``data`` with every serialized entry rebuilt from its readable fields (or skipped)."""
    rebuilt: dict[str, Any] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and ":serialized:" in value):
            rebuilt[key] = value
            continue
        kind = str(value.get(":type:", ""))
        if key in _SKIPPED:
            continue
        if key in ("policy_class", "rollout_buffer_class"):
            allowed = _POLICIES if key == "policy_class" else _BUFFERS
            module, name = _class_name(value)
            if (module, name) not in allowed:
                raise InvalidConfigError(
                    f"{where}: {key} is {module}.{name}; this reader rebuilds only "
                    f"{', '.join(f'{m}.{n}' for m, n in sorted(allowed))}"
                )
            rebuilt[key] = name
        elif key == "observation_space" and kind == "<class 'gymnasium.spaces.box.Box'>":
            shape = value.get("_shape")
            if not isinstance(shape, list) or not all(
                isinstance(n, int) and 0 < n <= 1 << 20 for n in shape
            ):
                raise InvalidConfigError(f"{where}: observation_space has shape {shape!r}")
            rebuilt[key] = tuple(shape)
        elif key == "action_space" and kind == "<class 'gymnasium.spaces.discrete.Discrete'>":
            n, start = str(value.get("n", "")), str(value.get("start", "0"))
            if not n.isdecimal() or len(n) > 6 or start != "0" or int(n) < 1:
                raise InvalidConfigError(
                    f"{where}: action_space Discrete(n={n!r}, start={start!r}) is not "
                    "Discrete(n) from 0"
                )
            rebuilt[key] = int(n)
        elif key in ("lr_schedule", "clip_range"):
            rebuilt[key] = _constant(value, key, where)
        else:
            raise InvalidConfigError(
                f"{where}: entry {key!r} ({kind}) can only be read by unpickling it; refused "
                "(load a file you made yourself with the spec option trust_pickle=true)"
            )
    return rebuilt


def read_sb3_zip(path: str | Path) -> SB3Policy:
    """Read ``path`` safely; ``InvalidConfigError`` names whatever is refused."""
    path = Path(path)
    where = f"saved model {str(path)!r}"
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        raise InvalidConfigError(f"{where} is not a readable .zip ({error})") from None
    with archive:
        infos = {info.filename: info for info in archive.infolist()}
        if len(infos) > MAX_ENTRIES:
            raise InvalidConfigError(f"{where} has {len(infos)} entries; at most {MAX_ENTRIES}")
        for name, limit in (("data", MAX_DATA_BYTES), ("policy.pth", MAX_WEIGHTS_BYTES)):
            if name not in infos:
                raise InvalidConfigError(f"{where} has no {name!r}: not an SB3 model")
            if infos[name].file_size > limit:
                raise InvalidConfigError(
                    f"{where}: {name} is {infos[name].file_size:,} bytes; at most {limit:,}"
                )
        try:
            text = archive.read("data").decode("utf-8")
            weights = archive.read("policy.pth")
        except (OSError, zipfile.BadZipFile, UnicodeDecodeError, EOFError) as error:
            raise InvalidConfigError(f"{where} is corrupt ({error})") from None
    data = parse_json(text, f"{where}, data")
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{where}: data is not a JSON object")
    settings = _rebuild(data, where)
    if settings.get("policy_class") != "MaskableActorCriticPolicy":
        raise InvalidConfigError(f"{where}: not a MaskablePPO model (no policy_class)")
    if "observation_space" not in settings or "action_space" not in settings:
        raise InvalidConfigError(f"{where}: no observation or action space")
    kwargs = settings.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict) or set(kwargs) - {"net_arch"}:
        raise InvalidConfigError(
            f"{where}: policy_kwargs {kwargs!r} other than net_arch are not supported"
        )
    net_arch = kwargs.get("net_arch", [64, 64])
    shape = settings["observation_space"]
    if len(shape) != 1:
        raise InvalidConfigError(f"{where}: observation shape {shape} is not flat")
    shapes = expected_shapes(shape[0], net_arch, settings["action_space"], where)
    state = check_state(_load_weights(weights, where), shapes, where)
    return SB3Policy(shape, settings["action_space"], net_arch, state, settings)


def _load_weights(payload: bytes, where: str) -> dict[str, np.ndarray]:
    try:
        import torch
    except ImportError as missing:
        raise InvalidConfigError(
            f"reading {where} needs torch (the 'train' extra; {missing.name} is missing)"
        ) from missing
    try:
        state = torch.load(io.BytesIO(payload), map_location="cpu", weights_only=True)
    except Exception as error:  # torch's unpickler refusing a non-tensor, or a torn file
        raise InvalidConfigError(
            f"{where}: policy.pth is not a plain tensor file ({str(error).splitlines()[0]})"
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise InvalidConfigError(f"{where}: policy.pth is not a state dict of tensors")
    return {
        key: (value.detach().cpu().float() if value.is_floating_point() else value).numpy()
        for key, value in state.items()
    }


__all__ = ["SB3Policy", "read_sb3_zip"]
