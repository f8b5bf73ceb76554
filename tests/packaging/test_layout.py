"""The package installs as ``cardarena.*`` with every subpackage, and rules stay pure."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = (
    "envs", "agents", "training", "evaluation", "cli", "bench", "web", "openspiel",
)  # fmt: skip


def test_imports_from_any_directory(tmp_path):
    code = (
        "import cardarena.envs, cardarena.agents, cardarena.training, cardarena.evaluation, "
        "cardarena.cli, cardarena.bench; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.stdout.strip() == "ok", done.stderr
    bare = subprocess.run([sys.executable, "-c", "import envs"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bare.returncode != 0, "the package must not install a bare top-level 'envs'"


def _clean_copy(dest: Path) -> Path:
    """The repo's own files (tracked, and new ones not ignored) in ``dest``. A wheel built in
    the clone packs whatever an earlier build left in build/lib, modules since moved too."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


@pytest.mark.slow
def test_docs_is_documentation_not_a_package():
    """The rules the package ships are package data of cardarena.envs; docs/ is only read."""
    assert not list((ROOT / "docs").rglob("__init__.py")), "docs/ must not be a Python package"
    done = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u; print(u.find_spec('cardarena.docs'))"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.strip() == "None", done.stdout + done.stderr


def test_non_editable_wheel_holds_every_subpackage(tmp_path):
    source = _clean_copy(tmp_path / "source")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("cardarena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in PACKAGE_FOLDERS:
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.relative_to(ROOT).as_posix()
            assert f"cardarena/{relative}" in names, f"wheel misses {relative}"
    stale = [
        n for n in names if n.endswith(".py") and not (ROOT / n[len("cardarena/") :]).is_file()
    ]
    assert not stale, f"the wheel ships modules the source does not have: {stale}"
    assert not any(name.startswith(("envs/", "tests/", "bench/")) for name in names)
    shipped = sorted((ROOT / "agents" / "pretrained").glob("*.npz"))
    assert shipped and all(f"cardarena/agents/pretrained/{p.name}" in names for p in shipped)
    rules = sorted((ROOT / "envs" / "rulebooks").glob("*.md"))
    assert len(rules) >= 5 and all(f"cardarena/envs/rulebooks/{p.name}" in names for p in rules)
    static = sorted(p for p in (ROOT / "web" / "static").glob("*") if p.is_file())
    assert static and all(f"cardarena/web/static/{p.name}" in names for p in static)
    assert not any(n.startswith("cardarena/docs/") for n in names), "docs/ is not installed"


def _imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.ImportFrom):
            found.add((node.module or "").split(".")[0])
    return found


PURE_CORE = {
    f"..core.{name}"
    for name in (
        "actions",
        "errors",
        "events",
        "game",
        "moved",
        "options",
        "state_checks",
        "tables",
        "validation",
    )
}
RULES_FILES = sorted((ROOT / "envs").glob("*/rules.py"))


@pytest.mark.parametrize("rules", RULES_FILES, ids=lambda path: path.parent.name)
def test_rules_modules_import_only_numpy_stdlib_and_pure_core(rules):
    """STYLE.md: rules never import PettingZoo or gymnasium (a test can prove it)."""
    for module in _imported_modules(rules):
        if module.startswith(".."):
            assert module in PURE_CORE, f"{rules} imports {module}, which is not pure core"
        elif module.startswith("."):
            sibling = rules.parent / f"{module[1:]}.py"
            assert not ({"pettingzoo", "gymnasium"} & _imported_modules(sibling)), module
        else:
            assert module == "numpy" or module in sys.stdlib_module_names, (
                f"{rules.name} imports {module}: rules modules use numpy and the stdlib only"
            )
    for core in PURE_CORE:
        for module in _imported_modules(ROOT / "envs" / "core" / f"{core.rpartition('.')[2]}.py"):
            assert module.startswith(".") or module == "numpy" or module in sys.stdlib_module_names
