"""The README's main job runs end to end (with a tiny budget) as a user would start it."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_demo_trains_and_reports_a_win_rate(tmp_path):
    pytest.importorskip("sb3_contrib")
    model = tmp_path / "model.zip"
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.training.demo", "--timesteps", "1024",
         "--eval-games", "20", "--save", str(model)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "trained agent vs random: 20 games:" in done.stdout
    assert "random vs random:        20 games:" in done.stdout
    assert model.exists()
