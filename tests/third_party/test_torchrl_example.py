"""TorchRL reads every env: its ``PettingZooWrapper(..., use_mask=True)`` passes its own
``check_env_specs`` and plays whole random games on every env and example config (it turns
every info value into a tensor: info schema 2), and its documented masked multi-agent example,
vendored beside this file with only its env line changed, runs on every env."""

from __future__ import annotations

import inspect
import multiprocessing
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from cardarena.envs import ENVS, make
from cardarena.envs.core import Outcome

# Importing torchrl makes "spawn" the process-wide multiprocessing default (torchrl/__init__.py).
# The rest of the suite in this worker expects the platform's default (tournaments' workers
# know agents registered at run time only when forked), so it is put back.
_start_method = multiprocessing.get_start_method(allow_none=True)
torchrl = pytest.importorskip("torchrl", reason="pip install torchrl (the dev extra has it)")
multiprocessing.set_start_method(_start_method, force=True)

HERE = Path(__file__).parent
EXAMPLE = HERE / "torchrl_pettingzoo_example.py"
UPSTREAM_ENV_LINE = "    env=tictactoe_v3.env(),"
SHIPPED = sorted(name for name in ENVS if name != "high_card_v0")
CASES = [
    pytest.param(name, config, id=f"{name}-{index}")
    for name in SHIPPED
    for index, config in enumerate(ENVS[name].raw_env.example_configs)
]


def upstream_example() -> str:
    """The "# AEC env" example of the installed torchrl's PettingZooWrapper docstring, its
    ``>>>``/``...`` lines as code (the printed group map, an output, left out)."""
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    doc = inspect.getdoc(PettingZooWrapper) or ""
    example = doc[doc.index(">>> # AEC env") :].splitlines()[1:]
    code = []
    for line in example:
        stripped = line.strip()
        if stripped.startswith((">>> ", "... ")) and not stripped.startswith("... {"):
            code.append(stripped[4:])
    return "\n".join(code) + "\n"


def test_the_vendored_example_is_the_installed_torchrls_docstring_but_its_env_line():
    lines = EXAMPLE.read_text().splitlines()
    body = lines[lines.index("# --- upstream ---") + 1 :]
    restored = [UPSTREAM_ENV_LINE if "cardarena: change 1" in line else line for line in body]
    assert sum("cardarena: change" in line for line in body) == 1
    assert "\n".join(restored) + "\n" == upstream_example()


@pytest.mark.parametrize(("name", "config"), CASES)
def test_torchrl_checks_the_specs_and_plays_whole_games(name, config):
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        env = PettingZooWrapper(env=make(name, **config), use_mask=True)
        check_env_specs(env, seed=0)
        rollout = env.rollout(2000, break_when_any_done=True)
    done = rollout["next", "done"]
    assert done[-1].item() and not done[:-1].any(), "the game did not end within the rollout"
    group = env.group_map[next(iter(env.group_map))][0]
    outcome = rollout["next", group, "info", "outcome"]
    assert outcome[:-1].eq(Outcome.ONGOING).all()
    assert int(outcome[-1].item()) in (Outcome.TERMINATED, Outcome.TRUNCATED)
    masks = rollout[group, "action_mask"]
    assert masks.shape[-1] == env.full_action_spec[group, "action"].space.n


@pytest.mark.slow
def test_the_vendored_example_runs_on_every_env():
    driver = (
        "import os, runpy, sys\n"
        "for name in sys.argv[2:]:\n"
        "    os.environ['EXAMPLE_ENV'] = name\n"
        "    print('ENV', name, flush=True)\n"
        "    runpy.run_path(sys.argv[1], run_name='__main__')\n"
    )
    run = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", driver, str(EXAMPLE), *SHIPPED],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    for name in SHIPPED:
        agents = ENVS[name].raw_env(**{}).possible_agents
        printed = re.search(rf"^ENV {name}\n(.*)$", run.stdout, re.MULTILINE)
        assert printed and all(repr(agent) in printed.group(1) for agent in agents)
