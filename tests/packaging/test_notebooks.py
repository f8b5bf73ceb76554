"""The notebooks in notebooks/ run top to bottom in a Jupyter kernel (nbclient) of this very
Python, against the installed package, and say what they are meant to say; the committed
files carry no outputs.

nbclient, nbformat and ipykernel are in the ``dev`` extra: a missing one fails the import of
this module (a collection error), it is never skipped.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from helpers import env_names
from jupyter_client import AsyncKernelManager
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets import default

import cardarena.envs

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = [
    "01_quickstart.ipynb",
    "02_train_and_evaluate.ipynb",
    "03_custom_rules.ipynb",
    "04_research_embedding.ipynb",
]
#: Seconds one cell may take (the whole suite of four runs in well under two minutes).
CELL_TIMEOUT = 600

#: Run first in the kernel (never written to the committed notebooks): the pytest config's
#: "DeprecationWarning from cardarena is an error", and which Python and package the kernel
#: runs, for ``check_kernel``.
PRELUDE = """\
import sys, warnings
warnings.filterwarnings("error", category=DeprecationWarning, module=r"cardarena(\\.|$)")
import cardarena.envs
print("KERNEL-PREFIX", sys.prefix)
print("KERNEL-PACKAGE", cardarena.envs.__file__)
"""


class ThisPythonKernelSpecs(KernelSpecManager):
    """Every kernel name resolves to an ipykernel of the Python running the tests, whatever
    kernelspecs the machine has installed (a user-wide ``python3`` kernel of another Python
    would test another install)."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python ({sys.executable})",
            language="python",
            resource_dir="",
        )


class ThisPythonKernel(AsyncKernelManager):
    @default("kernel_spec_manager")
    def _kernel_spec_manager_default(self) -> KernelSpecManager:
        return ThisPythonKernelSpecs(data_dir=self.data_dir)


def read(name: str) -> Any:
    return nbformat.read(NOTEBOOK_DIR / name, as_version=4)


def execute(name: str, workdir: Path) -> Any:
    """The notebook executed in a fresh kernel whose working folder is ``workdir``."""
    notebook = read(name)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(PRELUDE))
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        kernel_manager_class=ThisPythonKernel,
        resources={"metadata": {"path": str(workdir)}},
    )
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # no terminal colours in the report
        pytest.fail(f"{name}: {type(error).__name__}:\n{text}", pytrace=False)
    return notebook


def text_of(outputs: list[Any]) -> str:
    """Everything the outputs show as text: streams, plain text and markdown."""
    parts = []
    for output in outputs:
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif "data" in output:
            parts += [output["data"].get("text/markdown", ""), output["data"].get("text/plain", "")]
    return "\n".join(parts)


def images_in(notebook: Any) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def check_kernel(notebook: Any) -> None:
    """The kernel ran this Python (same prefix) and imported this install of cardarena."""
    shown = text_of(notebook.cells[0].outputs)
    prefix = re.search(r"KERNEL-PREFIX (.+)", shown)
    package = re.search(r"KERNEL-PACKAGE (.+)", shown)
    assert prefix and package, f"the prelude printed {shown!r}"
    assert Path(prefix.group(1).strip()).resolve() == Path(sys.prefix).resolve()
    assert Path(package.group(1).strip()).resolve() == Path(cardarena.envs.__file__).resolve()


