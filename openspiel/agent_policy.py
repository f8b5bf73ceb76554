"""cardarena agents as OpenSpiel policies (``AgentPolicy``), exactly: part 2 of
``cardarena.openspiel.exact``, whose docstring says how an agent's own random draws are
enumerated (tie-breaks) or seeded (``--seeds``) so that the policy is a fixed function of the
information state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from open_spiel.python import policy as os_policy

from cardarena.agents import choose, env_spec_of, make_agent, start_game

from .game import Adapter, CardArenaGame, CardArenaState, Record

#: Most draw sequences enumerated for one information state before falling back to seeds.
MAX_PATHS = 20_000
#: Seeded copies of an agent whose draws cannot be enumerated (``--seeds``).
DEFAULT_SEEDS = 32


class _NeedDraw(Exception):
    """The replay drew past its script: ``n`` equally likely values come next."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class _NotEnumerable(Exception):
    """Too many sequences of draws to enumerate."""


#: Largest range of one ``integers`` draw that is enumerated (wider ones come from the
#: seeded generator: they are seeds or continuous choices, not tie-breaks).
MAX_ENUMERATED_RANGE = 64


class EnumeratingRng:
    """A stand-in for an agent's ``numpy.random.Generator``: one ``integers`` value at a time
    (a range of at most ``MAX_ENUMERATED_RANGE``) comes from a script of values, and past the
    script raises ``_NeedDraw``, so every sequence of such draws can be enumerated; any other
    draw is passed to ``fallback``, a seeded generator, and noted in ``used_fallback``."""

    def __init__(self, script: Sequence[int], fallback: np.random.Generator) -> None:
        self.script = script
        self.used = 0
        self.fallback = fallback
        self.used_fallback = False

    def integers(
        self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> Any:  # fmt: skip
        if size is None:
            start, stop = (0, int(low)) if high is None else (int(low), int(high))
            count = stop - start + (1 if endpoint else 0)
            if count == 1:
                return np.int64(start)
            if 1 < count <= MAX_ENUMERATED_RANGE:
                if self.used < len(self.script):
                    value = self.script[self.used]
                    self.used += 1
                    return np.int64(start + value)
                raise _NeedDraw(count)
        self.used_fallback = True
        return self.fallback.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("script", "used", "fallback", "used_fallback"):
            raise AttributeError(name)
        self.used_fallback = True
        return getattr(self.fallback, name)


@dataclass
class Decision:
    """One decision of a seat: the observation it was shown, the action it took (None: now)."""

    observation: dict[str, np.ndarray]
    action: int | None
    rules_state: Any


def seat_decisions(state: CardArenaState, player: int) -> list[Decision]:
    """``player``'s decisions from the deal to ``state`` (a decision node of ``player``), the
    last one the current, each with the env observation ``player`` was shown there."""
    engine = state.engine
    if engine.need is not None or engine.record is None:
        raise ValueError("not a decision node")
    chain: list[Record] = []
    record: Record | None = engine.record
    while record is not None:
        chain.append(record)
        record = record.parent
    chain.reverse()
    adapter = engine.adapter
    decisions = []
    for index, step in enumerate(chain):
        rules_state = step.state
        if rules_state.is_terminal() or rules_state.current_player() != player:
            continue
        if index + 1 < len(chain):
            action: int | None = chain[index + 1].action
        elif state.current_player() == player:
            action = None
        else:
            continue
        observation = {
            "observation": adapter.observe(rules_state, player),
            "action_mask": adapter.mask(rules_state, player),
        }
        decisions.append(Decision(observation, action, rules_state))
    if not decisions or decisions[-1].action is not None:
        raise ValueError(f"player {player} is not to act here")
    return decisions


class AgentPolicy(os_policy.Policy):
    """A cardarena agent (``make_agent(spec)``) as an OpenSpiel policy on a cardarena game:
    ``action_probabilities(state)`` is the agent's behaviour strategy at the state's
    information state (module docstring). ``cache`` keys answers by information state string;
    ``how`` counts the information states answered by enumeration, by seeds, and
    deterministically."""

    def __init__(
        self,
        game: CardArenaGame,
        spec: str,
        seeds: int = DEFAULT_SEEDS,
        seed: int = 0,
        max_paths: int = MAX_PATHS,
        cache: bool = True,
    ) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.adapter: Adapter = game.adapter
        self.spec = spec
        self.env_spec = env_spec_of(self.adapter.env)
        self.agent: Any = make_agent(spec, seed=seed)
        self.seeds = seeds
        self.seed = seed
        self.max_paths = max_paths
        self.cache: dict[str, dict[int, float]] | None = {} if cache else None
        self.how: dict[str, int] = defaultdict(int)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        key = f"{player}|{state.information_state_string(player)}"
        if self.cache is not None and key in self.cache:
            return self.cache[key]
        decisions = seat_decisions(state, player)
        probabilities = self.distribution(decisions, player)
        if self.cache is not None:
            self.cache[key] = probabilities
        return probabilities

    # --- one information state -----------------------------------------------------------------
    def distribution(self, decisions: list[Decision], player: int) -> dict[int, float]:
        """The agent's action probabilities at the last of ``decisions``, conditioned on its
        earlier actions (unconditioned if no draw repeats them: the state is then unreachable
        under the agent, and any answer gives the same values). An agent without memory that
        states its probabilities (a network: ``probabilities(observation)``) is read as it
        says: exactly, for ``deterministic=false`` too."""
        stated = self._stated(decisions[-1], player)
        if stated is not None:
            self.how["stated"] += 1
            return stated
        for strict in (True, False):
            try:
                weights, how = self._mixture(decisions, player, strict)
            except _NotEnumerable:
                weights, how = self._seeded(decisions, player, strict)
            total = sum(weights.values())
            if total > 0:
                self.how[how if strict else f"{how}, unreachable"] += 1
                return {a: w / total for a, w in sorted(weights.items())}
        raise RuntimeError("the agent chose no action")  # pragma: no cover

    def _stated(self, decision: Decision, player: int) -> dict[int, float] | None:
        if not callable(getattr(self.agent, "probabilities", None)):
            return None
        start_game(self.agent, self.adapter.agents[player], self.env_spec)
        probabilities = self.agent.probabilities(decision.observation)
        if probabilities is None:
            return None
        return {int(a): float(probabilities[a]) for a in np.flatnonzero(probabilities)}

    def _mixture(
        self, decisions: list[Decision], player: int, strict: bool
    ) -> tuple[dict[int, float], str]:
        """Every sequence of small integer draws, exactly; other draws from seeded generators
        (``self.seeds`` of them, only if the agent makes such draws)."""
        weights, paths, used = self._enumerate(decisions, player, strict, 0)
        if not used:
            return weights, "deterministic" if paths == 1 else "enumerated"
        mixed: dict[int, float] = defaultdict(float)
        for k in range(self.seeds):
            if k:
                weights, _, _ = self._enumerate(decisions, player, strict, k)
            for action, weight in weights.items():
                mixed[action] += weight / self.seeds
        return mixed, "enumerated and seeded"

    def _replay(self, rng: Any, decisions: list[Decision], player: int, strict: bool) -> int | None:
        agent = self.agent
        agent.rng = rng
        seat = self.adapter.agents[player]
        start_game(agent, seat, self.env_spec)
        for decision in decisions:
            state = decision.rules_state
            if getattr(agent, "needs_state", False) is True:
                state = state.clone()
            action = int(choose(agent, decision.observation, state, player))
            if decision.observation["action_mask"][action] != 1:
                raise RuntimeError(f"agent {self.spec!r} chose the illegal action {action}")
            if decision.action is None:
                return action
            if strict and action != decision.action:
                return None
        return None  # pragma: no cover (the last decision is the current one)

    def _enumerate(
        self, decisions: list[Decision], player: int, strict: bool, k: int
    ) -> tuple[dict[int, float], int, bool]:
        """Joint probability of each current action and the earlier actions, over the small
        integer draws (the other draws from seeded generator ``k``); the number of draw
        sequences; whether the seeded generator was used."""
        weights: dict[int, float] = defaultdict(float)
        stack: list[tuple[list[int], float]] = [([], 1.0)]
        paths = 0
        used = False
        while stack:
            script, probability = stack.pop()
            rng = EnumeratingRng(script, np.random.default_rng([self.seed, k]))
            try:
                action = self._replay(rng, decisions, player, strict)
            except _NeedDraw as need:
                stack.extend(([*script, v], probability / need.n) for v in range(need.n))
                continue
            finally:
                used = used or rng.used_fallback
            paths += 1
            if paths > self.max_paths:
                raise _NotEnumerable(f"more than {self.max_paths} draw sequences")
            if action is not None:
                weights[action] += probability
        return weights, paths, used

    def _seeded(
        self, decisions: list[Decision], player: int, strict: bool
    ) -> tuple[dict[int, float], str]:
        weights: dict[int, float] = defaultdict(float)
        for k in range(self.seeds):
            rng = np.random.default_rng([self.seed, k])
            before = rng.bit_generator.state
            action = self._replay(rng, decisions, player, strict)
            if k == 0 and rng.bit_generator.state == before:
                # It drew nothing: every seed plays the same.
                return ({action: 1.0} if action is not None else {}), "deterministic"
            if action is not None:
                weights[action] += 1.0 / self.seeds
        return weights, "seeded"


__all__ = [
    "DEFAULT_SEEDS",
    "MAX_ENUMERATED_RANGE",
    "MAX_PATHS",
    "AgentPolicy",
    "Decision",
    "EnumeratingRng",
    "seat_decisions",
]
