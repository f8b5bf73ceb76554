"""The SB3 bridge: one seat of a cardarena AEC env as a Gymnasium env.

The learner sits in one seat; every other seat is played by an ``Agent`` inside ``step()``.
What the learner gets is always its *own*: its own observation (scaled to [0, 1] by the env's
``ObservationScaler``, the same object a ``MaskablePolicyAgent`` uses in evaluation), its own
cumulative reward since its previous action, its own termination. (The PettingZoo SB3 tutorial
pairs one seat's reward with another seat's observation; a test here checks we do not.)
``action_masks()`` serves sb3-contrib's MaskablePPO.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardarena.agents import Agent, RandomAgent, env_spec_of, per_seat, start_game
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, ObservationScaler

OpponentSpec: TypeAlias = "Agent | str | Mapping[str, Agent] | None"


class SingleAgentEnv(gymnasium.Env):
    """``aec_env`` seen from ``learner``'s seat, opponents built in.

    Args:
        aec_env: a cardarena AEC env (wrapped or raw), or an env name for ``cardarena.envs.make``.
        opponent: an ``Agent`` (deep-copied into every other seat), an agent spec string
            (``"heuristic"``), a dict seat name -> ``Agent``, or None for seeded
            ``RandomAgent`` opponents. Every seat has its own instance.
        learner: the learner's seat name, or None for a seat drawn at every reset (so one
            policy learns every seat).
        env_config: config for ``make`` when ``aec_env`` is a name.
        warn_on_illegal: keep PettingZoo's printed warning when a player's illegal action
            ends the game (off by default: the final ``info["outcome"]`` says so instead).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        aec_env: AECEnv | str,
        opponent: OpponentSpec = None,
        learner: str | None = None,
        env_config: Mapping[str, Any] | None = None,
        warn_on_illegal: bool = False,
    ) -> None:
        super().__init__()
        self.aec = make(aec_env, **dict(env_config or {})) if isinstance(aec_env, str) else aec_env
        seats = list(self.aec.possible_agents)
        if learner is not None and learner not in seats:
            raise InvalidConfigError(f"learner must be one of {seats} or None, got {learner!r}")
        self.fixed_learner = learner
        self.learner = learner or seats[0]
        self.opponents = self._opponents(opponent, [s for s in seats if s != learner])
        if hasattr(self.aec, "warn_on_illegal"):
            self.aec.warn_on_illegal = warn_on_illegal
        self.scaler = ObservationScaler(self.aec.observation_space(seats[0])["observation"])
        self.observation_space = self.scaler.space
        self.action_space = spaces.Discrete(int(self.aec.action_space(seats[0]).n))
        self._last: dict[str, np.ndarray] | None = None

    @staticmethod
    def _opponents(opponent: OpponentSpec, seats: list[str]) -> dict[str, Agent]:
        if opponent is None:
            return {seat: RandomAgent() for seat in seats}
        if isinstance(opponent, Mapping):
            missing = [seat for seat in seats if seat not in opponent]
            if missing:
                raise InvalidConfigError(
                    f"opponent dict must name an Agent for every seat the learner does not "
                    f"take; missing {missing}"
                )
            return dict(opponent)
        if not isinstance(opponent, (Agent, str)):
            raise InvalidConfigError(
                f"opponent must be an Agent (with .act) or an agent spec string, got {opponent!r}"
            )
        return per_seat(opponent, seats)  # one instance per seat: no shared memory

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            children = np.random.SeedSequence(seed).spawn(len(self.opponents))
            for child, agent in zip(children, self.opponents.values(), strict=True):
                if hasattr(agent, "seed"):
                    agent.seed(int(child.generate_state(1)[0]))
        env_seed = int(self.np_random.integers(2**31 - 1))
        self.aec.reset(seed=env_seed, options=options)
        seats = self.aec.possible_agents
        self.learner = self.fixed_learner or seats[int(self.np_random.integers(len(seats)))]
        spec = env_spec_of(self.aec)
        for seat, agent in self.opponents.items():
            if seat != self.learner:
                start_game(agent, seat, spec)
        observation, _, terminated, truncated, info = self._advance()
        if terminated or truncated:
            raise RuntimeError("the game ended before the learner's first decision")
        return observation, {**info, "learner": self.learner}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.aec.step(action)
        return self._advance()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib's MaskablePPO protocol)."""
        if self._last is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._last["action_mask"].astype(bool)

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Let opponents act until the learner must act or its game is over."""
        aec = self.aec
        while aec.agents:
            agent = aec.agent_selection
            observation, reward, terminated, truncated, info = aec.last()
            if agent == self.learner:
                self._last = observation
                scaled = self.scaler(observation["observation"])
                return scaled, float(reward), bool(terminated), bool(truncated), dict(info)
            if terminated or truncated:
                aec.step(None)
            else:
                aec.step(self.opponents[agent].act(observation))
        raise RuntimeError(f"{self.learner} left the game without seeing its last step")
