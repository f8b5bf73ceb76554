"""Old names still import: evaluation moved from ``cardarena.training`` to
``cardarena.evaluation``, the command line to ``cardarena.cli``, the benchmarks to
``cardarena.bench``, each training backend to its own package (``training.sb3``,
``training.vector``); and "batched" became "vector", the one word for many games advanced per
call (modules ``agents.batched``, ``agents.heuristics.batched_<game>``, ``envs.<game>.batched``,
public names such as ``BatchedRules``, and a game's registry line ``BATCHED = "module:Class"``,
now ``VECTOR``). Every old name warns naming the new one and is the new module or object itself
(so a patch through one name is seen through the other); ``python -m`` an old module name runs
the new module's ``main()``. One mechanism does it all (``cardarena.envs.core.moved``); the
repo uses only the new names."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from fifth_game import NAME as TEST_GAME
from fifth_game import high_card_v0

import cardarena.agents
import cardarena.cli
import cardarena.envs
import cardarena.evaluation
import cardarena.training
from cardarena.envs import ENVS, register_env, unregister_env
from cardarena.envs.core import moved
from cardarena.envs.vector import has_vector, make_vec, vector_rules_class

ROOT = Path(__file__).resolve().parents[2]

#: The games' package names and class words.
GAMES = {
    "beast_wars": "BeastWars",
    "cardline": "Cardline",
    "ironman_war": "IronManWar",
    "promise_war": "PromiseWar",
}
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
    "cardarena.training.ppo": ("cardarena.training.sb3.model", "build_model"),
    "cardarena.training.train_vector": ("cardarena.training.vector.run", "train_vector"),
    "cardarena.training.vector_ppo": ("cardarena.training.vector.ppo", "VectorPPO"),
    "cardarena.training.vector_env": ("cardarena.training.vector.vec_env", "LearnerVecEnv"),
    "cardarena.agents.batched": ("cardarena.agents.vector", "RowsAgent"),
    **{
        f"cardarena.agents.heuristics.batched_{game}": (
            f"cardarena.agents.heuristics.vector_{game}",
            f"Vector{word}Heuristic",
        )
        for game, word in GAMES.items()
    },
    **{
        f"cardarena.envs.{game}.batched": (f"cardarena.envs.{game}.vector", f"Vector{word}")
        for game, word in GAMES.items()
    },
}
#: What ``cardarena.training`` re-exported from them (``__all__`` before the move).
MOVED_NAMES = (
    "GameRecord", "MatchRecord", "MatchResult", "PairStats", "ReplayError", "ReplayStep",
    "TournamentResult", "bradley_terry", "evaluate", "play_game", "play_match", "read_records",
    "replay", "run_tournament", "wilson_interval", "write_records",
)  # fmt: skip
#: Names that are a function (the old re-export) and a module: the function wins, as before.
FUNCTION_AND_MODULE = ("evaluate", "replay")
#: Public names renamed where they live ("batched" -> "vector"): old -> new, as module.name.
RENAMED = {
    "cardarena.envs.BATCHED_TARGET": "cardarena.envs.VECTOR_TARGET",
    **{
        f"{module}.{old}": f"{module}.{new}"
        for module in ("cardarena.envs.vector", "cardarena.envs.vector.front")
        for old, new in (
            ("batched_rules_class", "vector_rules_class"),
            ("has_batched", "has_vector"),
        )
    },
    "cardarena.envs.vector.BatchedRules": "cardarena.envs.vector.VectorRules",
    "cardarena.envs.vector.rules.BatchedRules": "cardarena.envs.vector.rules.VectorRules",
    **{
        f"cardarena.envs.{game}.vector.Batched{word}": f"cardarena.envs.{game}.vector.Vector{word}"
        for game, word in GAMES.items()
    },
    **{
        f"cardarena.agents.vector.{old}": f"cardarena.agents.vector.{new}"
        for old, new in (
            ("BATCHED_HEURISTICS", "VECTOR_HEURISTICS"),
            ("BatchedAgent", "VectorAgent"),
            ("BatchedHeuristic", "VectorHeuristic"),
            ("BatchedPolicy", "VectorPolicy"),
            ("BatchedRandom", "VectorRandom"),
            ("as_batched", "as_vector"),
            ("batched_agent", "vector_agent"),
            ("batched_heuristic", "vector_heuristic"),
        )
    },
    **{
        f"cardarena.agents.heuristics.vector_{game}.Batched{word}Heuristic": (
            f"cardarena.agents.heuristics.vector_{game}.Vector{word}Heuristic"
        )
        for game, word in GAMES.items()
    },
    "cardarena.evaluation.evaluate_vector.evaluate_batched": (
        "cardarena.evaluation.evaluate_vector.evaluate_on_vector"
    ),
    "cardarena.evaluation.tournament_vector.batched_lineup": (
        "cardarena.evaluation.tournament_vector.vector_lineup"
    ),
    "cardarena.training.vector.vec_env.BatchedVecEnv": (
        "cardarena.training.vector.vec_env.LearnerVecEnv"
    ),
    "cardarena.training.vector.vec_env.BatchedGymVectorEnv": (
        "cardarena.training.vector.vec_env.LearnerGymVectorEnv"
    ),
    "cardarena.training.sb3.model.missing_train_extra": (
        "cardarena.training.run.missing_train_extra"
    ),
}
#: Each old name through an old module (which is the new one): old module, name, new object.
THROUGH_OLD_MODULES = [
    (old_module, old.rpartition(".")[2], RENAMED[old])
    for old_module, (new_module, _) in MOVED.items()
    for old in RENAMED
    if old.rpartition(".")[0] == new_module
]


def _object(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.fixture
def fresh(monkeypatch):
    """Each old name not imported yet, as in a new interpreter (restored afterwards)."""
    for old in MOVED:
        monkeypatch.delitem(sys.modules, old, raising=False)


def _run(statement: str, **names) -> dict:
    """Run ``statement`` (with ``names`` in scope) as a line of this file (the warnings name
    the line that imports)."""
    scope: dict = dict(names)
    exec(compile(statement, __file__, "exec"), scope)
    return scope


def _names(new: str) -> str:
    """The warning's words for something now at ``new``."""
    return rf"(moved to|is now) {re.escape(new)};"


