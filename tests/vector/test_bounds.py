"""The compiled engines never index outside their arrays.

numba compiles the kernels without bounds checks, so a read one past a row returns whatever
memory lies there and a write corrupts the next game: nothing fails, results only drift.
Here the exactness check (tests/vector/test_exactness.py: every engine and example config
against the reference rules, games played to their end and dealt again) runs in a fresh
interpreter with ``NUMBA_BOUNDSCHECK=1``, where any such index raises ``IndexError``, and a
cache folder of its own, so no kernel compiled without the checks is reused. Mutation runs
set the same variable (scripts/mutation.toml) for the same reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.envs.core.kernels import JIT_ENABLED

HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(not JIT_ENABLED, reason="not compiled: plain Python checks every index")
def test_every_engine_stays_inside_its_arrays(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "NUMBA_BOUNDSCHECK": "1",
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        # enough for eight-player games to end and deal again in a batch of eight
        "CARDARENA_VECTOR_TRANSITIONS": "3000",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error",
         str(HERE / "test_exactness.py")],
        cwd=HERE.parent.parent, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
