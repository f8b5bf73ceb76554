"""Evaluation moved from ``cardarena.training`` to ``cardarena.evaluation``, the command line
to ``cardarena.cli``, the benchmarks to ``cardarena.bench``; every old name still imports,
warns naming the new module, and is the new module or object itself (so a patch through one
name is seen through the other); ``python -m`` an old name runs the new module's ``main()``.
The repo uses only the new names."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cardarena.cli
import cardarena.evaluation
import cardarena.training

ROOT = Path(__file__).resolve().parents[2]

#: Old module -> new module, and a name each one holds.
MOVED = {
    "cardarena.training.evaluate": ("cardarena.evaluation.evaluate", "play_game"),
    "cardarena.training.evaluate_vector": ("cardarena.evaluation.evaluate_vector", "win_share"),
    "cardarena.training.records": ("cardarena.evaluation.records", "MatchRecord"),
    "cardarena.training.replay": ("cardarena.evaluation.replay", "replay_page"),
    "cardarena.training.stats": ("cardarena.evaluation.stats", "wilson_interval"),
    "cardarena.training.tournament": ("cardarena.evaluation.tournament", "run_tournament"),
    "cardarena.training.tournament_vector": (
        "cardarena.evaluation.tournament_vector",
        "run_vector_tournament",
    ),
    "cardarena.training.cli": ("cardarena.cli.app", "main"),
    "cardarena.training.cli_args": ("cardarena.cli.args", "ServeArgs"),
    "cardarena.training.bench": ("cardarena.bench", "run"),
    "cardarena.training.bench_learn": ("cardarena.bench.learning", "run_learn"),
    "cardarena.training.bench_vector": ("cardarena.bench.vector", "run_vector"),
}
#: What ``cardarena.training`` re-exported from them (``__all__`` before the move).
MOVED_NAMES = (
    "GameRecord", "MatchRecord", "MatchResult", "PairStats", "ReplayError", "ReplayStep",
    "TournamentResult", "bradley_terry", "evaluate", "play_game", "play_match", "read_records",
    "replay", "run_tournament", "wilson_interval", "write_records",
)  # fmt: skip
#: Names that are a function (the old re-export) and a module: the function wins, as before.
FUNCTION_AND_MODULE = ("evaluate", "replay")


@pytest.fixture
def fresh(monkeypatch):
    """Each old name not imported yet, as in a new interpreter (restored afterwards)."""
    for old in MOVED:
        monkeypatch.delitem(sys.modules, old, raising=False)


def _run(statement: str) -> dict:
    """Run ``statement`` as a line of this file (the warnings name the line that imports)."""
    scope: dict = {}
    exec(compile(statement, __file__, "exec"), scope)
    return scope


def test_the_table_in_training_is_the_one_tested():
    assert {old: new for old, (new, _) in MOVED.items()} == cardarena.training.MOVED_MODULES
    assert set(cardarena.training.MOVED_NAMES) == set(MOVED_NAMES)
    assert not set(cardarena.training.__all__) & set(MOVED_NAMES)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_import_old_module_warns_and_gives_the_new_module(old, fresh):
    new, _ = MOVED[old]
    with pytest.warns(DeprecationWarning, match=re.escape(f"moved to {new}")) as caught:
        _run(f"import {old}")
    assert sys.modules[old] is importlib.import_module(new)
    assert all(__file__ == warning.filename for warning in caught), "blames the importer"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_from_old_module_import_a_name_warns_and_gives_the_same_object(old, fresh):
    new, name = MOVED[old]
    with pytest.warns(DeprecationWarning, match=re.escape(new)):
        scope = _run(f"from {old} import {name}")
    assert scope[name] is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize(
    "old", sorted(old for old in MOVED if old.rpartition(".")[2] not in FUNCTION_AND_MODULE)
)
def test_from_training_import_old_module_warns_and_gives_the_new_module(old, fresh):
    new, _ = MOVED[old]
    short = old.rpartition(".")[2]
    with pytest.warns(DeprecationWarning, match=re.escape(new)):
        scope = _run(f"from cardarena.training import {short}")
    assert scope[short] is importlib.import_module(new)


@pytest.mark.parametrize("name", MOVED_NAMES)
def test_from_training_import_old_name_warns_and_gives_the_same_object(name):
    with pytest.warns(DeprecationWarning, match=re.escape("moved to cardarena.evaluation")):
        scope = _run(f"from cardarena.training import {name}")
    assert scope[name] is getattr(cardarena.evaluation, name)


@pytest.mark.parametrize("name", FUNCTION_AND_MODULE)
def test_a_name_that_is_a_function_and_a_module_stays_the_function(name, fresh):
    with pytest.warns(DeprecationWarning):
        # The import system would bind the module over the function: the package refuses.
        _run(f"import cardarena.training.{name}")
        scope = _run(f"from cardarena.training import {name}")
    assert callable(scope[name]) and scope[name] is getattr(cardarena.evaluation, name)


def test_the_old_command_module_still_gives_the_command(fresh):
    with pytest.warns(DeprecationWarning, match=re.escape("moved to cardarena.cli.app")):
        scope = _run("from cardarena.training.cli import build_parser, main")
    assert scope["main"] is cardarena.cli.app.main  # the function the package exposes
    assert scope["build_parser"] is cardarena.cli.build_parser


def test_python_m_an_old_name_runs_the_new_main_with_the_warning():
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.training.cli", "list"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "promise_war_v0" in done.stdout
    assert "DeprecationWarning: cardarena.training.cli moved to cardarena.cli.app" in done.stderr
    quiet = subprocess.run([sys.executable, "-m", "cardarena.training.records"],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert quiet.returncode == 0 and not quiet.stdout, quiet.stderr  # no main(): nothing runs


def test_unknown_names_still_fail_as_before():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = cardarena.training.nothing_here
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cardarena.training.nothing_here")


def _python_sources() -> list[tuple[Path, str]]:
    """Every Python text of the repo: modules, tests, scripts, notebooks' code cells."""
    skip = {ROOT / "training" / "__init__.py", Path(__file__)}
    folders = ("envs", "agents", "training", "evaluation", "cli", "web", "openspiel", "docs",
               "tests", "scripts", "bench")  # fmt: skip
    found = [
        (path, path.read_text())
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in skip and "generated" not in path.parts
    ]
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        code = [cell["source"] for cell in cells if cell["cell_type"] == "code"]
        found.append((notebook, "\n".join("".join(source) for source in code)))
    return found


def test_the_repo_uses_only_the_new_names():
    old_module = re.compile(rf"\b({'|'.join(map(re.escape, MOVED))})\b")
    old_short = {*MOVED_NAMES, *(old.rpartition(".")[2] for old in MOVED)}
    offenders = []
    for path, text in _python_sources():
        offenders += [f"{path}: {match[0]}" for match in old_module.finditer(text)]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module == "cardarena.training":
                moved = sorted(alias.name for alias in node.names if alias.name in old_short)
                if moved:
                    offenders.append(
                        f"{path}:{node.lineno}: from cardarena.training import {moved}"
                    )
    assert not offenders, offenders
