"""Baseline heuristics: one sensible player per game, and Cardline's knowledge levels.

``HeuristicAgent`` (spec ``heuristic``) plays every registered env: ``start_game`` picks the
game's strategy by ``env_spec.name`` (see each module's docstring for how it plays). The
Cardline-only agents ``oracle``, ``noisy:sigma=S`` and ``memory`` place cards by what they
know of the values (``cardline`` module). Every agent sees only its observation and the
``EnvSpec`` (layout and config: deck compositions, character tables, card data), picks only
legal actions and breaks ties with its own generator.

A heuristic is optional: an env without an entry in ``STRATEGIES`` is played, trained and
tested without one (``has_heuristic`` tells training and tests which envs have one), and
``heuristic`` refuses it at ``start_game`` naming the envs it does play.

The vector heuristics (``vector_<game>``) play the same for many games' rows per call
(``cardarena.agents.vector``); their old names ``batched_<game>`` still import, with a
``DeprecationWarning``.

Importing this package registers the four specs with ``make_agent``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.moved import deprecate

from ..base import Agent, BaseAgent, EnvSpec, Observation
from ..specs import register_agent
from .beast_wars import BeastWarsStrategy
from .cardline import CardlineAgent, CardlineStrategy, MemoryAgent, NoisyAgent, OracleAgent
from .common import Strategy, choose
from .ironman_war import IronManStrategy
from .promise_war import PromiseWarStrategy

#: Env name -> the heuristic strategy for it (built from the env spec).
STRATEGIES: dict[str, Callable[[EnvSpec], Strategy]] = {
    "beast_wars_v0": BeastWarsStrategy,
    "cardline_v0": CardlineStrategy,
    "ironman_war_v0": IronManStrategy,
    "promise_war_v0": PromiseWarStrategy,
}


def has_heuristic(env_name: str) -> bool:
    """Whether agent ``heuristic`` plays ``env_name``: evaluations and tests ask this instead of
    assuming every registered env has a hand-written player."""
    return env_name in STRATEGIES


class StrategyAgent(BaseAgent):
    """An agent playing one of a game's ``Strategy`` objects, which ``start_game`` builds from
    the env spec (rebuilt only when the spec changes); ``builder`` says which, or refuses the
    env with ``InvalidConfigError``."""

    spec = ""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._strategy: Strategy | None = None
        self._built_for: EnvSpec | None = None

    def builder(self, env_spec: EnvSpec) -> Callable[[EnvSpec], Strategy]:
        raise NotImplementedError

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        build = self.builder(env_spec)
        super().start_game(seat, env_spec)
        if self._strategy is None or self._built_for != env_spec:
            self._strategy = build(env_spec)
            self._built_for = env_spec
        self._strategy.start_game(seat, self.rng)

    @property
    def strategy(self) -> Strategy:
        if self._strategy is None:
            raise RuntimeError(f"{self!r}: call start_game(seat, env_spec) before act()")
        return self._strategy

    def act(self, observation: Observation) -> int:
        return self.strategy.act(observation, self.rng)


class HeuristicAgent(StrategyAgent):
    """A sensible player for every env in ``STRATEGIES``."""

    spec = "heuristic"

    def builder(self, env_spec: EnvSpec) -> Callable[[EnvSpec], Strategy]:
        build = STRATEGIES.get(env_spec.name)
        if build is None:
            raise InvalidConfigError(
                f"agent {self.spec!r} has no strategy for env {env_spec.name!r}; "
                f"it plays: {', '.join(sorted(STRATEGIES))} (play {env_spec.name} with "
                "'random' or a trained agent, or add its strategy to "
                "cardarena.agents.heuristics.STRATEGIES)"
            )
        return build


def _heuristic(seed: int | None = None) -> Agent:
    return HeuristicAgent(seed)


def _oracle(seed: int | None = None) -> Agent:
    return OracleAgent(seed)


def _noisy(seed: int | None = None, sigma: float = 0.3) -> Agent:
    return NoisyAgent(seed, sigma=sigma)


def _memory(seed: int | None = None) -> Agent:
    return MemoryAgent(seed)


register_agent(
    "heuristic",
    _heuristic,
    "a sensible hand-written player for every env",
    kinds=(HeuristicAgent,),
)
register_agent(
    "oracle",
    _oracle,
    "Cardline: reads true card values from the deck (upper bound)",
    kinds=(OracleAgent,),
)
register_agent(
    "noisy",
    _noisy,
    "Cardline: true values plus Gaussian noise (option sigma=0.3)",
    kinds=(NoisyAgent,),
)
register_agent(
    "memory",
    _memory,
    "Cardline: remembers revealed values across games",
    kinds=(MemoryAgent,),
)

if not TYPE_CHECKING:
    # The old word for the vector heuristics, "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__,
        modules={
            f"{__name__}.batched_{game}": f"{__name__}.vector_{game}"
            for game in ("beast_wars", "cardline", "ironman_war", "promise_war")
        },
    )

__all__ = [
    "STRATEGIES",
    "CardlineAgent",
    "HeuristicAgent",
    "MemoryAgent",
    "NoisyAgent",
    "OracleAgent",
    "StrategyAgent",
    "choose",
    "has_heuristic",
]
