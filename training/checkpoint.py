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
                     settings (``training.sb3.model.model_settings``), Adam's param groups, the
                     opponent pool, the files' checksums, ``observation_bounds`` (the env
                     Box's ``bounds_digest``, which a capped scaler cannot show), and
                     ``samples: true`` when the agent plays by sampling from its policy
                     (absent: its most likely action)

No pickle anywhere: arrays are read with ``allow_pickle=False`` after their headers (dtype,
shape, size) were checked (``cardarena.agents.safe_npz``), JSON within the limits of
``cardarena.envs.core.untrusted``; the model is rebuilt from the settings
(``training.sb3.model.build_model``) and the arrays put into it. Every array is checked against
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

A checkpoint folder is an agent spec: ``make_agent("path/to/ckpt")``. The read side (what
that agent needs: ``read_meta``, ``read_checkpoint``, ``recover``) lives in
``cardarena.agents.checkpoint_reader`` so that ``agents`` never imports ``training``; this
module writes checkpoints, rebuilds their models, and re-exports the read side.
"""

from __future__ import annotations

import base64
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
from cardarena.agents.checkpoint_reader import (
    FILES,
    FORMAT,
    MAGNET,
    MAX_ARRAY_FILE_BYTES,
    META,
    OPTIMIZER,
    POLICY,
    RNG,
    SCALER,
    CheckpointData,
    _as_torch_state,
    _env_spaces,
    _env_spec,
    _fsync_dir,
    _sha256,
    _siblings,
    checkpoint_folder,
    files_of,
    installed_version,
    is_checkpoint,
    is_complete,
    read_checkpoint,
    read_meta,
    recover,
)
from cardarena.envs.core import (
    InvalidConfigError,
    ObservationScaler,
    bounds_digest,
    known_scalers,
)


@dataclass
class Checkpoint(CheckpointData):
    """What ``load_checkpoint`` returns: checked arrays and settings; ``numpy_policy()`` plays
    them with numpy, ``model`` rebuilds the SB3 model."""

    _model: Any = field(default=None, repr=False)

    @property
    def model(self) -> Any:
        """The MaskablePPO model rebuilt from the settings and arrays (built once; the
        ``train`` extra); it has an env of the checkpoint's spec, one copy."""
        if self._model is None:
            self._model = rebuild_model(self, None)
        return self._model


def rebuild_model(
    checkpoint: CheckpointData,
    vec_env: Any,
    after_update: Any = None,
    seed: int = 0,
    device: str = "cpu",
) -> Any:
    """A MaskablePPO on ``vec_env`` (None: one bridge env of the checkpoint's spec) holding
    the checkpoint's network, optimiser state and counters; ``device`` is not a checkpoint
    setting (a resumed run may choose another)."""
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from .sb3.model import build_model, restore_model_state
        from .single_agent import SingleAgentEnv
    except ImportError as missing:
        raise InvalidConfigError(
            f"rebuilding the model of checkpoint {str(checkpoint.path)!r} needs the 'train' "
            f"extra ({missing.name} is missing)"
        ) from missing
    if vec_env is None:
        spec = checkpoint.env_spec
        vec_env = DummyVecEnv([lambda: SingleAgentEnv(spec.name, env_config=spec.config)])
    model = build_model(
        vec_env, checkpoint.settings, seed=seed, after_update=after_update, device=device
    )
    restore_model_state(
        model, checkpoint.network, checkpoint.moments or None, checkpoint.param_groups or None
    )
    model.num_timesteps = checkpoint.step
    model._n_updates = checkpoint.n_updates
    return model


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


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


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


