"""A search agent's rows on worker processes, with the very same moves as on one.

A search agent (``ismcts``) has no vector form: ``RowsAgent`` plays it one row at a time, tens
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

The same workers serve ``worker_map`` (a function over a list, in order: ``cardarena eval
--jobs``'s games), and Ctrl-C is the caller's alone, from the moment a worker starts: a worker
begins with SIGINT blocked (``_holding_sigint``) and ignores it before unblocking it
(``_quiet``), so a terminal's Ctrl-C, sent to every process of the foreground group, stops the
command with its one line and no worker prints a traceback, not even one still importing.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import multiprocessing
import pickle
import signal
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import resource_tracker
from multiprocessing.connection import wait
from typing import Any, NoReturn

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


def _quiet() -> None:
    """A worker's first step: Ctrl-C is the caller's to handle (it stops the workers), so the
    worker ignores SIGINT and prints no traceback of its own; only then is SIGINT unblocked
    (``_start`` blocked it), and one sent while the worker started is dropped unseen."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start(
    context: Any,
    target: Callable[..., None],
    args: tuple[Any, ...],
    jobs: int,
    connections: list[Any],
    processes: list[Any],
) -> None:
    """``jobs`` daemon workers running ``target(connection, *args)``, each appended to
    ``processes`` and the caller's end of its pipe to ``connections`` as it starts, so that a
    caller interrupted later stops those there are (``_stop``). A Ctrl-C while they start
    waits until all have (``_holding_sigint``)."""
    if context.get_start_method() != "fork":  # starting the tracker would unblock SIGINT
        resource_tracker.ensure_running()
    with _holding_sigint():
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=target, args=(theirs, *args), daemon=True)
            connections.append(mine)
            processes.append(process)
            process.start()
            theirs.close()


@contextlib.contextmanager
def _holding_sigint() -> Iterator[None]:
    """Ctrl-C held back until the block ends, then delivered to the handler there was.

    Blocked in this thread, as CPython's resource tracker starts its process, so the workers
    started inside begin with SIGINT blocked: a spawned worker imports for a second or more
    before ``_quiet`` can ignore SIGINT, and a Ctrl-C meanwhile would print its
    ``KeyboardInterrupt`` traceback. And noted rather than raised in the main thread (where
    another thread took the signal, the block does not stop Python raising it), so no worker is
    left half started: one whose start-up data never came prints an ``EOFError`` traceback."""
    noted: list[int] = []
    handler = signal.getsignal(signal.SIGINT)
    swap = handler is not None and threading.current_thread() is threading.main_thread()
    if swap:
        signal.signal(signal.SIGINT, lambda number, frame: noted.append(number))
    blocking = hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocking else None
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one pending is noted here
        if swap:
            signal.signal(signal.SIGINT, handler)
        if noted:
            signal.raise_signal(signal.SIGINT)


def _requests(connection: Any) -> Iterator[Any]:
    """What a worker's caller sends, until ``None`` or until the caller is gone (interrupted,
    or it ended)."""
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        yield request


def _serve(connection: Any, prototype: Any, env_spec: EnvSpec, seat_names: list[str]) -> None:
    """A worker: the agents of its slots, one ``choose`` per row, in the order given."""
    _quiet()
    agents: dict[tuple[int, int], Any] = {}
    for rows in _requests(connection):
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


def _stop(connections: Sequence[Any], processes: Sequence[Any], grace: float = 5.0) -> None:
    """Ask the workers to leave, give them ``grace`` seconds in all, then terminate those
    still there; ``grace=0``: terminate them at once (an interrupted caller wants nothing more
    from them, and a worker mid-task would finish it first)."""
    for connection in connections:
        with contextlib.suppress(OSError, ValueError):
            if grace > 0:
                connection.send(None)
            connection.close()
    deadline = time.monotonic() + grace
    for process in processes:
        if process.pid is None:  # never started (interrupted while the others started)
            continue
        process.join(timeout=max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)


