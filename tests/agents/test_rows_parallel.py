"""``search_jobs``: a search agent's rows made in worker processes are the very moves made in
one process (the games, results and a best response's whole report are identical), a worker
that fails says why instead of hanging, and a bad count is refused."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from cardarena.agents import EnvSpec, ISMCTSAgent, search_jobs
from cardarena.agents.rows_parallel import current_search_jobs
from cardarena.agents.vector import RowsAgent
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate_vector import evaluate_on_vector


@pytest.mark.parametrize(
    ("env_name", "config", "games"),
    [("promise_war_v0", {}, 10), ("promise_war_v0", {"num_players": 3}, 6), ("cardline_v0", {}, 8)],
)
def test_workers_make_the_same_moves_as_one_process(env_name, config, games):
    spec = EnvSpec(env_name, config)
    results = []
    for jobs in (1, 2, 3):
        with search_jobs(jobs):
            results.append(evaluate_on_vector(spec, "random", "ismcts:iterations=8", games, 11))
    assert results[0] == results[1] == results[2]
    assert results[0].games == games


def test_each_agent_keeps_its_memory_in_its_worker():
    """A game's agents live on: playing two games in each slot one after the other (fewer
    slots than games) gives the same results, reseeds included, as in one process."""
    spec = EnvSpec("promise_war_v0", {})
    one = evaluate_on_vector(spec, "ismcts:iterations=4", "random", 12, 3, max_batch=4)
    with search_jobs(2):
        two = evaluate_on_vector(spec, "ismcts:iterations=4", "random", 12, 3, max_batch=4)
    assert one == two


class _Failing(ISMCTSAgent):
    """A search agent whose search breaks."""

    def act_searching(self, observation, sampled_state):
        raise ValueError("the search broke here")


def test_a_failing_worker_raises_its_traceback_instead_of_hanging():
    env = make_raw("promise_war_v0")
    env.reset(seed=0)
    state = env.game_state
    observation = env.observe(env.agent_selection)
    with search_jobs(2):
        agent = RowsAgent(_Failing(0, iterations=2), EnvSpec("promise_war_v0", {}),
                          state_of=lambda slot: state)  # fmt: skip
    rows = (
        observation["observation"][None],
        observation["action_mask"][None].astype(bool),
        np.array([state.current_player()]),
        np.array([0]),
        np.random.default_rng(0),
    )
    with pytest.raises(RuntimeError, match=r"(?s)search worker 0 failed.*the search broke here"):
        agent.act(*rows)


def test_the_count_is_checked_and_only_search_agents_use_workers():
    with (
        pytest.raises(InvalidConfigError, match=r"jobs .* must be .*1.*256.*got 0"),
        search_jobs(0),
    ):
        pass
    spec = EnvSpec("promise_war_v0", {})
    with search_jobs(4):
        assert current_search_jobs() == 4
        assert RowsAgent("ismcts:iterations=2", spec, state_of=lambda slot: None)._jobs == 4
        assert RowsAgent("random", spec)._jobs == 1  # a plain agent's move is too quick
    assert current_search_jobs() == 1
    assert RowsAgent("ismcts:iterations=2", spec, state_of=lambda slot: None)._jobs == 1


CLOCKS = ("time", "cpu_seconds", "wall_seconds")


def test_a_best_response_report_is_the_same_with_workers(tmp_path):
    from cardarena.training.exploit import exploit

    tiny = {"num_envs": 8, "rollout_steps": 8, "minibatch_size": 64, "eval_games": 4,
            "final_eval_games": 4}  # fmt: skip
    reports = []
    for jobs in (1, 2):
        exploit("promise_war_v0", "ismcts:iterations=3", out=tmp_path / str(jobs), steps=64,
                games=6, train=tiny, evaluations=1, progress=False, jobs=jobs)  # fmt: skip
        report = json.loads((tmp_path / str(jobs) / "exploit.json").read_text())
        reports.append(report)
    first, second = reports
    assert second["jobs"] == 2 and any("--jobs 2" in note for note in second["notes"])
    assert first["exploitability"] == second["exploitability"]
    assert first["self_play"] == second["self_play"]
    for start in first["runs"]:
        assert first["runs"][start]["result"] == second["runs"][start]["result"]
        curves = [
            [
                {k: v for k, v in row.items() if k not in CLOCKS}
                for row in report["runs"][start]["training_eval"]
            ]
            for report in reports
        ]
        assert curves[0] == curves[1] and curves[0]


def test_ctrl_c_stops_the_command_and_its_workers_without_a_traceback(tmp_path):
    """Ctrl-C reaches the whole foreground group: the command says it stopped, and the
    workers, mid-search or waiting, leave quietly rather than each printing a broken pipe or
    a ``KeyboardInterrupt`` traceback. Sent once both workers are past their start and have
    searched (CPU time spent since), not after a sleep a loaded machine may not fill."""
    from foreground import cardarena, ctrl_c, start, wait_until, working

    process = start(cardarena(
        "exploit", "promise_war_v0", "ismcts:iterations=25", "--steps", "4096", "--num-envs",
        "16", "--rollout-steps", "16", "--minibatch-size", "128", "--games", "20",
        "--eval-games", "4", "--jobs", "2", "--no-progress", "--out", str(tmp_path / "run"),
    ))  # fmt: skip
    wait_until(working(process.pid, 2), process)  # the workers are searching
    _, err, _ = ctrl_c(process)
    assert process.returncode == 130, err
    assert "stopped; no" in err and "Traceback" not in err, err


WORKER_MAP_SCRIPT = """
import os, signal, sys, time
from pathlib import Path
from cardarena.agents.rows_parallel import worker_map

