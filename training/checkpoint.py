"""Training checkpoints: a folder that says everything needed to resume or to play a model,
and nothing that runs code when read.

A checkpoint is a **folder** of plain data, so each part keeps a natural format, can be
inspected with ordinary tools, and is safe to take from somebody else::

    ckpt/
      policy.npz     the network: every array of the policy's state_dict(), by its name
      optimizer.npz  Adam's moments per parameter (``<index>.exp_avg`` ...)
      scaler.npz     the ObservationScaler's ``offset`` and ``scale`` arrays
      rng.json       RNG states: the bridge's numpy bit generators, torch's RNG state
      meta.json      format number, env spec (id with version suffix, config), package
                     version, training step and PPO update count, spaces, the MaskablePPO
                     settings (``training.ppo.model_settings``), Adam's param groups, the
                     opponent pool, the files' checksums

No pickle anywhere: arrays are read with ``allow_pickle=False`` after their headers (dtype,
shape, size) were checked (``cardarena.agents.safe_npz``), JSON within the limits of
``cardarena.envs.core.untrusted``; the model is rebuilt from the settings
(``training.ppo.build_model``) and the arrays put into it. Every array is checked against
the shapes the settings imply, and must be finite. (The checksums in ``meta.json`` catch
accidents, a torn copy; they are no signature, since whoever edits a file can edit them too.
Safety comes from the format, which has nothing to execute.)

Paths to other checkpoints (self-play snapshots in the opponent pool) are stored relative to
the checkpoint folder, so a run folder can be moved or copied and still resumes and plays
its own snapshots.

``meta.json`` is written last, so a folder without it is never a complete checkpoint.
``save_checkpoint`` writes into a temporary sibling folder, fsyncs it, and only then renames it
into place; an existing checkpoint at the same path is replaced only once the new one is
complete (moved aside, the new one renamed in, the old one deleted). If a crash hits between
those two renames, the next read or save puts the previous checkpoint back, only if it is
complete (every file present with its checksum); copies left by a killed save or clean-up
are deleted. One writer per checkpoint path (``cardarena train`` holds a lock on its run).

``load_checkpoint(path, expect_env=...)`` raises ``InvalidConfigError`` for a missing path, a
corrupt ``meta.json`` or array file, another format number, another env id or version,
different observation/action spaces, or a scaler that does not match the env's observation
Box. Playing a checkpoint (``Checkpoint.numpy_policy``, the agent spec) needs numpy alone;
``Checkpoint.model`` rebuilds the MaskablePPO model (the ``train`` extra).

A checkpoint folder is an agent spec: ``make_agent("path/to/ckpt")``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents.base import EnvSpec
from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.agents.safe_npz import load_npz
from cardarena.agents.sb3_state import check_state, expected_shapes, policy_layers
from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.envs.core.untrusted import parse_json, read_json, read_text

from .records import package_version

FORMAT = 2
META = "meta.json"
POLICY = "policy.npz"
OPTIMIZER = "optimizer.npz"
SCALER = "scaler.npz"
RNG = "rng.json"
FILES = (POLICY, OPTIMIZER, SCALER, RNG)
#: Largest array file read from a checkpoint (a 2 x 4096-unit network is ~70 MB).
MAX_ARRAY_FILE_BYTES = 512 * 1024 * 1024


@dataclass
class Checkpoint:
    """What ``load_checkpoint`` returns: checked arrays and settings; ``numpy_policy()`` plays
    them with numpy, ``model`` rebuilds the SB3 model."""

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
    _model: Any = field(default=None, repr=False)

    @property
    def actions(self) -> int:
        return int(self.network["action_net.bias"].shape[0])

    def numpy_policy(self, meta: Mapping[str, Any] | None = None) -> NumpyPolicy:
        """The acting network as a ``NumpyPolicy`` (numpy alone, no torch)."""
        layers = policy_layers(self.network, self.settings["net_arch"], str(self.path))
        info = {
            "env": self.env_spec.name,
            "config": self.env_spec.config,
            "observation_shape": list(self.scaler.offset.shape),
            "actions": self.actions,
            "step": self.step,
            **(meta or {}),
        }
        return NumpyPolicy(layers, "tanh", self.scaler.offset, self.scaler.scale, info)

    @property
    def model(self) -> Any:
        """The MaskablePPO model rebuilt from the settings and arrays (built once; the
        ``train`` extra); it has an env of the checkpoint's spec, one copy."""
        if self._model is None:
            self._model = rebuild_model(self, None)
        return self._model


