"""``TurnBasedParallelEnv``: a cardarena game through PettingZoo's Parallel API.

Trainers that take only the Parallel API (AgileRL, PufferLib's PettingZoo emulation) need
one; ``pettingzoo.utils.aec_to_parallel`` rightly refuses a turn-based game. PettingZoo's
``turn_based_aec_to_parallel`` runs, but writes an ``active_agent`` string into the env's own
info dicts on ``step`` only (so a tensorising client fails and the keys change after
``reset``), and shares those dicts with the caller. This view keeps the env's info schema.

Each ``step(actions)`` plays one move: the action of the agent to act (the only agent whose
``info["action_mask"]`` has a 1). The other agents' entries are ignored and may be left out;
an action missing for the agent to act raises ``IllegalActionError`` naming it. Every live
agent gets its observation, reward, termination, truncation and info from every ``reset`` and
``step`` (a fresh copy each time), rewards being what the AEC env gave on that move.

The action mask is in the info, not the observation: an observation is the AEC env's
``observation`` array alone (``observation_space`` is that Box), and each info holds
``action_mask`` (int8: the legal actions of the agent to act, zeros for the others).
PettingZoo allows either place; AgileRL reads the info and refuses an observation holding a
mask. An
illegal action by the agent to act does what ``env()`` does: the game ends, -1 to it.
When the game ends, every agent is reported once more and ``agents`` is empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .errors import IllegalActionError
from .infos import fresh_info


class TurnBasedParallelEnv(ParallelEnv[str, np.ndarray, int]):
    """The wrapped AEC env ``aec_env`` (an ``env()``) as a Parallel env, one move a step."""

    def __init__(self, aec_env: Any) -> None:
        self.aec_env = aec_env
        self.possible_agents = list(aec_env.possible_agents)
        self.agents: list[str] = []
        self.metadata = dict(aec_env.unwrapped.metadata)
        self.render_mode = aec_env.unwrapped.render_mode
        self.state_space = aec_env.unwrapped.state_space

    @property
    def unwrapped(self) -> Any:
        return self.aec_env.unwrapped

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec_env.observation_space(agent)["observation"]

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec_env.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        self.aec_env.reset(seed=seed, options=options)
        self.agents = list(self.aec_env.agents)
        return self._observe(self.agents)

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec_env
        if not self.agents:
            raise IllegalActionError("the game is over; call reset() before step()")
        mover = aec.agent_selection
        if not isinstance(actions, Mapping) or mover not in actions:
            raise IllegalActionError(
                f"{mover} is to act: actions must map {mover!r} to its action (the other "
                f"agents' entries are ignored); got {actions!r}"
            )
        before = list(self.agents)
        aec.step(actions[mover])
        rewards = {agent: float(aec.rewards.get(agent, 0.0)) for agent in before}
        terminations = {agent: bool(aec.terminations[agent]) for agent in before}
        truncations = {agent: bool(aec.truncations[agent]) for agent in before}
        observations, infos = self._observe(before)
        while aec.agents and (
            aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]
        ):
            aec.step(None)  # the AEC env's dead steps: every agent leaves
        self.agents = list(aec.agents)
        return observations, rewards, terminations, truncations, infos

    def _observe(self, agents: list[str]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Each agent's observation array, and a fresh copy of its info with its mask."""
        observations, infos = {}, {}
        for agent in agents:
            seen = self.aec_env.observe(agent)
            observations[agent] = seen["observation"]
            infos[agent] = {
                **fresh_info(self.aec_env.infos[agent]),
                "action_mask": seen["action_mask"],
            }
        return observations, infos

    def render(self) -> Any:
        return self.aec_env.render()

    def state(self) -> np.ndarray:
        return self.aec_env.unwrapped.state()

    def close(self) -> None:
        self.aec_env.close()


def parallel_env_factory(env_factory: Any) -> Any:
    """A module's ``parallel_env(**config)``: ``TurnBasedParallelEnv(env_factory(**config))``
    (PettingZoo's convention: a module offers ``env``, ``raw_env`` and ``parallel_env``)."""

    def parallel_env(**config: Any) -> TurnBasedParallelEnv:
        """This game through PettingZoo's Parallel API, one move a step
        (``cardarena.envs.core.parallel``); ``config`` as for ``env()``."""
        return TurnBasedParallelEnv(env_factory(**config))

    return parallel_env
