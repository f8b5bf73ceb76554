"""Play whole games between agents and count the results, through the public AEC API only."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pettingzoo import AECEnv

from cardarena.agents import (
    Agent,
    EnvSpec,
    choose,
    env_spec_of,
    make_agent,
    per_seat,
    start_game,
)
from cardarena.envs.core import InvalidConfigError

#: The fixed opponents a learner is measured, and a league anchored, against where the env
#: has them (a game without a heuristic is evaluated against random alone).
BASELINES = ("random", "heuristic")


def available_baselines(env_spec: EnvSpec, candidates: Sequence[str] = BASELINES) -> list[str]:
    """The ``candidates`` that play ``env_spec``: each is built and started in the first seat,
    so a spec is kept exactly when ``make_agent`` plays it there (``heuristic`` refuses an env
    without a strategy at ``start_game``)."""
    seat = env_spec.make_raw().possible_agents[0]
    found = []
    for spec in candidates:
        try:
            start_game(make_agent(spec), seat, env_spec)
        except InvalidConfigError:
            continue
        found.append(spec)
    return found


@dataclass(frozen=True)
class MatchResult:
    """Outcomes of ``games`` games from the evaluated agent's point of view."""

    games: int
    wins: int
    draws: int
    losses: int
    truncated: int
    total_reward: float
    #: Games the evaluated agent played in each seat (seats rotate game by game).
    seat_games: tuple[tuple[str, int], ...] = ()

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_reward(self) -> float:
        return self.total_reward / self.games if self.games else 0.0

    def summary(self) -> str:
        return (
            f"{self.games} games: {self.wins} won ({self.win_rate:.1%}), {self.draws} drawn, "
            f"{self.losses} lost, {self.truncated} truncated; mean reward {self.mean_reward:+.3f}"
        )


@dataclass(frozen=True)
class GameRecord:
    """Final reward per seat, whether the cap truncated the game, the decisions taken, and
    the end-of-game ``info`` the env gave (``outcome``, ``scores``, ``winners`` ...)."""

    rewards: dict[str, float]
    truncated: bool
    steps: int
    final_info: dict[str, Any] = field(default_factory=dict)


def play_game(env: AECEnv, agents: dict[str, Agent], seed: int | None = None) -> GameRecord:
    """One game from ``reset(seed)`` to the last dead step; ``steps`` counts decisions."""
    env.reset(seed=seed)
    rewards: dict[str, float] = {}
    truncated_any = False
    steps = 0
    final_info: dict[str, Any] = {}
    spec = env_spec_of(env)
    for seat, player in agents.items():
        start_game(player, seat, spec)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            rewards[agent] = float(reward)
            truncated_any |= bool(truncated)
            final_info = info
            env.step(None)
        else:
            env.step(choose(agents[agent], observation, env, agent))
            steps += 1
    return GameRecord(rewards, truncated_any, steps, dict(final_info))


def evaluate(
    env_fn: Callable[[], AECEnv],
    agent: Agent,
    opponent: Agent | str | Callable[[], Agent],
    games: int,
    seed: int = 0,
) -> MatchResult:
    """``agent`` against ``opponent`` in every other seat; the agent's seat rotates per game.

    Each other seat gets its own opponent instance (``per_seat``: from a spec string, a
    factory, or a deep copy of the instance), kept for the whole evaluation, so an opponent
    that remembers things keeps its own memory and never shares it with another seat. Agents
    with a ``seed`` method are reseeded from ``seed`` first, so the same call gives the same
    result.
    """
    env = env_fn()
    seats = list(env.possible_agents)
    opponents = per_seat(opponent, seats)
    for index, player in enumerate([agent, *opponents.values()]):
        if hasattr(player, "seed"):
            player.seed(seed * (len(seats) + 1) + index)
    wins = draws = losses = truncated = 0
    total = 0.0
    seat_games = dict.fromkeys(seats, 0)
    for game in range(games):
        me = seats[game % len(seats)]
        seat_games[me] += 1
        lineup = {seat: (agent if seat == me else opponents[seat]) for seat in seats}
        record = play_game(env, lineup, seed=seed + game)
        reward = record.rewards[me]
        total += reward
        if record.truncated:
            truncated += 1
        elif reward > 0:
            wins += 1
        elif reward < 0:
            losses += 1
        else:
            draws += 1
    env.close()
    return MatchResult(games, wins, draws, losses, truncated, total, tuple(seat_games.items()))


def evaluation_row(
    env_name: str,
    step: int,
    final: bool,
    baselines: Sequence[str],
    games: int,
    play: Callable[[str, int], MatchResult],
) -> dict[str, Any]:
    """One ``eval.jsonl`` row (both training backends write the same): ``play(opponent,
    games)`` against each baseline, and the baselines the env lacks said as such, so a curve
    without them is not a lost measurement."""
    row: dict[str, Any] = {
        "step": step,
        "final": final,
        "time": time.time(),
        "cpu_seconds": time.process_time(),  # this process (a resume starts again at 0)
        "baselines": list(baselines),
    }
    missing = [name for name in BASELINES if name not in baselines]
    if missing:
        row["not_evaluated"] = {name: f"{env_name} has no {name}" for name in missing}
    if games < 1:  # --eval-games 0 / --final-eval-games 0: nothing played, said as such
        row["not_evaluated"] = {
            **row.get("not_evaluated", {}),
            **{name: "0 games asked" for name in baselines},
        }
        row["baselines"] = []
        return row
    for name in baselines:
        result = play(name, games)
        row[f"win_rate_{name}"] = result.win_rate
        row[f"mean_reward_{name}"] = result.mean_reward
        row[f"loss_rate_{name}"] = result.losses / max(result.games, 1)
        row[f"games_{name}"] = result.games
        row[f"summary_{name}"] = result.summary()
    return row


def print_final(
    env_name: str, row: dict[str, Any], done: int, seconds: float, final: Any, backend: str
) -> None:
    """What ``cardarena train`` prints at the end: the steps, their rate, the checkpoint and
    the final evaluation (``row`` from ``evaluation_row``)."""
    step = row["step"]
    print(
        f"{env_name}: trained to step {step} ({done} steps in {seconds:.0f} s, "
        f"{done / max(seconds, 1e-9):.0f}/s, --backend {backend}); checkpoint {final}"
    )
    for name in row["baselines"]:
        print(f"final evaluation vs {name + ':':<10} {row[f'summary_{name}']}")
    for name, reason in row.get("not_evaluated", {}).items():
        print(f"final evaluation vs {name + ':':<10} none ({reason})")