GATE = Path({gate!r})

def square(n):
    return n * n

if __name__ == "__mp_main__":
    # a spawned worker imports this script before it can ignore SIGINT: it says it is here
    # and stays until the test has pressed Ctrl-C, so the Ctrl-C always comes mid-import
    (GATE / f"importing-{{os.getpid()}}").touch()
    while not (GATE / "go").exists():
        time.sleep(0.01)

if __name__ == "__main__":
    # this caller notes Ctrl-C and carries on, so nothing stops its workers for it
    signal.signal(signal.SIGINT, lambda *_: print("interrupted", file=sys.stderr, flush=True))
    print(list(worker_map(square, range(6), 2)))
"""


def test_a_ctrl_c_while_workers_start_reaches_the_caller_alone(tmp_path):
    """Ctrl-C while the workers still import (before one could ignore SIGINT): it waits,
    blocked, until the worker ignores it, so no worker prints a traceback or dies of it; the
    caller decides (here it goes on, and every result comes). Both workers are held in their
    import until the Ctrl-C is sent, so it lands there however fast or loaded the machine."""
    from foreground import ctrl_c, start, wait_until

    script = tmp_path / "squares.py"
    script.write_text(WORKER_MAP_SCRIPT.format(gate=str(tmp_path)))
    process = start([sys.executable, str(script)])
    wait_until(lambda: len(list(tmp_path.glob("importing-*"))) == 2, process)
    out, err, _ = ctrl_c(process, then=(tmp_path / "go").touch)
    assert process.returncode == 0, err
    assert out == "[0, 1, 4, 9, 16, 25]\n"
    assert err == "interrupted\n", err


def test_worker_map_keeps_the_order_and_the_type_of_a_worker_s_error():
    """Results come in the order of the items; a worker's ``CardArenaError`` is one in the
    caller too (the command line says it in one line), with the worker's traceback as cause."""
    import functools

    from cardarena.agents.rows_parallel import worker_map
    from cardarena.envs.core.validation import check_int

    check = functools.partial(check_int, key="n", low=1)
    assert list(worker_map(check, [3, 1, 2, 5, 4], 2, None)) == [3, 1, 2, 5, 4]
    with pytest.raises(InvalidConfigError, match="n must be >= 1") as raised:
        list(worker_map(check, [3, 0, 2], 2, None))
    assert "in worker" in str(raised.value.__cause__)


def test_a_ctrl_c_while_workers_start_is_raised_once_they_have():
    """Ctrl-C taken by another thread (BLAS's, tqdm's) is raised by Python in the main thread
    whatever its signal mask: held back while the workers start, it is raised after, once, so
    no worker is left half started. The block goes on once the other thread has taken the
    signal (its C handler writes to the wakeup fd after flagging it for the main thread), not
    after a sleep that hopes it has."""
    import signal
    import socket
    import threading

    from cardarena.agents.rows_parallel import _holding_sigint

    other = threading.Event()
    thread = threading.Thread(target=other.wait)  # made before the block: SIGINT unblocked
    thread.start()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # xdist may ignore it
    taken, wakeup = socket.socketpair()
    wakeup.setblocking(False)
    taken.settimeout(60)  # the test fails, rather than hangs, if the signal never comes
    previous_fd = signal.set_wakeup_fd(wakeup.fileno(), warn_on_full_buffer=False)
    reached = False
    try:
        with pytest.raises(KeyboardInterrupt), _holding_sigint():
            signal.pthread_kill(thread.ident, signal.SIGINT)
            while signal.SIGINT not in taken.recv(16):  # the signals taken, a byte each
                pass
            reached = True  # Python would have raised it by now, in the main thread
    finally:
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGINT, previous)
        taken.close()
        wakeup.close()
        other.set()
        thread.join()
    assert reached
