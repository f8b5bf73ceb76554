"""Cardline: place by a value estimate, at four levels of knowledge.

Values live on the observation's rank scale (each card's rank among the deck's distinct values
of the game's characteristic, mapped onto [0, 1]), which is the scale of the gap bounds. For
every card in hand the agent holds a belief about its value and plays the (card, gap) pair
most likely to be right (``lower <= value <= upper``); for an exact value that is a gap whose
bounds bracket it, for an uncertain one the gap holding most of the belief. Ties are broken
with the agent's generator.

Knowledge levels (beliefs about a card in hand):

- ``heuristic`` (observed): a value revealed earlier in this game (the observation keeps it) is
  exact; any other card follows the values seen this game, smoothed towards uniform ranks.
- ``oracle``: reads the true value from the deck data (public: the config names the deck), so
  it never places a card wrong: an upper bound.
- ``noisy:sigma=S``: the true value plus Gaussian noise of ``S`` times the characteristic's
  spread (standard deviation of its rank-scaled values), drawn once per card and game from the
  agent's generator; a value revealed this game is exact. It places as if its estimate were
  that uncertain.
- ``memory``: remembers every value it has seen revealed, across games (the memory lives on
  the agent instance, keyed by deck and characteristic; ``start_game`` keeps it); a card never
  seen follows the distribution of all values remembered, smoothed towards uniform ranks.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cardarena.envs.core import InvalidConfigError

from ..base import BaseAgent, EnvSpec, Observation
from .common import EnvData, choose, legal

ENV_NAME = "cardline_v0"
KNOWLEDGE = ("observed", "oracle", "noisy", "memory")
#: Weight, in cards, of the uniform prior blended into a distribution of seen values.
PRIOR_WEIGHT = 10.0
_erf = np.vectorize(math.erf, otypes=[np.float64])

#: Memory: per (deck names, characteristics) and characteristic index, value per card id
#: (NaN: never seen).
Memory = dict[tuple[tuple[str, ...], tuple[str, ...]], dict[int, np.ndarray]]


class CardlineStrategy:
    """Cardline placement at one knowledge level (module docstring)."""

    def __init__(
        self,
        env_spec: EnvSpec,
        knowledge: str = "observed",
        sigma: float = 0.3,
        memory: Memory | None = None,
    ) -> None:
        if knowledge not in KNOWLEDGE:
            raise InvalidConfigError(f"knowledge must be one of {KNOWLEDGE}, got {knowledge!r}")
        self.data = EnvData(env_spec)
        self.layout = self.data.layout
        game = self.data.game
        self.deck_size: int = game.deck_size
        self.gaps: int = game.num_gaps
        self.hand_size: int = game.hand_size
        #: True rank-scaled values per characteristic (read only by the oracle and noisy).
        self.scaled = tuple(np.asarray(s, dtype=np.float64) for s in game.scaled)
        self.spread = tuple(float(np.std(s)) for s in self.scaled)
        self.knowledge = knowledge
        self.sigma = float(sigma)
        self.deck_key = (tuple(game.names), tuple(game.characteristics))
        self.memory: Memory = memory if memory is not None else {}
        self._noise = np.zeros(self.deck_size)

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        if self.knowledge == "noisy":
            self._noise = rng.standard_normal(self.deck_size)

    # --- beliefs ---------------------------------------------------------------------------
    def remembered(self, characteristic: int) -> np.ndarray:
        """The memory's values for ``characteristic`` (NaN: never seen), created on demand."""
        table = self.memory.setdefault(self.deck_key, {})
        if characteristic not in table:
            table[characteristic] = np.full(self.deck_size, np.nan)
        return table[characteristic]

    def estimate(self, card: int, characteristic: int) -> float:
        """The agent's point estimate of ``card``'s rank-scaled value (outside a game: what
        it knows before any card is revealed)."""
        if self.knowledge == "oracle":
            return float(self.scaled[characteristic][card])
        if self.knowledge == "noisy":
            noise = self._noise[card] * self.sigma * self.spread[characteristic]
            return float(self.scaled[characteristic][card] + noise)
        seen = self.remembered(characteristic) if self.knowledge == "memory" else None
        if seen is not None and not np.isnan(seen[card]):
            return float(seen[card])
        values = seen[~np.isnan(seen)] if seen is not None else np.empty(0)
        return float(np.median(values)) if values.size else 0.5

    def gap_chances(
        self,
        card: int,
        known: float,
        characteristic: int,
        seen: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
    ) -> np.ndarray:
        """For each open gap, the chance that ``card`` is right there. ``known`` is the value
        revealed earlier in this game (-1: never), ``seen`` the values this agent knows of."""
        if self.knowledge == "oracle":
            value = self.scaled[characteristic][card]
            return ((lower <= value) & (value <= upper)).astype(np.float64)
        if known >= 0:
            return ((lower <= known) & (known <= upper)).astype(np.float64)
        if self.knowledge == "noisy":
            mean = self.estimate(card, characteristic)
            scale = max(self.sigma * self.spread[characteristic], 1e-9)
            high = _erf((upper - mean) / (scale * math.sqrt(2.0)))
            low = _erf((lower - mean) / (scale * math.sqrt(2.0)))
            return 0.5 * (high - low)
        # Unknown card: the values seen so far, smoothed towards uniform ranks on [0, 1].
        width = np.clip(np.minimum(upper, 1.0) - np.maximum(lower, 0.0), 0.0, 1.0)
        if seen.size == 0:
            return width
        inside = (seen[None, :] >= lower[:, None]) & (seen[None, :] <= upper[:, None])
        return (inside.sum(axis=1) + PRIOR_WEIGHT * width) / (seen.size + PRIOR_WEIGHT)

    # --- acting ----------------------------------------------------------------------------
    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        actions = legal(observation)
        view = self.layout.view(observation["observation"])
        characteristic = int(np.argmax(view["characteristic"]))
        known_all = view["known_value"].astype(np.float64)
        if self.knowledge == "memory":
            memory = self.remembered(characteristic)
            revealed = known_all >= 0
            memory[revealed] = known_all[revealed]
            seen = memory[~np.isnan(memory)]
        else:
            seen = known_all[known_all >= 0]
        open_gaps = int(view["line_length"][0]) + 1
        lower = view["gap_lower"][:open_gaps].astype(np.float64)
        upper = view["gap_upper"][:open_gaps].astype(np.float64)
        cards = np.argmax(view["hand"], axis=1)
        known_hand = view["hand_known_value"]
        chances = np.zeros(self.hand_size * self.gaps)
        for slot in range(int(view["hand_sizes"][0])):
            card = int(cards[slot])
            known = float(known_hand[slot])
            if self.knowledge == "memory" and known < 0:
                remembered = self.remembered(characteristic)[card]
                known = -1.0 if np.isnan(remembered) else float(remembered)
            start = slot * self.gaps
            chances[start : start + open_gaps] = self.gap_chances(
                card, known, characteristic, seen, lower, upper
            )
        return choose(actions, chances[actions], rng)


