"""Mutation testing for cardarena: how many deliberate one-line bugs does the test suite catch?

Why: line coverage says which code the tests *run*; it does not say whether they would *notice*
if that code were wrong. A mutant is a copy of the code with one small, deliberate bug (``<``
turned into ``<=``, ``True`` into ``False``, a statement replaced by ``pass``...). A mutant is
*killed* when the test suite fails on it and *survives* when the suite still passes. Survivors
point at behaviour no test pins down.

How:

1. The repo's files (``git ls-files`` plus untracked, non-ignored files) are copied into one
   temporary working dir per job, so the repo itself is never touched.
2. The package is installed *editable* (``cardarena.envs`` -> ``<repo>/envs``), so each copy gets
   ``_mut_path/cardarena/`` with an ``__init__.py`` and symlinks ``envs``, ``agents`` and
   ``training`` into the copy, and pytest runs with ``PYTHONPATH=<copy>/_mut_path``. Plain
   ``sys.path`` entries are searched before setuptools' editable finder, which is appended to
   the end of ``sys.meta_path``, so the tests import the copy.
3. Mutants are generated from the AST of every ``.py`` file under ``--paths`` (docstrings,
   type annotations, f-strings, string constants and ``__init__.py`` re-exports are left
   alone). Each one changes exactly one AST node, is applied by rewriting only the node's line
   range in the original text (the rest of the file keeps its formatting), and is kept only if
   the rewritten file parses to exactly the expected mutated tree.
4. The unmutated suite must pass first. Then each sampled mutant is written into a copy,
   ``pytest -x -q -m "not slow"`` runs there (bytecode writing off, so a stale ``.pyc`` can
   never leak one mutant into the next run), and the file is restored.

``--planted FILE`` runs hand-written realistic bugs instead: a JSON list of
``{"name", "file", "old", "new"}`` where ``old`` must occur exactly once in ``file``.

Usage::

    python scripts/mutants.py [--repo DIR] [--paths envs training] [--sample N] [--seed S]
        [--jobs 2] [--timeout SECONDS] [--pytest-args "..."] [--planted FILE]
        [--report FILE.json] [--nice 10]

For run-to-run reproducible kills of hypothesis tests add ``--pytest-args
"--hypothesis-seed=0"``. Only the standard library is used.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import contextlib
import io
import json
import os
import queue
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

PACKAGE = "cardarena"
PACKAGE_FOLDERS = ("envs", "agents", "training")
PYTEST_BASE = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow"]

COMPARE_SWAPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], str, str]] = {
    # op: (swapped op, regex finding op's text between the operands, replacement text)
    ast.Lt: (ast.LtE, r"<(?!=)", "<="),
    ast.LtE: (ast.Lt, r"<=", "<"),
    ast.Gt: (ast.GtE, r">(?!=)", ">="),
    ast.GtE: (ast.Gt, r">=", ">"),
    ast.Eq: (ast.NotEq, r"==", "!="),
    ast.NotEq: (ast.Eq, r"!=", "=="),
    ast.In: (ast.NotIn, r"\bin\b", "not in"),
    ast.NotIn: (ast.In, r"\bnot\s+in\b", "in"),
    ast.Is: (ast.IsNot, r"\bis\b", "is not"),
    ast.IsNot: (ast.Is, r"\bis\s+not\b", "is"),
}
BINOP_SWAPS: dict[type[ast.operator], tuple[type[ast.operator], str, str]] = {
    ast.Add: (ast.Sub, r"\+", "-"),
    ast.Sub: (ast.Add, r"-", "+"),
    ast.Mult: (ast.FloorDiv, r"\*", "//"),
    ast.FloorDiv: (ast.Mult, r"//", "*"),
}
BOOLOP_SWAPS: dict[type[ast.boolop], tuple[type[ast.boolop], str, str]] = {
    ast.And: (ast.Or, r"\band\b", "or"),
    ast.Or: (ast.And, r"\bor\b", "and"),
}
ANNOTATION_FIELDS = {"annotation", "returns"}


@dataclass(frozen=True)
class Mutant:
    """One change to one file: lines ``line..end_line`` (1-based) become ``new_block``."""

    file: str  # repo-relative, POSIX separators
    line: int
    end_line: int
    operator: str
    original: str  # the original line range, whitespace collapsed (for display)
    mutated: str  # the mutated line range, whitespace collapsed (for display)
    new_block: str = field(repr=False)
    name: str = ""  # set for planted mutants

    def describe(self) -> str:
        """``file:line: original -> mutated``, one line."""
        return f"{self.file}:{self.line}: {_short(self.original)} -> {_short(self.mutated)}"


@dataclass
class Result:
    """The outcome of running the suite against one mutant."""

    mutant: Mutant
    status: str  # "killed", "timeout" or "survived"
    seconds: float
    returncode: int | None
    failure: str  # first FAILED/ERROR line of the pytest output, if any


@dataclass
class _Candidate:
    node: ast.AST  # whose source segment the textual edit rewrites
    operator: str
    new_segment: str
    apply: Callable[[], None]  # makes the same change in the tree, to check the text edit
    revert: Callable[[], None]


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _collapse(text: str) -> str:
    return " ".join(text.split())


# ----------------------------------------------------------------------------- source text


class _Source:
    """Source text with conversions from AST (line, UTF-8 byte column) to string offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = io.StringIO(text, newline="").readlines()  # splits like the tokenizer
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return self.starts[lineno - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def line_of(self, offset: int) -> int:
        """The 1-based line holding string offset ``offset``."""
        return bisect.bisect_right(self.starts, offset)


def _set_attr(obj: object, name: str, value: object) -> tuple[Callable[[], None], ...]:
    old = getattr(obj, name)
    return (lambda: setattr(obj, name, value)), (lambda: setattr(obj, name, old))


def _set_item(items: list, index: int, value: object) -> tuple[Callable[[], None], ...]:
    old = items[index]

    def apply() -> None:
        items[index] = value

    def revert() -> None:
        items[index] = old

    return apply, revert


def _replace_in_gap(
    src: _Source, node: ast.AST, gaps: list[tuple[int, int]], pattern: str, replacement: str
) -> str | None:
    """``node``'s text with ``pattern`` replaced in each gap (absolute offsets); each gap must
    hold exactly one match (outside a comment), else None."""
    start, end = src.span(node)
    pieces, cursor = [], start
    for gap_start, gap_end in gaps:
        gap = src.text[gap_start:gap_end]
        code = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), gap)
        matches = list(re.finditer(pattern, code))
        if len(matches) != 1:
            return None
        match = matches[0]
        pieces.append(src.text[cursor : gap_start + match.start()])
        pieces.append(replacement)
        cursor = gap_start + match.end()
    pieces.append(src.text[cursor:end])
    return "".join(pieces)


