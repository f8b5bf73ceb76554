"""One pyspiel Python game class for every cardarena env, driven by the env's own rules.

``CardArenaGame`` holds a configured raw env (for its rules ``Game``, its observation encoder and
its layouts); ``CardArenaState`` holds an ``Engine``, which advances a rules state and turns
every draw of the rules into an explicit chance node through the chance protocol
(``cardarena.envs.core.chance``):

- a move is applied to a copy of the state at rest, whose generator is a ``ScriptedChance``
  holding the outcomes chance has chosen so far in this move (none at first);
- if the rules draw past the script, ``NeedChance`` names the possible outcomes: the copy is
  dropped, the state at rest is kept, and the OpenSpiel state is a chance node over them;
- a chance outcome lengthens the script and the move is re-run from the state at rest, until
  it completes. The deal (``new_initial_state``) is a move like any other, from nothing.

So the rules run unchanged, with the same code that plays seeded games, and the OpenSpiel
history is the env's history: the chance outcomes in the order the rules draw them, and the
players' actions.
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


def format_vector(values: np.ndarray) -> str:
    """Sparse text of a flat vector: ``index:value`` for every non-zero entry."""
    nonzero = np.flatnonzero(values)
    return ",".join(f"{i}:{_number(values[i])}" for i in nonzero.tolist())


def _number(value: Any) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


class CardArenaObserver:
    """An OpenSpiel ``PyObserver`` (``tensor``, ``dict``, ``set_from``, ``string_from``).

    ``private_info``: SINGLE_PLAYER is the seat's env observation and legal mask; NONE keeps
    the public pieces only (the env observation without the game's private pieces, per-seat
    rows still ordered from the viewer, no mask); ALL_PLAYERS is the env's ``state()`` vector
    (every hidden card) and the mask of the seat to act. ``public_info=False`` keeps the
    private pieces and the mask only (SINGLE_PLAYER). ``perfect_recall`` adds ``history``:
    one row per decision so far, the acting seat one-hot and, when the viewer may know it (its
    own decision; every decision for ALL_PLAYERS), the action one-hot; the strings then list
    every decision and the view after it, from the deal on.
    """

    def __init__(self, adapter: Adapter, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        kind = iig_obs_type.private_info
        public = bool(iig_obs_type.public_info)
        self.adapter = adapter
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.kind = kind
        self.key = (int(kind), public, self.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = []
        layout = adapter.layout
        if kind == pyspiel.PrivateInfoType.ALL_PLAYERS:
            if not public:
                raise ValueError("ALL_PLAYERS without public_info is not supported")
            self.source = "state"
            self.names = tuple(p.name for p in adapter.state_layout.pieces)
            pieces.append(("state", adapter.state_layout.size, (adapter.state_layout.size,)))
            with_mask = True
        elif kind == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            self.source = "observation"
            self.names = tuple(
                p.name for p in layout.pieces if public or p.name in adapter.private_pieces
            )
            with_mask = True
        elif public:
            self.source = "observation"
            self.names = tuple(
                p.name for p in layout.pieces if p.name not in adapter.private_pieces
            )
            with_mask = False
        else:
            raise ValueError("an observer needs public_info or some private_info")
        self.whole = self.source == "state" or len(self.names) == len(layout.pieces)
        if self.source == "observation":
            if self.whole:
                pieces.append(("observation", layout.size, (layout.size,)))
            else:
                pieces.extend((n, layout.piece(n).size, layout.piece(n).dims) for n in self.names)
        if with_mask:
            pieces.append(("action_mask", adapter.num_actions, (adapter.num_actions,)))
        self.with_mask = with_mask
        if self.perfect_recall:
            width = adapter.num_players + adapter.num_actions
            pieces.append(("history", adapter.max_game_length * width,
                           (adapter.max_game_length, width)))  # fmt: skip
        size = sum(s for _, s, _ in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        offset = 0
        for name, piece_size, shape in pieces:
            self.dict[name] = self.tensor[offset : offset + piece_size].reshape(shape)
            offset += piece_size

    # --- one view of one state at rest ------------------------------------------------------
    def _view(self, record: Record | None, player: int) -> dict[str, np.ndarray]:
        """The non-recall pieces of ``player``'s view of ``record``'s state, memoised."""
        key = ("view", self.key, player)
        if record is not None and key in record.memo:
            return record.memo[key]
        adapter = self.adapter
        state = None if record is None else record.state
        view: dict[str, np.ndarray] = {}
        if self.source == "state":
            view["state"] = (
                adapter.full_state(state) if state is not None
                else np.zeros(adapter.state_layout.size, np.float32)
            )  # fmt: skip
            seat = -1 if state is None else state.current_player()
            view["action_mask"] = adapter.mask(state, seat)
        else:
            observation = (
                adapter.observe(state, player) if state is not None
                else np.zeros(adapter.layout.size, np.float32)
            )  # fmt: skip
            if self.whole:
                view["observation"] = observation
            else:
                named = adapter.layout.view(observation)
                for name in self.names:
                    view[name] = named[name]
            if self.with_mask:
                view["action_mask"] = adapter.mask(state, player)
        if record is not None:
            record.memo[key] = view
        return view

    def _sees(self, actor: int, player: int) -> bool:
        if self.kind == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return True
        return self.kind == pyspiel.PrivateInfoType.SINGLE_PLAYER and actor == player

    def _view_string(self, record: Record | None, player: int) -> str:
        key = ("text", self.key, player)
        if record is not None and key in record.memo:
            return record.memo[key]
        view = self._view(record, player)
        text = " ".join(f"{name}[{format_vector(np.ravel(v))}]" for name, v in view.items())
        if record is not None:
            record.memo[key] = text
        return text

    def _decision(self, actor: int, action: int, player: int) -> str:
        agent = self.adapter.agents[actor]
        return f"{agent}:{action}" if self._sees(actor, player) else f"{agent}:?"

    def _recall_string(self, record: Record | None, player: int) -> str:
        if record is None:
            return "deal"
        key = ("recall", self.key, player)
        if key in record.memo:
            return record.memo[key]
        if record.parent is None:
            text = f"deal | {self._view_string(record, player)}"
        else:
            step = self._decision(record.actor, record.action, player)
            text = (
                f"{self._recall_string(record.parent, player)}\n"
                f"{step} | {self._view_string(record, player)}"
            )
        record.memo[key] = text
        return text

    # --- PyObserver ---------------------------------------------------------------------------
    def set_from(self, state: CardArenaState, player: int) -> None:
        engine = state.engine
        self.tensor.fill(0)
        for name, values in self._view(engine.record, player).items():
            self.dict[name][...] = np.reshape(values, self.dict[name].shape)
        if self.perfect_recall:
            history = self.dict["history"]
            num_players = self.adapter.num_players
            decisions = []
            record = engine.record
            while record is not None and record.parent is not None:
                decisions.append((record.actor, record.action))
                record = record.parent
            decisions.reverse()
            if engine.need is not None and engine.record is not None:
                decisions.append((engine.actor, engine.pending))
            for row, (actor, action) in enumerate(decisions):
                history[row, actor] = 1.0
                if self._sees(actor, player):
                    history[row, num_players + action] = 1.0

    def string_from(self, state: CardArenaState, player: int) -> str:
        engine = state.engine
        if not self.perfect_recall:
            return self._view_string(engine.record, player)
        text = self._recall_string(engine.record, player)
        if engine.need is not None and engine.record is not None:
            text += f"\n{self._decision(engine.actor, engine.pending, player)} | chance"
        return text


class CardArenaGame(pyspiel.Game):
    """A cardarena env as a pyspiel game; ``params`` are the env's config (see ``specs``)."""

    def __init__(self, spec: GameSpec, params: dict[str, Any] | None = None) -> None:
        full = {**spec.defaults, **(params or {})}
        unknown = sorted(set(full) - set(spec.defaults))
        if unknown:
            raise ValueError(f"unknown parameters {unknown} for {spec.short_name}")
        self.adapter = Adapter.get(spec.short_name, full)
        adapter = self.adapter
        zero_sum = bool(adapter.rules.zero_sum)
        super().__init__(
            game_type(spec, zero_sum),
            pyspiel.GameInfo(
                num_distinct_actions=adapter.num_actions,
                max_chance_outcomes=adapter.max_chance_outcomes,
                num_players=adapter.num_players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0 if zero_sum else None,
                max_game_length=adapter.max_game_length,
            ),
            full,
        )

    def new_initial_state(self) -> CardArenaState:
        return CardArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CardArenaObserver:
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return CardArenaObserver(self.adapter, iig_obs_type, params)


