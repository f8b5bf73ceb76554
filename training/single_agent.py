"""The SB3 bridge: one seat of a cardarena AEC env as a Gymnasium env.

The learner sits in one seat; every other seat is played by an ``Agent`` inside ``step()``.
What the learner gets is always its *own*: its own observation (scaled to [0, 1] by the env's
``ObservationScaler``, the same object a ``MaskablePolicyAgent`` uses in evaluation), its own
cumulative reward since its previous action, its own termination. (The PettingZoo SB3 tutorial
pairs one seat's reward with another seat's observation; a test here checks we do not.)
``action_masks()`` serves sb3-contrib's MaskablePPO.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardarena.agents import Agent, RandomAgent, choose, env_spec_of, per_seat, start_game
from cardarena.envs import make
from cardarena.envs.core import (
    ILLEGAL_ACTION,
    IllegalActionError,
    InvalidConfigError,
    ObservationScaler,
    Seat,
    coerce_action,
)
from cardarena.envs.core.infos import fresh_info

#: The ``illegal=`` options (see ``SingleAgentEnv``).
ILLEGAL_MODES = ("mask", "loss", "resample")
#: The learner's reward for an illegal action under ``illegal="loss"``.
ILLEGAL_ACTION_REWARD = -1.0


@runtime_checkable
class OpponentSampler(Protocol):
    """Anything that picks this episode's opponent, e.g. a self-play league pool.

    ``sample(rng)`` is called at every ``reset`` with the bridge's own seeded generator and
    returns an ``Agent`` (deep-copied into every opponent seat) or an agent spec string.
    The same object (or string) returned again reuses the seat instances built before.
    """

    def sample(self, rng: np.random.Generator) -> Agent | str: ...


OpponentSpec: TypeAlias = (
    "Agent | str | Mapping[str, Agent] | Sequence[Agent | str] | OpponentSampler | None"
)


class _ListSampler:
    """One entry of a fixed list, drawn uniformly per episode."""

    def __init__(self, entries: Sequence[Agent | str]) -> None:
        self.entries = list(entries)

    def sample(self, rng: np.random.Generator) -> Agent | str:
        return self.entries[int(rng.integers(len(self.entries)))]


class SingleAgentEnv(gymnasium.Env):
    """``aec_env`` seen from ``learner``'s seat, opponents built in.

    Args:
        aec_env: a cardarena AEC env (wrapped or raw), or an env name for ``cardarena.envs.make``.
        opponent: who plays the other seats:

            - an ``Agent`` (deep-copied into every other seat) or an agent spec string
              (``"heuristic"``), fixed for every episode;
            - a dict seat name -> ``Agent``, fixed;
            - a list (or tuple) of agents / spec strings: one entry drawn uniformly at every
              ``reset`` from the bridge's own seeded generator, every seat its own instance;
            - an ``OpponentSampler`` (``sample(rng) -> Agent | str``, e.g. a league pool),
              asked at every ``reset``;
            - None for seeded ``RandomAgent`` opponents.

            Drawn opponents are reseeded from the bridge's generator every episode, so a
            ``reset(seed=...)`` fixes the whole episode. ``set_opponent`` swaps them later
            (also through ``VecEnv.env_method("set_opponent", ...)``).
        learner: the learner's seat name, or None for a seat drawn at every reset (so one
            policy learns every seat).
        env_config: config for ``make`` when ``aec_env`` is a name.
        warn_on_illegal: keep PettingZoo's printed warning when a player's illegal action
            ends the game (off by default: the final ``info["outcome"]`` says so instead).
        illegal: what an illegal learner action (an integer in the action space that the
            mask does not allow) does; a malformed one (a bool, a float even when whole, a
            string, an integer out of range) raises ``IllegalActionError`` in every mode and
            changes nothing, as ``env()`` does:

            - ``"mask"`` (default): the action is expected to be legal; use a masking
              algorithm (sb3-contrib ``MaskablePPO`` reads ``action_masks()``). An illegal
              action still goes to the env: the wrapped env ends the game with -1 for the
              learner (``info["outcome"] == "illegal_action"``), a raw env raises.
            - ``"loss"``: for plain PPO/A2C/DQN. An illegal action ends the episode at once,
              reward -1, ``terminated=True``, ``info["outcome"] == "illegal_action"`` (also
              with a raw env); the policy learns to avoid illegal actions.
            - ``"resample"``: for plain PPO/A2C/DQN. An illegal action is replaced by a
              uniformly random legal one drawn from the bridge's generator, and the step's
              ``info["resampled"]`` is True (False after a legal action).

    Every info, from ``reset`` and from ``step``, has the same keys: the AEC env's (numbers
    and arrays, ``cardarena.envs.core.infos``) plus ``learner`` (the learner's seat name) and
    ``resampled`` (bool, always False unless ``illegal="resample"`` replaced
    the action).

    ``action_masks()`` is the learner's legal actions while it has a decision to make. When
    it has none (before ``reset()``, which also warns, and after its game ended) every action
    is allowed: Gymnasium's vector envs (``make_vec``, next-step autoreset) ignore the action
    of the step that resets, and a mask of zeros would make a masked policy's distribution
    undefined. Raising there instead would kill an SB3 ``SubprocVecEnv`` worker, whose
    parent then sees only ``EOFError``.

    Reward and observation are always the learner's own: when the learner acts several
    times in a row (Iron Man commits three cards) each decision is its own step with reward
    0 in between; when the game ends on an opponent's move the learner's last step carries
    its final reward.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        aec_env: AECEnv | str,
        opponent: OpponentSpec = None,
        learner: str | None = None,
        env_config: Mapping[str, Any] | None = None,
        warn_on_illegal: bool = False,
        illegal: str = "mask",
    ) -> None:
        super().__init__()
        self.aec = make(aec_env, **dict(env_config or {})) if isinstance(aec_env, str) else aec_env
        seats = list(self.aec.possible_agents)
        if learner is not None and learner not in seats:
            raise InvalidConfigError(f"learner must be one of {seats} or None, got {learner!r}")
        if illegal not in ILLEGAL_MODES:
            raise InvalidConfigError(f"illegal must be one of {ILLEGAL_MODES}, got {illegal!r}")
        self.illegal = illegal
        self.fixed_learner = learner
        self.learner = learner or seats[0]
        self._opponent_seats = [s for s in seats if s != learner]
        self.sampler: OpponentSampler | None = None
        self._built: OrderedDict[Any, tuple[Any, dict[str, Agent]]] = OrderedDict()
        self.opponents: dict[str, Agent] = {}
        self.set_opponent(opponent)
        if hasattr(self.aec, "warn_on_illegal"):
            self.aec.warn_on_illegal = warn_on_illegal
        self.scaler = ObservationScaler(self.aec.observation_space(seats[0])["observation"])
        self.observation_space = self.scaler.space
        self.num_actions = int(self.aec.action_space(seats[0]).n)
        self.action_space = spaces.Discrete(self.num_actions)
        self._last: dict[str, np.ndarray] | None = None

    def set_opponent(self, opponent: OpponentSpec) -> None:
        """Replace the opponents (any form ``__init__`` takes); applies from the next reset
        for samplers and lists, at once for a fixed opponent."""
        self._built.clear()
        if isinstance(opponent, (list, tuple)):
            if not opponent:
                raise InvalidConfigError("an opponent list needs at least one agent or spec")
            for entry in opponent:
                self._check_entry(entry)
            self.sampler = _ListSampler(opponent)
        elif (
            opponent is not None
            and not isinstance(opponent, (Agent, str, Mapping))
            and isinstance(opponent, OpponentSampler)
        ):
            self.sampler = opponent
        else:
            self.sampler = None
            self.opponents = self._opponents(opponent, self._opponent_seats)
            return
        # Placeholders until the first reset draws this episode's opponents.
        self.opponents = {seat: RandomAgent() for seat in self._opponent_seats}

    @staticmethod
    def _check_entry(entry: Any) -> None:
        if not isinstance(entry, (Agent, str)):
            raise InvalidConfigError(
                f"opponent must be an Agent (with .act) or an agent spec string, got {entry!r}"
            )

    @staticmethod
    def _opponents(opponent: Any, seats: list[str]) -> dict[str, Agent]:
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
                f"opponent must be an Agent (with .act), an agent spec string, a list of "
                f"them or an OpponentSampler (with .sample(rng)), got {opponent!r}"
            )
        return per_seat(opponent, seats)  # one instance per seat: no shared memory

    def _draw_opponents(self) -> None:
        """This episode's opponents from the sampler, seat instances cached per entry."""
        assert self.sampler is not None
        entry = self.sampler.sample(self.np_random)
        self._check_entry(entry)
        key = entry if isinstance(entry, str) else id(entry)
        cached = self._built.get(key)
        if cached is None or cached[0] is not entry:
            cached = (entry, per_seat(entry, self._opponent_seats))
            self._built[key] = cached
            while len(self._built) > 64:  # a growing league pool must not grow memory
                self._built.popitem(last=False)
        else:
            self._built.move_to_end(key)
        self.opponents = cached[1]
        for agent in self.opponents.values():
            seed = int(self.np_random.integers(2**31 - 1))
            if hasattr(agent, "seed"):
                agent.seed(seed)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None and self.sampler is None:
            children = np.random.SeedSequence(seed).spawn(len(self.opponents))
            for child, agent in zip(children, self.opponents.values(), strict=True):
                if hasattr(agent, "seed"):
                    agent.seed(int(child.generate_state(1)[0]))
        env_seed = int(self.np_random.integers(2**31 - 1))
        self.aec.reset(seed=env_seed, options=options)
        seats = self.aec.possible_agents
        self.learner = self.fixed_learner or seats[int(self.np_random.integers(len(seats)))]
        if self.sampler is not None:
            self._draw_opponents()
        spec = env_spec_of(self.aec)
        for seat, agent in self.opponents.items():
            if seat != self.learner:
                start_game(agent, seat, spec)
        observation, _, terminated, truncated, info = self._advance()
        if terminated or truncated:
            raise RuntimeError("the game ended before the learner's first decision")
        return observation, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.illegal == "mask":
            self.aec.step(action)
            return self._advance()
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        mask = self._last["action_mask"]
        index = coerce_action(action, mask.size, self.learner)  # malformed: raise, as env() does
        legal = bool(mask[index])
        if self.illegal == "loss":
            if not legal:
                return self._lose_by_illegal_action(index)
            self.aec.step(index)
            return self._advance()
        resampled = not legal
        if resampled:
            index = int(self.np_random.choice(np.flatnonzero(mask)))
        self.aec.step(index)
        observation, reward, terminated, truncated, info = self._advance()
        info["resampled"] = resampled
        return observation, reward, terminated, truncated, info

    def _info(self, aec_info: dict[str, Any]) -> dict[str, Any]:
        """The learner's info: a copy of the AEC env's (the AEC env keeps one dict per game
        and Gymnasium users keep what each call returns), plus ``learner`` and ``resampled``."""
        info = fresh_info(aec_info)
        info["learner"] = self.learner
        info["resampled"] = False
        return info

    def _lose_by_illegal_action(
        self, action: int
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        assert self._last is not None
        try:
            self.aec.step(action)  # the wrapped env ends the game and records the outcome
        except IllegalActionError:  # a raw env refuses the move and keeps its state
            info = self._info(self.aec.infos[self.learner])
            offender = Seat(self.aec.possible_agents.index(self.learner))
            info.update(outcome=ILLEGAL_ACTION, offender=offender, illegal_action=action)
            observation = self.scaler(self._last["observation"])
            return observation, ILLEGAL_ACTION_REWARD, True, False, info
        observation, _, _, _, info = self._advance()
        return observation, ILLEGAL_ACTION_REWARD, True, False, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib's MaskablePPO protocol);
        every action when it has no decision to make (class docstring says why)."""
        if self._last is None:
            warnings.warn(
                "action_masks() called before reset(): there is no game yet, so every action "
                "is allowed; call reset() first",
                stacklevel=2,
            )
            return np.ones(self.num_actions, dtype=bool)
        mask = self._last["action_mask"].astype(bool)
        return mask if mask.any() else np.ones_like(mask)

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Let opponents act until the learner must act or its game is over."""
        aec = self.aec
        while aec.agents:
            agent = aec.agent_selection
            observation, reward, terminated, truncated, info = aec.last()
            if agent == self.learner:
                self._last = observation
                scaled = self.scaler(observation["observation"])
                return scaled, float(reward), bool(terminated), bool(truncated), self._info(info)
            if terminated or truncated:
                aec.step(None)
            else:
                aec.step(choose(self.opponents[agent], observation, aec, agent))
        raise RuntimeError(f"{self.learner} left the game without seeing its last step")
