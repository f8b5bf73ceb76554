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
from .numpy_policy import NumpyPolicy, from_sb3_policy


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


#: Policies loaded in this process, by file, file version, env and determinism: the SB3 agent
#: and, when its network is an exportable MlpPolicy, the same network as a ``NumpyPolicy``.
_LOADED: dict[tuple[Any, ...], tuple[MaskablePolicyAgent, NumpyPolicy | None]] = {}


def _as_numpy(agent: MaskablePolicyAgent) -> NumpyPolicy | None:
    """The agent's network as numpy, or None when it is not a plain MlpPolicy. One forward pass
    of a small MLP in numpy costs a fraction of ``model.predict`` (which converts to torch and
    back for every single observation), and league games and tournaments play loaded models
    one decision at a time; the greedy actions are the same (tests/agents/test_pretrained.py)."""
    try:
        return from_sb3_policy(agent.model.policy, agent.scaler, {})
    except (AttributeError, InvalidConfigError, ImportError, TypeError):
        return None


class _LoadedPolicyAgent(BaseAgent):
    """A policy loaded from disk on the first ``start_game`` (when the env is known) and kept
    while the env stays the same; subclasses say how to load it (``_load``)."""

    def __init__(self, path: str | Path, seed: int | None = None, deterministic: bool = True):
        super().__init__(seed)
        self.path = Path(path)
        self.spec = str(path)
        self.deterministic = deterministic
        self._policy: MaskablePolicyAgent | None = None
        self._numpy: NumpyPolicy | None = None
        self._for: EnvSpec | None = None

    def _load(self, env_spec: EnvSpec) -> MaskablePolicyAgent:
        raise NotImplementedError

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        if self._policy is None or self._for != env_spec:
            self._policy, self._numpy = self._cached_load(env_spec)
            self._for = env_spec

    def _cached_load(self, env_spec: EnvSpec) -> tuple[MaskablePolicyAgent, NumpyPolicy | None]:
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
        loaded = _LOADED.get(key)
        if loaded is None:
            policy = self._load(env_spec)
            loaded = _LOADED[key] = (policy, _as_numpy(policy))
        return loaded

    @property
    def acts_in_numpy(self) -> bool:
        """True once loaded when the network plays through its numpy copy (an MlpPolicy),
        False when it falls back to ``model.predict`` (another policy architecture)."""
        return self._numpy is not None

    def act(self, observation: Observation) -> int:
        if self._policy is None:
            raise RuntimeError(f"{self.spec!r}: start_game() must come before act()")
        if self._numpy is None:
            return self._policy.act(observation)
        legal_actions(observation)
        return self._numpy.act(
            observation["observation"],
            observation["action_mask"],
            None if self.deterministic else self.rng,
        )


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
