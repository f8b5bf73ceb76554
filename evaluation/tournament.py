"""Round-robin tournaments between agent specs, with win rates, intervals and ratings.

``run_tournament(env, specs, games)`` plays ``games`` games for every *pairing*:

- two-seat tables (``num_players == 2``): every pair of specs; game ``i`` seats the pair in
  rotation ``i % 2``, so each spec plays each seat equally often;
- more seats, at least as many specs as seats: every set of ``num_players`` distinct specs
  (``itertools.combinations`` in spec order); game ``i`` rotates the set by ``i`` seats;
- more seats than specs: one pairing, the specs fill the seats in rotation (seat ``s`` of game
  ``i`` holds ``specs[(s + i) % len(specs)]``), so over ``len(specs)`` games every spec sits in
  every seat once.

Game ``i`` of a pairing uses the env seed ``derive_seed(seed, crc32(pairing), i)``: fixed by
the tournament seed, the specs of the pairing and ``i`` alone, so the same game is played
whatever the number of worker processes or the other specs in the tournament.

Games are played in chunks of ``CHUNK_GAMES`` consecutive games of one pairing; a chunk builds
one agent instance per spec and seat occupied (``make_agent``) and keeps it across its games,
so agents that learn across games (Cardline's ``memory``) remember within a chunk. Before
every game each agent with a ``seed`` method is reseeded with ``agent_seed(game_seed, seat)``,
exactly as ``play_match`` seeds the agents it builds: for agents that do not learn across
games, ``play_match(record.env, record.lineup, record.seed, record.config)`` replays a
tournament game move for move. Chunks are the unit of work for the process pool, so
``jobs=1`` and ``jobs=2`` give identical records.

Pair statistics, ratings and their tables: ``tournament_results`` (re-exported here).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from cardarena.agents import Agent, make_agent
from cardarena.agents.rows_parallel import worker_map
from cardarena.envs import make, make_raw
from cardarena.envs.core import InvalidConfigError, check_seed

from .records import (
    MatchRecord,
    _game_config,
    _play,
    agent_seed,
    derive_seed,
    write_records,
)
from .tournament_results import PairStats, TournamentResult, pairwise_counts, summarize

#: Consecutive games of one pairing played by one task (and one set of agent instances).
CHUNK_GAMES = 25

_GAME_SEED_TAG = 0x6A3E
_CHUNK_SEED_TAG = 0xC4A2


# --- scheduling -----------------------------------------------------------------------------


def pairings(specs: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The groups of specs that meet (see the module docstring)."""
    if len(specs) >= num_players:
        return list(itertools.combinations(specs, num_players))
    return [tuple(specs)]


def seating(pairing: Sequence[str], num_players: int, game: int) -> list[str]:
    """The spec in each seat (seat order) for game ``game`` of ``pairing``."""
    # A set of num_players distinct specs rotates by one seat per game; fewer specs than
    # seats fill the seats cyclically, shifted by one per game.
    k = len(pairing)
    return [pairing[(seat + game) % k] for seat in range(num_players)]


def pairing_key(pairing: Sequence[str]) -> int:
    """A stable number for a pairing (the same in every process and Python run)."""
    return zlib.crc32("\x1f".join(pairing).encode("utf-8"))


def game_seed(seed: int, pairing: Sequence[str], game: int) -> int:
    """The env seed of game ``game`` of ``pairing`` in a tournament seeded ``seed``."""
    return derive_seed(_GAME_SEED_TAG, seed, pairing_key(pairing), game)


@dataclass(frozen=True)
class _Chunk:
    env: str
    config: dict[str, Any]
    seed: int
    pairing: tuple[str, ...]
    num_players: int
    start: int
    stop: int


def _play_chunk(chunk: _Chunk) -> list[MatchRecord]:
    """Play games ``start..stop-1`` of one pairing (runs in a worker process when jobs > 1)."""
    game = make(chunk.env, **chunk.config)
    seats = list(game.possible_agents)
    instances: dict[tuple[str, int], Agent] = {}
    records = []
    for index in range(chunk.start, chunk.stop):
        specs = seating(chunk.pairing, chunk.num_players, index)
        env_seed = game_seed(chunk.seed, chunk.pairing, index)
        lineup: dict[str, Agent] = {}
        occurrence: dict[str, int] = {}
        for seat_index, (seat, spec) in enumerate(zip(seats, specs, strict=True)):
            copy = occurrence.get(spec, 0)
            occurrence[spec] = copy + 1
            key = (spec, copy)
            if key not in instances:
                build_seed = derive_seed(
                    _CHUNK_SEED_TAG,
                    chunk.seed,
                    pairing_key(chunk.pairing),
                    chunk.start,
                    pairing_key([spec]),
                    copy,
                )
                instances[key] = make_agent(spec, seed=build_seed)
            agent = instances[key]
            reseed = getattr(agent, "seed", None)
            if callable(reseed):
                reseed(agent_seed(env_seed, seat_index))
            lineup[seat] = agent
        records.append(
            _play(
                game,
                chunk.env,
                chunk.config,
                lineup,
                dict(zip(seats, specs, strict=True)),
                env_seed,
            )
        )
    game.close()
    return records