def test_the_tables_are_the_ones_tested():
    for module in {name.rpartition(".")[0] for name in [*RENAMED, *RENAMED.values()]}:
        importlib.import_module(module)  # each declares its old names when first imported
    assert {old: new for old, (new, _) in MOVED.items()} == moved.MOVED_MODULES
    evaluation = {f"cardarena.training.{n}": f"cardarena.evaluation.{n}" for n in MOVED_NAMES}
    assert {**RENAMED, **evaluation} == moved.MOVED_NAMES
    in_training = [old for old in MOVED if old.startswith("cardarena.training.")]
    assert {old: MOVED[old][0] for old in in_training} == cardarena.training.MOVED_MODULES
    assert set(cardarena.training.MOVED_NAMES) == set(MOVED_NAMES)
    assert not set(cardarena.training.__all__) & set(MOVED_NAMES)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_import_old_module_warns_and_gives_the_new_module(old, fresh):
    new, _ = MOVED[old]
    with pytest.warns(DeprecationWarning, match=_names(new)) as caught:
        _run(f"import {old}")
    assert sys.modules[old] is importlib.import_module(new)
    assert all(__file__ == warning.filename for warning in caught), "blames the importer"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_from_old_module_import_a_name_warns_and_gives_the_same_object(old, fresh):
    new, name = MOVED[old]
    with pytest.warns(DeprecationWarning, match=_names(new)):
        scope = _run(f"from {old} import {name}")
    assert scope[name] is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize(
    "old", sorted(old for old in MOVED if old.rpartition(".")[2] not in FUNCTION_AND_MODULE)
)
def test_from_the_package_import_old_module_warns_and_gives_the_new_module(old, fresh):
    new, _ = MOVED[old]
    package, _, short = old.rpartition(".")
    for _ in range(2):  # the package keeps no attribute that would skip the second warning
        with pytest.warns(DeprecationWarning, match=_names(new)):
            scope = _run(f"from {package} import {short}")
        assert scope[short] is importlib.import_module(new)


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_an_old_name_warns_naming_the_new_one_and_is_the_same_object(old):
    module, _, name = old.rpartition(".")
    with pytest.warns(DeprecationWarning, match=_names(RENAMED[old])) as caught:
        scope = _run(f"from {module} import {name}")
    assert scope[name] is _object(RENAMED[old])
    assert all(__file__ == warning.filename for warning in caught), "blames the importer"


