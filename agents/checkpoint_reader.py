"""The read side of a training checkpoint folder: what a ``CheckpointAgent`` needs to play
one, with numpy alone (no torch, no SB3, nothing from ``cardarena.training``).

The format (files, checks, the atomic save and its recovery) is described in
``cardarena.training.checkpoint``, which writes checkpoints, rebuilds their models and
re-exports everything here. ``read_checkpoint`` checks every array against the shapes the
settings imply; ``recover`` puts back the previous checkpoint a killed save moved aside.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, ObservationScaler, matching_scaler
from cardarena.envs.core.untrusted import parse_json, read_json, read_text

from .base import EnvSpec
from .numpy_policy import NumpyPolicy
from .safe_npz import load_npz
from .sb3_state import check_state, expected_shapes, policy_layers, value_layers

FORMAT = 2
META = "meta.json"
POLICY = "policy.npz"
OPTIMIZER = "optimizer.npz"
SCALER = "scaler.npz"
RNG = "rng.json"
FILES = (POLICY, OPTIMIZER, SCALER, RNG)
#: Vector PPO's magnet (the KL term's reference network), kept when it has weights.
MAGNET = "magnet.npz"
#: Files a checkpoint has when its ``meta.json`` lists them.
OPTIONAL_FILES = (MAGNET,)
#: Largest array file read from a checkpoint (a 2 x 4096-unit network is ~70 MB).
MAX_ARRAY_FILE_BYTES = 512 * 1024 * 1024
#: The MaskablePPO settings a checkpoint may hold (``training.sb3.model.SETTINGS`` has their
#: defaults; a test keeps the two lists equal).
SETTING_NAMES = (
    "n_steps", "batch_size", "n_epochs", "learning_rate", "gamma", "gae_lambda", "clip_range",
    "ent_coef", "vf_coef", "max_grad_norm", "normalize_advantage", "target_kl", "net_arch",
)  # fmt: skip


def installed_version() -> str:
    """The installed ``cardarena`` version (as ``evaluation.records.package_version``)."""
    try:
        return importlib.metadata.version("cardarena")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@dataclass
class CheckpointData:
    """What ``read_checkpoint`` returns: checked arrays and settings; ``numpy_policy()`` plays
    them with numpy (``cardarena.training.checkpoint.Checkpoint`` adds the SB3 model)."""

    env_spec: EnvSpec
    scaler: ObservationScaler
    step: int
    settings: dict[str, Any]
    network: dict[str, np.ndarray]
    moments: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    param_groups: list[Any] = field(default_factory=list, repr=False)
    n_updates: int = 0
    rng_state: dict[str, Any] | None = None
    opponents: list[str] = field(default_factory=list)
    package_version: str = ""
    path: Path | None = None
    #: The magnet's arrays by SB3 name (``magnet.npz``; None: the run had none to keep).
    magnet: dict[str, np.ndarray] | None = field(default=None, repr=False)
    #: The agent plays by sampling from its policy (``cardarena train --sample``).
    samples: bool = False
    #: ``bounds_digest`` of the Box it was trained on (None: a checkpoint from before it).
    bounds: str | None = None

    @property
    def actions(self) -> int:
        return int(self.network["action_net.bias"].shape[0])

    def numpy_policy(
        self, meta: Mapping[str, Any] | None = None, value: bool = False
    ) -> NumpyPolicy:
        """The acting network as a ``NumpyPolicy`` (numpy alone, no torch); with ``value``
        the value network too."""
        layers = policy_layers(self.network, self.settings["net_arch"], str(self.path))
        values = (
            value_layers(self.network, self.settings["net_arch"], str(self.path)) if value else None
        )
        info = {
            "env": self.env_spec.name,
            "config": self.env_spec.config,
            "observation_shape": list(self.scaler.offset.shape),
            "actions": self.actions,
            "step": self.step,
            **({"samples": True} if self.samples else {}),
            **({"observation_bounds": self.bounds} if self.bounds else {}),
            **(meta or {}),
        }
        return NumpyPolicy(layers, "tanh", self.scaler.offset, self.scaler.scale, info, values)


C = TypeVar("C", bound="CheckpointData")


def _as_torch_state(value: Any) -> Any:
    import torch

    if isinstance(value, (bytes, bytearray)):
        return torch.frombuffer(bytearray(value), dtype=torch.uint8).clone()
    return value


def _env_spec(env_spec: EnvSpec | str | Mapping[str, Any]) -> EnvSpec:
    if isinstance(env_spec, EnvSpec):
        return EnvSpec(env_spec.name, dict(env_spec.config))
    if isinstance(env_spec, str):
        return EnvSpec(env_spec, {})
    if isinstance(env_spec, Mapping) and isinstance(env_spec.get("name"), str):
        config = env_spec.get("config") or {}
        if not isinstance(config, Mapping):
            raise InvalidConfigError(f"env config must be an object, got {config!r}")
        return EnvSpec(str(env_spec["name"]), dict(config))
    raise InvalidConfigError(
        f"env_spec must be an EnvSpec, an env name or {{'name', 'config'}}, got {env_spec!r}"
    )


def _env_spaces(spec: EnvSpec) -> tuple[Any, int]:
    """The env's observation Box and number of actions."""
    if spec.name not in ENVS:
        raise InvalidConfigError(f"unknown env {spec.name!r}; available: {', '.join(sorted(ENVS))}")
    raw = spec.make_raw()
    seat = raw.possible_agents[0]
    return raw.observation_space(seat)["observation"], int(raw.action_space(seat).n)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # platforms that cannot open a directory (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _siblings(path: Path, kind: str) -> list[Path]:
    return sorted(path.parent.glob(f".{path.name}.{kind}-*"))


