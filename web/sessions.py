"""The games a web server holds, at a bounded cost.

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

The recorded games the viewer replays are ``cardarena.web.replays``; nothing of them is held
between requests.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from cardarena.agents.table import Table
from cardarena.envs.core import CardArenaError, InvalidConfigError

#: Defaults of ``cardarena serve``.
DEFAULT_MAX_GAMES = 200
DEFAULT_IDLE_SECONDS = 30 * 60


class UnknownGame(CardArenaError, KeyError):
    """A game id the store does not hold (never made, expired or evicted)."""

    __str__ = Exception.__str__  # the message as written (KeyError's would quote it)


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


__all__ = [
    "DEFAULT_IDLE_SECONDS",
    "DEFAULT_MAX_GAMES",
    "GameStore",
    "StoreFull",
    "UnknownGame",
]
