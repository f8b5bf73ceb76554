"""One learner against built-in opponents in thousands of games at once, on the vector engine.

``LearnerBatch`` is the single-game bridge (``SingleAgentEnv``) for ``num_envs`` games in one
``VectorRules`` batch (``cardarena.envs.vector``); ``training.vector.vec_env`` shows it as an
SB3 ``VecEnv`` (``LearnerVecEnv``) and a Gymnasium ``VectorEnv`` (``LearnerGymVectorEnv``):

- the learner's seat is drawn per game at every deal (uniformly, from a generator seeded by
  ``seed``), so one policy learns every seat;
- opponents act inside ``step``, as ``VectorAgent``\\ s (``cardarena.agents.vector``): all
  opponent rows of all games in one call per opponent, repeated until every game has the
  learner to act (or has ended);
- what the learner gets is its own: its observation scaled by ``scaler`` (the env's ``[0, 1]``
  ``ObservationScaler``, which ``SingleAgentEnv`` and the policy agents use; the vector
  trainer puts ``network_scaler``'s in its place), its return, its termination;
  ``action_masks()`` serves sb3-contrib's ``MaskablePPO``.

The vector front (``BatchEnv``, which holds the engine) seeds every slot, deals and checks
the learner's actions, as it does for ``make_vec``: this class decides only when a game is
dealt, the learner's seat and its opponents.

Autoreset: SB3 resets in the step where a game ends (``infos[i]["terminal_observation"]`` is
the learner's final observation, the returned row the learner's first one in the next game;
``infos[i]["episode"]`` as SB3's ``Monitor`` writes it). Gymnasium's ``VectorEnv`` uses
next-step autoreset (``metadata["autoreset_mode"]``): the row of an ended game is the
learner's final observation with an all-False ``infos["action_mask"]``, and the next
``step`` ignores its action and deals it anew.

Opponents (``opponent=``): an agent spec string, a scalar ``Agent`` or a ``VectorAgent``;
a list of them (one drawn per game at every deal); an ``OpponentSampler``
(``sample(rng) -> Agent | str``, e.g. a ``LeaguePool``) asked per game at every deal; None for
random opponents. Agents without a vector form play row by row (``RowsAgent``, slow).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

import numpy as np

from cardarena.agents import EnvSpec
from cardarena.agents.vector import VectorAgent, as_vector
from cardarena.envs.core import (
    IllegalActionError,
    InvalidConfigError,
    ObservationScaler,
)
from cardarena.envs.core.aec import NORMALIZE_OBSERVATION, check_seed
from cardarena.envs.core.validation import check_bool
from cardarena.envs.vector import BatchEnv

#: Most distinct opponents (sampler entries) kept built at once.
MAX_BUILT_OPPONENTS = 64


class LearnerBatch:
    """The learner's view of ``num_envs`` games; ``same_step`` chooses SB3's autoreset (deal
    in the step where a game ends) or Gymnasium's next-step one."""

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        seed: int | None,
        opponent: Any,
        same_step: bool,
        config: dict[str, Any],
    ) -> None:
        config = dict(config)
        # The learner's rows are always scaled and the opponents' always raw: the flag has
        # nothing left to switch.
        check_bool(config.pop(NORMALIZE_OBSERVATION, False), NORMALIZE_OBSERVATION)
        self.engine = BatchEnv(env_name, num_envs, 0, **config)
        self.rules = self.engine.rules
        self.env_name = env_name
        self.env_spec = EnvSpec(env_name, config)
        self.num_envs = n = self.engine.num_envs
        self.num_players = self.engine.num_players
        self.num_actions = self.engine.num_actions
        self.seat_names = list(self.engine.possible_agents)
        #: The learner's input scaler: the env's ``[0, 1]`` one, as ``SingleAgentEnv`` and a
        #: saved SB3 model use (the vector trainer sets ``network_scaler``'s instead).
        self.scaler = ObservationScaler(self.engine.observation_space)
        self.same_step = same_step
        d, a = self.engine.observation_size, self.num_actions
        self.learner_seat = np.zeros(n, np.int64)
        self.opponent_of = np.zeros(n, np.int64)
        self.returns = np.zeros(n, np.float64)
        self.lengths = np.zeros(n, np.int64)
        self.pending = np.zeros(n, np.bool_)
        self.mask = np.zeros((n, a), np.bool_)
        self._obs_raw = np.zeros((n, d), np.float32)
        self._other_raw = np.zeros((n, d), np.float32)
        self._final_raw = np.zeros((n, d), np.float32)
        self._other_mask = np.zeros((n, a), np.bool_)
        self._actions = np.zeros(n, np.int64)
        self._learner_actions = np.zeros(n, np.int64)
        self._games = np.arange(n, dtype=np.int64)
        self._start = time.time()
        self._ready = False
        self._opponent_spec: Any = None
        self._pool: dict[int, VectorAgent] = {}
        self._keys: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._next_id = 0
        self._list: list[Any] | None = None
        self._sampler: Any = None
        self.seed = self._reseed(seed)
        self.set_opponent(opponent)

    # --- seeding and opponents -----------------------------------------------------------
    def _reseed(self, seed: int | None) -> int:
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        deals, seats, opponents = np.random.SeedSequence(seed).spawn(3)
        self._deal_seed = int(deals.generate_state(1, np.uint64)[0])
        self.engine.seed_slots(self._deal_seed)
        self.seat_rng = np.random.default_rng(seats)
        self.opponent_rng = np.random.default_rng(opponents)
        return seed

    def set_opponent(self, opponent: Any) -> None:
        """Who plays the other seats (module docstring), from now on in every game: each
        game's opponent is drawn anew at once (list, sampler) and starts with no memory."""
        self._pool.clear()
        self._keys.clear()
        self._list = self._sampler = None
        self._opponent_spec = opponent
        if isinstance(opponent, (list, tuple)):
            if not opponent:
                raise InvalidConfigError("an opponent list needs at least one agent or spec")
            self._list = [self._build(entry) for entry in opponent]
        elif _is_sampler(opponent):
            self._sampler = opponent
        else:
            self._list = [self._build("random" if opponent is None else opponent)]
        self._draw(self._games)

    def _draw(self, games: np.ndarray) -> None:
        """This deal's opponent of every game in ``games``; they start with no memory."""
        if self._sampler is not None:
            for game in games.tolist():
                self.opponent_of[game] = self._build(self._sampler.sample(self.opponent_rng))
        elif self._list is not None and len(self._list) > 1:
            picks = self.opponent_rng.integers(len(self._list), size=games.size)
            self.opponent_of[games] = np.asarray(self._list, np.int64)[picks]
        elif self._list is not None:
            self.opponent_of[games] = self._list[0]
        for ident, rows in self._groups(games):
            self._pool[ident].new_games(rows)

    def _build(self, entry: Any) -> int:
        """The pool id of ``entry``'s vector form (built once per entry while it is used)."""
        key = entry if isinstance(entry, str) else id(entry)
        cached = self._keys.get(key)
        if cached is not None and (isinstance(entry, str) or cached[0] is entry):
            self._keys.move_to_end(key)
            return cached[1]
        if not (isinstance(entry, str) or hasattr(entry, "act")):
            raise InvalidConfigError(
                f"opponent must be an agent spec string, an Agent, a VectorAgent, a list of "
                f"them or an OpponentSampler (with .sample(rng)), got {entry!r}"
            )
        ident = self._next_id
        self._next_id += 1
        self._pool[ident] = as_vector(entry, self.env_spec, state_of=self.engine.state_of)
        self._keys[key] = (entry, ident)
        if len(self._keys) > MAX_BUILT_OPPONENTS:  # a growing league must not grow memory
            used = {ident, *np.unique(self.opponent_of).tolist(), *(self._list or [])}
            for old_key, (_, old_id) in list(self._keys.items()):
                if len(self._keys) <= MAX_BUILT_OPPONENTS:
                    break
                if old_id not in used:
                    del self._keys[old_key]
                    self._pool.pop(old_id, None)
        return ident

    @property
    def opponents(self) -> list[VectorAgent]:
        """The opponents built so far (for a sampler, those of the recent deals)."""
        return list(self._pool.values())

    # --- dealing and playing ---------------------------------------------------------------
    def _deal(self, which: np.ndarray) -> None:
        games = np.flatnonzero(which)
        self.engine.deal(which)
        self.learner_seat[games] = self.seat_rng.integers(self.num_players, size=games.size)
        self.returns[games] = 0.0
        self.lengths[games] = 0
        self._draw(games)

    def _groups(self, games: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """``games`` split by the opponent that plays them."""
        if games.size == 0:
            return []
        if len(self._pool) == 1:
            return [(int(self.opponent_of[games[0]]), games)]
        ids = self.opponent_of[games]
        return [(int(ident), games[ids == ident]) for ident in np.unique(ids)]

    def reset(self, seed: int | None = None) -> None:
        """New games everywhere (reseeded when ``seed`` is given, else the streams go on)."""
        if seed is not None:
            self.seed = self._reseed(seed)
            self.set_opponent(self._opponent_spec)  # drop what agents built remembered
        self.pending[:] = False
        self._start = time.time()
        self._begin()
        self._deal(np.ones(self.num_envs, np.bool_))
        self._settle()
        self._ready = True
        self._finish_observation()

    def _begin(self) -> None:
        n = self.num_envs
        self.reward = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.done = np.zeros(n, np.bool_)
        self.final_return = np.zeros(n, np.float64)
        self.final_length = np.zeros(n, np.int64)
        self.final_observation = np.zeros((0, self._obs_raw.shape[1]), np.float32)
        self._final_rows = np.zeros(0, np.int64)

    def step(self, actions: Any) -> None:
        """The learner's action in every game (ignored where a game ended in the last step
        under next-step autoreset: that game is dealt anew instead)."""
        if not self._ready:
            raise IllegalActionError("step() called before reset()")
        actions = self._checked(actions)
        pending = self.pending.copy()
        self.pending[:] = False
        live = ~pending
        self._begin()
        self.lengths[live] += 1
        with np.errstate(over="ignore"):
            self.rules.step_games(actions, live)
        self._account(live)
        if pending.any():
            self._deal(pending)
        self._settle()
        self._finish_observation()

    def _checked(self, actions: Any) -> np.ndarray:
        """The learner's actions as int64 (0 in a pending game), checked by the vector
        front's own check (``BatchEnv.check_actions``: integers only, never bools or floats,
        even 1.0); ``IllegalActionError`` names the first game whose action is not legal."""
        return self.engine.check_actions(
            actions,
            self.mask,
            self.pending,
            self._learner_actions,
            flatten=True,
            seats=self.learner_seat,
            who="the learner",
        )

    def _account(self, which: np.ndarray) -> None:
        """Credit the learner's share of the rewards of the games just stepped; finish the
        games that ended."""
        rules = self.rules
        rows = np.flatnonzero(which)
        gained = rules.rewards[rows, self.learner_seat[rows]]
        self.reward[rows] += gained
        self.returns[rows] += gained
        ended = which & (rules.terminated | rules.truncated)
        if ended.any():
            self._end(ended)

    def _end(self, ended: np.ndarray) -> None:
        games = np.flatnonzero(ended)
        never = games[self.lengths[games] == 0]
        if never.size:
            raise RuntimeError(
                f"game {int(never[0])} ended before the learner's first decision "
                f"({self.seat_names[int(self.learner_seat[never[0]])]})"
            )
        rules = self.rules
        self.terminated[games] = rules.terminated[games]
        self.truncated[games] = rules.truncated[games] & ~rules.terminated[games]
        self.done[games] = True
        self.final_return[games] = self.returns[games]
        self.final_length[games] = self.lengths[games]
        if self.same_step:
            seats = np.where(ended, self.learner_seat, -1)
            rules.observations(seats, self._final_raw)
            self._final_rows = np.concatenate([self._final_rows, games])
            self.final_observation = np.concatenate(
                [self.final_observation, self._scaled(self._final_raw[games])]
            )
            self._deal(ended)
        else:
            self.pending[games] = True

    def _settle(self) -> None:
        """Opponents move, all opponent rows of all games one call per opponent, until every
        game has the learner to act or is over (waiting for its next-step deal)."""
        rules = self.rules
        while True:
            player = rules.current_player
            moving = (player >= 0) & (player != self.learner_seat)
            if not moving.any():
                return
            games = np.flatnonzero(moving)
            seats = np.where(moving, player, -1)
            rules.observations(seats, self._other_raw)
            rules.legal_masks(self._other_mask)
            actions = self._actions
            actions[:] = 0
            for ident, rows in self._groups(games):
                chosen = np.asarray(
                    self._pool[ident].act(
                        self._other_raw[rows],
                        self._other_mask[rows],
                        player[rows],
                        rows,
                        self.opponent_rng,
                    ),
                    np.int64,
                )
                if chosen.shape != rows.shape or not (
                    ((chosen >= 0) & (chosen < self.num_actions)).all()
                    and self._other_mask[rows, chosen].all()
                ):
                    raise IllegalActionError(
                        f"opponent {self._pool[ident]!r} returned illegal actions"
                    )
                actions[rows] = chosen
            with np.errstate(over="ignore"):
                rules.step_games(actions, moving)
            self._account(moving)

    def _finish_observation(self) -> None:
        self.rules.observations(self.learner_seat, self._obs_raw)
        self.rules.legal_masks(self.mask)
        self.observation = self._scaled(self._obs_raw)

    def _scaled(self, raw: np.ndarray) -> np.ndarray:
        """``self.scaler(raw)`` (the same float32 operations, so the same bits) in a new array
        written once: at 1,024 games of 1,680 floats the scaler's temporaries cost more than
        a step of the game."""
        out = np.subtract(raw, self.scaler.offset, dtype=np.float32)
        out *= self.scaler.scale
        return out

    def final_observations(self) -> dict[int, np.ndarray]:
        """Game -> the learner's final (scaled) observation, for the games that ended in the
        last step under same-step autoreset."""
        return dict(zip(self._final_rows.tolist(), self.final_observation, strict=True))

    def episode_time(self) -> float:
        return round(time.time() - self._start, 6)


def _is_sampler(opponent: Any) -> bool:
    """An ``OpponentSampler`` (``sample(rng)``), not an agent that happens to have one."""
    return (
        opponent is not None
        and not isinstance(opponent, str)
        and callable(getattr(opponent, "sample", None))
        and not hasattr(opponent, "act")
    )


__all__ = ["MAX_BUILT_OPPONENTS", "LearnerBatch"]
