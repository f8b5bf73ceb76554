"""One agent against a field of one opponent, on the vector engine: ``evaluate`` in bulk.

``evaluate_on_vector`` counts what ``evaluate`` (``evaluate`` module) counts, the evaluated
agent's wins, draws, losses and truncated games with seats rotated game by game, but plays up
to ``max_batch`` games side by side on ``make_vec``, every agent acting for all its rows in one
call. It serves two needs the scalar loop and the tournaments do not:

- speed: the vector trainer measures its learner against fixed opponents thousands of games
  at a time, and ``cardarena eval --field`` the shipped agents;
- multi-player tables: a tournament seats a pairing's agents cyclically, so at three players
  "a vs b" is two seats of one against one of the other. Asking how an agent fares *alone
  against the field* (every other seat the opponent, the way it is trained) needs this
  seating, and its fair share of wins is ``1 / num_players``, not one half.

Deals come from the engine's own generators, so the games differ from ``evaluate``'s (the
figures agree within their intervals, not game by game); a seed (with ``max_batch``, which
decides which slot deals which game) replays exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cardarena.agents import EnvSpec
from cardarena.agents.vector import as_vector
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.aec import NORMALIZE_OBSERVATION, check_seed
from cardarena.envs.core.moved import deprecate
from cardarena.envs.core.validation import check_bool
from cardarena.envs.vector import make_vec

from .evaluate import MatchResult
from .records import derive_seed
from .stats import wilson_interval

#: Most games played side by side (``make_vec`` slots).
MAX_BATCH = 4096
_SEED_TAG = 0xF1E1D


def evaluate_on_vector(
    env_spec: EnvSpec,
    agent: Any,
    opponent: Any,
    games: int,
    seed: int = 0,
    max_batch: int = MAX_BATCH,
) -> MatchResult:
    """``agent`` alone against ``opponent`` in every other seat for ``games`` games.

    ``agent`` and ``opponent`` are agent spec strings, scalar ``Agent``\\ s or
    ``VectorAgent``\\ s (``as_vector``: without a vector form an agent plays row by row,
    slowly); the one opponent object plays every other seat and tells them apart by the
    ``seats`` it is given. Game ``g`` seats the agent at seat ``g % num_players``. The batch
    has ``B = min(games, max_batch)`` slots and slot ``s`` plays games ``s, s + B, s + 2B
    ...`` until its last one below ``games``, so exactly ``games`` games count, whatever
    their lengths (taking the first ``games`` to finish would favour short games); a slot
    done with its games idles on first-legal moves until the others finish. Both agents hear
    ``new_games`` for a slot before each of its games and draw from one generator derived
    from ``seed``. A result is counted as ``evaluate`` counts it: a truncated game is
    truncated whatever its reward, otherwise reward > 0 a win, < 0 a loss, 0 a draw.
    """
    games = _positive(games, "games")
    max_batch = _positive(max_batch, "max_batch")
    checked = check_seed(seed)
    if checked is None:
        raise InvalidConfigError("seed must be a non-negative integer, got None")
    seed = checked
    config = dict(env_spec.config)
    # Agents read raw rows whatever the flag says (batch.raw_observation).
    check_bool(config.pop(NORMALIZE_OBSERVATION, False), NORMALIZE_OBSERVATION)
    spec = EnvSpec(env_spec.name, config)
    slots = min(games, max_batch)
    venv = make_vec(spec.name, slots, seed=derive_seed(_SEED_TAG, seed, 0), **config)
    me = as_vector(agent, spec, state_of=venv.state_of)
    field = as_vector(opponent, spec, state_of=venv.state_of)
    players = venv.num_players
    rng = np.random.default_rng(derive_seed(_SEED_TAG, seed, 1))

    game_of = np.arange(slots, dtype=np.int64)  # the game each slot plays now
    wins = draws = losses = truncated = 0
    total = 0.0
    all_slots = np.arange(slots, dtype=np.int64)
    for player in (me, field):
        player.new_games(all_slots)
    batch = venv.reset()
    finished = 0
    while finished < games:
        playing = ~batch.done
        counting = playing & (game_of < games)
        movers = batch.current_player
        mine = counting & (movers == game_of % players)
        actions = np.zeros(slots, np.int64)
        for player, rows in ((me, mine), (field, counting & ~mine)):
            index = np.flatnonzero(rows)
            if index.size:
                actions[index] = player.act(
                    batch.raw_observation[index],
                    batch.action_mask[index],
                    movers[index],
                    index,
                    rng,
                )
        idle = np.flatnonzero(playing & ~counting)
        if idle.size:
            actions[idle] = np.argmax(batch.action_mask[idle], axis=1)
        batch = venv.step(actions)
        ended = np.flatnonzero(batch.done & (game_of < games))
        if not ended.size:
            continue
        rewards = batch.rewards[ended, game_of[ended] % players].astype(np.float64)
        cut = batch.truncated[ended]
        total += float(rewards.sum())
        truncated += int(cut.sum())
        wins += int(((rewards > 0) & ~cut).sum())
        losses += int(((rewards < 0) & ~cut).sum())
        draws += int(((rewards == 0) & ~cut).sum())
        finished += int(ended.size)
        game_of[ended] += slots
        again = ended[game_of[ended] < games]
        if again.size:
            for player in (me, field):
                player.new_games(again)
    per_seat = np.bincount(np.arange(games) % players, minlength=players)
    seat_games = tuple(
        (seat, int(count)) for seat, count in zip(venv.possible_agents, per_seat, strict=True)
    )
    return MatchResult(games, wins, draws, losses, truncated, total, seat_games)


def win_share(result: MatchResult) -> tuple[float, float, float]:
    """The evaluated agent's share of games won, with its 95% Wilson interval: ``(share, low,
    high)``. Wins over all games (draws and truncated games are not wins), as the
    ladder counts them, so alone against a field of equals the share is ``1 / num_players``."""
    low, high = wilson_interval(result.wins, result.games)
    return result.win_rate, low, high


@dataclass(frozen=True)
class FieldResult:
    """One agent's ``evaluate_on_vector`` against a field, as ``cardarena eval --field`` prints
    it and writes it to ``field.json``."""

    agent: str
    field: str
    num_players: int
    seed: int
    config: dict[str, Any]
    result: MatchResult

    def line(self) -> str:
        share, low, high = win_share(self.result)
        r = self.result
        return (
            f"{self.agent} vs {self.field} x{self.num_players - 1} ({self.num_players} players): "
            f"{r.games} games, win share {share:.1%} ({100 * low:.1f}-{high:.1%}), "
            f"draws {r.draws}, losses {r.losses}, truncated {r.truncated}; "
            f"mean reward {r.mean_reward:+.3f}"
        )

    def to_dict(self) -> dict[str, Any]:
        share, low, high = win_share(self.result)
        r = self.result
        return {
            "agent": self.agent,
            "field": self.field,
            "num_players": self.num_players,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "truncated": r.truncated,
            "share": share,
            "low": low,
            "high": high,
            "mean_reward": r.mean_reward,
            "seat_games": dict(r.seat_games),
            "seed": self.seed,
            "config": self.config,
        }


def _positive(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidConfigError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise InvalidConfigError(f"{name} must be at least 1, got {value}")
    return int(value)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"evaluate_batched": "evaluate_on_vector"})

__all__ = ["MAX_BATCH", "FieldResult", "evaluate_on_vector", "win_share"]
