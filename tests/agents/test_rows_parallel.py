"""``search_jobs``: a search agent's rows made in worker processes are the very moves made in
one process (the games, results and a best response's whole report are identical), a worker
that fails says why instead of hanging, and a bad count is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardarena.agents import EnvSpec, ISMCTSAgent, search_jobs
from cardarena.agents.batched import RowsAgent
from cardarena.agents.rows_parallel import current_search_jobs
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.training.evaluate_vector import evaluate_batched


@pytest.mark.parametrize(
    ("env_name", "config", "games"),
    [("promise_war_v0", {}, 10), ("promise_war_v0", {"num_players": 3}, 6), ("cardline_v0", {}, 8)],
)
def test_workers_make_the_same_moves_as_one_process(env_name, config, games):
    spec = EnvSpec(env_name, config)
    results = []
    for jobs in (1, 2, 3):
        with search_jobs(jobs):
            results.append(evaluate_batched(spec, "random", "ismcts:iterations=8", games, 11))
    assert results[0] == results[1] == results[2]
    assert results[0].games == games


def test_each_agent_keeps_its_memory_in_its_worker():
    """A game's agents live on: playing two games in each slot one after the other (fewer
    slots than games) gives the same results, reseeds included, as in one process."""
    spec = EnvSpec("promise_war_v0", {})
    one = evaluate_batched(spec, "ismcts:iterations=4", "random", 12, 3, max_batch=4)
    with search_jobs(2):
        two = evaluate_batched(spec, "ismcts:iterations=4", "random", 12, 3, max_batch=4)
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
    workers, mid-search or waiting, leave quietly rather than each printing a broken pipe."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    cardarena = shutil.which("cardarena", path=os.path.dirname(sys.executable))
    assert cardarena is not None
    command = [cardarena, "exploit", "promise_war_v0", "ismcts:iterations=25", "--steps", "4096",
               "--num-envs", "16", "--rollout-steps", "16", "--minibatch-size", "128",
               "--games", "20", "--eval-games", "4", "--jobs", "2", "--no-progress",
               "--out", str(tmp_path / "run")]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (tmp_path / "run" / "scratch" / "args.json").exists():  # training has begun
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.2)
    time.sleep(3)  # the workers are searching
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "stopped; no" in err and "Traceback" not in err, err
