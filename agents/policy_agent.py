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
from .checkpoint_reader import CheckpointData, read_checkpoint, read_meta
from .numpy_policy import NumpyPolicy, from_sb3_policy
from .sb3_state import policy_layers
from .sb3_zip import read_sb3_zip


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
_LOADED: dict[tuple[Any, ...], NumpyPolicy | MaskablePolicyAgent] = {}


def _env_box(env_spec: EnvSpec) -> tuple[spaces.Box, int]:
    raw = env_spec.make_raw()
    seat = raw.possible_agents[0]
    return raw.observation_space(seat)["observation"], int(raw.action_space(seat).n)


class _LoadedPolicyAgent(BaseAgent):
    """A policy loaded from disk on the first ``start_game`` (when the env is known) and kept
    while the env stays the same; subclasses say how to load it (``_load``). Loaded networks
    act through numpy (``NumpyPolicy``): one forward pass of a small MLP costs a fraction of
    ``model.predict``, and the greedy actions are the same (tests/agents/test_pretrained.py)."""

    def __init__(
        self, path: str | Path, seed: int | None = None, deterministic: bool | None = None
    ):
        super().__init__(seed)
        self.path = Path(path)
        self.spec = str(path)
        #: Greedy or sampled (None: greedy; a checkpoint passes what its run trained).
        self.deterministic = True if deterministic is None else deterministic
        self._policy: NumpyPolicy | MaskablePolicyAgent | None = None
        self._for: EnvSpec | None = None

    def _load(self, env_spec: EnvSpec) -> NumpyPolicy | MaskablePolicyAgent:
        raise NotImplementedError

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        if self._policy is None or self._for != env_spec:
            self._policy = self._cached_load(env_spec)
            self._for = env_spec

    def _cached_load(self, env_spec: EnvSpec) -> NumpyPolicy | MaskablePolicyAgent:
        """Load once per process per file version and env: tournaments build fresh agents
        for every chunk of games and every seat, and loading a model costs far more than a
        game. The policy is read-only in play, so instances may share it."""
        key = (
            type(self).__name__,
            str(self.path.resolve()),
            self.path.stat().st_mtime_ns if self.path.exists() else None,
            env_spec.name,
            json.dumps(env_spec.config, sort_keys=True, default=str),
            self.deterministic,
            getattr(self, "trust_pickle", False),
        )
        loaded = _LOADED.get(key)
        if loaded is None:
            loaded = _LOADED[key] = self._load(env_spec)
        return loaded

    @property
    def acts_in_numpy(self) -> bool:
        """True once loaded when the network plays through numpy (always, except a model
        loaded with ``trust_pickle=true`` whose network is not a plain MlpPolicy)."""
        return isinstance(self._policy, NumpyPolicy)

    def probabilities(self, observation: Observation) -> np.ndarray | None:
        """As ``NumpyPolicyAgent.probabilities``; None for a network played by SB3's own
        loader (``trust_pickle``), whose probabilities are not read here."""
        if self._policy is None:
            raise RuntimeError(f"{self.spec!r}: start_game() must come before probabilities()")
        if not isinstance(self._policy, NumpyPolicy):
            return None
        legal_actions(observation)
        return self._policy.probabilities(
            observation["observation"], observation["action_mask"], greedy=self.deterministic
        )

    def act(self, observation: Observation) -> int:
        if self._policy is None:
            raise RuntimeError(f"{self.spec!r}: start_game() must come before act()")
        if isinstance(self._policy, MaskablePolicyAgent):
            return self._policy.act(observation)
        legal_actions(observation)
        return self._policy.act(
            observation["observation"],
            observation["action_mask"],
            None if self.deterministic else self.rng,
        )


