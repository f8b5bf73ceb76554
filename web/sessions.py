"""The games a web server holds, and the recorded games it replays, at a bounded cost.

``GameStore`` keeps at most ``max_games`` live ``Table``s under unguessable ids
(``secrets.token_urlsafe``). A game nobody has touched for ``idle_seconds`` expires. When the
store is full, a new game evicts the least recently used one that no request is using right
now (its player then gets "unknown or expired game"); only when every game is inside a request
at that moment is the new one refused (``StoreFull``, HTTP 503). Evicting rather than refusing
keeps the server usable for the next person when idle tabs pile up; the price is that a flood
of new games pushes out old ones, which a public server should answer with a reverse proxy's
rate limit. Memory is ``max_games`` games, each bounded by its env's turn cap.

One lock guards the store; each game has its own lock too, so two requests for one game run
one after the other while other games go on.

``load_records`` and ``replay_steps`` read a recorded game (``cardarena play --record``,
``cardarena eval --out``) sent by a browser: the text is refused over ``max_bytes`` before it is
parsed, every line goes through ``MatchRecord.from_json`` (the limits of
``cardarena.envs.core.untrusted``), and the game is stepped through with
``cardarena.training.replay.replay``, which checks every action against the rules.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cardarena.agents.table import Table
from cardarena.envs import make_raw
from cardarena.envs.core import CardArenaError, InvalidConfigError
from cardarena.envs.core.untrusted import decode_utf8
from cardarena.training.records import MatchRecord
from cardarena.training.replay import ReplayError, replay

#: Defaults of ``cardarena serve``.
DEFAULT_MAX_GAMES = 200
DEFAULT_IDLE_SECONDS = 30 * 60
#: Largest record text a browser may send (one ``play --record`` game is a few KiB).
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: Most records one uploaded file may hold (each is listed for the viewer to pick).
MAX_RECORDS = 1000

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class UnknownGame(CardArenaError, KeyError):
    """A game id the store does not hold (never made, expired or evicted)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class StoreFull(CardArenaError):
    """Every one of the ``max_games`` games is inside a request right now."""


@dataclass
class Entry:
    """One live game: its table, when it was last used, and how many requests hold it."""

    table: Table
    last_used: float
    in_use: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class GameStore:
    """At most ``max_games`` live games, each expiring ``idle_seconds`` after its last request
    (module docstring). ``clock`` is injectable so tests can move time."""

    def __init__(
        self,
        max_games: int = DEFAULT_MAX_GAMES,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
            raise InvalidConfigError(f"max_games must be a positive integer, got {max_games!r}")
        if not isinstance(idle_seconds, (int, float)) or not idle_seconds > 0:
            raise InvalidConfigError(
                f"idle_seconds must be a positive number, got {idle_seconds!r}"
            )
        self.max_games = max_games
        self.idle_seconds = float(idle_seconds)
        self.clock = clock
        self._games: OrderedDict[str, Entry] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.evicted = 0
        self.expired = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)

    def _purge(self, now: float) -> None:
        """Drop every idle game past its time (the store's lock is held)."""
        for game_id, entry in list(self._games.items()):
            if entry.in_use == 0 and now - entry.last_used > self.idle_seconds:
                del self._games[game_id]
                self.expired += 1

    def add(self, table: Table) -> str:
        """Hold ``table`` under a new id, evicting the least recently used idle game when full."""
        with self._lock:
            now = self.clock()
            self._purge(now)
            if len(self._games) >= self.max_games:
                victim = next((k for k, e in self._games.items() if e.in_use == 0), None)
                if victim is None:
                    raise StoreFull(
                        f"the server is busy: all {self.max_games} games are being played "
                        "this moment; try again in a second"
                    )
                del self._games[victim]
                self.evicted += 1
            game_id = secrets.token_urlsafe(16)
            self._games[game_id] = Entry(table, now)
            return game_id

    @contextmanager
    def use(self, game_id: str) -> Iterator[Table]:
        """The table of ``game_id``, held for one request (``UnknownGame`` if there is none):
        it cannot expire or be evicted meanwhile, and other requests for it wait."""
        with self._lock:
            now = self.clock()
            self._purge(now)
            entry = self._games.get(game_id) if isinstance(game_id, str) else None
            if entry is None:
                raise UnknownGame(
                    f"unknown or expired game {game_id[:40]!r} (games expire after "
                    f"{self.idle_seconds:g} s without a request); start a new one"
                )
            entry.in_use += 1
            entry.last_used = now
            self._games.move_to_end(game_id)
        try:
            with entry.lock:
                yield entry.table
        finally:
            with self._lock:
                entry.in_use -= 1
                entry.last_used = self.clock()

    def peek(self, game_id: str) -> Table:
        """The table of ``game_id`` without holding it (tests and tools; requests use ``use``)."""
        with self._lock:
            entry = self._games.get(game_id)
        if entry is None:
            raise UnknownGame(f"unknown or expired game {game_id[:40]!r}")
        return entry.table

    def drop(self, game_id: str) -> None:
        """Forget ``game_id`` (a game whose agent failed cannot go on)."""
        with self._lock:
            self._games.pop(game_id, None)