def rebuild_model(
    checkpoint: Checkpoint, vec_env: Any, after_update: Any = None, seed: int = 0
) -> Any:
    """A MaskablePPO on ``vec_env`` (None: one bridge env of the checkpoint's spec) holding
    the checkpoint's network, optimiser state and counters."""
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from .ppo import build_model, restore_model_state
        from .single_agent import SingleAgentEnv
    except ImportError as missing:
        raise InvalidConfigError(
            f"rebuilding the model of checkpoint {str(checkpoint.path)!r} needs the 'train' "
            f"extra ({missing.name} is missing)"
        ) from missing
    if vec_env is None:
        spec = checkpoint.env_spec
        vec_env = DummyVecEnv([lambda: SingleAgentEnv(spec.name, env_config=spec.config)])
    model = build_model(vec_env, checkpoint.settings, seed=seed, after_update=after_update)
    restore_model_state(
        model, checkpoint.network, checkpoint.moments or None, checkpoint.param_groups or None
    )
    model.num_timesteps = checkpoint.step
    model._n_updates = checkpoint.n_updates
    return model


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a checkpoint's ``meta.json``."""
    return (Path(path) / META).is_file()


def capture_rng_state(np_random: np.random.Generator | None = None) -> dict[str, Any]:
    """``{"numpy": bit-generator state of np_random (e.g. the bridge's), "torch": torch's CPU
    RNG state}``; either is ``None`` when unavailable."""
    state: dict[str, Any] = {"numpy": None, "torch": None}
    if np_random is not None:
        state["numpy"] = np_random.bit_generator.state
    try:
        import torch
    except ImportError:
        pass
    else:
        state["torch"] = torch.get_rng_state()
    return state


def restore_rng_state(
    rng_state: Mapping[str, Any] | None, np_random: np.random.Generator | None = None
) -> None:
    """Put back what ``capture_rng_state`` took (into ``np_random`` and torch)."""
    if not rng_state:
        return
    if np_random is not None and rng_state.get("numpy") is not None:
        np_random.bit_generator.state = rng_state["numpy"]
    if rng_state.get("torch") is not None:
        import torch

        torch.set_rng_state(_as_torch_state(rng_state["torch"]))


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


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


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
            if name in FILES
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


