"""``GameAECEnv``: the one PettingZoo AEC adapter every cardarena game uses.

It owns all PettingZoo bookkeeping (agents, rewards, cumulative rewards, terminations,
truncations, infos, agent selection, dead steps, seeding) so that a game's env module only
declares its observation layout, encodes observations and renders text. The rules live in a
pure ``GameState`` (see ``game.py``); this class never decides anything about the game itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .errors import IllegalActionError, InvalidConfigError
from .game import NO_PLAYER, Game, GameState
from .observation import ObservationLayout

ObsDict = dict[str, np.ndarray]


def coerce_action(action: Any, num_actions: int, agent: str) -> int:
    """Return ``action`` as an int in ``[0, num_actions)`` or raise ``IllegalActionError``.

    Accepts Python and numpy integers and 0-d / one-element integer arrays (what SB3's
    ``predict`` returns); refuses bools, floats, strings and None, since silently rounding or
    truthy-casting them would play a move the caller did not mean.
    """
    value = action
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise IllegalActionError(
            f"action for {agent} must be an integer in 0..{num_actions - 1}, "
            f"got {action!r} ({type(action).__name__})"
        )
    index = int(value)
    if not 0 <= index < num_actions:
        raise IllegalActionError(
            f"action {index} for {agent} is out of range: the action space is "
            f"Discrete({num_actions}), so 0..{num_actions - 1}"
        )
    return index


def env_metadata(name: str) -> dict[str, Any]:
    """PettingZoo classic metadata for env ``name`` (text rendering, no parallel API)."""
    return {
        "name": name,
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }


class GameAECEnv(AECEnv[str, ObsDict, int]):
    """PettingZoo AEC environment around a pure rules ``Game``.

    Subclasses set ``metadata`` (``env_metadata(name)``), ``build_game`` (config -> ``Game``,
    raising ``InvalidConfigError``) and ``build_layout`` (``Game`` -> ``ObservationLayout``),
    and implement ``encode`` and ``render_text``.
    """

    metadata: ClassVar[dict[str, Any]] = env_metadata("cardarena_game")

    build_game: Callable[..., Game]
    build_layout: Callable[[Any], ObservationLayout]

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        allowed_modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in allowed_modes:
            raise InvalidConfigError(
                f"render_mode must be None or one of {allowed_modes}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        game = self.build_game(**config)
        layout = self.build_layout(game)
        self.game = game
        self.layout = layout
        self.possible_agents = list(game.agent_names)
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        self.num_actions = game.num_actions
        self.observation_spaces = {
            name: spaces.Dict(
                {
                    "observation": layout.space(),
                    "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
                }
            )
            for name in self.possible_agents
        }
        self.action_spaces = {
            name: spaces.Discrete(game.num_actions) for name in self.possible_agents
        }
        self._no_actions = np.zeros(game.num_actions, dtype=np.int8)
        self._state: GameState | None = None
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.agents: list[str] = []
        self.agent_selection = self.possible_agents[0]

    # --- to implement per game -------------------------------------------------------------
    def encode(self, state: GameState, seat: int) -> np.ndarray:
        """The float32 observation vector of ``seat``: only what that player can see."""
        raise NotImplementedError

    def render_text(self, state: GameState) -> str:
        """The table as text for ``render()``."""
        raise NotImplementedError

    # --- PettingZoo API --------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game_state(self) -> GameState:
        """The rules state of the current game (for tests, search and debugging)."""
        if self._state is None:
            raise RuntimeError("no game yet: call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            rng, rng_seed = seeding.np_random(seed)
        else:
            rng, rng_seed = self.np_random, self.np_random_seed
        # Build the new game before touching anything, so a bad option leaves the old one intact.
        state = self.game.new_initial_state(rng, options)
        self.np_random, self.np_random_seed = rng, rng_seed
        self._state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._skip_agent_selection = None
        self._after_transition()

    def step(self, action: Any) -> None:
        if self._state is None:
            raise IllegalActionError("step() called before reset()")
        if not self.agents:
            raise IllegalActionError(
                f"the game is over and every agent has left; got action {action!r}, call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"the game is over for {agent}: the only valid action is None, got {action!r}"
                )
            self._was_dead_step(None)
            return
        index = coerce_action(action, self.num_actions, agent)
        self._state.apply_action(index)
        self._cumulative_rewards[agent] = 0.0
        self._after_transition()

    def observe(self, agent: str) -> ObsDict:
        state = self.game_state
        seat = self.agent_name_mapping[agent]
        # A wrapper may end the game (illegal move) while the rules state still runs.
        finished = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if seat == state.current_player() and not finished:
            mask = state.legal_action_mask().astype(np.int8)
        else:
            mask = self._no_actions.copy()
        return {"observation": self.encode(state, seat), "action_mask": mask}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions now (all zeros when it is not to act)."""
        return self.observe(agent)["action_mask"]

    def render(self) -> str | None:
        if self.render_mode is None:
            raise InvalidConfigError(
                "render() needs a render_mode; create the env with render_mode='ansi' or 'human'"
            )
        text = self.render_text(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering is text only."""

    # --- bookkeeping -----------------------------------------------------------------------
    def _after_transition(self) -> None:
        state = self.game_state
        rewards = self.rewards
        if state.is_terminal():
            for agent, value in zip(self.possible_agents, state.returns(), strict=True):
                if agent in rewards:
                    rewards[agent] = float(value)
                    self.terminations[agent] = True
        elif state.is_truncated():
            for agent in rewards:
                rewards[agent] = 0.0
                self.truncations[agent] = True
        else:
            for agent in rewards:
                rewards[agent] = 0.0
            seat = state.current_player()
            if seat == NO_PLAYER:
                raise RuntimeError("rules state has no player to act but is not over")
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()
