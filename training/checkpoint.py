"""Training checkpoints: a folder that says everything needed to resume or to play a model.

A checkpoint is a **folder** (not one file) so each part keeps its natural format and can be
inspected with ordinary tools::

    ckpt/
      model.zip     the SB3 model (``model.save``), loaded back with ``MaskablePPO.load``
      scaler.npz    the ObservationScaler's ``offset`` and ``scale`` arrays
      rng.json      RNG state: the bridge's numpy bit-generator state, torch's RNG state
      meta.json     format number, env spec (id with version suffix, config), package
                    version, training step, spaces, opponent pool, model checksum

``meta.json`` is written last, so a folder without it is never a complete checkpoint.
``save_checkpoint`` writes into a temporary sibling folder, fsyncs it, and only then renames it
into place; an existing checkpoint at the same path is replaced only once the new one is
complete (moved aside, the new one renamed in, the old one deleted). If a crash hits between
those two renames, the next ``load_checkpoint`` or ``save_checkpoint`` puts the previous
checkpoint back. One writer per checkpoint path.

``load_checkpoint(path, expect_env=...)`` raises ``InvalidConfigError`` for a missing path, a
corrupt ``meta.json`` or model, another format number, another env id or version, different
observation/action spaces, or a scaler that does not match the env's observation Box.

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
from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, ObservationScaler

from .records import package_version

FORMAT = 1
META = "meta.json"
MODEL = "model.zip"
SCALER = "scaler.npz"
RNG = "rng.json"


@dataclass
class Checkpoint:
    """What ``load_checkpoint`` returns."""

    model: Any
    env_spec: EnvSpec
    scaler: ObservationScaler
    step: int
    rng_state: dict[str, Any] | None = None
    opponents: list[str] = field(default_factory=list)
    package_version: str = ""
    path: Path | None = None


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
    if isinstance(env_spec, Mapping) and "name" in env_spec:
        return EnvSpec(str(env_spec["name"]), dict(env_spec.get("config") or {}))
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
    return sorted(
        path.parent.glob(f".{path.name}.{kind}-*"), key=lambda p: p.stat().st_mtime, reverse=True
    )


def _recover(path: Path) -> None:
    """Undo a save that crashed between moving the old checkpoint aside and renaming the new
    one in: put the previous checkpoint back."""
    if path.exists():
        return
    for old in _siblings(path, "old"):
        if is_checkpoint(old):
            os.replace(old, path)
            _fsync_dir(path.parent)
            return


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


def _unjson_rng(data: dict[str, Any] | None) -> dict[str, Any] | None:
    if data is None:
        return None
    out = dict(data)
    torch_state = out.get("torch")
    if isinstance(torch_state, dict) and "base64" in torch_state:
        raw = base64.b64decode(torch_state["base64"])
        try:
            out["torch"] = _as_torch_state(raw)
        except ImportError:
            out["torch"] = raw
    return out


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

    ``env_spec``: the env the model was trained in (``EnvSpec``; a bare env name means the
    default config). ``scaler``: the bridge's ``ObservationScaler``. ``rng_state``: see
    ``capture_rng_state``. ``opponents``: the opponent pool as agent specs / checkpoint paths.
    """
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
    path.parent.mkdir(parents=True, exist_ok=True)
    _recover(path)
    for stale in _siblings(path, "tmp"):  # left by a save that was killed
        shutil.rmtree(stale, ignore_errors=True)
    tmp = path.parent / f".{path.name}.tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    try:
        model.save(tmp / MODEL)
        np.savez(tmp / SCALER, offset=scaler.offset, scale=scaler.scale)
        (tmp / RNG).write_text(json.dumps(_json_rng(rng_state)))
        meta = {
            "format": FORMAT,
            "env": {"name": spec.name, "config": spec.config},
            "package_version": package_version(),
            "algorithm": type(model).__name__,
            "step": int(step),
            "observation_shape": list(box.shape),
            "actions": actions,
            "opponents": [str(opponent) for opponent in opponents],
            "files": {MODEL: _sha256(tmp / MODEL)},
        }
        for name in (MODEL, SCALER, RNG):
            _fsync_file(tmp / name)
        with open(tmp / META, "w") as handle:
            json.dump(meta, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_dir(tmp)
        old = path.parent / f".{path.name}.old-{uuid.uuid4().hex}"
        if path.exists():
            os.replace(path, old)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return path


def read_meta(path: str | Path) -> dict[str, Any]:
    """A checkpoint's ``meta.json``, checked for the format number."""
    path = Path(path)
    _recover(path)
    if not path.exists():
        raise InvalidConfigError(f"no checkpoint at {str(path)!r}")
    if not path.is_dir():
        raise InvalidConfigError(f"{str(path)!r} is not a checkpoint folder")
    try:
        meta = json.loads((path / META).read_text())
    except FileNotFoundError as error:
        raise InvalidConfigError(f"{str(path)!r} is not a checkpoint: no {META}") from error
    except (OSError, ValueError) as error:
        raise InvalidConfigError(f"checkpoint {str(path)!r}: corrupt {META}: {error}") from error
    if not isinstance(meta, dict):
        raise InvalidConfigError(f"checkpoint {str(path)!r}: corrupt {META}: not an object")
    if meta.get("format") != FORMAT:
        raise InvalidConfigError(
            f"checkpoint {str(path)!r} has format {meta.get('format')!r}; this cardarena "
            f"({package_version()}) reads format {FORMAT}"
        )
    for key in ("env", "step", "files", "observation_shape", "actions"):
        if key not in meta:
            raise InvalidConfigError(f"checkpoint {str(path)!r}: corrupt {META}: no {key!r}")
    return meta


def _load_model(path: Path, algorithm: str) -> Any:
    try:
        import sb3_contrib
        import stable_baselines3
    except ImportError as missing:
        raise InvalidConfigError(
            f"loading checkpoint {str(path)!r} needs the 'train' extra ({missing.name} is missing)"
        ) from missing
    cls = getattr(sb3_contrib, algorithm, None) or getattr(stable_baselines3, algorithm, None)
    if cls is None or not hasattr(cls, "load"):
        raise InvalidConfigError(f"checkpoint {str(path)!r}: unknown algorithm {algorithm!r}")
    try:
        return cls.load(path, device="cpu")
    except Exception as error:
        raise InvalidConfigError(
            f"checkpoint {str(path.parent)!r}: cannot load {MODEL} as {algorithm}: {error}"
        ) from error


def load_checkpoint(
    path: str | Path, expect_env: EnvSpec | str | Mapping[str, Any] | None = None
) -> Checkpoint:
    """Read the checkpoint folder at ``path``.

    ``expect_env``: the env the checkpoint is about to be used in; another env id or version,
    or other observation/action spaces or observation bounds, raise ``InvalidConfigError``.
    """
    path = Path(path)
    meta = read_meta(path)
    where = f"checkpoint {str(path)!r}"
    try:
        spec = _env_spec(meta["env"])
        step = int(meta["step"])
        shape = tuple(int(n) for n in meta["observation_shape"])
        actions = int(meta["actions"])
        opponents = [str(o) for o in meta.get("opponents", [])]
        algorithm = str(meta.get("algorithm", "MaskablePPO"))
        checksum = meta["files"][MODEL]
    except (InvalidConfigError, TypeError, ValueError, KeyError) as error:
        raise InvalidConfigError(f"{where}: corrupt {META}: {error}") from error
    model_file = path / MODEL
    if not model_file.is_file():
        raise InvalidConfigError(f"{where}: {MODEL} is missing")
    if _sha256(model_file) != checksum:
        raise InvalidConfigError(f"{where}: {MODEL} is corrupt (checksum does not match)")
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
    try:
        with np.load(path / SCALER) as arrays:
            offset, scale = np.asarray(arrays["offset"]), np.asarray(arrays["scale"])
    except Exception as error:
        raise InvalidConfigError(f"{where}: corrupt {SCALER}: {error}") from error
    scaler = ObservationScaler(box)
    if not (np.array_equal(offset, scaler.offset) and np.array_equal(scale, scaler.scale)):
        raise InvalidConfigError(
            f"{where}: the saved observation scaler does not match the observation Box of "
            f"{target.name} with {target.config} (other bounds than in training)"
        )
    try:
        rng_state = _unjson_rng(json.loads((path / RNG).read_text()))
    except FileNotFoundError:
        rng_state = None
    except (OSError, ValueError) as error:
        raise InvalidConfigError(f"{where}: corrupt {RNG}: {error}") from error
    model = _load_model(model_file, algorithm)
    trained_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
    trained_actions = int(getattr(model.action_space, "n", -1))
    if trained_shape != shape or trained_actions != actions:
        raise InvalidConfigError(
            f"{where}: the model has observations {trained_shape} and Discrete("
            f"{trained_actions}) actions, but {META} says {shape} and Discrete({actions})"
        )
    return Checkpoint(
        model=model,
        env_spec=spec,
        scaler=scaler,
        step=step,
        rng_state=rng_state,
        opponents=opponents,
        package_version=str(meta.get("package_version", "")),
        path=path,
    )


__all__ = [
    "FORMAT",
    "Checkpoint",
    "capture_rng_state",
    "is_checkpoint",
    "load_checkpoint",
    "read_meta",
    "restore_rng_state",
    "save_checkpoint",
]
