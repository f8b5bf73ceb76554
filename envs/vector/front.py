"""``make_vec``: thousands of games of one env advanced per call, on a game's ``VectorRules``.

The front owns what no game should write twice: validating the config (through the env's own
``raw_env``, so a bad config raises the env's ``InvalidConfigError``), seeding every slot from
the seed and its index, checking actions, and Gymnasium 1.x *next-step* autoreset: a game that
ends reports ``terminated``/``truncated`` and its returns in the batch where it ends; the next
``step`` ignores that slot's action and deals it a new game.

Actions follow the AEC env's rule (``core.actions``): integers only. A numpy integer array of
any width is read as it is; a list or tuple element by element, each a Python or numpy
integer. Bool and float arrays (even of whole numbers), bools, floats and strings in a list
are refused with ``IllegalActionError``, as out-of-range and illegal actions are.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.actions import integer_value
from ..core.aec import check_seed
from ..core.errors import IllegalActionError, InvalidConfigError
from ..core.game import NO_PLAYER, GameState
from ..core.kernels import JIT_ENABLED, checked_actions, slot_seeds
from ..core.moved import deprecate
from ..core.state_checks import check_loaded_state
from .rules import VectorRules

#: Most games one batch holds (4,096 of the widest observation take about 50 MB).
MAX_ENVS = 1 << 20


@dataclass
class Batch:
    """One row per game. ``observation`` and ``action_mask`` are for the seat to act
    (``current_player``); in a game that has just ended they are the last mover's view of the
    final position with an all-False mask. ``rewards`` are the last step's (the returns in the
    batch where a game ends, else zeros). The arrays are read-only views of the engine's own
    buffers, overwritten by the next ``step``: copy what you keep."""

    observation: np.ndarray  # float32 [N, D]
    action_mask: np.ndarray  # bool [N, A]
    current_player: np.ndarray  # int64 [N], NO_PLAYER (-1) in a game that has just ended
    rewards: np.ndarray  # float32 [N, P]
    terminated: np.ndarray  # bool [N]
    truncated: np.ndarray  # bool [N]
    #: The observation rows unscaled (``observation`` itself unless the env was built with
    #: ``normalize_observation=True``): what agents of cardarena.agents read.
    raw_observation: np.ndarray  # float32 [N, D]

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view that refuses writes: the engine keeps its buffers between steps (Cardline only
    rewrites what changed in an observation row), so a client must copy, never write."""
    view = array.view()
    view.flags.writeable = False
    return view


def vector_rules_class(env_name: str) -> type[VectorRules]:
    """The ``VectorRules`` class an env declares (``VECTOR = "module:Class"``)."""
    from .. import ENVS, vector_target

    module = ENVS.get(env_name)
    if module is None:
        raise InvalidConfigError(f"unknown env {env_name!r}; available: {', '.join(sorted(ENVS))}")
    target = vector_target(module)
    if not target:
        with_one = ", ".join(sorted(name for name in ENVS if has_vector(name)))
        raise InvalidConfigError(
            f"env {env_name!r} has no vector engine; envs with one: {with_one or 'none'}"
        )
    module_name, _, class_name = target.partition(":")
    rules_class = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(rules_class, type) and issubclass(rules_class, VectorRules)):
        raise InvalidConfigError(f"{env_name}.VECTOR = {target!r} is not a VectorRules class")
    return rules_class


def has_vector(env_name: str) -> bool:
    """Whether env ``env_name`` declares a vector engine."""
    from .. import ENVS, vector_target

    module = ENVS.get(env_name)
    return bool(module is not None and vector_target(module))


def check_num_envs(num_envs: Any) -> int:
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise InvalidConfigError(
            f"num_envs must be an integer, got {num_envs!r} ({type(num_envs).__name__})"
        )
    if not 1 <= num_envs <= MAX_ENVS:
        raise InvalidConfigError(f"num_envs must be in 1..{MAX_ENVS}, got {num_envs}")
    return int(num_envs)


#: Where an action given in a list that does not fit int64 is put for the range check.
_INT64 = np.iinfo(np.int64)


def action_array(
    actions: Any, num_envs: int, *, flatten: bool = False
) -> tuple[np.ndarray, list[int] | None]:
    """``actions`` as an integer array of shape ``(num_envs,)`` (module docstring: integers
    only), with the values as given when they came as a list (None for an array): an integer
    beyond int64 is out of range, and the message names it as it was. ``flatten`` also takes
    any shape of ``num_envs`` elements (SB3 may send ``(N, 1)``). Malformed input raises
    ``IllegalActionError``; the range and the masks are the caller's to check."""
    given: list[int] | None = None
    array: np.ndarray
    if isinstance(actions, (list, tuple)):
        given = _listed(actions)
        array = _clipped(given).reshape(len(given))
    elif isinstance(actions, np.ndarray) and actions.dtype.kind == "O":  # Python ints inside
        given = _listed(actions.ravel().tolist())
        array = _clipped(given).reshape(actions.shape)
    else:
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError, OverflowError) as error:
            raise IllegalActionError(f"actions must be an integer array: {error}") from None
    if flatten and array.shape != (num_envs,) and array.size == num_envs:
        array = array.reshape(num_envs)
    if array.shape != (num_envs,):
        raise IllegalActionError(
            f"actions must have shape ({num_envs},), one per game; got {array.shape}"
        )
    if array.dtype.kind not in "iu":
        raise IllegalActionError(
            f"actions must be integers, got dtype {array.dtype} (e.g. {array.flat[0].item()!r}); "
            "bools and floats are refused, even 1.0"
        )
    if not array.dtype.isnative:  # the compiled check reads native byte order only
        array = array.astype(array.dtype.newbyteorder("="))
    return array, given


