"""``GameAECEnv``: the one PettingZoo AEC adapter every cardarena game uses.

It owns all PettingZoo bookkeeping (agents, rewards, cumulative rewards, terminations,
truncations, infos, agent selection, dead steps, seeding, the end-of-game info) so that a game's
env module only declares its observation and state layouts, encodes them and renders text. The
rules live in a pure ``GameState`` (see ``game.py``); this class never decides anything about
the game itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .errors import IllegalActionError, InvalidConfigError, UnknownAgentError
from .events import Event, describe_generic
from .game import NO_PLAYER, Game, GameState, legal_index
from .infos import NO_ILLEGAL_ACTION, NO_OFFENDER, Outcome, Seat, blank_info
from .observation import ObservationLayout, ObservationScaler
from .state_checks import check_loaded_state
from .svg import text_table
from .tables import Table
from .validation import check_bool, check_int

ObsDict = dict[str, np.ndarray]

#: ``info["outcome"]`` at the end of a game (``Outcome`` codes; see ``infos``).
TERMINATED, TRUNCATED, ILLEGAL_ACTION = (
    Outcome.TERMINATED,
    Outcome.TRUNCATED,
    Outcome.ILLEGAL_ACTION,
)
#: The config flag every env takes for a ``[0, 1]`` observation Box (see ``GameAECEnv``).
NORMALIZE_OBSERVATION = "normalize_observation"


def env_metadata(name: str, min_players: int, max_players: int) -> dict[str, Any]:
    """PettingZoo classic metadata for env ``name`` plus the seat range it supports.

    An instance's ``metadata`` also holds ``num_players`` and ``zero_sum`` (whether the
    rules' returns sum to 0 in its configuration; an illegal move through ``env()`` is not a
    rule, and gives -1 to the offender only).
    """
    return {
        "name": name,
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
        "min_players": min_players,
        "max_players": max_players,
    }


def check_seed(seed: Any) -> int | None:
    """``seed`` as a non-negative Python int (numpy integers accepted), or None."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InvalidConfigError(
            f"seed must be None or a non-negative integer, got {seed!r} ({type(seed).__name__})"
        )
    if seed < 0:
        raise InvalidConfigError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)


def config_keys(build_game: Callable[..., Any]) -> tuple[str, ...] | None:
    """The keyword names ``build_game`` takes (None if it takes ``**kwargs``)."""
    parameters = inspect.signature(build_game).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return tuple(p.name for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL)


