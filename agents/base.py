"""What an agent is (protocol v2): something that picks a legal action from its own
observation dict, told at the start of every game which seat it holds in which env.

Agents see only ``{"observation", "action_mask"}`` and the public ``EnvSpec`` (never the
rules state), so the same agent plays through the AEC API, inside the SB3 bridge, in a
tournament, or against a person at the terminal. Every seat gets its own instance (build them
from a spec string with ``make_agent`` or from a factory), so an agent that remembers things
never shares that memory with another seat.

A **search agent** (``needs_state = True``, e.g. ``ismcts``) plans on a rules state, yet must
not hold the true hidden cards either: it answers ``act_searching(observation, sampled)``,
where ``sampled`` is a copy of the rules state in which everything its seat cannot see was
redrawn with the agent's own generator (``sample_infostate``). Whoever drives the game calls
``choose(agent, observation, env_or_state, seat)``, which picks ``act`` or ``act_searching``;
every harness (records and tournaments, ``evaluate``, the ``Table`` of play and serve, the
row-by-row ``RowsAgent``) does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

Observation = dict[str, np.ndarray]


@dataclass(frozen=True)
class EnvSpec:
    """Which env and configuration a game is played in: all an agent may know of the table
    beyond its observations. ``layout()`` names the observation's pieces."""

    name: str
    config: dict[str, Any] = field(default_factory=dict)

    def make_raw(self) -> Any:
        from cardarena.envs import make_raw

        return make_raw(self.name, **self.config)

    def layout(self) -> Any:
        """The env's ``ObservationLayout`` (``layout.view(obs)`` splits an observation)."""
        return self.make_raw().layout


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Observation) -> int:
        """A legal action (``observation["action_mask"][action] == 1``)."""
        ...


@runtime_checkable
class SearchAgent(Protocol):
    """An agent that plans on a sampled rules state (module docstring)."""

    needs_state: ClassVar[bool]
    rng: np.random.Generator

    def act_searching(self, observation: Observation, sampled_state: Any) -> int:
        """A legal action, given the observation and a rules state drawn from the seat's
        information set (``sample_infostate``); the agent may resample it again."""
        ...


class BaseAgent:
    """Protocol v2 defaults: an own seedable generator, a spec string, a game-start hook.

    Subclasses implement ``act`` and may override ``start_game`` (read the layout, reset
    per-game memory). ``spec`` is the string ``make_agent`` rebuilds the agent from.
    """

    spec = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.seat: str | None = None
        self.env_spec: EnvSpec | None = None

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's own generator (agents never touch the global RNGs)."""
        self.rng = np.random.default_rng(seed)

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        """Called before each game: the seat this agent plays and the env it plays in."""
        self.seat = seat
        self.env_spec = env_spec

    def act(self, observation: Observation) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def env_spec_of(env: Any) -> EnvSpec:
    """The ``EnvSpec`` of a cardarena env (wrapped or raw)."""
    raw = env.unwrapped
    return EnvSpec(raw.metadata["name"], dict(getattr(raw, "config", {})))


def start_game(agent: Agent, seat: str, env_spec: EnvSpec) -> None:
    """Call ``agent.start_game`` if it has one (plain ``act``-only agents are welcome)."""
    hook = getattr(agent, "start_game", None)
    if hook is not None:
        hook(seat, env_spec)


def sample_infostate(state: Any, seat: int, rng: np.random.Generator) -> Any:
    """A copy of the rules ``state`` in which everything ``seat`` cannot see is redrawn from
    ``rng``: ``resample_from_infostate``, and every random generator the copy holds replaced by
    one drawn from ``rng`` (a kept generator would know the true order of future shuffles).
    A resample of a resample is a fresh draw from the same information set."""
    twin = state.resample_from_infostate(seat, rng)
    for name, value in list(vars(twin).items()):
        if isinstance(value, np.random.Generator):
            setattr(twin, name, np.random.default_rng(int(rng.integers(2**63))))
    return twin


def needs_state(agent: Any) -> bool:
    """Whether ``agent`` is a search agent (``needs_state = True``, module docstring)."""
    return getattr(agent, "needs_state", False) is True


def choose(agent: Agent, observation: Observation, env_or_state: Any, seat: str | int) -> int:
    """``agent``'s action for ``seat`` now: ``act(observation)``, or for a search agent
    ``act_searching(observation, sample_infostate(state, seat, agent.rng))``.

    ``env_or_state`` is the env being played (raw or wrapped: its ``game_state`` is read) or
    a rules state; ``seat`` is the seat's name or index. Only this harness-side call ever
    touches the true state, and the agent receives a redrawn copy.
    """
    if not needs_state(agent):
        return agent.act(observation)
    raw = getattr(env_or_state, "unwrapped", None)
    state = raw.game_state if raw is not None else env_or_state
    if isinstance(seat, (int, np.integer)):
        index = int(seat)
    else:
        index = list(state.agent_names).index(seat)
    searching: Any = agent
    return searching.act_searching(observation, sample_infostate(state, index, searching.rng))


def legal_actions(observation: Observation) -> np.ndarray:
    """Indices of the legal actions; raises ``ValueError`` when there is none."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError(
            "no legal action in this observation (all-zero action_mask): "
            "only the agent to act may be asked for an action"
        )
    return legal