class CardArenaState(pyspiel.State):
    """A game in progress. Chance nodes deal what the rules draw (``chance_outcomes``)."""

    def __init__(self, game: CardArenaGame) -> None:
        super().__init__(game)
        self.engine = Engine(game.adapter)

    def current_player(self) -> int:
        return self.engine.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(value, float(p)) for value, p in self.engine.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        engine = self.engine
        if player == pyspiel.PlayerId.CHANCE:
            label = engine.need.label if engine.need is not None else "chance"
            return f"{label}: {action}"
        state = engine.rest
        if state is None:
            return f"action {action}"
        return f"{engine.adapter.agents[player]} {state.action_to_string(action)}"

    def is_terminal(self) -> bool:
        return self.engine.current_player() == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        return self.engine.returns()

    def rules_state(self) -> Any:
        """A copy of the rules state at rest (None during the deal), e.g. for an env's
        ``set_state``; its generator field holds a fresh, unseeded numpy generator."""
        state = self.engine.rest
        if state is None:
            return None
        twin = state.clone()
        for name in self.engine.adapter.chance_fields or ():
            setattr(twin, name, np.random.default_rng())
        return twin

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> CardArenaState:
        """A determinization for search (OpenSpiel's ISMCTS calls it): a state in which
        everything ``player`` cannot see is redrawn by the rules' ``resample_from_infostate``,
        with ``player``'s observation unchanged. It starts a new history at the redrawn state
        (the past is not redrawn), so search must key on observations
        (``ISMCTSBot(..., use_observation_string=True)``); its ``history()`` is the true one.
        ``probability_sampler()`` (a float in [0, 1)) seeds the redraw."""
        engine = self.engine
        if engine.rest is None or engine.need is not None:
            raise ValueError("resample_from_infostate needs a decision node or a terminal state")
        seed = int(float(probability_sampler()) * 2**53)
        twin = engine.rest.resample_from_infostate(player, np.random.default_rng(seed))
        for name in engine.adapter.chance_fields or ():
            setattr(twin, name, _AT_REST)
        resampled = self.clone()
        resampled.engine = Engine.at(engine.adapter, twin)
        return resampled

    def __str__(self) -> str:
        engine = self.engine
        if engine.rest is None:
            return f"dealing; chance so far: {engine.script}"
        text = engine.adapter.env.render_text(engine.rest)
        if engine.need is not None:
            agent = engine.adapter.agents[engine.actor]
            text += f"\n{agent} played {engine.pending}; chance so far: {engine.script}"
        return text