class GameAECEnv(AECEnv[str, ObsDict, int]):
    """PettingZoo AEC environment around a pure rules ``Game``.

    Subclasses set ``metadata`` (``env_metadata(...)``), ``build_game`` (config -> ``Game``,
    raising ``InvalidConfigError``), ``build_layout`` and ``build_state_layout`` (``Game`` ->
    ``ObservationLayout``), and implement ``encode``, ``encode_state`` and ``render_text``.
    ``example_configs`` lists representative configurations: the conformance suite
    (tests/conformance) runs every generic check on each, so a registered env gets them all.

    Every env also takes ``normalize_observation=True``: the observation Box becomes
    ``[0, 1]`` float32, values scaled by ``ObservationScaler`` (the SB3 bridge's own map), for
    clients that feed observations to a network unscaled. ``state()`` stays unscaled.
    """

    metadata: dict[str, Any] = env_metadata("cardarena_game", 2, 2)
    example_configs: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    #: Config keys whose value may name a file (a deck, a characters table), each with the
    #: loader that reads one into a ``Table``. A server never takes such a value from a request
    #: (``cardarena.web`` refuses it, and reads the operator's files through the loader once);
    #: tests/envs/test_file_config_keys.py checks that every path-typed config key is listed.
    file_config_keys: ClassVar[Mapping[str, Callable[[Any], Table]]] = {}

    build_game: Callable[..., Game]
    build_layout: Callable[[Any], ObservationLayout]
    build_state_layout: Callable[[Any], ObservationLayout]

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        allowed_modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in allowed_modes:
            raise InvalidConfigError(
                f"render_mode must be None or one of {allowed_modes}, got {render_mode!r}"
            )
        self._check_config_keys(config)
        self.render_mode = render_mode
        #: The configuration this env was built with (agents get it through ``EnvSpec``).
        self.config = dict(config)
        normalize = check_bool(config.pop(NORMALIZE_OBSERVATION, False), NORMALIZE_OBSERVATION)
        game = self.build_game(**config)
        self.game = game
        self.layout = self.build_layout(game)
        self.state_layout = self.build_state_layout(game)
        self._observation_buffer = self.layout.buffer()
        self._state_buffer = self.state_layout.buffer()
        self.possible_agents = list(game.agent_names)
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        self.metadata = {
            **type(self).metadata,
            "num_players": len(self.possible_agents),
            "zero_sum": bool(game.zero_sum),
        }
        self.num_actions = game.num_actions
        #: Maps raw observations onto ``[0, 1]`` when built with ``normalize_observation``.
        box = self.layout.space()
        self.observation_scaler = ObservationScaler(box) if normalize else None
        if self.observation_scaler is not None:
            box = self.observation_scaler.space
        self.observation_spaces = {
            name: spaces.Dict(
                {
                    "observation": box,
                    "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
                }
            )
            for name in self.possible_agents
        }
        self.action_spaces = {
            name: spaces.Discrete(game.num_actions) for name in self.possible_agents
        }
        self.state_space = self.state_layout.space()
        self._no_actions = np.zeros(game.num_actions, dtype=np.int8)
        self._state: GameState | None = None
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.agents: list[str] = []
        self.agent_selection = self.possible_agents[0]
        self.num_steps = 0
        self._legal: np.ndarray | None = None  # the current player's mask, per transition
        self._events_wanted = False

    def _check_config_keys(self, config: dict[str, Any]) -> None:
        allowed = config_keys(self.build_game)
        if allowed is None:
            return
        allowed = (*allowed, "render_mode", NORMALIZE_OBSERVATION)
        unknown = [key for key in config if key not in allowed]
        if unknown:
            name = self.metadata["name"]
            raise InvalidConfigError(
                f"unknown config key{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))} for {name}; allowed: "
                f"{', '.join(map(repr, allowed))}"
            )

    # --- to implement per game -------------------------------------------------------------
    def encode(self, state: GameState, seat: int, views: dict[str, np.ndarray]) -> None:
        """Write ``seat``'s observation into the zeroed ``views``: only what it can see."""
        raise NotImplementedError

    def encode_state(self, state: GameState, views: dict[str, np.ndarray]) -> None:
        """Write the full-information state (``state_layout``) into the zeroed ``views``."""
        raise NotImplementedError

    def render_text(self, state: GameState) -> str:
        """The table as text for ``render()``: names every seat, and once the game is over
        says "game over" or "truncated" (the conformance suite checks both)."""
        raise NotImplementedError

    # --- presentation for people (``cardarena.agents.table``: text play, the web table) -----
    #: The one line a new player reads first. Each game sets its own (the same sentence as
    #: ``envs/rulebooks/<env>.md``'s "How to win").
    how_to_win: ClassVar[str] = "Play until the game ends; a positive final reward is a win."

    def record_events(self) -> None:
        """Keep the rules state's event log (``core.events``) in this game and every later
        one. Off by default: training never pays for it."""
        self._events_wanted = True
        if self._state is not None:
            self._state.record_events()  # type: ignore[attr-defined]

    def describe_event(self, event: Event, viewer: int) -> str:
        """The line ``viewer`` (a seat that saw ``event``) reads for it; games override."""
        return describe_generic(event, tuple(self.possible_agents), viewer)

    def table_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees at the table, JSON-able (the web table draws and sends it).
        Games override with named fields; this default is ``seat``'s observation piece by
        piece, so it can hold nothing the seat may not see."""
        self.encode(self.game_state, seat, self._observation_buffer.clear())
        named = self.layout.view(self._observation_buffer.snapshot())
        return {"pieces": {name: values.tolist() for name, values in named.items()}}

    def table_svg(self, view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
        """The table drawn as SVG from ``table_view``'s ``view``; ``actions`` are the viewer's
        legal (index, name) pairs, drawn clickable where the picture has a place for them."""
        pieces = view.get("pieces", {})
        return text_table(self.metadata["name"], [f"{k}: {v}" for k, v in pieces.items()])

    # --- PettingZoo API --------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        if agent not in self.agent_name_mapping:
            raise UnknownAgentError(
                f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}"
            )
        return agent

    @property
    def game_state(self) -> GameState:
        """The rules state of the current game (for tests, search and debugging)."""
        if self._state is None:
            raise RuntimeError("no game yet: call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            rng, rng_seed = seeding.np_random(seed)
        else:
            rng, rng_seed = self.np_random, self.np_random_seed
        # Build the new game before touching anything, so a bad option leaves the old one intact.
        state = self.game.new_initial_state(rng, options)
        self.np_random, self.np_random_seed = rng, rng_seed
        self._state = state
        self._start_game(0)

    def _start_game(self, num_steps: int) -> None:
        if self._events_wanted:
            self.game_state.record_events()  # type: ignore[attr-defined]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: self._info() for name in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._skip_agent_selection = None
        self.num_steps = num_steps
        self._after_transition()

    def set_state(self, state: GameState, num_steps: int = 0) -> None:
        """Continue from the rules ``state`` (of this env's config), as if a game had reached
        it: observe, action_mask, render and step then work on a copy of it (the caller's
        object is never changed). The inverse of ``game_state`` and of ``BatchEnv.state_of``;
        rewards start at zero (the state's returns if it is already over) and
        ``info["steps"]`` counts from ``num_steps``.

        A state the rules could not have reached (a count out of range, a card held twice or
        not in the deck, a seat out of range, a wrong shape or dtype: ``check_loaded_state``)
        is refused with ``InvalidConfigError`` naming the field; the current game stays."""
        if getattr(state, "game", None) != self.game:
            raise InvalidConfigError(
                f"set_state needs a rules state of this env's configuration "
                f"({self.metadata['name']} with {self.config}); got {type(state).__name__}"
            )
        steps = check_int(num_steps, "num_steps", 0)
        check_loaded_state(state)
        self._state = state.clone()
        self._start_game(steps)

    def step(self, action: Any) -> None:
        if self._state is None:
            raise IllegalActionError("step() called before reset()")
        if not self.agents:
            raise IllegalActionError(
                f"the game is over and every agent has left; got action {action!r}, call reset()"
            )
        if not self.dead_step(action):
            self.apply_legal(legal_index(self._state, action, self.legal_mask()))

    # --- hooks for wrappers (``GameWrapper`` uses these and nothing private) ---------------
    def dead_step(self, action: Any) -> bool:
        """PettingZoo's dead step: if the selected agent's game is over, remove it and return
        True (``action`` must be None, else ``IllegalActionError``); False if it is to act."""
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            return False
        if action is not None:
            raise IllegalActionError(
                f"the game is over for {agent}: the only valid action is None, got {action!r}"
            )
        self._was_dead_step(None)
        return True

    def legal_mask(self) -> np.ndarray:
        """The rules' boolean mask for the player to act, computed once per transition
        (cached: do not modify it; ``action_mask`` gives a copy)."""
        if self._legal is None:
            self._legal = self.game_state.legal_action_mask()
        return self._legal

    def apply_legal(self, index: int) -> None:
        """Play ``index`` for the selected agent, unchecked: the caller has passed it through
        ``legal_index`` (the one legality check) against ``legal_mask()``."""
        self.game_state.apply_legal_action(index)
        self.num_steps += 1
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._after_transition()

    def observe(self, agent: str) -> ObsDict:
        state = self.game_state
        seat = self.agent_name_mapping.get(agent)
        if seat is None:
            self._known(agent)
        self.encode(state, seat, self._observation_buffer.clear())  # type: ignore[arg-type]
        observation = self._observation_buffer.snapshot()
        if self.observation_scaler is not None:
            observation = self.observation_scaler(observation)
        return {"observation": observation, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions now (all zeros when it is not to act)."""
        state = self.game_state
        seat = self.agent_name_mapping.get(agent)
        if seat is None:
            self._known(agent)
        # A wrapper may end the game (illegal move) while the rules state still runs.
        finished = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if seat == state.current_player() and not finished:
            return self.legal_mask().astype(np.int8)
        return self._no_actions.copy()

    def state(self) -> np.ndarray:
        """The full-information state vector (``state_space``; layout in the env docstring)
        for centralised critics and debugging: it shows every hidden card."""
        self.encode_state(self.game_state, self._state_buffer.clear())
        return self._state_buffer.snapshot()

    def render(self) -> str | None:
        """The table as text (``"ansi"``), or printed (``"human"``, which also prints after
        ``reset()`` and every move, as PettingZoo's classic envs do). Without a render mode it
        warns and returns None, like them."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                "Create the env with render_mode='ansi' or 'human'."
            )
            return None
        text = self.render_text(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering is text only."""

    # --- bookkeeping -----------------------------------------------------------------------
    def _after_transition(self) -> None:
        self._legal = None
        state = self.game_state
        rewards = self.rewards
        if state.is_terminal():
            for agent, value in zip(self.possible_agents, state.returns(), strict=True):
                if agent in rewards:
                    rewards[agent] = float(value)
                    self.terminations[agent] = True
            self._record_outcome(TERMINATED)
        elif state.is_truncated():
            for agent in rewards:
                rewards[agent] = 0.0
                self.truncations[agent] = True
            self._record_outcome(TRUNCATED)
        else:
            for agent in rewards:
                rewards[agent] = 0.0
            seat = state.current_player()
            if seat == NO_PLAYER:
                raise RuntimeError("rules state has no player to act but is not over")
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _info(self) -> dict[str, Any]:
        """One agent's info at the start: the same keys, types and shapes as at every later
        step (``infos.py``), so buffers that stack infos and tensorising clients accept it."""
        return blank_info(len(self.possible_agents))

    def _record_outcome(
        self,
        outcome: Outcome,
        offender: Seat = NO_OFFENDER,
        illegal_action: int = NO_ILLEGAL_ACTION,
    ) -> None:
        """Every agent's end-of-game info: outcome, final scores, winners, steps played."""
        scores = np.asarray(self.game_state.scores(), np.float32)
        rewards = self.rewards
        winners = np.array([rewards.get(a, 0.0) > 0 for a in self.possible_agents], np.int8)
        for agent in self.agents:
            self.infos[agent] = {
                "outcome": outcome,
                "scores": scores.copy(),
                "winners": winners.copy(),
                "steps": self.num_steps,
                "offender": offender,
                "illegal_action": illegal_action,
            }

    def end_by_illegal_action(self, agent: str, action: int, reward: float) -> None:
        """PettingZoo's TerminateIllegalWrapper semantics, as a termination only: ``agent``
        gets ``reward``, everyone else 0, and the infos name the offender."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(reward)
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, False)
        seat = Seat(self.possible_agents.index(agent))
        self._record_outcome(ILLEGAL_ACTION, offender=seat, illegal_action=int(action))
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()
