"""A run killed at any moment, inside a checkpoint write included, and resumed, has performed
exactly one PPO update per rollout its step counter claims, and every checkpoint it left is
complete; a second writer on the same run folder is refused while the first holds it.

Each kill is a real SIGKILL in a ``cardarena train`` subprocess: either at a random call of
the file operations a checkpoint write makes (``os.replace``, ``os.fsync``, ``np.savez``,
``shutil.rmtree``), or a random delay after the run has taken its folder's lock (its imports
done, its training begun), so the kill lands in the run however loaded the machine, not in
its imports.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cardarena.training.checkpoint import load_checkpoint
from cardarena.training.train import resume_point

pytestmark = pytest.mark.slow

ROLLOUT = 2 * 16  # --n-envs 2 --n-steps 16
EPOCHS = 2
STEPS = 10 * ROLLOUT
BASE = ["train", "promise_war_v0", "--n-envs", "2", "--n-steps", "16", "--batch-size", "32",
         "--n-epochs", str(EPOCHS), "--checkpoint-every", str(ROLLOUT), "--eval-every", "0",
         "--selfplay", "--snapshot-every", str(2 * ROLLOUT), "--final-eval-games", "2",
         "--seed", "5", "--no-progress", "--torch-threads", "1"]  # fmt: skip
TRAIN = [*BASE, "--steps", str(STEPS)]

DRIVER = textwrap.dedent(
    """
    import os, shutil, signal, sys
    import numpy as np
    kill_at, calls = int(sys.argv[1]), [0]

    def armed(module, name):
        real = getattr(module, name)

        def wrapped(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)

        setattr(module, name, wrapped)

    for module, name in ((os, "replace"), (os, "fsync"), (np, "savez"), (shutil, "rmtree")):
        armed(module, name)
    from cardarena.cli import main
    sys.exit(main(sys.argv[2:]))
    """
)


def _has_checkpoint(out: Path) -> bool:
    return (out / "latest").is_dir() or any((out / "checkpoints").glob("step_*"))


def _holds_lock(out: Path, pid: int) -> bool:
    """Whether process ``pid`` holds ``out``'s run lock (it writes its pid there once it has
    it; a killed holder's line stays, so the pid is what tells)."""
    try:
        return (out / ".lock").read_text().startswith(f"pid {pid},")
    except OSError:
        return False


def _command(driver: Path, out: Path, kill_at: int) -> list[str]:
    resume = ["--resume"] if _has_checkpoint(out) else []
    return [sys.executable, str(driver), str(kill_at), *TRAIN, "--out", str(out), *resume]


def _updates_match_steps(out: Path, finished: bool = True) -> list[int]:
    steps = []
    for path in [out / "latest", *sorted((out / "checkpoints").glob("step_*"))]:
        meta = json.loads((path / "meta.json").read_text())
        assert meta["step"] % ROLLOUT == 0, (path, meta["step"])
        assert meta["n_updates"] == EPOCHS * meta["step"] // ROLLOUT, (path, meta)
        load_checkpoint(path)  # complete: every file there, checksums right
        steps.append(meta["step"])
    leftovers = [p.name for p in out.rglob(".*") if ".old-" in p.name or ".tmp-" in p.name]
    assert not (finished and leftovers), leftovers  # a kill leaves some; the next run cleans
    return steps


def test_killed_anywhere_and_resumed_the_run_loses_no_update(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    out = tmp_path / "run"
    rng = np.random.default_rng(2026)
    kills = 0
    for attempt in range(12):
        if attempt < 4:  # inside the file operations of a checkpoint write
            done = subprocess.run(_command(driver, out, int(rng.integers(1, 120))),
                                  capture_output=True, text=True, timeout=120)  # fmt: skip
        else:  # at a random moment of the run (a kill_at that is never reached)
            process = subprocess.Popen(_command(driver, out, 10**9), stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)  # fmt: skip
            if attempt < 7:
                deadline = time.monotonic() + 300
                while not _holds_lock(out, process.pid) and process.poll() is None:
                    assert time.monotonic() < deadline, "the run never took its lock"
                    time.sleep(0.01)
            try:
                process.wait(timeout=float(rng.uniform(0.0, 4.0)) if attempt < 7 else 120)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        if done.returncode == 0:
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
        kills += 1
        if _has_checkpoint(out):
            _updates_match_steps(out, finished=False)
    assert done.returncode == 0, done.stderr
    assert kills >= 4
    steps = _updates_match_steps(out)
    assert max(steps) == STEPS and load_checkpoint(resume_point(out)).step == STEPS
    final = load_checkpoint(out / "latest")
    assert final.n_updates == EPOCHS * STEPS // ROLLOUT  # as an uninterrupted run
    snapshots = [o for o in final.opponents if "snapshots" in o]
    assert snapshots and all(Path(s).is_dir() for s in snapshots)


def test_a_second_train_on_the_same_out_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "run"
    first = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", *BASE, "--steps", "100000000",
         "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300  # bounds a hang only: it takes seconds
        while not _holds_lock(out, first.pid):
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.05)
        second = subprocess.run(
            [sys.executable, "-m", "cardarena.cli", *TRAIN, "--out", str(out)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert second.returncode == 2
        assert f"in use by another cardarena train (pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    # The lock died with its holder: the folder is usable again at once.
    again = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *TRAIN, "--out", str(out),
         *(["--resume"] if _has_checkpoint(out) else [])],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr


def test_a_copied_run_resumes_and_plays_its_own_snapshots(tmp_path):
    import shutil

    first = tmp_path / "first"
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *BASE, "--steps", str(4 * ROLLOUT),
         "--out", str(first), "--eval-every", str(2 * ROLLOUT), "--eval-games", "2",
         "--league-eval-games", "2"],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(first, moved)
    shutil.rmtree(first)  # nothing of the original is left to be played by mistake
    again = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *BASE, "--steps", str(6 * ROLLOUT),
         "--out", str(moved), "--resume"],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    final = load_checkpoint(moved / "latest")
    assert final.step == 6 * ROLLOUT
    snapshots = [Path(o) for o in final.opponents if "snapshots" in o]
    assert len(snapshots) >= 2
    assert all(s.resolve().is_relative_to(moved.resolve()) and s.is_dir() for s in snapshots)
    league = json.loads((moved / "league.json").read_text())  # loss rates, by relative names
    assert league["snapshots"] and all(
        name.startswith("snapshots/") for name in league["snapshots"]
    )
    assert set(league["snapshots"]) <= set(league["loss_rates"])
