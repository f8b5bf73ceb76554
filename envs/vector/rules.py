"""``VectorRules``: the contract between a game's vector rules and the shared vector front.

A game's vector rules (``envs/<game>/vector.py``) keep many games in struct-of-arrays form
and advance all of them per call, in ``jit`` loops (``cardarena.envs.core.kernels``). The front
(``cardarena.envs.vector.front``) owns everything that is not the game: seeding, autoreset,
action checks, the ``Batch`` it returns. The reference rules (``envs/<game>/rules.py``) stay the
definition of the game; ``state_of`` / ``set_state`` convert one slot to and from a reference
``GameState``, which is how the tests prove the vector rules exact. Those conversions live in
the game's ``bridge.py`` beside its engine (``VectorRules.bridge``), apart from the loops.

A game registers its vector rules with ``VECTOR = "module:Class"`` in its versioned module
(``ironman_war_v0.py``): ``make_vec`` and every generic vector test then find it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..core.game import NO_PLAYER, GameState
from ..core.moved import deprecate


class VectorRules:
    """``num_envs`` games of one validated ``game`` (the reference rules' ``Game``).

    The front reads and the subclass keeps up to date, for every slot ``i``:
    ``current_player[i]`` (``NO_PLAYER`` once over), ``terminated[i]``, ``truncated[i]`` and
    ``rewards[i]`` (the rules' returns on the step that ends a game, else zeros). ``rng`` holds
    one SplitMix64 state per slot (``kernels.rng_*``); the front seeds it, the subclass draws
    every random number of slot ``i`` from ``rng[i]`` alone.
    """

    #: The env this vector game belongs to (``ENVS`` name).
    env_name: ClassVar[str]

    def __init__(self, game: Any, num_envs: int, observation_size: int) -> None:
        self.game = game
        self.num_envs = int(num_envs)
        self.num_players = len(game.agent_names)
        self.num_actions = int(game.num_actions)
        self.observation_size = int(observation_size)
        self.rng = np.zeros(self.num_envs, np.uint64)
        self.current_player = np.full(self.num_envs, NO_PLAYER, np.int64)
        self.terminated = np.zeros(self.num_envs, np.bool_)
        self.truncated = np.zeros(self.num_envs, np.bool_)
        self.rewards = np.zeros((self.num_envs, self.num_players), np.float32)

    # --- to implement per game -------------------------------------------------------------
    def reset_games(self, which: np.ndarray) -> None:
        """Deal a new game in every slot where the bool array ``which`` is set (its rewards
        zero, not terminated or truncated, ``current_player`` the first to act)."""
        raise NotImplementedError

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        """Play ``actions[i]`` (int64, already checked legal) in every slot where ``which`` is
        set; set that slot's ``rewards`` (returns if the game ended, else zeros),
        ``terminated``, ``truncated`` and ``current_player``."""
        raise NotImplementedError

    def legal_masks(self, out: np.ndarray) -> None:
        """Write the legal mask of each slot's player to act into bool ``out [N, A]`` (all
        False in a finished game)."""
        raise NotImplementedError

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        """Write seat ``seats[i]``'s observation of slot ``i`` into float32 ``out [N, D]``:
        exactly ``raw_env.observe(agent)["observation"]`` (unscaled) in that state. A slot with
        ``seats[i] < 0`` is left as it is."""
        raise NotImplementedError

    # --- one slot to and from a reference state: the game's ``bridge.py`` beside its engine ---
    @classmethod
    def bridge(cls) -> ModuleType:
        """The module ``bridge`` in the engine's own package (``envs/<game>/bridge.py``), which
        defines ``state_of``, ``set_state`` and ``state_difference`` as functions; it imports
        the engine's layout, the engine never imports it."""
        name = f"{cls.__module__.rpartition('.')[0]}.bridge"
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name and not name.startswith(f"{error.name}."):
                raise  # the bridge exists and fails on an import of its own
            raise NotImplementedError(
                f"{cls.__name__} has no bridge: {name} (bridge.py beside the engine) must "
                "define state_of, set_state and state_difference (docs/adding_a_game.md)"
            ) from None

    def state_of(self, slot: int) -> GameState:
        """A reference rules state equal to game ``slot``'s (its generator derived from the
        slot's, see ``kernels.generator_of``)."""
        return self.bridge().state_of(self, slot)

    def set_state(self, slot: int, state: GameState) -> None:
        """Make game ``slot`` continue from the reference ``state`` (of this ``game``)."""
        self.bridge().set_state(self, slot, state)

    @classmethod
    def state_difference(
        cls, previous: GameState, expected: GameState, actual: GameState
    ) -> str | None:
        """None if ``actual`` (``state_of`` after a vector step from ``previous``) is the state
        the reference rules reached (``expected``, ``previous`` advanced by ``apply_action``):
        equal field by field wherever the step involved no chance, and where the step shuffled
        a pile (which ``previous`` and ``expected`` show), the same cards in that pile. Else a
        message naming what differs. Generators are not compared."""
        return cls.bridge().state_difference(previous, expected, actual)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedRules": "VectorRules"})