# --- running --------------------------------------------------------------------------------


def check_request(specs: Sequence[str], games: Any, seed: Any) -> tuple[list[str], int]:
    """The specs (at least two, distinct, each known) and the seed of a tournament of
    ``games`` games per pairing; ``InvalidConfigError`` naming what is wrong."""
    specs = list(specs)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidConfigError(f"games must be a positive integer, got {games!r}")
    checked_seed = check_seed(seed)
    if checked_seed is None:
        raise InvalidConfigError("a tournament needs a seed (a non-negative integer), got None")
    if len(specs) < 2:
        raise InvalidConfigError(f"a tournament needs at least two agent specs, got {specs}")
    duplicates = sorted({spec for spec in specs if specs.count(spec) > 1})
    if duplicates:
        raise InvalidConfigError(f"agent specs must be distinct; repeated: {duplicates}")
    for spec in specs:
        make_agent(spec, seed=0)  # an unknown spec fails here, listing the known ones
    return specs, checked_seed


def run_tournament(
    env: str,
    specs: Sequence[str],
    games: int,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = False,
    records_path: str | os.PathLike[str] | None = None,
) -> TournamentResult:
    """Round robin of ``specs`` in ``env``: ``games`` games per pairing (module docstring).

    ``jobs > 1`` plays chunks of games in that many worker processes (``jobs <= 0``: one per
    CPU); the records, in the same order, are identical to ``jobs=1``. ``progress`` draws a
    progress bar on stderr (tqdm if installed, else a counter line). ``records_path``: every
    game's ``MatchRecord`` is appended there as a JSON line, in order.
    """
    specs, checked_seed = check_request(specs, games, seed)
    game_config = _game_config(config)
    num_players = len(make_raw(env, **game_config).possible_agents)
    chunks = [
        _Chunk(
            env,
            game_config,
            checked_seed,
            pairing,
            num_players,
            start,
            min(start + CHUNK_GAMES, games),
        )
        for pairing in pairings(specs, num_players)
        for start in range(0, games, CHUNK_GAMES)
    ]
    total = sum(chunk.stop - chunk.start for chunk in chunks)
    records: list[MatchRecord] = []
    with _Progress(total, enabled=progress, label=env) as bar:
        for chunk_records in _run_chunks(chunks, jobs):
            records.extend(chunk_records)
            if records_path is not None:
                write_records(records_path, chunk_records)
            bar.update(len(chunk_records))
    return summarize(env, specs, records, game_config, checked_seed)


def _run_chunks(chunks: list[_Chunk], jobs: int) -> Iterator[list[MatchRecord]]:
    """Each chunk's records, in chunk order, however many processes play them."""
    workers = (os.cpu_count() or 1) if jobs <= 0 else jobs
    workers = min(workers, len(chunks))
    if workers <= 1:
        for chunk in chunks:
            yield _play_chunk(chunk)
        return
    # In chunk order (deterministic output); Ctrl-C stops the workers at once, and none prints
    # a traceback (worker_map). Forked, as the process pool forked them before.
    with contextlib.closing(worker_map(_play_chunk, chunks, workers, None)) as played:
        yield from played


class _Progress:
    """tqdm on stderr if it is installed, else a ``\\r``-updated counter line."""

    def __init__(self, total: int, enabled: bool, label: str, stream: IO[str] | None = None):
        self.total, self.enabled, self.label = total, enabled, label
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._bar: Any = None
        isatty = getattr(self.stream, "isatty", None)
        self._tty = bool(isatty()) if callable(isatty) else False
        self._last_tenth = -1

    def __enter__(self) -> _Progress:
        if not self.enabled:
            return self
        try:
            from tqdm import tqdm
        except ImportError:
            self._draw()
        else:
            self._bar = tqdm(total=self.total, desc=self.label, unit="game", file=self.stream)
        return self

    def update(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(count)
        else:
            self._draw()

    def _draw(self) -> None:
        width = len(str(self.total))
        line = f"{self.label}: {self.done:>{width}}/{self.total} games"
        if self._tty:
            self.stream.write(f"\r{line}")
        else:  # a log file: one line per tenth of the way
            tenth = self.done * 10 // max(self.total, 1)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(f"{line}\n")
        self.stream.flush()

    def __exit__(self, *exc: object) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        elif self._tty:
            self.stream.write("\n")
            self.stream.flush()


__all__ = [
    "CHUNK_GAMES",
    "PairStats",
    "TournamentResult",
    "game_seed",
    "pairing_key",
    "pairings",
    "pairwise_counts",
    "run_tournament",
    "seating",
    "summarize",
]