def _json_rng(rng_state: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if rng_state is None:
        return None
    out: dict[str, Any] = {}
    for key, value in rng_state.items():
        if key == "torch" and value is not None:
            raw = bytes(np.asarray(value.numpy() if hasattr(value, "numpy") else value, np.uint8))
            out[key] = {"base64": base64.b64encode(raw).decode("ascii")}
        else:
            out[key] = value
    return out


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


def _opponent_entries(opponents: Iterable[str | Path], path: Path) -> list[dict[str, str]]:
    """Agent specs stay as they are; checkpoint folders (snapshots) become paths relative to
    the checkpoint, so the run can move."""
    entries = []
    for opponent in opponents:
        if is_checkpoint(opponent):
            entries.append({"path": os.path.relpath(Path(opponent).resolve(), path.resolve())})
        else:
            entries.append({"spec": str(opponent)})
    return entries


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


def save_checkpoint(
    path: str | Path,
    model: Any,
    env_spec: EnvSpec | str | Mapping[str, Any],
    scaler: ObservationScaler,
    step: int,
    rng_state: Mapping[str, Any] | None = None,
    opponents: Iterable[str | Path] = (),
) -> Path:
    """Write a checkpoint folder at ``path`` atomically and return ``path``.

    ``model``: a MaskablePPO ``MlpPolicy`` model with constant schedules. ``env_spec``: the
    env the model was trained in (``EnvSpec``; a bare env name means the default config).
    ``scaler``: the bridge's ``ObservationScaler``. ``rng_state``: see ``capture_rng_state``.
    ``opponents``: the opponent pool as agent specs / checkpoint paths.
    """
    from .ppo import model_settings, model_state

    path = Path(path)
    spec = _env_spec(env_spec)
    if not isinstance(scaler, ObservationScaler):
        raise InvalidConfigError(f"scaler must be an ObservationScaler, got {scaler!r}")
    box, actions = _env_spaces(spec)
    if scaler != ObservationScaler(box):
        raise InvalidConfigError(
            f"the scaler does not match {spec.name} with {spec.config}'s observation Box"
        )
    try:
        json.dumps(spec.config)
    except TypeError as error:
        raise InvalidConfigError(f"env config {spec.config!r} is not JSON: {error}") from error
    settings = model_settings(model)
    network, moments, groups = model_state(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    recover(path)
    for stale in _siblings(path, "tmp"):  # left by a save that was killed
        shutil.rmtree(stale, ignore_errors=True)
    tmp = path.parent / f".{path.name}.tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    old = path.parent / f".{path.name}.old-{uuid.uuid4().hex}"
    try:
        np.savez(tmp / POLICY, **network)  # type: ignore[arg-type]
        np.savez(tmp / OPTIMIZER, **moments)  # type: ignore[arg-type]
        np.savez(tmp / SCALER, offset=scaler.offset, scale=scaler.scale)
        (tmp / RNG).write_text(json.dumps(_json_rng(rng_state)))
        meta = {
            "format": FORMAT,
            "env": {"name": spec.name, "config": spec.config},
            "package_version": package_version(),
            "algorithm": "MaskablePPO",
            "step": int(step),
            "n_updates": int(getattr(model, "_n_updates", 0)),
            "observation_shape": list(box.shape),
            "actions": actions,
            "settings": settings,
            "optimizer_param_groups": groups,
            "opponents": _opponent_entries(opponents, path),
            "files": {name: _sha256(tmp / name) for name in FILES},
        }
        for name in FILES:
            _fsync_file(tmp / name)
        with open(tmp / META, "w") as handle:
            json.dump(meta, handle, indent=2, allow_nan=False)
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_dir(tmp)
        if path.exists():
            os.replace(path, old)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return path


def _int(value: Any, name: str, where: str, low: int = 0, high: int = 1 << 62) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidConfigError(
            f"{where}: corrupt {META}: {name} is {value!r}, not a whole number in {low}..{high}"
        )
    return value


def read_meta(path: str | Path) -> dict[str, Any]:
    """A checkpoint's ``meta.json``, checked for the format number and its fields' types."""
    path = Path(path)
    recover(path)
    where = f"checkpoint {str(path)!r}"
    if not path.exists():
        raise InvalidConfigError(f"no checkpoint at {str(path)!r}")
    if not path.is_dir():
        raise InvalidConfigError(f"{str(path)!r} is not a checkpoint folder")
    if not (path / META).is_file():
        raise InvalidConfigError(f"{str(path)!r} is not a checkpoint: no {META}")
    meta = read_json(path / META, "checkpoint metadata")
    if not isinstance(meta, dict):
        raise InvalidConfigError(f"{where}: corrupt {META}: not an object")
    if meta.get("format") == 1:
        raise InvalidConfigError(
            f"{where} has format 1 (an SB3 model.zip, which can only be read by unpickling); "
            f"this cardarena ({package_version()}) reads format {FORMAT}. Play its model.zip "
            "with the agent spec model.zip:trust_pickle=true if you made it yourself"
        )
    if meta.get("format") != FORMAT:
        raise InvalidConfigError(
            f"{where} has format {meta.get('format')!r}; this cardarena "
            f"({package_version()}) reads format {FORMAT}"
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


def load_checkpoint(
    path: str | Path, expect_env: EnvSpec | str | Mapping[str, Any] | None = None
) -> Checkpoint:
    """Read the checkpoint folder at ``path`` (no unpickling; numpy alone).

    ``expect_env``: the env the checkpoint is about to be used in; another env id or version,
    or other observation/action spaces or observation bounds, raise ``InvalidConfigError``.
    """
    path = Path(path)
    meta = read_meta(path)
    where = f"checkpoint {str(path)!r}"
    spec = _env_spec(meta["env"])
    shape = (int(meta["observation_shape"][0]),)
    actions = int(meta["actions"])
    for name in FILES:
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
    groups = meta.get("optimizer_param_groups") or []
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise InvalidConfigError(f"{where}: corrupt {META}: optimizer_param_groups")
    scaled = _arrays(path, SCALER, where)
    scaler = ObservationScaler(box)
    offset, scale = scaled.get("offset", np.empty(0)), scaled.get("scale", np.empty(0))
    if not (np.array_equal(offset, scaler.offset) and np.array_equal(scale, scaler.scale)):
        raise InvalidConfigError(
            f"{where}: the saved observation scaler does not match the observation Box of "
            f"{target.name} with {target.config} (other bounds than in training)"
        )
    rng_state = _unjson_rng(parse_json(read_text(path / RNG, "checkpoint RNG state"), where), where)
    return Checkpoint(
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
    )


def _checked_settings(settings: dict[str, Any], where: str) -> dict[str, Any]:
    from .ppo import SETTINGS

    unknown = sorted(set(settings) - set(SETTINGS))
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


__all__ = [
    "FORMAT",
    "Checkpoint",
    "capture_rng_state",
    "is_checkpoint",
    "is_complete",
    "load_checkpoint",
    "read_meta",
    "rebuild_model",
    "recover",
    "restore_rng_state",
    "save_checkpoint",
]
