"""AgileRL trains on every env through the Parallel view: its documented multi-agent PPO
(IPPO) example, vendored beside this file with only its env lines changed, learns on every
env. AgileRL lives in a venv of its own (it pins tensordict, and so pettingzoo < 1.27, against
torchrl's): ``make test-agilerl`` builds ``.venv-agilerl`` and points
``CARDARENA_AGILERL_PYTHON`` at it; without it these runs skip, unless
``CARDARENA_REQUIRE_AGILERL=1`` (set there too) makes that a failure."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from cardarena.envs import ENVS

HERE = Path(__file__).parent
EXAMPLE = HERE / "agilerl_ippo_example.py"
FIX = HERE / "agilerl_mask_fix.py"
#: sha256 of upstream's code block (dedented), at the commit the example's header names.
UPSTREAM_SHA256 = "8f95ce767870f01f0c5bdb02f93eac751768b558fd921b7ca842cb46ad52f1ab"
UPSTREAM_LINES = {
    "cardarena: change 1": "from mpe2 import simple_speaker_listener_v4",
    "cardarena: change 2": (
        "        lambda: simple_speaker_listener_v4.parallel_env(continuous_actions=True)"
    ),
}
SHIPPED = sorted(name for name in ENVS if name != "high_card_v0")
#: Learning iterations run per env: the loop would otherwise run to 100,000 steps.
LEARNS = 2
#: Runs the example once per env named, stopped after ``LEARNS`` calls of ``learn`` (counted
#: by its progress bar's updates, one after each).
DRIVER = """
import os, runpy, sys, time
import tqdm

class Learned(Exception):
    pass

class StopAfterLearns(tqdm.tqdm):
    def update(self, n=1):
        super().update(n)
        self.learns = getattr(self, "learns", 0) + 1
        if self.learns >= int(os.environ["EXAMPLE_LEARNS"]):
            raise Learned

tqdm.tqdm = StopAfterLearns
if os.environ.get("AGILERL_MASK_FIX"):
    runpy.run_path(os.environ["AGILERL_MASK_FIX"])
for name in sys.argv[2:]:
    os.environ["EXAMPLE_ENV"] = name
    started = time.monotonic()
    try:
        runpy.run_path(sys.argv[1], run_name="__main__")
    except Learned:
        print("LEARNED", name, round(time.monotonic() - started, 1), flush=True)
"""


def agilerl_python() -> str:
    python = os.environ.get("CARDARENA_AGILERL_PYTHON", "")
    if not python or not Path(python).exists():
        if os.environ.get("CARDARENA_REQUIRE_AGILERL"):
            pytest.fail(f"CARDARENA_REQUIRE_AGILERL is set but {python} does not exist")
        pytest.skip(f"no AgileRL venv at {python} (make .venv-agilerl/.installed)")
    return str(Path(python).absolute())  # the example runs in a temporary folder


def run_example(names: list[str], fix: bool, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    env["EXAMPLE_LEARNS"] = str(LEARNS)
    env.pop("AGILERL_MASK_FIX", None)
    if fix:
        env["AGILERL_MASK_FIX"] = str(FIX)
    return subprocess.run(
        [agilerl_python(), "-c", DRIVER, str(EXAMPLE), *names],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def test_the_vendored_example_differs_from_upstream_only_in_its_env_lines():
    lines = EXAMPLE.read_text().splitlines()
    body = lines[lines.index("# --- upstream ---") + 1 :]
    restored = []
    for line in body:
        marker = next((m for m in UPSTREAM_LINES if m in line), None)
        restored.append(UPSTREAM_LINES[marker] if marker else line)
    assert sum("cardarena: change" in line for line in body) == len(UPSTREAM_LINES)
    text = "\n".join(restored) + "\n"
    assert hashlib.sha256(text.encode()).hexdigest() == UPSTREAM_SHA256


@pytest.mark.slow
def test_agilerls_ippo_example_learns_on_every_env(tmp_path):
    run = run_example(SHIPPED, fix=True, tmp_path=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    learned = re.findall(r"^LEARNED (\w+) ", run.stdout, re.MULTILINE)
    assert learned == SHIPPED, run.stdout[-2000:] + run.stderr[-2000:]


@pytest.mark.slow
def test_without_the_fix_agilerl_fails_on_its_own_mask_check(tmp_path):
    """Upstream's bug, pinned: when this fails, AgileRL has fixed it; drop the fix file."""
    run = run_example(["promise_war_v0"], fix=False, tmp_path=tmp_path)
    assert run.returncode != 0 and "LEARNED" not in run.stdout
    assert "if None in group_masks" in run.stderr and "truth value of an array" in run.stderr