# --- recorded games -----------------------------------------------------------------------


def load_records(data: bytes, max_bytes: int = MAX_RECORD_BYTES) -> list[MatchRecord]:
    """The match records in ``data`` (a JSON-lines file's bytes), each checked; refused with
    ``InvalidConfigError`` naming the line when one is bad, and before parsing when ``data``
    is over ``max_bytes``."""
    if len(data) > max_bytes:
        raise InvalidConfigError(
            f"the record is {len(data):,} bytes; at most {max_bytes:,} are read"
        )
    text = decode_utf8(data, "the record")
    records: list[MatchRecord] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(records) >= MAX_RECORDS:
            raise InvalidConfigError(f"the file holds over {MAX_RECORDS} records; send fewer")
        try:
            records.append(MatchRecord.from_json(line))
        except InvalidConfigError as error:
            raise InvalidConfigError(f"line {number}: {error}") from None
    if not records:
        raise InvalidConfigError(
            "no match record in the text (a record is one JSON line written by "
            "`cardarena play --record FILE` or `cardarena eval --out DIR` (games.jsonl))"
        )
    return records


def plain(text: object) -> str:
    """A render without terminal colour codes."""
    return _ANSI.sub("", str(text))


def _describe(env: Any, event: Any) -> str:
    """An event line for a replay: nobody is "you" (viewer -1), private events included."""
    try:
        return str(env.describe_event(event, -1))
    except Exception:  # a game's describe may assume a real viewer; the generic line will do
        from cardarena.envs.core.events import describe_generic

        return describe_generic(event, tuple(env.possible_agents), -1)


def replay_steps(record: MatchRecord, check_version: bool = True) -> dict[str, Any]:
    """The whole of ``record``'s game for the viewer: the table before the first move, then per
    step the acting seat, the action and its name, the table as text and the event lines.

    ``replay`` checks the record and every action; a second env with the event log on steps
    the same (already checked) actions for the lines. ``ReplayError`` if the record is not
    the game it claims to be.
    """
    steps_iter = replay(record, check_version=check_version)  # checks version, config, seats
    shadow = make_raw(record.env, **{**record.config, "render_mode": "ansi"})
    shadow.record_events()
    shadow.reset(seed=record.seed)
    told = 0

    def new_lines() -> list[str]:
        nonlocal told
        log = shadow.game_state.events or []
        lines = [_describe(shadow, event) for event in log[told:]]
        told = len(log)
        return lines

    start = {"text": plain(shadow.render()), "events": new_lines()}
    steps = []
    for step in steps_iter:
        mask = shadow.legal_mask()
        if step.action < len(mask) and mask[step.action]:
            shadow.step(step.action)
            events = new_lines()
        else:
            events = [f"{step.agent} tried an illegal action ({step.description}); the game ends"]
        steps.append(
            {
                "seat": step.agent,
                "action": step.action,
                "name": step.description,
                "text": plain(step.text),
                "events": events,
            }
        )
    return {
        "env": record.env,
        "seed": record.seed,
        "config": record.config,
        "lineup": record.lineup,
        "outcome": record.outcome,
        "returns": record.returns,
        "ranks": record.ranks,
        "result": _result_line(record),
        "start": start,
        "steps": steps,
    }


def _result_line(record: MatchRecord) -> str:
    if record.outcome == "truncated":
        return "the game reached its turn cap with no winner"
    if record.outcome == "illegal_action":
        return f"{record.offender} made an illegal move and lost"
    best = [seat for seat, rank in record.ranks.items() if rank == 1]
    if len(best) == len(record.ranks):
        return "a draw"
    return f"{' and '.join(best)} won"


__all__ = [
    "DEFAULT_IDLE_SECONDS",
    "DEFAULT_MAX_GAMES",
    "MAX_RECORDS",
    "MAX_RECORD_BYTES",
    "GameStore",
    "ReplayError",
    "StoreFull",
    "UnknownGame",
    "load_records",
    "plain",
    "replay_steps",
]