class SavedModelAgent(_LoadedPolicyAgent):
    """A MaskablePPO model saved by SB3 (``model.save("x.zip")``), named by its path as an
    agent spec (``cardarena eval ENV x.zip random``).

    Read by ``cardarena.agents.sb3_zip``, which never unpickles: a foreign file is safe to
    play, and one holding anything but a plain MlpPolicy is refused, naming the entry.
    ``trust_pickle=true`` (``x.zip:trust_pickle=true``) loads it with SB3's own loader, which
    runs any code the file holds: only for files you made yourself.

    The model is loaded on the first ``start_game``, where the env is known: the observation
    scaler is built from that env's Box and the model's observation and action spaces must
    match the env's, else ``InvalidConfigError`` says which differs.
    """

    def __init__(
        self,
        path: str | Path,
        seed: int | None = None,
        deterministic: bool | None = None,
        trust_pickle: bool = False,
    ):
        super().__init__(path, seed, deterministic)
        if not isinstance(trust_pickle, bool):
            raise InvalidConfigError(f"trust_pickle must be true or false, got {trust_pickle!r}")
        self.trust_pickle = trust_pickle
        if not self.path.is_file():
            raise InvalidConfigError(f"no saved model at {str(self.path)!r}")

    def _load(self, env_spec: EnvSpec) -> NumpyPolicy | MaskablePolicyAgent:
        box, actions = _env_box(env_spec)
        if self.trust_pickle:
            model = _unsafe_sb3_load(self.path, self.spec)
            shape, trained_actions = model.observation_space.shape, int(model.action_space.n)
        else:
            saved = read_sb3_zip(self.path)
            shape, trained_actions = saved.observation_shape, saved.actions
        if tuple(shape) != box.shape or trained_actions != actions:
            raise InvalidConfigError(
                f"{self.spec!r} was trained for observations {tuple(shape)} "
                f"and Discrete({trained_actions}) actions, but {env_spec.name} with "
                f"{env_spec.config} has {box.shape} and Discrete({actions})"
            )
        scaler = ObservationScaler(box)
        meta = {"env": env_spec.name, "source": self.spec}
        if not self.trust_pickle:
            layers = policy_layers(saved.state, saved.net_arch, self.spec)
            return NumpyPolicy(layers, "tanh", scaler.offset, scaler.scale, meta)
        try:
            return from_sb3_policy(model.policy, scaler, meta)
        except (AttributeError, InvalidConfigError, TypeError):
            return MaskablePolicyAgent(model, scaler, self.deterministic)


def _unsafe_sb3_load(path: Path, spec: str) -> Any:
    """SB3's own loader, which unpickles: reached only through ``trust_pickle=true``."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as missing:
        raise InvalidConfigError(
            f"loading {spec!r} needs the 'train' extra ({missing.name} is missing)"
        ) from missing
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as error:  # a corrupt or foreign file: say which and why
        raise InvalidConfigError(f"cannot load {spec!r} as a MaskablePPO model: {error}") from error


class CheckpointAgent(_LoadedPolicyAgent):
    """A checkpoint folder written by ``cardarena.training.checkpoint.save_checkpoint`` (read by
    ``checkpoint_reader``), named by its path as an agent spec (``cardarena eval ENV
    runs/X/latest random``); a run folder (``runs/X``) means its ``latest``.

    Plays the checkpoint's network through numpy with its observation scaler (no torch, no
    unpickling); ``start_game`` refuses an env other than the checkpoint's (another id,
    version or observation/action space) with ``InvalidConfigError``. It takes the network's
    most likely action, or samples when its run trained with ``--sample`` (``samples`` in its
    ``meta.json``); ``deterministic=true|false`` overrides that.
    """

    def __init__(
        self, path: str | Path, seed: int | None = None, deterministic: bool | None = None
    ):
        # A missing, corrupt or foreign checkpoint fails here, early.
        samples = read_meta(path).get("samples", False)
        super().__init__(path, seed, not samples if deterministic is None else deterministic)

    def _load(self, env_spec: EnvSpec) -> NumpyPolicy:
        checkpoint = read_checkpoint(self.path, env_spec, CheckpointData)
        return checkpoint.numpy_policy({"source": self.spec})