@pytest.mark.parametrize(("old_module", "name", "new"), THROUGH_OLD_MODULES, ids=str)
def test_an_old_name_from_an_old_module_is_the_same_object(old_module, name, new, fresh):
    with pytest.warns(DeprecationWarning) as caught:
        scope = _run(f"from {old_module} import {name}")
    assert scope[name] is _object(new)
    said = [str(warning.message) for warning in caught]
    new_module = MOVED[old_module][0]  # the name itself may have moved on (its own warning)
    assert any(re.match(f"{re.escape(old_module)} {_names(new_module)}", text) for text in said)
    assert any(re.search(_names(new), text) for text in said), said


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
    with pytest.warns(DeprecationWarning, match=_names("cardarena.cli.app")):
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
    assert "DeprecationWarning: cardarena.training.cli is now cardarena.cli.app" in done.stderr
    quiet = subprocess.run([sys.executable, "-m", "cardarena.agents.batched"],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert quiet.returncode == 0 and not quiet.stdout, quiet.stderr  # no main(): nothing runs
    assert "cardarena.agents.batched is now cardarena.agents.vector" in quiet.stderr


def test_unknown_names_still_fail_as_before():
    for package in (cardarena.training, cardarena.agents, cardarena.envs, cardarena.envs.vector):
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            _ = package.nothing_here
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"{package.__name__}.nothing_here")


@pytest.fixture
def without_the_test_game():
    """The test game's name free for another module, the test game back afterwards."""
    registered = ENVS.get(TEST_GAME)
    if registered is not None:
        unregister_env(TEST_GAME)
    yield
    if TEST_GAME in ENVS:
        unregister_env(TEST_GAME)
    if registered is not None:
        register_env(TEST_GAME, registered)


def test_a_game_with_the_old_registry_line_still_registers_and_plays(without_the_test_game):
    """A game module of before the rename (``BATCHED = "module:Class"``) registers with a
    warning saying to name it ``VECTOR``, and its vector engine is found as before."""
    old_style = types.ModuleType("old_style_high_card_v0", high_card_v0.__doc__)
    old_style.env, old_style.raw_env = high_card_v0.env, high_card_v0.raw_env
    vars(old_style)["BATCHED"] = high_card_v0.VECTOR  # the old word, as a game of before has it
    with pytest.warns(DeprecationWarning, match="BATCHED is the old name of VECTOR") as caught:
        _run("register_env(name, module)", register_env=register_env, name=TEST_GAME,
             module=old_style)  # fmt: skip
    assert all(__file__ == warning.filename for warning in caught), "blames the registering code"
    assert has_vector(TEST_GAME) and vector_rules_class(TEST_GAME).__name__ == "VectorHighCard"
    assert make_vec(TEST_GAME, 4, seed=0).reset().observation.shape[0] == 4
    vars(old_style)["BATCHED"] = "not a target"
    with pytest.raises(cardarena.envs.InvalidConfigError, match="its VECTOR is 'not a target'"):
        cardarena.envs.check_env_module(TEST_GAME, old_style)


def _python_sources() -> list[tuple[Path, str]]:
    """Every Python text of the repo: modules, tests, scripts, notebooks' code cells."""
    folders = ("envs", "agents", "training", "evaluation", "cli", "web", "openspiel", "docs",
               "tests", "scripts", "bench")  # fmt: skip
    found = [
        (path, path.read_text())
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "generated" not in path.parts
    ]
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        code = [cell["source"] for cell in cells if cell["cell_type"] == "code"]
        found.append((notebook, "\n".join("".join(source) for source in code)))
    return found


def _identifiers(tree: ast.AST) -> list[tuple[int, str]]:
    """Every name the code binds or reads, with its line: variables, attributes, functions,
    classes, arguments, keywords and imports."""
    found = []
    for node in ast.walk(tree):
        names: list[str | None] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.arg, ast.keyword)):
            names = [node.arg]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module]
        found += [(getattr(node, "lineno", 0), name) for name in names if name]
    return found


def test_the_repo_uses_only_the_new_names():
    """No old module name anywhere but in the tables that keep it working; no name in code
    that says "batched" (the vector engine's old word) at all; nothing imported from
    ``cardarena.training`` that moved out of it."""
    tables = {ROOT / "training" / "__init__.py", ROOT / "envs" / "__init__.py",
              ROOT / "agents" / "__init__.py", ROOT / "agents" / "heuristics" / "__init__.py",
              Path(__file__)}  # fmt: skip
    old_module = re.compile(rf"\b({'|'.join(map(re.escape, MOVED))})\b")
    old_short = {*MOVED_NAMES, *(old.rpartition(".")[2] for old in MOVED)}
    offenders = []
    for path, text in _python_sources():
        if path not in tables:
            offenders += [f"{path}: {match[0]}" for match in old_module.finditer(text)]
        tree = ast.parse(text)
        offenders += [
            f"{path}:{line}: {name}"
            for line, name in _identifiers(tree)
            if "batched" in name.lower()
        ]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "cardarena.training":
                moved_out = sorted(alias.name for alias in node.names if alias.name in old_short)
                if moved_out:
                    offenders.append(
                        f"{path}:{node.lineno}: from cardarena.training import {moved_out}"
                    )
    assert not offenders, offenders