# ----------------------------------------------------------------------------- generation


Path_ = tuple[tuple[str, int | None], ...]  # (field, list index) steps from the module


def _walk(
    node: ast.AST, parent: ast.AST | None = None, path: Path_ = (), anchor: Path_ = ()
) -> Iterator[tuple[ast.AST, ast.AST | None, Path_]]:
    """Every node with its parent and the path of its nearest enclosing statement (or the
    module), skipping type annotations and f-strings."""
    yield node, parent, anchor
    if isinstance(node, ast.JoinedStr):
        return
    child_anchor = path if isinstance(node, ast.stmt | ast.Module) else anchor
    for name, value in ast.iter_fields(node):
        if name in ANNOTATION_FIELDS:
            continue
        children = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, child in children:
            if isinstance(child, ast.AST):
                yield from _walk(child, node, (*path, (name, index)), child_anchor)


def _resolve(tree: ast.AST, path: Path_) -> ast.AST | None:
    node: object = tree
    for name, index in path:
        node = getattr(node, name, None)
        if index is not None:
            node = node[index] if isinstance(node, list) and index < len(node) else None
    return node if isinstance(node, ast.AST) else None


def _is_str_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
    )


def _is_all_assignment(node: ast.stmt) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)


def _candidates(src: _Source, tree: ast.Module) -> Iterator[tuple[_Candidate, Path_]]:
    for node, parent, anchor in _walk(tree):
        for candidate in _node_candidates(src, node, parent):
            yield candidate, anchor