def save_checkpoint(
    path: str | Path,
    model: Any,
    env_spec: EnvSpec | str | Mapping[str, Any],
    scaler: ObservationScaler,
    step: int,
    rng_state: Mapping[str, Any] | None = None,
    opponents: Iterable[str | Path] = (),
    samples: bool = False,
) -> Path:
    """Write a checkpoint folder at ``path`` atomically and return ``path``.

    ``model``: a ``training.learner.Learner`` (the vector backend's ``VectorPPO``) or a
    MaskablePPO ``MlpPolicy`` model with constant schedules. ``env_spec``: the
    env the model was trained in (``EnvSpec``; a bare env name means the default config).
    ``scaler``: the bridge's ``ObservationScaler``. ``rng_state``: see ``capture_rng_state``.
    ``opponents``: the opponent pool as agent specs / checkpoint paths. ``samples``: the
    agent plays by sampling from its policy (``cardarena train --sample``): the checkpoint
    and what is exported from it play so unless told ``deterministic=true``.
    """
    from .sb3.model import as_learner

    path = Path(path)
    spec = _env_spec(env_spec)
    if not isinstance(scaler, ObservationScaler):
        raise InvalidConfigError(f"scaler must be an ObservationScaler, got {scaler!r}")
    box, actions = _env_spaces(spec)
    if scaler not in known_scalers(box):
        raise InvalidConfigError(
            f"the scaler does not match {spec.name} with {spec.config}'s observation Box"
        )
    try:
        json.dumps(spec.config)
    except TypeError as error:
        raise InvalidConfigError(f"env config {spec.config!r} is not JSON: {error}") from error
    learner = as_learner(model).learner_state()
    network, moments, magnet = learner.network, learner.moments, learner.magnet
    names = [*FILES, MAGNET] if magnet is not None else list(FILES)
    tmp = _fresh_tmp(path)
    try:
        np.savez(tmp / POLICY, **network)  # type: ignore[arg-type]
        np.savez(tmp / OPTIMIZER, **moments)  # type: ignore[arg-type]
        if magnet is not None:
            np.savez(tmp / MAGNET, **magnet)  # type: ignore[arg-type]
        np.savez(tmp / SCALER, offset=scaler.offset, scale=scaler.scale)
        (tmp / RNG).write_text(json.dumps(_json_rng(rng_state)))
        meta = {
            "format": FORMAT,
            "env": {"name": spec.name, "config": spec.config},
            "package_version": installed_version(),
            "algorithm": "MaskablePPO",
            "step": int(step),
            "n_updates": learner.n_updates,
            "observation_shape": list(box.shape),
            "actions": actions,
            "settings": learner.settings,
            "optimizer_param_groups": learner.groups,
            "opponents": _opponent_entries(opponents, path),
            "files": {name: _sha256(tmp / name) for name in names},
            "observation_bounds": bounds_digest(box),
        }
        if samples:
            meta["samples"] = True
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return _install(tmp, path, meta)


def copy_checkpoint(source: str | Path, path: str | Path) -> Path:
    """Copy the complete checkpoint at ``source`` to ``path``, atomically as ``save_checkpoint``
    writes (a resume uses it to bring ``latest`` up to a newer ``checkpoints/step_N``)."""
    folder, path = checkpoint_folder(source), Path(path)
    meta = dict(read_meta(folder))  # a complete checkpoint, or a precise error
    # Snapshot opponents are stored relative to their checkpoint folder: re-anchor them.
    meta["opponents"] = [
        {"path": os.path.relpath(os.path.normpath(folder.resolve() / entry["path"]),
                                 path.resolve())}
        if isinstance(entry, dict) and isinstance(entry.get("path"), str)
        else entry
        for entry in meta.get("opponents", [])
    ]  # fmt: skip
    tmp = _fresh_tmp(path)
    try:
        for name in files_of(meta):
            shutil.copyfile(folder / name, tmp / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return _install(tmp, path, meta)


def _fresh_tmp(path: Path) -> Path:
    """An empty temporary sibling of ``path`` to write a checkpoint into, once a killed
    save's leftovers are recovered or removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    recover(path)
    for stale in _siblings(path, "tmp"):  # left by a save that was killed
        shutil.rmtree(stale, ignore_errors=True)
    tmp = path.parent / f".{path.name}.tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    return tmp


def _install(tmp: Path, path: Path, meta: Mapping[str, Any]) -> Path:
    """Sync ``tmp``'s files, write ``meta`` last (a folder without it is no checkpoint), and
    rename ``tmp`` into ``path``: an old checkpoint there is moved aside first and deleted
    only once the new one is in place (``recover`` undoes a kill between)."""
    old = path.parent / f".{path.name}.old-{uuid.uuid4().hex}"
    try:
        for name in files_of(meta):
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


def load_checkpoint(
    path: str | Path, expect_env: EnvSpec | str | Mapping[str, Any] | None = None
) -> Checkpoint:
    """Read the checkpoint folder at ``path`` (no unpickling; numpy alone).

    ``expect_env``: the env the checkpoint is about to be used in; another env id or version,
    or other observation/action spaces or observation bounds, raise ``InvalidConfigError``.
    """
    return read_checkpoint(path, expect_env, Checkpoint)


__all__ = [
    "FILES",
    "FORMAT",
    "MAGNET",
    "MAX_ARRAY_FILE_BYTES",
    "META",
    "OPTIMIZER",
    "POLICY",
    "RNG",
    "SCALER",
    "Checkpoint",
    "CheckpointData",
    "capture_rng_state",
    "copy_checkpoint",
    "is_checkpoint",
    "is_complete",
    "load_checkpoint",
    "read_meta",
    "rebuild_model",
    "recover",
    "restore_rng_state",
    "save_checkpoint",
]