def game_type(spec: GameSpec, zero_sum: bool) -> pyspiel.GameType:
    """The ``GameType`` of ``spec`` (zero-sum per configuration, as the env's metadata says)."""
    utility = (
        pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
    )
    return pyspiel.GameType(
        short_name=spec.short_name,
        long_name=spec.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(spec.defaults),
    )


def register(spec: GameSpec) -> None:
    """Register ``spec`` with pyspiel (``pyspiel.load_game(spec.short_name, {...})``)."""
    if spec.short_name in pyspiel.registered_names():
        return
    zero_sum = bool(Adapter.get(spec.short_name, dict(spec.defaults)).rules.zero_sum)
    # A class per game, as OpenSpiel's own Python games register (a class, unlike a lambda,
    # outlives the interpreter's teardown, when pyspiel's registry lets go of it).
    game_class = type(
        f"{spec.short_name.title().replace('_', '')}Game",
        (CardArenaGame,),
        {"__init__": _spec_init(spec), "__module__": __name__},
    )
    _GAME_CLASSES[spec.short_name] = game_class
    globals()[game_class.__name__] = game_class  # pickle finds a game's class by name
    pyspiel.register_game(game_type(spec, zero_sum), game_class)


_GAME_CLASSES: dict[str, type] = {}


def _spec_init(spec: GameSpec) -> Any:
    def __init__(self: CardArenaGame, params: dict[str, Any] | None = None) -> None:
        CardArenaGame.__init__(self, spec, params)

    return __init__