def _node_candidates(src: _Source, node: ast.AST, parent: ast.AST | None) -> Iterator[_Candidate]:
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            new_op, pattern, text = COMPARE_SWAPS[type(op)]
            gap = (src.span(operands[index])[1], src.span(operands[index + 1])[0])
            segment = _replace_in_gap(src, node, [gap], pattern, text)
            if segment is not None:
                label = f"compare {type(op).__name__}->{new_op.__name__}"
                yield _Candidate(node, label, segment, *_set_item(node.ops, index, new_op()))

    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in BINOP_SWAPS:
        left = node.left if isinstance(node, ast.BinOp) else node.target
        right = node.right if isinstance(node, ast.BinOp) else node.value
        if not (_is_str_constant(left) or _is_str_constant(right)):
            new_op, pattern, text = BINOP_SWAPS[type(node.op)]
            gap = (src.span(left)[1], src.span(right)[0])
            segment = _replace_in_gap(src, node, [gap], pattern, text)
            if segment is not None:
                label = f"arith {type(node.op).__name__}->{new_op.__name__}"
                yield _Candidate(node, label, segment, *_set_attr(node, "op", new_op()))

    elif isinstance(node, ast.BoolOp):
        new_op, pattern, text = BOOLOP_SWAPS[type(node.op)]
        gaps = [
            (src.span(a)[1], src.span(b)[0])
            for a, b in zip(node.values, node.values[1:], strict=False)
        ]
        segment = _replace_in_gap(src, node, gaps, pattern, text)
        if segment is not None:
            label = f"boolop {type(node.op).__name__}->{new_op.__name__}"
            yield _Candidate(node, label, segment, *_set_attr(node, "op", new_op()))

    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield _Candidate(
            node,
            f"bool {node.value}->{not node.value}",
            repr(not node.value),
            *_set_attr(node, "value", not node.value),
        )

    elif isinstance(node, ast.Constant) and type(node.value) is int:
        for new in (node.value + 1, node.value - 1):
            yield _Candidate(
                node, f"int {node.value}->{new}", repr(new), *_set_attr(node, "value", new)
            )

    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and parent is not None:
        start = src.span(node)[0]
        operand_start = src.span(node.operand)[0]
        prefix = re.sub(r"^not\b\s*", "", src.text[start:operand_start])
        segment = prefix + src.text[operand_start : src.span(node)[1]]
        yield _Candidate(node, "drop not", segment, *_replace_child(parent, node, node.operand))

    elif isinstance(node, ast.Return) and node.value is not None:
        value = node.value
        if not (isinstance(value, ast.Constant) and value.value is None):
            start, end = src.span(node)
            value_start = src.span(value)[0]
            segment = src.text[start:value_start] + "None" + src.text[src.span(value)[1] : end]
            none = ast.Constant(value=None)
            yield _Candidate(node, "return None", segment, *_set_attr(node, "value", none))

    if (
        isinstance(node, ast.Assign | ast.AugAssign)
        or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
    ) and not (isinstance(node, ast.Assign) and _is_all_assignment(node)):
        assert parent is not None
        yield _Candidate(
            node, "statement -> pass", "pass", *_replace_child(parent, node, ast.Pass())
        )


def _replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> tuple[Callable[[], None], ...]:
    for name, value in ast.iter_fields(parent):
        if value is old:
            return _set_attr(parent, name, new)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if item is old:
                    return _set_item(value, index, new)
    raise ValueError("child not found in parent")


def _reexport_lines(tree: ast.Module) -> set[int]:
    """Lines of an ``__init__.py`` that only re-export: imports and ``__all__``."""
    lines: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom) or (
            isinstance(stmt, ast.Assign | ast.AnnAssign) and _is_all_assignment(stmt)
        ):
            lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lines


