"""Tournaments on the vector engine: every game of a pairing in one ``make_vec`` batch.

The same round robin, seating and ratings as ``run_tournament`` (``tournament`` module), for
lineups whose every agent has a vector form (``cardarena.agents.vector.vector_agent``:
random, heuristic, pretrained, exports and checkpoints played in numpy). Up to
``MAX_BATCH`` games of a pairing run side by side; game ``g`` of a pairing is seated as in
``seating(pairing, players, g)``. Per pairing the engine is seeded with
``derive_seed(seed, crc32(pairing))`` and the agents share one generator derived the same way,
so a tournament is reproducible, but its deals differ from ``run_tournament``'s (the engine
has its own generators): the figures agree within their intervals, not game by game.

The records (in memory, ``TournamentResult.games``) keep lineup, returns, ranks and steps but
no actions, so they summarize and rate like any others but cannot be replayed, and
``cardarena eval --vector --out`` writes results.json and the heat map, no games.jsonl.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents.rows_parallel import worker_map
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.aec import TERMINATED, TRUNCATED
from cardarena.envs.core.moved import deprecate
from cardarena.envs.vector import make_vec

from .records import MatchRecord, derive_seed, package_version, rank_returns
from .tournament import _Progress, check_request, pairing_key, pairings, seating
from .tournament_results import TournamentResult, summarize

#: Most games of one pairing played side by side.
MAX_BATCH = 4096
_VECTOR_SEED_TAG = 0x7EC7


def vector_lineup(env: str, specs: Sequence[str], config: Mapping[str, Any]) -> dict[str, Any]:
    """Each spec's vector agent; ``InvalidConfigError`` naming those that have none."""
    from cardarena.agents.vector import vector_agent

    env_spec = EnvSpec(env, dict(config))
    agents, missing = {}, []
    for spec in specs:
        agent = vector_agent(make_agent(spec, seed=0), env_spec)
        if agent is None:
            missing.append(spec)
        agents[spec] = agent
    if missing:
        raise InvalidConfigError(
            f"--vector needs agents with a vector form (random, heuristic, pretrained, .npz "
            f"exports, checkpoints); {', '.join(map(repr, missing))} has none: run without "
            "--vector"
        )
    return agents


def play_pairing(
    env: str,
    config: Mapping[str, Any],
    pairing: Sequence[str],
    agents: Mapping[str, Any],
    games: int,
    seed: int,
    progress: _Progress | None = None,
) -> list[MatchRecord]:
    """``games`` games of ``pairing`` on one batch; their records in game order."""
    batch_seed = derive_seed(_VECTOR_SEED_TAG, seed, pairing_key(pairing))
    num_envs = min(games, MAX_BATCH)
    venv = make_vec(env, num_envs, seed=batch_seed, **config)
    players = venv.num_players
    seats = venv.possible_agents
    rng = np.random.default_rng(batch_seed)
    spec_index = {spec: k for k, spec in enumerate(pairing)}
    game_of = np.arange(num_envs)  # the game each slot plays now
    lineups = np.array(
        [[spec_index[s] for s in seating(pairing, players, g)] for g in range(games)], np.int64
    )
    steps = np.zeros(num_envs, np.int64)
    records: list[MatchRecord | None] = [None] * games
    for agent in agents.values():
        agent.new_games(np.arange(num_envs))
    version = package_version()
    batch = venv.reset()
    finished = 0
    while finished < games:
        playing = ~batch.done
        active = playing & (game_of < games)
        actions = np.zeros(num_envs, np.int64)
        mover = np.where(playing, batch.current_player, 0)
        slot_specs = lineups[np.minimum(game_of, games - 1), mover]
        for spec, k in spec_index.items():
            rows = np.flatnonzero(playing & (slot_specs == k))
            if rows.size:
                actions[rows] = agents[spec].act(
                    batch.raw_observation[rows], batch.action_mask[rows], mover[rows], rows, rng
                )
        steps[active] += 1
        batch = venv.step(actions)
        ended = np.flatnonzero(batch.done & (game_of < games))
        for slot in ended.tolist():
            g = int(game_of[slot])
            returns = {seat: float(r) for seat, r in zip(seats, batch.rewards[slot], strict=True)}
            records[g] = MatchRecord(
                env=env,
                version=version,
                config=dict(config),
                seed=batch_seed,
                lineup={seat: pairing[k] for seat, k in zip(seats, lineups[g], strict=True)},
                actions=[],
                returns=returns,
                ranks=rank_returns(returns),
                outcome=(TRUNCATED if batch.truncated[slot] else TERMINATED).label,
                offender=None,
                steps=int(steps[slot]),
            )
            steps[slot] = 0
            game_of[slot] += num_envs
        if ended.size:
            finished += ended.size
            for agent in agents.values():
                agent.new_games(ended)
            if progress is not None:
                progress.update(int(ended.size))
    return [record for record in records if record is not None]


def run_vector_tournament(
    env: str,
    specs: Sequence[str],
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    progress: bool = False,
    jobs: int = 1,
) -> TournamentResult:
    """``run_tournament`` on the vector engine (module docstring). ``jobs > 1`` plays the
    pairings in that many worker processes (``jobs <= 0``: one per CPU), each building its
    own agents; the records, in the same order, are identical to ``jobs=1``."""
    specs, checked_seed = check_request(specs, games, seed)
    game_config = dict(config or {})
    agents = vector_lineup(env, specs, game_config)  # refuses a spec without a vector form
    num_players = len(make_raw(env, **game_config).possible_agents)
    groups = pairings(specs, num_players)
    workers = min((os.cpu_count() or 1) if jobs <= 0 else jobs, len(groups))
    records: list[MatchRecord] = []
    with _Progress(games * len(groups), enabled=progress, label=f"{env} (vector)") as bar:
        if workers <= 1:
            for pairing in groups:
                records.extend(
                    play_pairing(env, game_config, pairing, agents, games, checked_seed, bar)
                )
        else:
            jobs_list = [(env, game_config, p, games, checked_seed) for p in groups]
            # Fresh (spawned) interpreters whose BLAS uses one thread each: forked or
            # multi-threaded workers oversubscribe the cores and run slower than one process.
            # Ctrl-C stops the command at once, and no worker prints a traceback (worker_map).
            played = worker_map(_play_pairing_job, jobs_list, workers, "spawn")
            with _one_blas_thread(), contextlib.closing(played):
                for pairing_records in played:
                    records.extend(pairing_records)
                    bar.update(len(pairing_records))
    return summarize(env, specs, records, game_config, checked_seed)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Child processes started inside see one-thread BLAS settings (restored after)."""
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(dict.fromkeys(names, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _play_pairing_job(job: tuple[str, dict[str, Any], tuple[str, ...], int, int]) -> list[Any]:
    """One pairing in a worker process, with agents built there."""
    env, config, pairing, games, seed = job
    agents = vector_lineup(env, pairing, config)
    return play_pairing(env, config, pairing, agents, games, seed)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"batched_lineup": "vector_lineup"})