def _listed(items: Any) -> list[int]:
    """Each item as a Python int (``core.actions.integer_value``), else the refusal naming
    the first game whose action is not an integer."""
    values = []
    for game, item in enumerate(items):
        value = integer_value(item)
        if value is None:
            raise IllegalActionError(
                f"game {game}: actions must be integers, got {item!r} ({type(item).__name__})"
            )
        values.append(value)
    return values


def _clipped(values: list[int]) -> np.ndarray:
    """``values`` as int64, those beyond it at its bounds (out of every action range)."""
    return np.array([min(max(v, _INT64.min), _INT64.max) for v in values], np.int64)


class BatchEnv:
    """``num_envs`` games of env ``env_name`` with one config (build it with ``make_vec``)."""

    def __init__(self, env_name: str, num_envs: int, seed: int | None = None, **config: Any):
        num_envs = check_num_envs(num_envs)
        rules_class = vector_rules_class(env_name)
        from .. import make_raw

        #: A reference env of the same config: validates it, and gives spaces, layout and
        #: the scaler; tests and renderers load ``state_of(i)`` into it with ``set_state``.
        self.raw_env = make_raw(env_name, **config)
        raw = self.raw_env
        self.env_name = env_name
        self.config = dict(config)
        self.num_envs = num_envs
        self.possible_agents = list(raw.possible_agents)
        self.num_players = len(self.possible_agents)
        self.num_actions = raw.num_actions
        agent = self.possible_agents[0]
        self.observation_space = raw.observation_space(agent)["observation"]
        self.action_space = raw.action_space(agent)
        self.observation_size = int(self.observation_space.shape[0])
        self.scaler = raw.observation_scaler
        self.rules = rules_class(raw.game, num_envs, self.observation_size)
        self._raw_obs = np.zeros((num_envs, self.observation_size), np.float32)
        self._obs = self._raw_obs if self.scaler is None else self._raw_obs.copy()
        self._mask = np.zeros((num_envs, self.num_actions), np.bool_)
        self._last_mover = np.zeros(num_envs, np.int64)
        self._actions = np.zeros(num_envs, np.int64)
        self._all = np.ones(num_envs, np.bool_)
        self._slots = np.arange(num_envs)
        checked = check_seed(seed)
        if checked is None:
            checked = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self._seed: int = checked
        self.jit = JIT_ENABLED
        self._batch: Batch | None = None

    @property
    def seed(self) -> int:
        """The seed the games are dealt from (drawn from the OS when none was given)."""
        return self._seed

    def reset(self, seed: int | None = None) -> Batch:
        """New games in every slot. ``seed`` reseeds; without it the games are dealt again
        from the current seed (the one given to ``make_vec`` or the last ``reset``), so the
        same actions replay the same games."""
        seed = check_seed(seed)
        if seed is not None:
            self._seed = seed
        self.seed_slots(self._seed)
        self.deal(self._all)
        self._last_mover[:] = self.rules.current_player
        return self._observe()

    # --- what every driver of the engine shares (this front, training's LearnerBatch) -------
    def seed_slots(self, seed: int) -> None:
        """Every slot's deal stream from ``seed`` and the slot's index (``slot_seeds``): the
        one way a batch's games are seeded, so slot ``k`` deals the same games in a batch of
        any size."""
        self.rules.rng[:] = slot_seeds(seed, self._slots)

    def deal(self, which: np.ndarray) -> None:
        """New games in the slots where ``which`` is True, each from its own stream."""
        with np.errstate(over="ignore"):  # the streams' 64-bit arithmetic wraps by design
            self.rules.reset_games(which)

    def check_actions(
        self,
        actions: Any,
        mask: np.ndarray,
        skip: np.ndarray,
        out: np.ndarray,
        *,
        flatten: bool = False,
        seats: np.ndarray | None = None,
        who: str = "",
    ) -> np.ndarray:
        """``actions`` (one per game, ``action_array``'s forms) checked against ``mask`` and
        written into ``out`` as int64 (0 where ``skip``, whose actions are ignored). The first
        game whose action is malformed, out of range or illegal raises
        ``IllegalActionError`` naming the game, the action, the seat to act (``seats``,
        default the current player; ``who`` says whose seat it is) and the legal actions;
        then nothing has moved. ``flatten``: any shape of ``num_envs`` elements."""
        array, given = action_array(actions, self.num_envs, flatten=flatten)
        bad = checked_actions(array, mask, skip, out)
        if bad >= 0:
            seat = int((self.rules.current_player if seats is None else seats)[bad])
            action = int(array[bad]) if given is None else given[bad]
            self._refuse(bad, action, mask, seat, who)
        return out

    def step(self, actions: Any) -> Batch:
        """Play one action per game (ignored in a game that ended in the last batch, which
        is dealt anew instead). ``IllegalActionError`` names the first game whose action is
        malformed or illegal, the action and the legal ones; then nothing has moved."""
        if self._batch is None:
            raise IllegalActionError("step() called before reset()")
        rules = self.rules
        done = rules.terminated | rules.truncated
        actions = self.check_actions(actions, self._mask, done, self._actions)
        playing = ~done
        self._last_mover[playing] = rules.current_player[playing]
        if done.any():
            self.deal(done)
            self._last_mover[done] = rules.current_player[done]
        with np.errstate(over="ignore"):
            rules.step_games(actions, playing)
        return self._observe()

    def _refuse(self, game: int, action: int, mask: np.ndarray, seat: int, who: str) -> None:
        state = self.rules.state_of(game)
        legal = np.flatnonzero(mask[game]).tolist()
        names = ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal)
        what = (
            f"{action} ({state.action_to_string(action)})"
            if 0 <= action < self.num_actions
            else f"{action} (out of range 0..{self.num_actions - 1})"
        )
        name = self.possible_agents[seat]
        raise IllegalActionError(
            f"game {game}: illegal action {what} for {f'{who} ({name})' if who else name}; "
            f"legal actions: {names}"
        )

    def _observe(self) -> Batch:
        rules = self.rules
        rules.legal_masks(self._mask)
        player = rules.current_player
        seats = np.where(player >= 0, player, self._last_mover)
        rules.observations(seats, self._raw_obs)
        if self.scaler is not None:
            np.copyto(self._obs, self.scaler(self._raw_obs))
        self._batch = Batch(
            _read_only(self._obs),
            _read_only(self._mask),
            _read_only(rules.current_player),
            _read_only(rules.rewards),
            _read_only(rules.terminated),
            _read_only(rules.truncated),
            _read_only(self._raw_obs),
        )
        return self._batch

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Seat ``seats[i]``'s observation of game ``i`` now (a new float32 ``[N, D]`` array,
        scaled like the batch), e.g. the learner's view of a game that has just ended."""
        seats = np.asarray(seats, np.int64)
        if seats.shape != (self.num_envs,) or ((seats < 0) | (seats >= self.num_players)).any():
            raise InvalidConfigError(
                f"seats must be {self.num_envs} seat numbers in 0..{self.num_players - 1}"
            )
        out = np.zeros((self.num_envs, self.observation_size), np.float32)
        self.rules.observations(seats, out)
        return out if self.scaler is None else self.scaler(out)

    def state_of(self, game: int) -> GameState:
        """A reference rules state equal to game ``game``'s (for tests, rendering, search)."""
        return self.rules.state_of(self._game_index(game))

    def set_state(self, game: int, state: GameState) -> Batch:
        """Continue game ``game`` from the reference rules ``state``; returns the new batch.
        A state the rules could not have reached is refused as ``GameAECEnv.set_state``
        refuses it (``check_loaded_state``), before the slot is touched."""
        if getattr(state, "game", None) != self.rules.game:
            raise InvalidConfigError(
                f"the state is of another game configuration than this batch's ({self.env_name}"
                f" with {self.config})"
            )
        index = self._game_index(game)
        check_loaded_state(state)
        self.rules.set_state(index, state)
        self._last_mover[index] = max(int(self.rules.current_player[index]), 0)
        return self._observe()

    def _game_index(self, game: Any) -> int:
        if isinstance(game, (bool, np.bool_)) or not isinstance(game, (int, np.integer)):
            raise InvalidConfigError(f"game index must be an integer, got {game!r}")
        if not 0 <= game < self.num_envs:
            raise InvalidConfigError(f"game index must be in 0..{self.num_envs - 1}, got {game}")
        return int(game)

    def render(self, game: int) -> str:
        """Game ``game`` as the env's text table."""
        raw = self.raw_env
        raw.set_state(self.state_of(game))
        return raw.render_text(raw.game_state)

    def close(self) -> None:
        self.raw_env.close()


def make_vec(env_name: str, num_envs: int, seed: int | None = None, **config: Any) -> BatchEnv:
    """``num_envs`` games of ``env_name`` (its config keys as for ``env()``), reset and ready:
    ``make_vec("promise_war_v0", num_envs=1024, seed=0, num_players=3)``."""
    venv = BatchEnv(env_name, num_envs, seed, **config)
    venv.reset()
    return venv


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__, names={"batched_rules_class": "vector_rules_class", "has_batched": "has_vector"}
    )

__all__ = [
    "NO_PLAYER",
    "Batch",
    "BatchEnv",
    "action_array",
    "has_vector",
    "make_vec",
    "vector_rules_class",
]