def file_mutants(relative: str, text: str) -> list[Mutant]:
    """Every valid generated mutant of one Python file, in source order."""
    src = _Source(text)
    tree = ast.parse(text)
    skip_lines = _reexport_lines(tree) if relative.endswith("__init__.py") else set()
    found: list[Mutant] = []
    seen: set[tuple[int, int, str]] = set()
    for cand, anchor in _candidates(src, tree):
        line, end_line = cand.node.lineno, cand.node.end_lineno  # type: ignore[attr-defined]
        if line in skip_lines:
            continue
        start, end = src.span(cand.node)
        block_start, block_end = src.starts[line - 1], src.starts[end_line]
        block = text[block_start:block_end]
        new_block = text[block_start:start] + cand.new_segment + text[end:block_end]
        if new_block == block or (line, end_line, new_block) in seen:
            continue
        # The text edit must make exactly the tree change: compare the enclosing statement.
        cand.apply()
        expected = ast.dump(_resolve(tree, anchor))  # type: ignore[arg-type]
        cand.revert()
        try:
            new_tree = ast.parse(text[:block_start] + new_block + text[block_end:])
        except SyntaxError:
            continue
        new_anchor = _resolve(new_tree, anchor)
        if new_anchor is None or ast.dump(new_anchor) != expected:
            continue
        seen.add((line, end_line, new_block))
        found.append(
            Mutant(
                relative,
                line,
                end_line,
                cand.operator,
                _collapse(block),
                _collapse(new_block),
                new_block,
            )
        )
    return found


def planted_mutants(repo: Path, planted: Path) -> tuple[list[Mutant], list[dict]]:
    """The hand-written mutants of ``planted`` that apply, and the ones that do not (why)."""
    applied: list[Mutant] = []
    not_applied: list[dict] = []
    for entry in json.loads(planted.read_text()):
        name, relative = entry.get("name", "?"), entry.get("file", "")
        old, new = entry.get("old", ""), entry.get("new", "")
        path = repo / relative
        text = _read(path) if path.is_file() else None
        count = text.count(old) if text is not None and old else 0
        reason = None
        if text is None:
            reason = "file not found"
        elif count != 1:
            reason = f"'old' matches {count} times (must be exactly once)"
        if reason is None:
            assert text is not None
            start = text.index(old)
            src = _Source(text)
            line, end_line = src.line_of(start), src.line_of(start + len(old) - 1)
            block_start, block_end = src.starts[line - 1], src.starts[end_line]
            new_block = text[block_start:start] + new + text[start + len(old) : block_end]
            mutated = text[:block_start] + new_block + text[block_end:]
            if relative.endswith(".py"):
                try:
                    ast.parse(mutated)
                except SyntaxError as error:
                    reason = f"mutated file does not parse: {error}"
            if reason is None:
                applied.append(
                    Mutant(
                        relative,
                        line,
                        end_line,
                        "planted",
                        _collapse(text[block_start:block_end]),
                        _collapse(new_block),
                        new_block,
                        name,
                    )
                )
        if reason is not None:
            not_applied.append({"name": name, "file": relative, "reason": reason})
    return applied, not_applied


# ----------------------------------------------------------------------------- repo copies


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def repo_files(repo: Path) -> list[str]:
    """Tracked files plus untracked, non-ignored ones (repo-relative, existing, sorted)."""
    names: set[str] = set()
    for extra in ([], ["--others", "--exclude-standard"]):
        listed = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", *extra],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        names.update(name for name in listed.split("\0") if name)
    return sorted(name for name in names if (repo / name).is_file() or (repo / name).is_symlink())


def make_copy(repo: Path, files: list[str], dest: Path) -> Path:
    """Copy ``files`` of ``repo`` to ``dest`` and add the ``_mut_path`` import shim."""
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target, follow_symlinks=False)
    shim = dest / "_mut_path" / PACKAGE
    shim.mkdir(parents=True)
    init = dest / PACKAGE / "__init__.py"  # a real cardarena/__init__.py, if the repo has one
    (shim / "__init__.py").write_text(_read(init) if init.is_file() else "")
    for folder in PACKAGE_FOLDERS:
        if (dest / folder).is_dir():
            (shim / folder).symlink_to(dest / folder, target_is_directory=True)
    return dest


@dataclass
class Workspace:
    """One job's repo copy, pytest temp dir and environment."""

    root: Path
    basetemp: Path
    env: dict[str, str]


