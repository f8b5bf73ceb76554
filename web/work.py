"""Where the agents think: a bounded pool of worker threads off the event loop, each job
stopped as soon as the client that asked for it is gone.

Every request that makes agents move (a new game, an action, a game whose opponents still owe
moves, a replay) runs through ``Workers.run``: at most ``threads`` such jobs run at once and
the rest wait their turn, so cheap requests (``GET /api/envs``, a game's page) are answered
by the event loop and the default thread pool meanwhile, however many searches are queued.
A job gets a ``threading.Event`` that is set when the client disconnects; the ``Table``
checks it between decisions and a search agent polls it inside its search (``think_seconds``
bounds one decision too), so an abandoned game stops spending CPU within a moment. A job whose
client left while it was queued never starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.requests import ClientDisconnect, Request

T = TypeVar("T")

#: Worker threads for the agents' turns (``cardarena serve --workers``).
DEFAULT_WORKERS = 2
#: Seconds one decision of a served search agent may take (``--think-seconds``).
DEFAULT_THINK_SECONDS = 1.0


class Workers:
    """The bounded pool of the module docstring; ``busy`` and ``waiting`` count jobs now."""

    def __init__(
        self, threads: int = DEFAULT_WORKERS, think_seconds: float = DEFAULT_THINK_SECONDS
    ) -> None:
        self.threads = threads
        self.think_seconds = think_seconds
        self.limiter = anyio.CapacityLimiter(threads)
        self._count_lock = threading.Lock()
        self.busy = 0
        self.waiting = 0

    async def run(self, request: Request, job: Callable[[threading.Event], T]) -> T:
        """``job(gone)`` on a worker thread; ``gone`` is set once the client has left, and
        ``ClientDisconnect`` is raised here then instead of the job's answer."""
        gone = threading.Event()
        began = threading.Event()
        answer: list[T] = []
        failed: list[BaseException] = []

        def counted() -> None:
            with self._count_lock:
                self.waiting -= 1
                self.busy += 1
            began.set()
            try:
                if not gone.is_set():
                    answer.append(job(gone))
            except Exception as error:  # raised below, outside the task group's grouping
                failed.append(error)
            finally:
                with self._count_lock:
                    self.busy -= 1

        with self._count_lock:
            self.waiting += 1
        try:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    while (await request.receive())["type"] != "http.disconnect":
                        pass
                    gone.set()
                    group.cancel_scope.cancel()  # ends a wait for a worker, not a running job

                group.start_soon(watch)
                await anyio.to_thread.run_sync(counted, limiter=self.limiter)
                group.cancel_scope.cancel()
        finally:
            if not began.is_set():  # cancelled while it waited for a worker
                with self._count_lock:
                    self.waiting -= 1
        if failed:
            raise failed[0]
        if not answer:
            raise ClientDisconnect()
        return answer[0]

    def state(self) -> dict[str, Any]:
        return {"threads": self.threads, "busy": self.busy, "waiting": self.waiting}


__all__ = ["DEFAULT_THINK_SECONDS", "DEFAULT_WORKERS", "Workers"]