def is_complete(path: Path) -> bool:
    """Whether ``path`` holds a whole checkpoint: its ``meta.json`` reads, and every file it
    lists is there with its checksum (a copy cut short by a kill is not)."""
    try:
        meta = read_json(path / META, "checkpoint metadata")
        files = meta["files"]
        return isinstance(files, dict) and all(
            isinstance(digest, str) and (path / name).is_file() and _sha256(path / name) == digest
            for name, digest in files.items()
            if name in FILES or name in OPTIONAL_FILES
        )
    except (InvalidConfigError, KeyError, TypeError, OSError):
        return False


def _step_of(path: Path) -> int:
    try:
        return int(read_json(path / META, "checkpoint metadata")["step"])
    except (InvalidConfigError, KeyError, TypeError, ValueError):
        return -1


def recover(path: str | Path) -> None:
    """Clean up after a save that was killed: when ``path`` is missing (the kill came between
    moving the old checkpoint aside and renaming the new one in) the newest *complete* copy
    moved aside is put back; then every leftover copy (moved-aside or half-written) is
    deleted."""
    path = Path(path)
    if not path.parent.is_dir():
        return
    if not path.exists():
        complete = [old for old in _siblings(path, "old") if is_complete(old)]
        if complete:
            os.replace(max(complete, key=_step_of), path)
            _fsync_dir(path.parent)
    if path.exists():
        for stale in _siblings(path, "old") + _siblings(path, "tmp"):
            shutil.rmtree(stale, ignore_errors=True)


def _unjson_rng(data: Any, where: str) -> dict[str, Any] | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InvalidConfigError(f"{where}: corrupt {RNG}: not an object")
    out = dict(data)
    torch_state = out.get("torch")
    if isinstance(torch_state, dict) and "base64" in torch_state:
        try:
            raw = base64.b64decode(str(torch_state["base64"]), validate=True)
        except ValueError as error:
            raise InvalidConfigError(f"{where}: corrupt {RNG}: {error}") from None
        try:
            out["torch"] = _as_torch_state(raw)
        except ImportError:
            out["torch"] = raw
    return out


def _opponents_from(entries: Any, path: Path, where: str) -> list[str]:
    if not isinstance(entries, list):
        raise InvalidConfigError(f"{where}: corrupt {META}: opponents is not a list")
    opponents = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            opponents.append(os.path.normpath(path / entry["path"]))
        elif isinstance(entry, dict) and isinstance(entry.get("spec"), str):
            opponents.append(entry["spec"])
        else:
            raise InvalidConfigError(f"{where}: corrupt {META}: opponent entry {entry!r}")
    return opponents


def _int(value: Any, name: str, where: str, low: int = 0, high: int = 1 << 62) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidConfigError(
            f"{where}: corrupt {META}: {name} is {value!r}, not a whole number in {low}..{high}"
        )
    return value


def checkpoint_folder(path: str | Path) -> Path:
    """``path``, or, when it names a run folder (``cardarena train --out``: no ``meta.json``
    of its own, a ``latest`` checkpoint inside), that run's ``latest``: a run folder is
    accepted wherever its latest checkpoint is meant."""
    path = Path(path)
    latest = path / "latest"
    killed_midway = path.is_dir() and any(path.glob(".latest.old-*"))  # recover() fixes it
    if path.is_dir() and not (path / META).exists() and (latest.is_dir() or killed_midway):
        return latest
    return path