class CardlineAgent(BaseAgent):
    """A Cardline-only agent at one knowledge level (``oracle``, ``noisy``, ``memory``).

    Built once, it may play many games: the strategy is rebuilt only when the env spec
    changes, and the ``memory`` level keeps what it has seen across games and specs.
    """

    knowledge = "observed"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        #: Keyword options of the strategy (``sigma`` for ``noisy``).
        self.options: dict[str, Any] = {}
        self.memory: Memory = {}
        self._strategy: CardlineStrategy | None = None

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        if env_spec.name != ENV_NAME:
            raise InvalidConfigError(
                f"agent {self.spec!r} plays only {ENV_NAME} (it knows card values), "
                f"not env {env_spec.name!r}; use 'heuristic' or 'random' there"
            )
        super().start_game(seat, env_spec)
        if self._strategy is None or self._strategy.data.spec != env_spec:
            self._strategy = CardlineStrategy(
                env_spec, self.knowledge, memory=self.memory, **self.options
            )
        self._strategy.start_game(seat, self.rng)

    @property
    def strategy(self) -> CardlineStrategy:
        if self._strategy is None:
            raise RuntimeError(f"{self!r}: call start_game(seat, env_spec) before act()")
        return self._strategy

    def act(self, observation: Observation) -> int:
        return self.strategy.act(observation, self.rng)

    def estimate(self, card: int | str, characteristic: int | str) -> float:
        """This agent's current guess of a card's rank-scaled value (by id or name) for a
        characteristic (by index or name) of the deck it last played with."""
        strategy = self.strategy
        game = strategy.data.game
        if isinstance(card, str):
            card = game.card_ids[card]
        if isinstance(characteristic, str):
            characteristic = game.characteristics.index(characteristic)
        return strategy.estimate(int(card), int(characteristic))


class OracleAgent(CardlineAgent):
    """Reads every card's true value from the deck data: never places wrong."""

    spec = "oracle"
    knowledge = "oracle"


class NoisyAgent(CardlineAgent):
    """True values plus Gaussian noise of ``sigma`` times the characteristic's spread."""

    spec = "noisy"
    knowledge = "noisy"

    #: Largest ``sigma``: far past the point where the estimates are pure noise, and small
    #: enough that noise times spread never overflows to infinity.
    MAX_SIGMA = 1e6

    def __init__(self, seed: int | None = None, sigma: float = 0.3) -> None:
        # NaN passes every comparison unnoticed (and then breaks the rng), so check finiteness.
        if (
            not isinstance(sigma, (int, float))
            or isinstance(sigma, bool)
            or not math.isfinite(sigma)
            or not 0 <= sigma <= self.MAX_SIGMA
        ):
            raise InvalidConfigError(
                f"noisy: sigma must be a finite number in [0, {self.MAX_SIGMA:g}], got {sigma!r}"
            )
        super().__init__(seed)
        self.sigma = float(sigma)
        self.options = {"sigma": self.sigma}


class MemoryAgent(CardlineAgent):
    """Remembers every value it has seen revealed, across games; guesses the rest."""

    spec = "memory"
    knowledge = "memory"
