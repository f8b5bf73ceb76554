"""Ctrl-C in ``cardarena eval --jobs N``, as a person presses it in a terminal: SIGINT to the
whole foreground group, workers included. Whenever it comes (workers still starting, or
mid-evaluation), the command stops within seconds with its own one line and exit code 130,
no worker prints a traceback, no worker is left behind, and the line names only files there
are (``--vector`` writes no games.jsonl; without ``--out`` there is no file at all). Issue
35: a worker's ``KeyboardInterrupt`` traceback, 58 s to stop, and a games.jsonl never written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from foreground import (
    cardarena,
    ctrl_c,
    group_ends,
    python_up,
    start,
    wait_until,
    workers,
    working,
)

from cardarena.cli import main

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads workers from /proc")

#: Three agents: three pairings (on two workers), each a minute or more of play, far longer
#: than any test waits or than a stop that lets a worker finish its pairing (the bug) takes.
LINEUP = ["promise_war_v0", "random", "heuristic", "pretrained"]
VECTOR_GAMES = ["--vector", "--games", "400000", "--quiet"]
#: Seconds from Ctrl-C to exit: "within a few seconds", generous for a loaded 2-core machine
#: (it takes well under one; the bug took 18 to 58 s).
PROMPT = 10.0


def assert_stopped(process, message: str, out_dir: Path | None) -> None:
    """Ctrl-C now: exit code 130 soon, stderr exactly ``message`` (one line, no traceback),
    every file it names there, and every process of the group gone."""
    _, err, seconds = ctrl_c(process, timeout=30)
    assert process.returncode == 130, err
    assert seconds < PROMPT, f"{seconds:.1f} s to stop:\n{err}"
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [f"cardarena eval: {message}"], err
    if out_dir is None:
        assert "/" not in message, message
    else:
        named = [word.strip("(),") for word in message.split() if str(out_dir) in word]
        assert all(Path(path).is_file() for path in named), (named, message)
    assert group_ends(process.pid), "a worker outlived the command"


@pytest.mark.parametrize("jobs", ["2", "6"])
def test_ctrl_c_while_the_workers_start(tmp_path, jobs):
    """The first worker is still importing (a second or more), and the command may still be
    starting the others: no worker prints a traceback, neither one that could not ignore
    SIGINT yet nor one left half started (six workers: a wider window to hit). Sent once a
    worker's own Python is up, not as soon as it exists: just forked or exec'd, a process
    dies of SIGINT silently, and the Ctrl-C would prove nothing."""
    out_dir = tmp_path / "out"
    lineup = [*LINEUP, "pretrained:deterministic=true"]  # six pairings
    process = start(
        cardarena("eval", *lineup, "--jobs", jobs, *VECTOR_GAMES, "--out", str(out_dir))
    )
    wait_until(lambda: any(python_up(pid) for pid in workers(process.pid)), process)
    assert_stopped(process, "stopped; no results written", out_dir)


@pytest.mark.parametrize("with_out", [True, False], ids=["out", "no-out"])
def test_ctrl_c_mid_evaluation_with_vector(tmp_path, with_out):
    """Both workers are past their start (SIGINT no longer blocked in them) and playing (CPU
    time spent since), whatever the load: the command stops at once rather than after the
    pairings in hand."""
    out_dir = tmp_path / "out" if with_out else None
    where = ["--out", str(out_dir)] if out_dir is not None else []
    process = start(cardarena("eval", *LINEUP, "--jobs", "2", *VECTOR_GAMES, *where))
    wait_until(working(process.pid, 2), process)
    message = "stopped; no results written" if with_out else "stopped; no results"
    assert_stopped(process, message, out_dir)


def test_ctrl_c_mid_evaluation_without_vector(tmp_path):
    """Plain ``eval --jobs 2`` (forked workers) writes games.jsonl as games finish: once it is
    there, the line names it."""
    out_dir = tmp_path / "out"
    games = out_dir / "games.jsonl"
    process = start(
        cardarena(
            "eval", *LINEUP, "--jobs", "2", "--games", "5000", "--quiet", "--out", str(out_dir)
        )
    )
    wait_until(games.is_file, process)
    message = f"stopped; no results written ({games} holds the games finished so far)"
    assert_stopped(process, message, out_dir)


# --- the line at each moment, in one process (--jobs 1) ----------------------------------------
def interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_while_the_heat_map_is_drawn_names_what_was_written(tmp_path, monkeypatch, capsys):
    """The results are written, the heat map (a second of matplotlib) is not: the line names
    what is there, games.jsonl only without ``--vector``."""
    from cardarena.evaluation.tournament import TournamentResult

    monkeypatch.setattr(TournamentResult, "save_heatmap", interrupted)
    for vector, written in ((True, ["results.json"]), (False, ["results.json", "games.jsonl"])):
        out_dir = tmp_path / str(vector)
        argv = ["eval", "promise_war_v0", "random", "heuristic", "--games", "4", "--quiet"]
        code = main([*argv, "--out", str(out_dir), *(["--vector"] if vector else [])])
        err = capsys.readouterr().err
        assert code == 130
        names = ", ".join(str(out_dir / name) for name in written)
        assert err.strip() == f"cardarena eval: stopped; wrote {names}, no heat map", err
        assert sorted(path.name for path in out_dir.iterdir()) == sorted(written)


def test_ctrl_c_before_any_game_names_no_file(tmp_path, monkeypatch, capsys):
    """Nothing finished yet: no games.jsonl to name, with or without ``--vector``."""
    monkeypatch.setattr("cardarena.evaluation.tournament._play_chunk", interrupted)
    monkeypatch.setattr("cardarena.evaluation.tournament_vector.play_pairing", interrupted)
    for extra in ([], ["--vector"]):
        argv = ["eval", "promise_war_v0", "random", "heuristic", "--quiet", "--out", str(tmp_path)]
        argv += extra
        assert main(argv) == 130
        err = capsys.readouterr().err
        assert err.strip() == "cardarena eval: stopped; no results written", err
        assert list(tmp_path.iterdir()) == []
