"""What one configured OpenSpiel game shares across its states (``Adapter``), and the game so
far of one state (``Engine``: the state at rest, the move waiting for chance, the history).

The chance protocol is explained in ``cardarena.openspiel.game``: a move runs on a copy of the
state at rest whose generator is a ``ScriptedChance``; when the rules draw past the script,
``NeedChance`` makes the state a chance node, and the move is run again with one more outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pyspiel

from cardarena.envs import make_raw
from cardarena.envs.core.chance import NeedChance, ScriptedChance
from cardarena.envs.core.game import NO_PLAYER

from .specs import SPECS, GameSpec

#: Sits in a rules state's generator field while the state is at rest. Nothing draws from it:
#: every move runs on a copy whose field holds a ``ScriptedChance``.
_AT_REST = np.random.Generator(np.random.PCG64(0))

_ADAPTERS: dict[tuple[str, tuple[tuple[str, Any], ...]], Adapter] = {}


class Adapter:
    """Everything a configured game shares across its states: the spec, the parameters, the
    raw env (rules ``Game``, encoders, layouts) and the rules state's generator fields."""

    def __init__(self, spec: GameSpec, params: dict[str, Any]) -> None:
        self.spec = spec
        self.params = dict(params)
        self.config = spec.to_config(self.params)
        self.env = make_raw(spec.env_name, **self.config)
        self.rules = self.env.game
        self.layout = self.env.layout
        self.state_layout = self.env.state_layout
        self.num_players = len(self.env.possible_agents)
        self.agents = tuple(self.env.possible_agents)
        self.num_actions = int(self.env.num_actions)
        self.max_game_length = int(spec.max_game_length(self.rules))
        self.max_chance_outcomes = int(spec.max_chance_outcomes(self.rules))
        self.private_pieces = tuple(p for p in spec.private_pieces if p in self.layout)
        self.chance_fields: tuple[str, ...] | None = None
        self.scaler = self.env.observation_scaler

    @classmethod
    def get(cls, short_name: str, params: dict[str, Any]) -> Adapter:
        """The shared adapter of a game (one per parameter set, also after unpickling)."""
        key = (short_name, tuple(sorted(params.items())))
        adapter = _ADAPTERS.get(key)
        if adapter is None:
            spec = next(s for s in SPECS.values() if s.short_name == short_name)
            adapter = _ADAPTERS[key] = cls(spec, params)
        return adapter

    def observe(self, rules_state: Any, seat: int) -> np.ndarray:
        """``seat``'s env observation of ``rules_state`` (exactly ``env.observe``'s vector)."""
        buffer = self.layout.buffer()
        self.env.encode(rules_state, seat, buffer.clear())
        observation = buffer.snapshot()
        return observation if self.scaler is None else self.scaler(observation)

    def full_state(self, rules_state: Any) -> np.ndarray:
        """The env's ``state()`` vector of ``rules_state`` (every hidden card)."""
        buffer = self.state_layout.buffer()
        self.env.encode_state(rules_state, buffer.clear())
        return buffer.snapshot()

    def mask(self, rules_state: Any, seat: int) -> np.ndarray:
        """``seat``'s int8 legal mask, as the env gives it (zeros unless ``seat`` is to act)."""
        if rules_state is not None and rules_state.current_player() == seat:
            return rules_state.legal_action_mask().astype(np.int8)
        return np.zeros(self.num_actions, np.int8)

    def run(self, rest: Any, action: int, script: list[int]) -> Any:
        """The move ``action`` from the state at rest ``rest`` (None: the deal), with chance
        taking the outcomes in ``script``: the new state at rest, or ``NeedChance``."""
        chance = ScriptedChance(script)
        if rest is None:
            state = self.rules.new_initial_state(chance)
            if self.chance_fields is None:
                self.chance_fields = tuple(k for k, v in vars(state).items() if v is chance)
                if not self.chance_fields:
                    raise RuntimeError("the rules state keeps no generator field (chance protocol)")
        else:
            state = rest.clone()
            for name in self.chance_fields or ():
                setattr(state, name, chance)
            state.apply_legal_action(action)
        if chance.used != len(script):
            raise RuntimeError(f"the move used {chance.used} of {len(script)} chance outcomes")
        for name in self.chance_fields or ():
            setattr(state, name, _AT_REST)
        return state


@dataclass
class Record:
    """One state at rest on the way to the current one: the decision that led to it (``actor``
    seat and ``action``; -1 for the deal) and memoised views for the observers."""

    parent: Record | None
    state: Any
    actor: int
    action: int
    length: int
    memo: dict[Any, Any] = field(default_factory=dict)


class Engine:
    """The game so far: the state at rest, the move in progress (a player's action waiting
    for chance, with the outcomes chosen so far) and the history (for pickling and replay)."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.record: Record | None = None
        self.pending = -1
        self.script: list[int] = []
        self.need: NeedChance | None = None
        self.history: list[int] = []
        self._advance()

    @classmethod
    def at(cls, adapter: Adapter, rules_state: Any) -> Engine:
        """An engine at rest at ``rules_state`` (its chance fields at rest), with no past."""
        engine = object.__new__(cls)
        engine.adapter = adapter
        engine.record = Record(None, rules_state, -1, -1, 0)
        engine.pending = -1
        engine.script = []
        engine.need = None
        engine.history = []
        return engine

    @property
    def rest(self) -> Any:
        return None if self.record is None else self.record.state

    @property
    def actor(self) -> int:
        """The seat whose move is in progress (-1 during the deal or at rest)."""
        return (
            -1 if self.record is None or self.need is None else self.record.state.current_player()
        )

    def _advance(self) -> None:
        try:
            state = self.adapter.run(self.rest, self.pending, self.script)
        except NeedChance as need:
            self.need = need
            return
        self.need = None
        actor = -1 if self.record is None else self.record.state.current_player()
        length = 0 if self.record is None else self.record.length + 1
        self.record = Record(self.record, state, actor, self.pending, length)
        self.pending = -1
        self.script = []

    def current_player(self) -> int:
        if self.need is not None:
            return int(pyspiel.PlayerId.CHANCE)
        state = self.rest
        if state.is_terminal() or state.is_truncated():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(state.current_player())

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        return [] if self.need is None else self.need.outcomes

    def legal_actions(self) -> list[int]:
        if self.need is not None:
            return [value for value, _ in self.need.outcomes]
        state = self.rest
        if state.current_player() == NO_PLAYER:
            return []
        return np.flatnonzero(state.legal_action_mask()).tolist()

    def apply(self, action: int) -> None:
        action = int(action)
        if action not in self.legal_actions():
            raise ValueError(f"action {action} is not legal here: {self.legal_actions()}")
        if self.need is not None:
            self.script.append(action)
        else:
            self.pending = action
        self.history.append(action)
        self._advance()

    def returns(self) -> list[float]:
        state = self.rest
        if state is None or not state.is_terminal():
            return [0.0] * self.adapter.num_players
        return [float(r) for r in state.returns()]

    def copy(self) -> Engine:
        twin = object.__new__(Engine)
        twin.adapter = self.adapter
        twin.record = self.record  # records are never changed once made: share them
        twin.pending = self.pending
        twin.script = self.script[:]
        twin.need = self.need
        twin.history = self.history[:]
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> Engine:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as the game's name, its parameters and the history: nothing more."""
        spec = self.adapter.spec
        return {"game": spec.short_name, "params": self.adapter.params, "history": self.history}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        Engine.__init__(self, Adapter.get(saved["game"], saved["params"]))
        for action in saved["history"]:
            self.apply(action)


__all__ = ["Adapter", "Engine", "Record"]
