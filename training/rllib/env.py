"""``CardArenaMultiAgentEnv``: a registered cardarena env as a turn-based RLlib
``MultiAgentEnv``. Only the seat to act gets an observation; rewards reach every learning
seat as they accrue, and when the game ends every learning seat gets its final observation
and reward (also when the last move was another seat's). Observations are
``{"observations": scaled, "action_mask": float mask}``, scaled by the same
``ObservationScaler`` as the SB3 bridge. Seats may also be played by cardarena agents
(``opponents``: random, heuristic, exported snapshots), the SB3 league idea: a share of the
games puts one learning seat, drawn per game, against them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardarena.agents import Agent, choose, env_spec_of, per_seat, start_game
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, ObservationScaler

#: RLlib's per-agent dicts (``MultiAgentDict``) and what ``step`` returns.
AgentDict: TypeAlias = dict[Any, Any]
StepResult: TypeAlias = tuple[AgentDict, AgentDict, AgentDict, AgentDict, AgentDict]


class CardArenaMultiAgentEnv(MultiAgentEnv):
    """A registered cardarena env as a turn-based RLlib ``MultiAgentEnv``.

    Config keys (an RLlib ``EnvContext`` or a plain dict):
        env: the env name (a key of ``cardarena.envs.ENVS``).
        env_config: keyword arguments for ``make`` (e.g. ``num_players``).
        opponents: agent specs (or ``Agent`` objects) for a share of the games; empty for
            pure self-play, where every seat learns.
        opponent_share: probability that a game puts one learning seat (drawn uniformly, so
            every seat is practised) against one opponent drawn from ``opponents``.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        config = dict(config or {})
        self.env_name: str = config.get("env", "promise_war_v0")
        self.env_config: dict[str, Any] = dict(config.get("env_config") or {})
        self.aec = make(self.env_name, **self.env_config)
        self.aec.warn_on_illegal = False  # the masked policy never plays one; info says so
        seats = list(self.aec.possible_agents)
        box = self.aec.observation_space(seats[0])["observation"]
        self.scaler = ObservationScaler(box)
        self.num_actions = int(self.aec.action_space(seats[0]).n)
        space = observation_space(self.scaler, self.num_actions)
        self.observation_spaces = dict.fromkeys(seats, space)
        self.action_spaces = dict.fromkeys(seats, spaces.Discrete(self.num_actions))
        super().__init__()
        self.possible_agents = seats
        self.agents = seats[:]
        self.opponents: list[Agent | str] = []
        self.opponent_share = 0.0
        self.weights: np.ndarray | None = None
        self.set_opponents(config.get("opponents") or [], float(config.get("opponent_share", 0)))
        self.learners: list[str] = seats[:]
        self.seat_agents: dict[str, Agent] = {}
        self._pending = dict.fromkeys(seats, 0.0)

    def set_opponents(
        self,
        opponents: Sequence[Agent | str],
        share: float,
        weights: Sequence[float] | None = None,
    ) -> None:
        """Replace the opponent pool (applies from the next reset); called on every env
        runner by ``set_opponent_pool`` when the league grows. ``weights``: how often each
        entry is drawn (default: equally often)."""
        if not 0.0 <= share <= 1.0:
            raise InvalidConfigError(f"opponent_share must lie in [0, 1], got {share}")
        self.opponents = list(opponents)
        self.opponent_share = share if self.opponents else 0.0
        self.weights = None
        if weights is not None:
            array = np.asarray(weights, dtype=float)
            if array.shape != (len(self.opponents),) or (array < 0).any() or array.sum() <= 0:
                raise InvalidConfigError(
                    f"opponent weights must be {len(self.opponents)} non-negative numbers "
                    f"with a positive sum, got {list(weights)}"
                )
            self.weights = array / array.sum()

    # gymnasium API ------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[AgentDict, AgentDict]:
        gymnasium.Env.reset(self, seed=seed)
        rng = self.np_random
        self.aec.reset(seed=int(rng.integers(2**31 - 1)), options=options)
        seats: list[str] = list(self.aec.possible_agents)
        self._pending = dict.fromkeys(seats, 0.0)
        self.learners, self.seat_agents = seats[:], {}
        if self.opponents and rng.random() < self.opponent_share:
            learner = seats[int(rng.integers(len(seats)))]
            others = [s for s in seats if s != learner]
            if self.weights is None:
                entry = self.opponents[int(rng.integers(len(self.opponents)))]
            else:
                entry = self.opponents[int(rng.choice(len(self.opponents), p=self.weights))]
            self.learners = [learner]
            self.seat_agents = per_seat(entry, others)
            spec = env_spec_of(self.aec)
            for seat, agent in self.seat_agents.items():
                if hasattr(agent, "seed"):
                    agent.seed(int(rng.integers(2**31 - 1)))
                start_game(agent, seat, spec)
        self.agents = list[Any](self.learners)
        observations, _, done, _, infos = self._advance()
        if done["__all__"]:
            raise RuntimeError("the game ended before any learning seat could act")
        return observations, infos

    def step(self, action_dict: AgentDict) -> StepResult:  # type: ignore[override, unused-ignore]
        seat = self.aec.agent_selection
        if seat not in action_dict:
            raise ValueError(f"{seat} is to act, but the actions were for {list(action_dict)}")
        self.aec.step(int(action_dict[seat]))
        self._collect_rewards()
        return self._advance()

    # internals ----------------------------------------------------------------------------
    def _collect_rewards(self) -> None:
        """The AEC ``rewards`` of the transition just made, added for every seat, so a seat
        is paid even when it is not to act next (or ever again)."""
        for seat, reward in self.aec.rewards.items():
            self._pending[seat] = self._pending.get(seat, 0.0) + float(reward)

    def _observation(self, seat: str, final: bool = False) -> dict[str, np.ndarray]:
        raw = self.aec.observe(seat)
        mask = raw["action_mask"].astype(np.float32)
        if final:
            # Never acted on; all-ones keeps the masked logits of the bootstrap step finite.
            mask = np.ones_like(mask)
        return {"observations": self.scaler(raw["observation"]), "action_mask": mask}

    def _advance(self) -> StepResult:
        """Let built-in opponents move until a learning seat must act or the game is over."""
        aec = self.aec
        while True:
            seat = aec.agent_selection
            if aec.terminations[seat] or aec.truncations[seat]:
                return self._finish()
            if seat in self.learners:
                rewards = {s: self._pending.pop(s, 0.0) for s in self.learners}
                self._pending = dict.fromkeys(self.learners, 0.0)
                flags = {"__all__": False}
                return {seat: self._observation(seat)}, rewards, flags, dict(flags), {}
            aec.step(choose(self.seat_agents[seat], aec.observe(seat), aec, seat))
            self._collect_rewards()

    def _finish(self) -> StepResult:
        """Every learning seat's final observation, reward and flag, in one step."""
        aec = self.aec
        truncated = any(aec.truncations[s] for s in self.learners)
        observations = {s: self._observation(s, final=True) for s in self.learners}
        rewards = {s: self._pending.get(s, 0.0) for s in self.learners}
        terminateds = {s: not truncated for s in self.learners}
        truncateds = {s: truncated for s in self.learners}
        terminateds["__all__"], truncateds["__all__"] = not truncated, truncated
        infos = {s: dict(aec.infos.get(s, {})) for s in self.learners}
        return observations, rewards, terminateds, truncateds, infos


def observation_space(scaler: ObservationScaler, num_actions: int) -> spaces.Dict:
    """The Dict space ``MaskedPPOTorchRLModule`` reads: scaled observation plus mask."""
    return spaces.Dict(
        {
            "observations": scaler.space,
            "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
        }
    )


__all__ = ["AgentDict", "CardArenaMultiAgentEnv", "StepResult", "observation_space"]
