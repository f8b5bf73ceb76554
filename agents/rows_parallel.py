"""A search agent's rows on worker processes, with the very same moves as on one.

A search agent (``ismcts``) has no batched form: ``RowsAgent`` plays it one row at a time, tens
of ms of one core per move, and as a best response's opponent (``cardarena exploit``) that is
nearly all of the time. Inside ``search_jobs(n)`` a ``RowsAgent`` of a search agent hands its
rows to ``n`` worker processes instead. Each (slot, seat)'s agent lives in one worker (dealt
round the workers as the pairs first appear, so that one move's rows spread out), so every
agent gets the same calls in the same order as on one process, and the caller still draws
every reseed from its generator in row order: the actions are bit-identical for every ``n``
(a test checks it); only the wall time drops, nearly by ``n`` on ``n`` free cores. Workers
are spawned (no fork of a process that holds torch threads; a script that starts them needs
``if __name__ == "__main__":``), get each row's rules state as a snapshot, and stop when
their ``RowsAgent`` is collected or the program ends.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import multiprocessing
import signal
import traceback
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

from cardarena.envs.core.validation import check_int

from .base import EnvSpec, choose, start_game

#: Most worker processes for one search agent's rows.
MAX_JOBS = 256

#: The number of workers a ``RowsAgent`` of a search agent made now uses (1: none).
_JOBS: contextvars.ContextVar[int] = contextvars.ContextVar("cardarena_search_jobs", default=1)

#: One row: slot, seat index, whether its game is new to the agent, the reseed (None: the
#: agent has no ``seed``), the observation dict and the rules state.
Row = tuple[int, int, bool, int | None, dict[str, Any], Any]


@contextlib.contextmanager
def search_jobs(jobs: int) -> Iterator[None]:
    """Within the block, search agents played row by row use ``jobs`` worker processes."""
    token = _JOBS.set(check_int(jobs, "jobs (worker processes for a search agent)", 1, MAX_JOBS))
    try:
        yield
    finally:
        _JOBS.reset(token)


def current_search_jobs() -> int:
    return _JOBS.get()


def begin_game(agent: Any, seed: int | None, seat: str, env_spec: EnvSpec) -> None:
    """A row's agent starts a game: reseeded (when it has ``seed``), then told its seat; the
    same in one process as in a worker."""
    if seed is not None:
        agent.seed(seed)
    start_game(agent, seat, env_spec)


def _serve(connection: Any, prototype: Any, env_spec: EnvSpec, seat_names: list[str]) -> None:
    """A worker: the agents of its slots, one ``choose`` per row, in the order given. Ctrl-C
    is the caller's to handle (it stops the workers): a worker ignores it, so no worker
    prints a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    agents: dict[tuple[int, int], Any] = {}
    while True:
        try:
            rows = connection.recv()
        except (EOFError, OSError):  # the caller is gone (interrupted, or it ended)
            return
        if rows is None:
            return
        try:
            actions = []
            for slot, seat, fresh, seed, view, state in rows:
                agent = agents.get((slot, seat))
                if agent is None:
                    agent = agents[(slot, seat)] = copy.deepcopy(prototype)
                if fresh:
                    begin_game(agent, seed, seat_names[seat], env_spec)
                actions.append(int(choose(agent, view, state, seat)))
            reply: tuple[str, Any] = ("ok", actions)
        except Exception:  # the caller raises it, with this traceback
            reply = ("error", traceback.format_exc())
        try:
            connection.send(reply)
        except OSError:  # a broken pipe: the caller is gone
            return


def _stop(connections: Sequence[Any], processes: Sequence[Any]) -> None:
    for connection in connections:
        with contextlib.suppress(OSError, ValueError):
            connection.send(None)
            connection.close()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()


class RowWorkers:
    """``jobs`` worker processes, each holding the agents of the (slot, seat) pairs dealt to
    it (module docstring)."""

    def __init__(self, prototype: Any, env_spec: EnvSpec, seat_names: list[str], jobs: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._connections: list[Any] = []
        processes = []
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=_serve, args=(theirs, prototype, env_spec, seat_names), daemon=True
            )
            process.start()
            theirs.close()
            self._connections.append(mine)
            processes.append(process)
        self._stop = weakref.finalize(self, _stop, self._connections, processes)
        #: (slot, seat) -> the worker that holds that agent.
        self._owners: dict[tuple[int, int], int] = {}

    def act(self, rows: Sequence[Row]) -> list[int]:
        """Each row's action, in the order of ``rows``; the workers search side by side."""
        jobs = len(self._connections)
        shares: list[list[int]] = [[] for _ in range(jobs)]
        for index, row in enumerate(rows):
            key = (row[0], row[1])
            owner = self._owners.get(key)
            if owner is None:  # dealt round the workers as they first appear: the rows of
                owner = self._owners[key] = len(self._owners) % jobs  # one move spread out
            shares[owner].append(index)
        for worker, share in enumerate(shares):
            if share:
                self._connections[worker].send([rows[i] for i in share])
        actions = [0] * len(rows)
        failures = []
        for worker, share in enumerate(shares):  # every answer is read, so none is left over
            if not share:
                continue
            try:
                status, answer = self._connections[worker].recv()
            except (EOFError, OSError):
                failures.append(
                    f"search worker {worker} stopped: out of memory, killed, or started from a "
                    "script without `if __name__ == '__main__':` (workers are spawned and "
                    "import the main script again)"
                )
                continue
            if status != "ok":
                failures.append(f"search worker {worker} failed:\n{answer}")
                continue
            for index, action in zip(share, answer, strict=True):
                actions[index] = action
        if failures:
            self.close()
            raise RuntimeError(failures[0])
        return actions

    def close(self) -> None:
        self._stop()


__all__ = ["MAX_JOBS", "RowWorkers", "begin_game", "current_search_jobs", "search_jobs"]
