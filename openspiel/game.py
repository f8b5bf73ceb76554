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

from typing import Any

import numpy as np
import pyspiel

from .adapter import _AT_REST, Adapter, Engine, Record
from .observer import CardArenaObserver, format_vector
from .specs import GameSpec


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


# Adapter, Engine, Record and the observer moved to .adapter and .observer; their old import
# path (cardarena.openspiel.game) keeps working.
__all__ = [
    "Adapter",
    "CardArenaGame",
    "CardArenaObserver",
    "CardArenaState",
    "Engine",
    "Record",
    "format_vector",
    "game_type",
    "register",
]
