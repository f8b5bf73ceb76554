"""A trained SB3 (sb3-contrib MaskablePPO) policy as an ``Agent``.

Observations are scaled by the same ``ObservationScaler`` that
``cardarena.training.SingleAgentEnv`` used in training (built from the env's observation Box),
so a model plays the same game it learned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from cardarena.envs.core import InvalidConfigError, ObservationScaler

from .base import BaseAgent, EnvSpec, Observation, legal_actions


class MaskablePolicyAgent:
    """Acts with ``model.predict(..., action_masks=...)``; the mask keeps it legal."""

    def __init__(
        self,
        model: Any,
        scaler: ObservationScaler | spaces.Box,
        deterministic: bool = True,
    ) -> None:
        """``scaler``: the bridge's ``ObservationScaler`` (``SingleAgentEnv.scaler``), or the
        env's observation Box, from which the identical scaler is built."""
        self.model = model
        self.scaler = scaler if isinstance(scaler, ObservationScaler) else ObservationScaler(scaler)
        self.deterministic = deterministic

    def act(self, observation: Observation) -> int:
        legal_actions(observation)
        action, _ = self.model.predict(
            self.scaler(observation["observation"]),
            action_masks=observation["action_mask"].astype(bool),
            deterministic=self.deterministic,
        )
        return int(np.asarray(action).reshape(()))


#: Policies loaded in this process, by file, file version, env and determinism.
_LOADED: dict[tuple[Any, ...], MaskablePolicyAgent] = {}


class _LoadedPolicyAgent(BaseAgent):
    """A policy loaded from disk on the first ``start_game`` (when the env is known) and kept
    while the env stays the same; subclasses say how to load it (``_load``)."""

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True):
        super().__init__(seed)
        self.path = Path(path)
        self.spec = str(path)
        self.deterministic = deterministic
        self._policy: MaskablePolicyAgent | None = None
        self._for: EnvSpec | None = None

    def _load(self, env_spec: EnvSpec) -> MaskablePolicyAgent:
        raise NotImplementedError

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        if self._policy is None or self._for != env_spec:
            self._policy = self._cached_load(env_spec)
            self._for = env_spec

    def _cached_load(self, env_spec: EnvSpec) -> MaskablePolicyAgent:
        """Load once per process per file version and env: tournaments build fresh agents
        for every chunk of games and every seat, and loading a model costs far more than a
        game. The policy is read-only in play, so instances may share it."""
        key = (
            type(self).__name__,
            str(self.path.resolve()),
            self.path.stat().st_mtime_ns,
            env_spec.name,
            json.dumps(env_spec.config, sort_keys=True, default=str),
            self.deterministic,
        )
        policy = _LOADED.get(key)
        if policy is None:
            policy = _LOADED[key] = self._load(env_spec)
        return policy

    def act(self, observation: Observation) -> int:
        if self._policy is None:
            raise RuntimeError(f"{self.spec!r}: start_game() must come before act()")
        return self._policy.act(observation)


class SavedModelAgent(_LoadedPolicyAgent):
    """A MaskablePPO model saved by SB3 (``model.save("x.zip")``), named by its path as an
    agent spec (``cardarena eval ENV x.zip random``).

    The model is loaded on the first ``start_game``, where the env is known: the observation
    scaler is built from that env's Box and the model's observation and action spaces must
    match the env's, else ``InvalidConfigError`` says which differs.
    """

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True):
        super().__init__(path, seed, deterministic)
        if not self.path.is_file():
            raise InvalidConfigError(f"no saved model at {str(self.path)!r}")

    def _load(self, env_spec: EnvSpec) -> MaskablePolicyAgent:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as missing:
            raise InvalidConfigError(
                f"loading {self.spec!r} needs the 'train' extra ({missing.name} is missing)"
            ) from missing
        try:
            model = MaskablePPO.load(self.path, device="cpu")
        except Exception as error:  # a corrupt or foreign file: say which and why
            raise InvalidConfigError(
                f"cannot load {self.spec!r} as a MaskablePPO model: {error}"
            ) from error
        raw = env_spec.make_raw()
        box = raw.observation_space(raw.possible_agents[0])["observation"]
        actions = int(raw.action_space(raw.possible_agents[0]).n)
        trained_actions = int(getattr(model.action_space, "n", -1))
        if model.observation_space.shape != box.shape or trained_actions != actions:
            raise InvalidConfigError(
                f"{self.spec!r} was trained for observations {model.observation_space.shape} "
                f"and Discrete({trained_actions}) actions, but {env_spec.name} with "
                f"{env_spec.config} has {box.shape} and Discrete({actions})"
            )
        return MaskablePolicyAgent(model, box, self.deterministic)


class CheckpointAgent(_LoadedPolicyAgent):
    """A checkpoint folder written by ``cardarena.training.checkpoint.save_checkpoint``, named
    by its path as an agent spec (``cardarena eval ENV path/to/ckpt random``).

    Plays with the checkpoint's model and observation scaler; no space is passed by hand.
    ``start_game`` refuses an env other than the checkpoint's (another id, version or
    observation/action space) with ``InvalidConfigError``.
    """

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True):
        super().__init__(path, seed, deterministic)
        from cardarena.training.checkpoint import read_meta

        read_meta(self.path)  # a missing, corrupt or foreign checkpoint fails here, early

    def _load(self, env_spec: EnvSpec) -> MaskablePolicyAgent:
        from cardarena.training.checkpoint import load_checkpoint

        checkpoint = load_checkpoint(self.path, expect_env=env_spec)
        return MaskablePolicyAgent(checkpoint.model, checkpoint.scaler, self.deterministic)