def check_clean(name: str, notebook: Any) -> None:
    """No error output, and no warning printed on stderr (the notebooks run clean)."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", f"{name} cell {index}: {output}"
            if output["output_type"] == "stream" and output["name"] == "stderr":
                assert "Warning" not in output["text"], f"{name} cell {index}: {output['text']}"


# --- the committed files ---------------------------------------------------------------------
def test_exactly_the_four_notebooks():
    assert sorted(path.name for path in NOTEBOOK_DIR.glob("*.ipynb")) == NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_without_outputs(name):
    notebook = read(name)
    nbformat.validate(notebook)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in notebook.metadata
    first = notebook.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), "a title cell first"
    for index, cell in enumerate(notebook.cells):
        assert "widgets" not in cell.metadata, f"cell {index}"
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {index} has outputs: strip them before committing"
            assert cell.execution_count is None, f"cell {index} has an execution count"


def private_names(source: str) -> list[str]:
    """Private names a piece of code reaches for: ``obj._name`` and imports of ``_name``
    (dunders such as ``module.__doc__`` are public)."""

    def private(name: str) -> bool:
        return name.startswith("_") and not name.endswith("__")

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and private(node.attr):
            found.append(node.attr)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            dotted = modules + [alias.name for alias in node.names]
            found += [part for name in dotted for part in name.split(".") if private(part)]
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_public_api_only(name):
    for index, cell in enumerate(read(name).cells):
        if cell.cell_type == "code":
            used = private_names(cell.source)
            assert not used, f"{name} cell {index} uses private names {used}"


def test_private_names_are_found():
    found = private_names("env.unwrapped._state\nfrom a._b import c\nfrom d import _e")
    assert sorted(found) == ["_b", "_e", "_state"]
    assert private_names("print(module.__doc__)\nx, *_ = f()") == []


# --- executed --------------------------------------------------------------------------------
def run_checked(name: str, tmp_path: Path) -> tuple[Any, str]:
    """Execute ``name``, check its kernel and its committed form; the notebook and the text
    of all its outputs."""
    notebook = execute(name, tmp_path)
    check_kernel(notebook)
    check_clean(name, notebook)
    return notebook, text_of([out for cell in notebook.cells for out in cell.get("outputs", [])])


@pytest.mark.slow
def test_01_quickstart(tmp_path):
    _notebook, shown = run_checked("01_quickstart.ipynb", tmp_path)
    for env_name in env_names(builtin=True):  # all a notebook kernel sees
        assert f"{env_name}:" in shown, f"no random game of {env_name}"
        assert re.search(rf"{env_name}\s+heuristic vs random: 100 games", shown), env_name
    assert "cardarena/promise_war-v0" in shown
    assert "game over" in shown  # a final rendering
    assert re.search(r"hand\s+\(11,\)", shown)  # the observation by its named pieces
    assert "legal=['play power" in shown  # the action mask, with action names


@pytest.mark.slow
def test_02_train_and_evaluate(tmp_path):
    notebook, shown = run_checked("02_train_and_evaluate.ipynb", tmp_path)
    assert "promise_war_v0: trained to step 20480" in shown
    assert "| rank | agent | rating (Elo) | ± s.e. |" in shown  # the rating table
    assert "| agent | opponent | W | D | L | n | win rate | 95% interval |" in shown
    for pair in ("| `ppo_20k` | `heuristic` |", "| `ppo_20k` | `random` |"):
        assert pair in shown
    assert images_in(notebook) >= 2  # learning curve and heat map, inline
    assert re.search(r"original vs heuristic: 100 games", shown)
    assert "InvalidConfigError: checkpoint" in shown  # refused for another env
    assert re.search(r"exported vs heuristic: 100 games", shown)
    assert re.search(r"pretrained vs heuristic: 100 games", shown)  # the shipped agent


@pytest.mark.slow
def test_03_custom_rules(tmp_path):
    _notebook, shown = run_checked("03_custom_rules.ipynb", tmp_path)
    assert "inventions.csv), comparing year" in shown  # Cardline on the notebook's deck
    assert re.search(r"oracle\s+vs random: 100 games: 100 won", shown)
    assert "InvalidConfigError: deck rows, row 1, column 'year'" in shown
    for deck in ("standard", "middling", "polarised"):
        assert re.search(rf"{deck}\s+deck vs the standard deck: \d+ won", shown)
    assert "Iron Man 2 Game of War (beginner)" in shown
    assert "beginner: iron_man's 35 cards" in shown
    assert "Stegobot" in shown  # the custom Beast Wars characters
    assert "player_0 placed Wheel (-3,500): right, it stays" in shown  # the Cardline scenario
    assert "Owlcon wins: Mantiscar is pushed" in shown  # the scripted Beast Wars battle
    assert "tiebreak" in shown  # the Promise War scenario


@pytest.mark.slow
def test_04_research_embedding(tmp_path):
    _notebook, shown = run_checked("04_research_embedding.ipynb", tmp_path)
    assert "Passed API test" in shown
    assert "Passed Parallel API test" in shown
    assert "seed_test passed" in shown
    assert "cardarena/promise_war-single-v0" in shown
    assert re.search(r"always the highest card\s+vs heuristic: won", shown)
    for agent in ("MC, determinized (honest)", "MC, deepcopy (cheating)"):
        for opponent in ("random", "heuristic"):
            assert re.search(rf"{re.escape(agent)}\s+{opponent}\s+\d", shown), (agent, opponent)
    assert "full state (centralised)" in shown