def read_meta(path: str | Path) -> dict[str, Any]:
    """A checkpoint's ``meta.json``, checked for the format number and its fields' types
    (``path`` may name a run folder: ``checkpoint_folder``)."""
    path = checkpoint_folder(path)
    recover(path)
    where = f"checkpoint {str(path)!r}"
    if not path.exists():
        raise InvalidConfigError(f"no checkpoint at {str(path)!r}")
    if not path.is_dir():
        raise InvalidConfigError(f"{str(path)!r} is not a checkpoint folder")
    if not (path / META).is_file():
        raise InvalidConfigError(
            f"{str(path)!r} is not a checkpoint: no {META} (name a checkpoint folder, or a "
            "run folder once its first checkpoint is in latest/)"
        )
    meta = read_json(path / META, "checkpoint metadata")
    if not isinstance(meta, dict):
        raise InvalidConfigError(f"{where}: corrupt {META}: not an object")
    if meta.get("format") == 1:
        raise InvalidConfigError(
            f"{where} has format 1 (an SB3 model.zip, which can only be read by unpickling); "
            f"this cardarena ({installed_version()}) reads format {FORMAT}. Play its model.zip "
            "with the agent spec model.zip:trust_pickle=true if you made it yourself"
        )
    if meta.get("format") != FORMAT:
        raise InvalidConfigError(
            f"{where} has format {meta.get('format')!r}; this cardarena "
            f"({installed_version()}) reads format {FORMAT}"
        )
    for key in ("env", "step", "files", "observation_shape", "actions", "settings"):
        if key not in meta:
            raise InvalidConfigError(f"{where}: corrupt {META}: no {key!r}")
    _int(meta["step"], "step", where)
    _int(meta.get("n_updates", 0), "n_updates", where)
    _int(meta["actions"], "actions", where, 1, 1 << 20)
    shape = meta["observation_shape"]
    if not isinstance(shape, list) or len(shape) != 1:
        raise InvalidConfigError(f"{where}: corrupt {META}: observation_shape {shape!r}")
    _int(shape[0], "observation_shape", where, 1, 1 << 20)
    if not isinstance(meta["settings"], dict) or not isinstance(meta["files"], dict):
        raise InvalidConfigError(f"{where}: corrupt {META}: settings or files not an object")
    if not isinstance(meta.get("observation_bounds", ""), str):
        raise InvalidConfigError(f"{where}: corrupt {META}: observation_bounds is not a string")
    if not isinstance(meta.get("samples", False), bool):
        raise InvalidConfigError(
            f"{where}: corrupt {META}: samples is {meta['samples']!r}; it must be true or false"
        )
    return meta


def _arrays(path: Path, name: str, where: str) -> dict[str, np.ndarray]:
    return load_npz(
        path / name,
        f"{where}: {name}",
        max_file_bytes=MAX_ARRAY_FILE_BYTES,
        max_entries=1024,
        max_array_bytes=MAX_ARRAY_FILE_BYTES,
        max_total_bytes=MAX_ARRAY_FILE_BYTES,
    )


