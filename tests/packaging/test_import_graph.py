"""Imports point one way (STYLE.md, "No cycles"): the module graph of the installed package has
no cycle but the few listed in ``EXPECTED_CYCLES``, each with the reason it is still there.

Every ``import`` and ``from ... import`` anywhere in a module counts, inside functions too (a
lazy import hides a cycle from the interpreter, not from a reader), relative ones resolved;
only ``cardarena.*`` targets. Importing ``a.b.c`` runs ``a.b``'s ``__init__`` first, so a
module also depends on the packages above what it imports (its own packages aside: they are
already being imported). A cycle through a package's ``__init__`` is the one that fails at
import time: ``evaluation.records`` imports ``training.jsonl``, so nothing that
``training/__init__.py`` imports may import ``evaluation.records``.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
from collections import deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The cycles still there, as strongly connected components, each with why. A component that
#: grows (a new module joins the cycle) or one that is gone fails the test as well.
EXPECTED_CYCLES = {
    frozenset(
        {
            "cardarena.training.exploit",
            "cardarena.training.exploit.run",
            "cardarena.training.exploiters",
            "cardarena.training.vector.run",
        }
    ): "a real recursion: the vector run runs exploiter rounds, which run the exploit job, "
    "which trains its best response with the vector run; breaking it means handing the "
    "trainer in through exploit's public API",
}


def installed_roots() -> list[str]:
    """The top-level subpackages setup.py installs (its ``ROOTS``)."""
    for node in ast.walk(ast.parse((ROOT / "setup.py").read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "ROOTS" for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py has no ROOTS")


def package_modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the installed package: name -> (file, is a package), found where the
    import system finds each root (an editable install or a wheel alike)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for root in installed_roots():
        spec = importlib.util.find_spec(f"cardarena.{root}")
        assert spec is not None and spec.submodule_search_locations, f"cardarena.{root}"
        for folder in map(Path, spec.submodule_search_locations):
            for path in sorted(folder.rglob("*.py")):
                parts = path.relative_to(folder).with_suffix("").parts
                packages = [folder.joinpath(*parts[:depth]) for depth in range(len(parts))]
                if not all((package / "__init__.py").is_file() for package in packages):
                    continue  # not installed: a folder without __init__.py (docs/site ...)
                is_package = parts[-1] == "__init__"
                name = ".".join(("cardarena", root, *parts[: -1 if is_package else None]))
                modules[name] = (path, is_package)
    return modules


def _known(name: str, modules: dict[str, tuple[Path, bool]]) -> str | None:
    """The module ``name`` is or is an attribute of (its longest prefix that is a module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, modules: dict[str, tuple[Path, bool]]) -> dict[str, tuple[int, str]]:
    """The modules ``name`` depends on: target -> (line, how) of an import that makes it one."""
    path, is_package = modules[name]
    package = name if is_package else name.rpartition(".")[0]
    found: dict[str, tuple[int, str]] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # ``from a import b``: the module a.b if there is one, else a (b is an attribute).
            wanted = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for imported in wanted:
            target = _known(imported, modules) if imported.startswith("cardarena.") else None
            if target is None or target == name:
                continue
            found.setdefault(target, (node.lineno, "imports"))
            parts = target.split(".")
            for depth in range(2, len(parts)):
                above = ".".join(parts[:depth])
                if above in modules and not f"{name}.".startswith(f"{above}."):
                    found.setdefault(above, (node.lineno, f"imports {target}, so runs"))
    return found


def import_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], str]]:
    """The graph (module -> the modules it depends on) and where each edge comes from."""
    modules = package_modules()
    graph: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for name in modules:
        edges = imports_of(name, modules)
        graph[name] = set(edges)
        for target, (line, how) in edges.items():
            path = modules[name][0]
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            where[(name, target)] = f"{shown.as_posix()}:{line} {how} {target}"
    return graph, where


def strong_components(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def a_cycle(component: frozenset[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the first module of ``component`` (breadth first)."""
    start = min(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for successor in sorted(graph[node] & component):
            if successor == start:
                cycle = [node]
                while cycle[-1] != start:
                    cycle.append(came_from[cycle[-1]])
                return [start, *reversed(cycle[:-1]), start]
            if successor not in came_from:
                came_from[successor] = node
                queue.append(successor)
    raise AssertionError(f"{sorted(component)} is not a cycle")


def describe(
    component: frozenset[str], graph: dict[str, set[str]], where: dict[tuple[str, str], str]
) -> str:
    """A shortest cycle of ``component``, each step with the import behind it."""
    cycle = a_cycle(component, graph)
    lines = [" -> ".join(cycle)]
    lines += [f"    {where[edge]}" for edge in itertools.pairwise(cycle)]
    others = sorted(component - set(cycle))
    if others:
        lines.append(f"    (the same cycle also holds {', '.join(others)})")
    return "\n".join(lines)


def test_the_module_graph_has_no_cycle_but_the_listed_ones():
    graph, where = import_graph()
    found = strong_components(graph)
    unexpected = [component for component in found if component not in EXPECTED_CYCLES]
    gone = [component for component in EXPECTED_CYCLES if component not in found]
    for component in found:
        print(describe(component, graph, where))
    report = [f"new cycle: {describe(c, graph, where)}" for c in unexpected] + [
        f"listed in EXPECTED_CYCLES but no longer a cycle (remove it): {sorted(c)}" for c in gone
    ]
    assert not report, "\n".join(report)


def test_the_command_line_is_the_top_room():
    """Nothing outside ``cardarena.cli`` imports it: the commands use the library, the library
    (training's config and the benches' flags included) never the commands."""
    graph, where = import_graph()

    def in_cli(name: str) -> bool:
        return name == "cardarena.cli" or name.startswith("cardarena.cli.")

    inward = [
        where[(name, target)]
        for name, targets in graph.items()
        if not in_cli(name)
        for target in targets
        if in_cli(target)
    ]
    assert not inward, "\n".join(inward)


def test_the_walk_sees_every_room_and_resolves_relative_and_lazy_imports():
    graph, _ = import_graph()
    roots = {name.split(".")[1] for name in graph}
    assert roots == set(installed_roots()), roots
    # relative, at the top of the module
    assert "cardarena.evaluation.records" in graph["cardarena.evaluation.tournament"]
    # absolute, and the package above it, whose __init__ runs first
    assert {"cardarena.training.jsonl", "cardarena.training"} <= graph[
        "cardarena.evaluation.records"
    ]
    # inside a function (each command imports what it runs on use)
    assert "cardarena.evaluation.tournament" in graph["cardarena.cli.evaluate"]
    # ``from . import module`` and ``from ..module import name``
    assert "cardarena.bench.learning" in graph["cardarena.bench"]
    assert "cardarena.training.vector.run" in graph["cardarena.training.exploit.run"]
    assert "cardarena.evaluation.tournament_results" in graph


@pytest.mark.parametrize(
    ("graph", "components"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a", "c"}, "c": set()}, [{"a", "b"}]),
        ({"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": {"c"}}, [{"a", "b", "c", "d"}]),
    ],
)
def test_the_cycle_finder_on_small_graphs(graph, components):
    found = strong_components(graph)
    assert sorted(map(sorted, found)) == sorted(map(sorted, components))
    for component in found:
        cycle = a_cycle(component, graph)
        assert cycle[0] == cycle[-1] == min(component) and set(cycle) <= component
        assert all(b in graph[a] for a, b in itertools.pairwise(cycle))
