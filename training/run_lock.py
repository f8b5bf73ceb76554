"""One writer per run folder: an OS file lock on ``out/.lock``.

Two ``cardarena train`` processes on one ``--out`` would interleave their checkpoints (the
``args.json`` of one, the ``latest`` of the other). ``RunLock`` takes an exclusive,
non-blocking ``flock`` on ``out/.lock`` for as long as the run lasts; a second process is
refused with the holder's pid and command. The operating system drops the lock when its
holder dies, however it dies, so a lock file left by a killed run never blocks the next one
(the file itself stays; only the lock matters).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import printable

LOCK_FILE = ".lock"

try:
    import fcntl
except ImportError:  # Windows: no flock; msvcrt's locking stands in
    fcntl = None  # type: ignore[assignment]


class RunLock:
    """``with RunLock(out): ...`` holds ``out``'s lock, or raises ``InvalidConfigError``
    naming the process that holds it."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._handle: IO[str] | None = None

    def __enter__(self) -> RunLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        if not _try_lock(handle):
            handle.seek(0)
            holder = printable(handle.read(500).strip() or "unknown process")
            handle.close()
            raise InvalidConfigError(
                f"{self.path.parent} is in use by another cardarena train ({holder}); wait for "
                "it to finish, stop it, or train into another --out"
            )
        handle.seek(0)
        handle.truncate()
        command = " ".join(sys.argv)[:300]
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"pid {os.getpid()}, started {started}: {command}\n")
        handle.flush()
        self._handle = handle
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            _unlock(self._handle)
            self._handle.close()
            self._handle = None


def _try_lock(handle: IO[Any]) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True
    import msvcrt

    try:
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(handle: IO[Any]) -> None:
    if fcntl is not None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


__all__ = ["LOCK_FILE", "RunLock"]