class RowWorkers:
    """``jobs`` worker processes, each holding the agents of the (slot, seat) pairs dealt to
    it (module docstring)."""

    def __init__(self, prototype: Any, env_spec: EnvSpec, seat_names: list[str], jobs: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._connections: list[Any] = []
        processes: list[Any] = []
        self._stop = weakref.finalize(self, _stop, self._connections, processes)
        try:
            _start(
                context,
                _serve,
                (prototype, env_spec, seat_names),
                jobs,
                self._connections,
                processes,
            )
        except BaseException:  # Ctrl-C: those started are stopped at once
            self._stop.detach()
            _stop(self._connections, processes, grace=0)
            raise
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
                failures.append(_lost(f"search worker {worker}"))
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


def _lost(worker: str) -> str:
    return (
        f"{worker} stopped: out of memory, killed, or started from a script without "
        "`if __name__ == '__main__':` (a spawned worker imports the main script again)"
    )


def _call(connection: Any, function: Callable[[Any], Any]) -> None:
    """A ``worker_map`` worker: ``function(item)`` for each item it is sent, until ``None``.
    A failure goes back as the exception (when it pickles) and its traceback."""
    _quiet()
    for item in _requests(connection):
        try:
            reply: tuple[str, Any] = ("ok", function(item))
        except Exception as error:
            reply = ("error", (_picklable(error), traceback.format_exc()))
        try:
            connection.send(reply)
        except OSError:  # a broken pipe: the caller is gone
            return
        except Exception as error:  # a result that does not pickle (nothing was sent)
            with contextlib.suppress(OSError):
                connection.send(("error", (_picklable(error), traceback.format_exc())))


def _picklable(error: BaseException) -> BaseException | None:
    """``error`` if it can be sent to the caller (the pipe pickles what it sends)."""
    try:
        pickle.dumps(error)
    except Exception:
        return None
    return error


def _raise_remote(worker: int, error: BaseException | None, text: str) -> NoReturn:
    """A worker's exception in the caller: the same type (so a ``CardArenaError`` is still
    one), with the worker's traceback as its cause."""
    remote = RuntimeError(f"in worker {worker}:\n{text}")
    if isinstance(error, Exception):
        raise error from remote
    raise remote


def worker_map(
    function: Callable[[Any], Any],
    items: Sequence[Any],
    jobs: int,
    start_method: str | None = "spawn",
) -> Iterator[Any]:
    """``function(item)`` for every item, in the order of ``items``, on up to ``jobs`` worker
    processes, one item each at a time (``function`` and the items must pickle; ``start_method``
    None: multiprocessing's default). The workers stop when the iteration ends, and at once
    when it is abandoned (Ctrl-C, a failure, ``close``: wrap it in ``contextlib.closing``):
    nobody waits for a task whose result nobody wants. Ctrl-C reaches the caller alone (module
    docstring)."""
    if not items:
        return
    context = multiprocessing.get_context(start_method)
    jobs = min(check_int(jobs, "jobs (worker processes)", 1), len(items), MAX_JOBS)
    connections: list[Any] = []
    processes: list[Any] = []
    try:
        _start(context, _call, (function,), jobs, connections, processes)
        results: dict[int, Any] = {}
        busy: dict[Any, int] = {}  # connection -> the index of the item it works on
        sent = 0
        for connection in connections:
            connection.send(items[sent])
            busy[connection] = sent
            sent += 1
        for index in range(len(items)):
            while index not in results:
                ready: list[Any] = wait(list(busy))
                for connection in ready:
                    worker = connections.index(connection)
                    try:
                        status, answer = connection.recv()
                    except (EOFError, OSError):
                        raise RuntimeError(_lost(f"worker {worker}")) from None
                    except Exception as error:  # an exception that pickles but does not load
                        raise RuntimeError(
                            f"worker {worker}'s answer is unreadable: {error}"
                        ) from None
                    if status != "ok":
                        _raise_remote(worker, *answer)
                    results[busy.pop(connection)] = answer
                    if sent < len(items):
                        connection.send(items[sent])
                        busy[connection] = sent
                        sent += 1
            yield results.pop(index)
    except BaseException:
        _stop(connections, processes, grace=0)
        raise
    _stop(connections, processes)


__all__ = [
    "MAX_JOBS",
    "RowWorkers",
    "begin_game",
    "current_search_jobs",
    "search_jobs",
    "worker_map",
]
