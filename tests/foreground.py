"""A command run as a terminal runs a foreground job, and Ctrl-C sent as a terminal sends it
(importable as ``foreground``): tests of what a person sees when they press Ctrl-C.

A terminal's Ctrl-C is SIGINT to every process of the foreground group, the command's
worker processes included, so the command's handling of it must hold for its workers too:
a test starts the command in a group of its own (``start``), waits until it is really
working (``wait_until``, ``workers``, ``python_up``, ``past_start``, ``working``: Linux's
/proc), and sends ``ctrl_c``. Every wait is for a state the test can see, polled until a
generous deadline, never a sleep that hopes enough time has passed: a loaded machine only
makes it take longer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence


def cardarena(*args: str) -> list[str]:
    """The installed ``cardarena`` script with ``args``: the command as a person types it."""
    script = shutil.which("cardarena", path=os.path.dirname(sys.executable))
    assert script is not None, "the cardarena script is not installed next to this Python"
    return [script, *args]


def start(command: Sequence[str]) -> subprocess.Popen[str]:
    """``command`` as a foreground job: a process group of its own (the group id is its pid),
    SIGINT at its default action (pytest-xdist's workers may ignore it), output piped."""
    return subprocess.Popen(
        list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def wait_until(
    condition: Callable[[], bool], process: subprocess.Popen[str], timeout: float = 90.0
) -> None:
    """Poll ``condition`` until it holds; the test fails, showing the command's output, if
    the command ends first or ``timeout`` seconds pass (generous: a loaded machine)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            out, err = process.communicate()
            raise AssertionError(f"never got there (exit {process.returncode}):\n{out}\n{err}")
        time.sleep(0.05)


def _processes() -> list[tuple[int, list[str], bytes]]:
    """Every live process: its pid, its /proc stat fields after the name (state, parent,
    group ...) and its command line; zombies left out."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{name}/cmdline", "rb") as file:
                cmdline = file.read()
        except OSError:  # gone meanwhile
            continue
        if fields[0] != "Z":
            found.append((int(name), fields, cmdline))
    return found


def workers(pid: int) -> list[int]:
    """The worker processes ``pid`` started (its children but multiprocessing's resource
    tracker), from /proc."""
    return [
        child
        for child, fields, cmdline in _processes()
        if int(fields[1]) == pid and b"resource_tracker" not in cmdline
    ]


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (0 once it is gone): work done, whatever the load."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _sigint(pid: int) -> dict[str, bool]:
    """Whether SIGINT is blocked (``SigBlk``), ignored (``SigIgn``) and caught by a handler
    (``SigCgt``) in ``pid``'s main thread, from /proc; empty once it is gone."""
    found = {}
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                name, _, value = line.partition(":")
                if name in ("SigBlk", "SigIgn", "SigCgt"):
                    found[name] = bool(int(value, 16) & 1 << (signal.SIGINT - 1))
    except OSError:
        return {}
    return found if len(found) == 3 else {}


def python_up(pid: int) -> bool:
    """Whether spawned worker ``pid`` runs its own Python: past its exec (the command line is
    multiprocessing's) and past the interpreter's start (SIGINT caught by the handler Python
    installs then, or already ignored by the worker, ``rows_parallel._quiet``). Before, a
    SIGINT kills it silently; from then on it is Python's to handle. Once true, true until the
    worker ends (a state to wait for, not a moment to catch)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            spawned = b"spawn_main" in file.read()
    except OSError:
        return False
    found = _sigint(pid)
    return spawned and bool(found) and (found["SigCgt"] or found["SigIgn"])


def past_start(pid: int) -> bool:
    """Whether worker ``pid`` is past its start: a worker begins with SIGINT blocked
    (``rows_parallel._holding_sigint``) and unblocks it only once it has chosen what SIGINT
    does to it (``rows_parallel._quiet``), so SIGINT no longer blocked, or already ignored,
    means its imports are done and it is at or in its work loop. False once it is gone."""
    found = _sigint(pid)
    return bool(found) and (not found["SigBlk"] or found["SigIgn"])


def working(pid: int, count: int, cpu: float = 0.3) -> Callable[[], bool]:
    """A condition for ``wait_until``: ``count`` of ``pid``'s workers are past their start
    (``past_start``) and each has used ``cpu`` seconds of CPU since it was first seen so (a
    worker waiting for work uses none): mid-work, however loaded the machine."""
    since: dict[int, float] = {}

    def condition() -> bool:
        for worker in workers(pid):
            if worker not in since and past_start(worker):
                since[worker] = cpu_seconds(worker)
        return sum(cpu_seconds(w) - used >= cpu for w, used in since.items()) >= count

    return condition


def ctrl_c(
    process: subprocess.Popen[str],
    timeout: float = 60.0,
    then: Callable[[], None] | None = None,
) -> tuple[str, str, float]:
    """Ctrl-C as a terminal sends it, SIGINT to the whole group; the command's stdout,
    stderr and the seconds it took to exit. ``then`` runs right after the signal is sent (a
    test that held a worker still releases it). One still running after ``timeout`` seconds
    is killed with its group and the test fails."""
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    if then is not None:
        then()
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(process)
        out, err = process.communicate()
        raise AssertionError(f"still running {timeout:.0f} s after Ctrl-C:\n{out}\n{err}") from None
    return out, err, time.monotonic() - sent


def group_ends(pid: int, timeout: float = 10.0) -> bool:
    """Whether every process of group ``pid`` (workers included) is gone within ``timeout``."""
    deadline = time.monotonic() + timeout
    while any(int(fields[2]) == pid for _, fields, _ in _processes()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def stop(process: subprocess.Popen[str]) -> None:
    """SIGKILL the whole group: a test leaves no process behind, whatever failed."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