def read_checkpoint(
    path: str | Path,
    expect_env: EnvSpec | str | Mapping[str, Any] | None = None,
    kind: type[C] = CheckpointData,  # type: ignore[assignment]
) -> C:
    """Read the checkpoint folder at ``path`` (no unpickling; numpy alone) as a ``kind``
    (``training.checkpoint.load_checkpoint`` asks for its ``Checkpoint``, which adds the model).

    ``expect_env``: the env the checkpoint is about to be used in; another env id or version,
    or other observation/action spaces or observation bounds, raise ``InvalidConfigError``.
    A run folder means its latest checkpoint (``checkpoint_folder``).
    """
    path = checkpoint_folder(path)
    meta = read_meta(path)
    where = f"checkpoint {str(path)!r}"
    spec = _env_spec(meta["env"])
    shape = (int(meta["observation_shape"][0]),)
    actions = int(meta["actions"])
    for name in files_of(meta):
        if not (path / name).is_file():
            raise InvalidConfigError(f"{where}: {name} is missing")
        if _sha256(path / name) != meta["files"].get(name):
            raise InvalidConfigError(f"{where}: {name} is corrupt (checksum does not match)")
    target = spec if expect_env is None else _env_spec(expect_env)
    if target.name != spec.name:
        game, _, version = spec.name.rpartition("_v")
        other_game, _, other_version = target.name.rpartition("_v")
        what = "version" if game == other_game else "env"
        raise InvalidConfigError(
            f"{where} was trained for {spec.name}, not {target.name} (another {what}: "
            f"{game} v{version} vs {other_game} v{other_version})"
        )
    box, env_actions = _env_spaces(target)
    if tuple(box.shape) != shape or env_actions != actions:
        raise InvalidConfigError(
            f"{where} was trained for observations {shape} and Discrete({actions}) actions "
            f"({spec.name} with {spec.config}), but {target.name} with {target.config} has "
            f"{tuple(box.shape)} and Discrete({env_actions})"
        )
    settings = _checked_settings(meta["settings"], where)
    shapes = expected_shapes(shape[0], settings["net_arch"], actions, where)
    network = check_state(_arrays(path, POLICY, where), shapes, f"{where}: {POLICY}")
    moments = _checked_moments(_arrays(path, OPTIMIZER, where), shapes, where)
    magnet = None
    if MAGNET in meta["files"]:
        magnet = check_state(_arrays(path, MAGNET, where), shapes, f"{where}: {MAGNET}")
    groups = meta.get("optimizer_param_groups") or []
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise InvalidConfigError(f"{where}: corrupt {META}: optimizer_param_groups")
    scaled = _arrays(path, SCALER, where)
    offset, scale = scaled.get("offset", np.empty(0)), scaled.get("scale", np.empty(0))
    scaler = matching_scaler(box, offset, scale, meta.get("observation_bounds"))
    if scaler is None:
        raise InvalidConfigError(
            f"{where}: the saved observation scaler does not match the observation Box of "
            f"{target.name} with {target.config} (other bounds than in training)"
        )
    rng_state = _unjson_rng(parse_json(read_text(path / RNG, "checkpoint RNG state"), where), where)
    return kind(
        env_spec=spec,
        scaler=scaler,
        step=int(meta["step"]),
        settings=settings,
        network=network,
        moments=moments,
        param_groups=groups,
        n_updates=int(meta.get("n_updates", 0)),
        rng_state=rng_state,
        opponents=_opponents_from(meta.get("opponents", []), path, where),
        package_version=str(meta.get("package_version", "")),
        path=path,
        magnet=magnet,
        samples=meta.get("samples", False),
        bounds=meta.get("observation_bounds"),
    )


def files_of(meta: Mapping[str, Any]) -> list[str]:
    """The files of a checkpoint whose ``meta.json`` reads ``meta``: every one of ``FILES``
    and the optional ones it lists."""
    listed = meta.get("files", {})
    return [*FILES, *(name for name in OPTIONAL_FILES if name in listed)]


def _checked_settings(settings: dict[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(settings) - set(SETTING_NAMES))
    if unknown:
        raise InvalidConfigError(f"{where}: corrupt {META}: unknown settings {unknown}")
    for key in ("n_steps", "batch_size", "n_epochs"):
        _int(settings.get(key), key, where, 1, 1 << 24)
    for key in ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef"):
        value = settings.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            raise InvalidConfigError(f"{where}: corrupt {META}: {key} is {value!r}")
    return dict(settings)


def _checked_moments(
    moments: dict[str, np.ndarray], shapes: Mapping[str, tuple[int, ...]], where: str
) -> dict[str, np.ndarray]:
    """Adam's state: for parameter ``i`` (state_dict order) ``i.step`` (a scalar) and
    ``i.exp_avg``/``i.exp_avg_sq`` of the parameter's shape, all finite."""
    by_index = list(shapes.values())
    for name, array in moments.items():
        index, _, key = name.partition(".")
        ok = index.isdecimal() and int(index) < len(by_index)
        expected = () if key == "step" else (by_index[int(index)] if ok else None)
        if not ok or key not in ("step", "exp_avg", "exp_avg_sq") or array.shape != expected:
            raise InvalidConfigError(f"{where}: {OPTIMIZER}: unexpected array {name!r}")
        if array.dtype.kind != "f" or not np.isfinite(array).all():
            raise InvalidConfigError(f"{where}: {OPTIMIZER}: {name} is not finite floats")
    return moments


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a checkpoint's ``meta.json``."""
    return (Path(path) / META).is_file()


__all__ = [
    "FILES",
    "FORMAT",
    "MAGNET",
    "META",
    "OPTIONAL_FILES",
    "CheckpointData",
    "checkpoint_folder",
    "files_of",
    "is_checkpoint",
    "is_complete",
    "read_checkpoint",
    "read_meta",
    "recover",
]