def make_workspace(repo: Path, files: list[str], parent: Path, index: int) -> Workspace:
    """A fresh copy of ``repo`` under ``parent`` set up to be the imported ``cardarena``."""
    job = parent / f"job{index}"
    root = make_copy(repo, files, job / "repo")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(root / "_mut_path"), os.environ.get("PYTHONPATH", "")) if p
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no .pyc: a restored file can never run stale code
    return Workspace(root, job / "basetemp", env)


# ----------------------------------------------------------------------------- running

_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def run_pytest(
    ws: Workspace, python: str, extra: list[str], timeout: float
) -> tuple[int | None, str, float]:
    """Run the suite in ``ws``; (exit code or None on timeout, output, seconds)."""
    shutil.rmtree(ws.root / ".hypothesis", ignore_errors=True)  # no examples from other mutants
    command = [python, *PYTEST_BASE, f"--basetemp={ws.basetemp}", *extra]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ws.root,
        env=ws.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    with _RUNNING_LOCK:
        _RUNNING.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        _kill(process)
        output, _ = process.communicate()
        code = None
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)
    return code, output, time.monotonic() - started


def _kill(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED", "ERROR")):
            return line.strip()
    return ""


def run_mutant(
    ws: Workspace, mutant: Mutant, python: str, extra: list[str], timeout: float
) -> Result:
    """Write ``mutant`` into the copy, run the suite, put the original file back."""
    path = ws.root / mutant.file
    original = path.read_bytes()
    src = _Source(original.decode("utf-8"))
    start, end = src.starts[mutant.line - 1], src.starts[mutant.end_line]
    path.write_bytes((src.text[:start] + mutant.new_block + src.text[end:]).encode("utf-8"))
    try:
        code, output, seconds = run_pytest(ws, python, extra, timeout)
    finally:
        path.write_bytes(original)
    status = "timeout" if code is None else ("survived" if code == 0 else "killed")
    return Result(mutant, status, round(seconds, 2), code, _first_failure(output))


def run_all(
    workspaces: list[Workspace],
    mutants: list[Mutant],
    python: str,
    extra: list[str],
    timeout: float,
) -> list[Result]:
    """Run every mutant, one job per workspace; results in ``mutants`` order."""
    free: queue.Queue[Workspace] = queue.Queue()
    for ws in workspaces:
        free.put(ws)
    done = 0
    lock = threading.Lock()
    stop = threading.Event()

    def one(mutant: Mutant) -> Result | None:
        nonlocal done
        if stop.is_set():
            return None
        ws = free.get()
        try:
            result = run_mutant(ws, mutant, python, extra, timeout)
        finally:
            free.put(ws)
        with lock:
            done += 1
            print(
                f"[{done}/{len(mutants)}] {result.status.upper():8} {result.seconds:6.1f}s "
                f"{mutant.describe()}",
                file=sys.stderr,
                flush=True,
            )
        return result

    pool = ThreadPoolExecutor(max_workers=len(workspaces))
    try:
        return [r for r in pool.map(one, mutants) if r is not None]
    except BaseException:  # Ctrl-C: no new runs, end the running ones
        stop.set()
        kill_running()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def kill_running() -> None:
    """Kill every pytest run still going (and its subprocesses)."""
    with _RUNNING_LOCK:
        for process in list(_RUNNING):
            _kill(process)


# ----------------------------------------------------------------------------- reporting


def summarize(results: list[Result], not_applied: list[dict]) -> dict:
    """Counts, kill rate and survivors as a JSON-ready dict."""
    counts = {s: sum(r.status == s for r in results) for s in ("killed", "timeout", "survived")}
    total = len(results)
    rate = 100.0 * (counts["killed"] + counts["timeout"]) / total if total else 0.0
    survivors = sorted(
        (r for r in results if r.status == "survived"), key=lambda r: (r.mutant.file, r.mutant.line)
    )
    return {
        "total": total,
        **counts,
        "kill_rate_percent": round(rate, 1),
        "survivors": [r.mutant.describe() for r in survivors],
        "did_not_apply": not_applied,
    }


def print_summary(summary: dict, results: list[Result]) -> None:
    """The human-readable summary, to stdout."""
    print(f"total:     {summary['total']}")
    print(f"killed:    {summary['killed']}")
    print(f"timed out: {summary['timeout']} (counted as killed)")
    print(f"survived:  {summary['survived']}")
    print(f"kill rate: {summary['kill_rate_percent']}%  ((killed + timed out) / total)")
    if summary["did_not_apply"]:
        print(f"did not apply: {len(summary['did_not_apply'])}")
        for entry in summary["did_not_apply"]:
            print(f"  {entry['name']} ({entry['file']}): {entry['reason']}")
    if summary["survivors"]:
        print("survivors:")
        names = {r.mutant.describe(): r.mutant.name for r in results}
        for line in summary["survivors"]:
            print(f"  {line}" + (f"  [{names[line]}]" if names.get(line) else ""))


def _git_head(repo: Path) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repo to mutate (a copy)")
    parser.add_argument(
        "--paths",
        nargs="+",
        default=["envs", "training"],
        help="folders (repo-relative) whose .py files are mutated",
    )
    parser.add_argument("--sample", type=int, default=200, help="mutants to run; 0 = all")
    parser.add_argument("--seed", type=int, default=0, help="seed for the sample")
    parser.add_argument("--jobs", type=int, default=2, help="parallel workers (one copy each)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pytest run")
    parser.add_argument("--pytest-args", default="", help="extra pytest arguments (one string)")
    parser.add_argument("--planted", type=Path, help="JSON list of hand-written mutants")
    parser.add_argument("--report", type=Path, help="also write the results here as JSON")
    parser.add_argument("--nice", type=int, default=10, help="niceness increment for the runs")
    parser.add_argument("--python", default=sys.executable, help="interpreter running pytest")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Generate or load mutants, check the suite is green, run them, report."""
    args = parse_args(argv)
    repo = args.repo.resolve()
    extra = shlex.split(args.pytest_args)
    if args.nice:
        os.nice(args.nice)  # inherited by every pytest subprocess

    files = repo_files(repo)
    not_applied: list[dict] = []
    if args.planted:
        mutants, not_applied = planted_mutants(repo, args.planted)
        pool_size = len(mutants)
    else:
        prefixes = tuple(p.strip("/") + "/" for p in args.paths)
        sources = [f for f in files if f.endswith(".py") and f.startswith(prefixes)]
        every = [m for f in sources for m in file_mutants(f, _read(repo / f))]
        pool_size = len(every)
        if 0 < args.sample < len(every):
            chosen = set(random.Random(args.seed).sample(range(len(every)), args.sample))
            mutants = [m for i, m in enumerate(every) if i in chosen]
        else:
            mutants = every
    for entry in not_applied:
        print(
            f"DID NOT APPLY: {entry['name']} ({entry['file']}): {entry['reason']}", file=sys.stderr
        )
    print(
        f"{pool_size} mutants available, running {len(mutants)} with {args.jobs} job(s)",
        file=sys.stderr,
        flush=True,
    )

    workdir = Path(tempfile.mkdtemp(prefix="mutants-"))
    try:
        workspaces = [make_workspace(repo, files, workdir, i) for i in range(max(1, args.jobs))]
        code, output, seconds = run_pytest(workspaces[0], args.python, extra, args.timeout)
        if code != 0:
            why = "timed out" if code is None else f"exited {code}"
            print(output[-3000:], file=sys.stderr)
            print(
                f"ABORT: the unmutated test suite is not green in the copy ({why}); "
                "fix that before measuring mutants.",
                file=sys.stderr,
            )
            return 2
        print(f"unmutated suite green in {seconds:.1f}s", file=sys.stderr, flush=True)
        results = run_all(workspaces, mutants, args.python, extra, args.timeout)
    finally:
        kill_running()
        shutil.rmtree(workdir, ignore_errors=True)

    summary = summarize(results, not_applied)
    print_summary(summary, results)
    if args.report:
        report = {
            "repo": str(repo),
            "commit": _git_head(repo),
            "command": [sys.executable, *sys.argv],
            "settings": {k: str(v) for k, v in vars(args).items()},
            "mutants_available": pool_size,
            "baseline_seconds": round(seconds, 1),
            **summary,
            "results": [
                {
                    **asdict(r.mutant),
                    "status": r.status,
                    "seconds": r.seconds,
                    "returncode": r.returncode,
                    "failure": r.failure,
                }
                for r in results
            ],
        }
        args.report.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
