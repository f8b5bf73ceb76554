"""Third-party clients, run as their authors wrote them.

PettingZoo's SB3 action-mask tutorial (vendored beside this file, only its env line changed)
trains, saves, loads and evaluates MaskablePPO end to end on every env, with
``normalize_observation=True``. And the ids resolve the way Gymnasium and PettingZoo clients
name them, in a fresh interpreter.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.envs import ENVS

HERE = Path(__file__).parent
TUTORIAL = HERE / "sb3_action_mask_tutorial.py"
#: sha256 of upstream's file at the commit the header names.
UPSTREAM_SHA256 = "f50e86fda738accd72ee50b12e62c490b59797de5dda035247e286ce9e43f665"
#: Each changed line, as upstream has it (the header's changes 3 and 4).
UPSTREAM_LINES = {
    "env_id = ": '    env_id = "classic/connect_four-v3"',
    "env_kwargs = ": "    env_kwargs = {}",
    "train_action_mask(": "    train_action_mask(env_id, steps=20_480, seed=0, **env_kwargs)",
    "eval_action_mask(env_id, num_games=int": (
        "    eval_action_mask(env_id, num_games=100, render_mode=None, **env_kwargs)"
    ),
}
#: Runs the tutorial's ``__main__`` once per env the installed package ships.
DRIVER = """
import os, runpy, sys
from cardarena.envs import ENVS, pettingzoo_id
for name in sorted(ENVS):
    print("ENV", name, flush=True)
    os.environ["TUTORIAL_ENV_ID"] = pettingzoo_id(name)
    runpy.run_path(sys.argv[1], run_name="__main__")
"""


def test_the_vendored_tutorial_differs_from_upstream_only_where_its_header_says():
    lines = TUTORIAL.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"""'))
    upstream: list[str] = []
    for line in lines[start:]:
        if "cardarena: change 2" in line:
            upstream.pop()  # the blank line added before it
            continue
        if "cardarena: change" in line:
            line = next(v for k, v in UPSTREAM_LINES.items() if line.strip().startswith(k))
        upstream.append(line)
    text = "\n".join(upstream) + "\n"
    assert hashlib.sha256(text.encode()).hexdigest() == UPSTREAM_SHA256


@pytest.mark.slow
def test_pettingzoo_sb3_tutorial_runs_end_to_end_on_every_env(tmp_path):
    pytest.importorskip("sb3_contrib")
    env = {
        **os.environ,
        "TUTORIAL_STEPS": "64",  # MaskablePPO still collects one 2048-step rollout
        "TUTORIAL_GAMES": "3",
        "OMP_NUM_THREADS": "1",
    }
    run = subprocess.run(
        [sys.executable, "-c", DRIVER, str(TUTORIAL)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    shipped = re.findall(r"^ENV (\w+)$", out, re.MULTILINE)
    assert set(shipped) <= set(ENVS) and len(shipped) >= 4
    for name in shipped:
        assert f"Starting training on {name}." in out and f"Finished training on {name}." in out
        assert list(tmp_path.glob(f"{name}_*.zip")), f"{name}: no model saved"
    # per env: the 3-game evaluation and the 2 games watched in human mode, which prints
    # the table during play
    assert len(re.findall(r"^Winrate: ", out, re.MULTILINE)) == 2 * len(shipped)
    assert out.count("game over") >= 2 * len(shipped)


def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_gymnasium_makes_the_single_agent_ids_without_a_cardarena_import():
    """Gymnasium 1.x dropped its plugin entry points; its ``"module:id"`` form imports the
    registering module itself, and that import pulls in neither torch nor SB3."""
    run = _fresh(
        "import sys, gymnasium\n"
        "env = gymnasium.make('cardarena.training:cardarena/promise_war-single-v0')\n"
        "env.reset(seed=0)\n"
        "print(env.spec.id, [m for m in ('torch', 'stable_baselines3') if m in sys.modules])\n"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["cardarena/promise_war-single-v0", "[]"]


def test_pettingzoo_knows_the_ids_once_cardarena_envs_is_imported():
    """PettingZoo 1.27's registry has no plugin mechanism and no ``"module:id"`` form: the
    import is the one line a client adds."""
    unknown = _fresh("import pettingzoo; pettingzoo.make('aec', 'cardarena/promise_war-v0')")
    assert unknown.returncode != 0 and "NamespaceNotFound" in unknown.stderr
    known = _fresh(
        "import cardarena.envs, pettingzoo\n"
        "print(pettingzoo.make('aec', 'cardarena/promise_war-v0', normalize_observation=True))"
    )
    assert known.returncode == 0 and "promise_war" in known.stdout, known.stderr
