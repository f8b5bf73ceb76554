"""Mutation testing with cosmic-ray, one module at a time, in copies of the repo (`make mutate`).

A mutant is the code with one small deliberate bug (``<`` made ``<=``, ``+`` made ``-``, a loop
that never runs...); the module's tests kill it when they fail, and a survivor points at a
behaviour no test pins down. cosmic-ray makes the mutants and runs them; this script gives it
what this repo needs and keeps the result:

- copies: the repo's files (tracked and untracked, not ignored) are copied once per job, and a
  ``_mut_path/cardarena`` shim (symlinks to the copy's envs/, agents/ ...) is put first on
  ``PYTHONPATH``, so the tests import the copy and the repo itself is never written;
- per module, from ``scripts/mutation.toml``: its tests, the operators kept, the timeout;
  mutants inside type annotations are skipped (never evaluated: every module mutated has
  ``from __future__ import annotations``);
- the report: ``docs/mutation/<module>.md`` (kill rate, every survivor with its diff and the
  reason it cannot change behaviour, from ``docs/mutation/equivalent.toml``),
  ``docs/mutation/results.json`` and the ``docs/mutation/README.md`` table. The exit code is 1
  while a survivor has no reason listed.

``--recheck`` runs only the kept survivors of a module again (each re-made with ``cosmic-ray
apply``), after a test was written for them: those it kills are reported as killed by it.

``--status`` runs nothing: it lists each module's kept report and whether the module's source
is still the one mutated (each result keeps its SHA-256), exit 1 while one is not.

``--planted FILE`` runs hand-written realistic bugs instead (scripts/planted_bugs.json: a list
of ``{"name", "file", "old", "new"}``, ``old`` found exactly once in ``file``), which
cosmic-ray's operators cannot write.

Usage::

    python scripts/mutants.py [--module web/configs.py ...] [--jobs 2] [--repo DIR]
    python scripts/mutants.py --module web/configs.py --recheck
    python scripts/mutants.py --planted scripts/planted_bugs.json
    python scripts/mutants.py --status     # which kept reports are of today's source
    python scripts/mutants.py --render     # the reports again, after a reason was listed
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tomllib
from mutation_changes import Mutant, merge, operators_to_rerun, touches_change, unchanged_lines

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "scripts" / "mutation.toml"
REPORTS = ROOT / "docs" / "mutation"
PACKAGE_FOLDERS = ("envs", "agents", "training", "evaluation", "web")
BIN = Path(sys.executable).parent


# ----------------------------------------------------------------------------- copies


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
    return sorted(
        name for name in names if (repo / name).is_file() and not name.startswith("_mut_path/")
    )


def make_copy(repo: Path, files: list[str], dest: Path) -> Path:
    """Copy ``files`` of ``repo`` to ``dest`` and add the ``_mut_path/cardarena`` shim: plain
    ``PYTHONPATH`` entries come before setuptools' editable finder (appended to
    ``sys.meta_path``), so ``import cardarena`` finds the copy."""
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    shim = dest / "_mut_path" / "cardarena"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("")
    for folder in PACKAGE_FOLDERS:
        (shim / folder).symlink_to(dest / folder, target_is_directory=True)
    return dest


def copy_env(copy: Path, extra: dict[str, str]) -> dict[str, str]:
    """The environment of every test run in ``copy``."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(copy / "_mut_path"), os.environ.get("PYTHONPATH", "")) if p
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no .pyc: a restored file never runs a mutant's code
    return env


# ----------------------------------------------------------------------------- cosmic-ray


def test_command(config: dict, module: dict) -> str:
    """The pytest command run for each mutant of ``module`` ("@NAME" in its tests: a set)."""
    sets = config.get("sets", {})
    tests = [t for item in module["tests"] for t in (sets[item[1:]] if item[:1] == "@" else [item])]
    settings = config["run"]
    args = [
        sys.executable,
        "-m",
        "pytest",
        *settings["pytest-args"],
        *module.get("pytest-args", []),
        *tests,
    ]
    return shlex.join(args)


def annotation_lines(source: str) -> set[tuple[int, int]]:
    """(line, column) positions inside type annotations, which are never evaluated here."""
    spans: set[tuple[int, int]] = set()
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in ast.walk(tree):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            found = [a.annotation for a in every] + [node.returns]
        elif isinstance(node, ast.AnnAssign):
            found = [node.annotation]
        for annotation in found:
            if annotation is None:
                continue
            assert annotation.end_lineno is not None and annotation.end_col_offset is not None
            for line in range(annotation.lineno, annotation.end_lineno + 1):
                start = annotation.col_offset if line == annotation.lineno else 0
                end = (
                    annotation.end_col_offset
                    if line == annotation.end_lineno
                    else len(lines[line - 1].encode())
                )
                spans.update((line, column) for column in range(start, end))
    return spans


def skip_annotation_mutants(session: Path, source: str) -> int:
    """Mark the pending mutants inside annotations as skipped (cosmic-ray's filters do the same
    for operators and pragmas: a result row saying why); how many."""
    inside = annotation_lines(source)
    return skip_mutants(session, "Inside a type annotation", lambda _: False, positions=inside)


def skip_mutants(
    session: Path,
    why: str,
    chosen: Callable[[Mutant], bool],
    positions: set[tuple[int, int]] | None = None,
) -> int:
    """Mark the pending mutants that ``chosen`` picks (or that start at one of ``positions``,
    (row, column) pairs) as skipped, with ``why``; how many."""
    skipped = 0
    with contextlib.closing(sqlite3.connect(session)) as db:
        rows = db.execute(
            "SELECT job_id, operator_name, occurrence, start_pos_row, start_pos_col, end_pos_row"
            " FROM mutation_specs"
        )
        for job_id, operator, occurrence, row, col, end in rows.fetchall():
            done = db.execute("SELECT 1 FROM work_results WHERE job_id = ?", (job_id,))
            mutant = Mutant(operator.removeprefix("core/"), occurrence, row, end)
            picked = chosen(mutant) or (positions is not None and (row, col) in positions)
            if picked and done.fetchone() is None:
                db.execute(
                    "INSERT INTO work_results (worker_outcome, output, test_outcome, diff, job_id)"
                    " VALUES ('SKIPPED', ?, NULL, NULL, ?)",
                    (why, job_id),
                )
                skipped += 1
        db.commit()
    return skipped


def session_mutants(session: Path) -> list[Mutant]:
    """The mutants of a session that are not skipped (run, or still to run)."""
    with contextlib.closing(sqlite3.connect(session)) as db:
        rows = db.execute(
            "SELECT s.operator_name, s.occurrence, s.start_pos_row, s.end_pos_row"
            " FROM mutation_specs s LEFT JOIN work_results r ON r.job_id = s.job_id"
            " WHERE r.worker_outcome IS NULL OR r.worker_outcome != 'SKIPPED'"
        ).fetchall()
    return [Mutant(op.removeprefix("core/"), occ, start, end) for op, occ, start, end in rows]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def http_workers(copies: list[Path], env_extra: dict[str, str]) -> Iterator[list[str]]:
    """One ``cosmic-ray http-worker`` per copy (cosmic-ray's way to run mutants in parallel:
    each applies its mutant in its own copy); their URLs."""
    workers, urls = [], []
    try:
        for copy in copies:
            port = free_port()
            workers.append(
                subprocess.Popen(
                    [str(BIN / "cosmic-ray"), "http-worker", "--port", str(port)],
                    cwd=copy,
                    env=copy_env(copy, env_extra),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
            deadline = time.monotonic() + 60
            while True:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if time.monotonic() > deadline or workers[-1].poll() is not None:
                    raise RuntimeError(f"cosmic-ray http-worker in {copy} did not start")
                time.sleep(0.2)
        yield urls
    finally:
        for worker in workers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:  # a worker inside a test run may not end on TERM: then KILL
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


def toml_value(value: object) -> str:
    """``value`` (str, number, bool, list of those) as TOML."""
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))


def cosmic_ray_config(
    config: dict, module: str, command: str, timeout: float, urls: list[str]
) -> str:
    """cosmic-ray's config for ``module``: [cosmic-ray] of mutation.toml plus the run's keys."""
    base = config["cosmic-ray"]
    lines = ["[cosmic-ray]"]
    settings = {k: v for k, v in base.items() if not isinstance(v, dict)}
    settings.update({"module-path": module, "test-command": command, "timeout": timeout})
    lines += [f"{key} = {toml_value(value)}" for key, value in settings.items()]
    lines += ["", "[cosmic-ray.distributor]", 'name = "http"', ""]
    lines += ["[cosmic-ray.distributor.http]", f"worker-urls = {toml_value(urls)}", ""]
    for name, table in base.get("filters", {}).items():
        lines.append(f'[cosmic-ray.filters."{name}"]')
        lines += [f"{key} = {toml_value(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def run_module(
    config: dict, module: str, copies: list[Path], workdir: Path, resume: bool = False,
    kept_lines: set[int] | None = None, rerun_operators: Collection[str] = (),
) -> dict:  # fmt: skip
    """Every mutant of ``module``: baseline, init, filters, exec; the results as a dict.

    The session (``<module>.sqlite`` in ``workdir``) records each mutant's outcome as it
    comes. With ``resume``, a session left there by a run that stopped (for the same source
    and test command, ``<module>.json``) goes on with the mutants not yet run, and the time
    per mutant counts the stopped run's time too; a session of another source or command is
    started anew, saying so. With ``kept_lines`` (``--changed``), only the mutants touching
    another line, or of one of ``rerun_operators``, run; the rest are skipped, their
    outcomes kept from the last run."""
    settings, table = config["run"], config["modules"][module]
    env_extra = dict(settings.get("env", {}))
    command = test_command(config, table)
    print(f"== {module}: {command}", file=sys.stderr, flush=True)
    started = time.monotonic()
    baseline = subprocess.run(
        shlex.split(command), cwd=copies[0], env=copy_env(copies[0], env_extra),
        capture_output=True, text=True,
    )  # fmt: skip
    baseline_seconds = time.monotonic() - started
    if baseline.returncode != 0:
        print(baseline.stdout[-4000:], baseline.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"ABORT: {module}'s tests fail unmutated in the copy; fix that first")
    timeout = round(settings["timeout-factor"] * baseline_seconds + settings["timeout-extra"], 1)
    print(f"   unmutated: {baseline_seconds:.1f}s, timeout {timeout}s", file=sys.stderr, flush=True)

    slug = module.removesuffix(".py").replace("/", ".")
    session = workdir / f"{slug}.sqlite"
    ledger = workdir / f"{slug}.json"
    source = (copies[0] / module).read_text()
    identity = {"source_sha256": hashlib.sha256(source.encode()).hexdigest(), "command": command}
    if kept_lines is not None:
        identity["kept_lines"] = sorted(kept_lines)
        identity["rerun_operators"] = sorted(rerun_operators)
    before = resumable(session, ledger, identity) if resume else None
    if before is None:
        session.unlink(missing_ok=True)
    cr_config = workdir / f"{slug}.toml"
    with http_workers(copies, env_extra) as urls:
        cr_config.write_text(cosmic_ray_config(config, module, command, timeout, urls))
        cosmic = str(BIN / "cosmic-ray")
        if before is None:
            subprocess.run(
                [cosmic, "init", str(cr_config), str(session)], cwd=copies[0], check=True
            )
            subprocess.run(
                [str(BIN / "cr-filter-operators"), str(session), str(cr_config)],
                cwd=copies[0], check=True,
            )  # fmt: skip
            annotations = skip_annotation_mutants(session, source)
            print(f"   {annotations} mutants inside annotations skipped", file=sys.stderr)
            if kept_lines is not None:
                unchanged = skip_mutants(
                    session, "On a line unchanged since the kept run",
                    lambda mutant: not touches_change(mutant, kept_lines)
                    and mutant.operator not in rerun_operators,
                )  # fmt: skip
                print(f"   {unchanged} mutants on unchanged lines skipped", file=sys.stderr)
        else:
            print(f"   resumed: {before['done']} of {before['total']} mutants already run",
                  file=sys.stderr)  # fmt: skip
        earlier = before["seconds"] if before is not None else 0.0
        started = time.monotonic()
        try:
            subprocess.run(
                [cosmic, "exec", str(cr_config), str(session)], cwd=copies[0], check=True
            )
        finally:  # a stopped run leaves what a resume needs
            seconds = earlier + time.monotonic() - started
            ledger.write_text(json.dumps({**identity, "seconds": round(seconds, 1)}))
    dump = subprocess.run(
        [cosmic, "dump", str(session)], cwd=copies[0], check=True, capture_output=True, text=True
    ).stdout
    result = summarize(
        module, command, dump, source.splitlines(), baseline_seconds, seconds, len(copies)
    )
    return {**result, "source_sha256": identity["source_sha256"]}


def run_changed(
    config: dict, module: str, copies: list[Path], workdir: Path, reports: Path, repo: Path,
    resume: bool = False,
) -> dict | None:  # fmt: skip
    """The kept result of ``module`` brought to today's source by running only the mutants on
    changed lines (scripts/mutation_changes.py); None when the source is the one kept."""
    kept = json.loads((reports / "results.json").read_text())[module]
    new_source = (copies[0] / module).read_text()
    old_source, old_mutants = kept_source(config, module, kept, copies[0], workdir, repo, reports)
    if old_source == new_source:
        print(f"== {module}: the source is the one of its kept run; nothing to run",
              file=sys.stderr)  # fmt: skip
        return None
    mapping = unchanged_lines(old_source, new_source)
    gone = [m for m in old_mutants if touches_change(m, set(mapping))]
    rerun = operators_to_rerun(kept, old_mutants, gone)
    if rerun:
        print(f"   the kept run counted other numbers of these operators' mutants: all of "
              f"them run again: {', '.join(sorted(rerun))}", file=sys.stderr)  # fmt: skip
    fresh = run_module(config, module, copies, workdir, resume, set(mapping.values()), rerun)
    new_mutants = mutants_of(config, module, new_source, copies[0], workdir)
    try:
        merged = merge(kept, fresh, old_source, new_source, old_mutants, new_mutants)
    except ValueError as refused:
        raise SystemExit(str(refused)) from None
    return {**merged, "source_sha256": fresh["source_sha256"]}


def kept_source(
    config: dict, module: str, kept: dict, copy: Path, workdir: Path, repo: Path, reports: Path
) -> tuple[str, list[Mutant]]:
    """The text the kept result mutated, and its mutants: the version in the module's git
    history with the kept digest. A result kept before digests were has none: then the first
    version (the one at its report's last commit, then the module's history, newest first)
    with the kept survivors' lines; the merge then checks its mutants against the kept ones."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=repo, check=True, capture_output=True, text=True
        ).stdout

    history = git("log", "--format=%H", "--", module).split()
    digest = kept.get("source_sha256")
    if digest is None:
        slug = module.removesuffix(".py").replace("/", ".")
        report_commit = git("log", "-1", "--format=%H", "--", in_repo(reports / f"{slug}.md"))
        history = [report_commit.strip(), *history] if report_commit.strip() else history
    seen = set()
    for commit in history:
        text = git("show", f"{commit}:{module}")
        if text in seen:
            continue
        seen.add(text)
        if digest is not None:
            if hashlib.sha256(text.encode()).hexdigest() == digest:
                return text, mutants_of(config, module, text, copy, workdir)
            continue
        lines = text.splitlines()
        if all(
            0 < s["line"] <= len(lines) and lines[s["line"] - 1].strip() == s["original"]
            for s in kept["survivors"]
        ):  # fmt: skip
            return text, mutants_of(config, module, text, copy, workdir)
    raise SystemExit(
        f"{module}: no commit holds the source its kept run mutated "
        f"({kept['mutants']} mutants): rerun it whole"
    )


def mutants_of(config: dict, module: str, text: str, copy: Path, workdir: Path) -> list[Mutant]:
    """The mutants cosmic-ray makes of ``text`` as ``module`` (after the operator filter and
    the annotation skip, as in a run): an init in ``copy``, whose file is then put back."""
    path = copy / module
    original = path.read_text()
    slug = module.removesuffix(".py").replace("/", ".")
    session, cr_config = workdir / f"{slug}.count.sqlite", workdir / f"{slug}.count.toml"
    session.unlink(missing_ok=True)
    cr_config.write_text(cosmic_ray_config(config, module, "true", 1.0, []))
    try:
        path.write_text(text)
        subprocess.run([str(BIN / "cosmic-ray"), "init", str(cr_config), str(session)],
                       cwd=copy, check=True, capture_output=True)  # fmt: skip
        subprocess.run([str(BIN / "cr-filter-operators"), str(session), str(cr_config)],
                       cwd=copy, check=True, capture_output=True)  # fmt: skip
        skip_annotation_mutants(session, text)
        return session_mutants(session)
    finally:
        path.write_text(original)
        session.unlink(missing_ok=True)


def resumable(session: Path, ledger: Path, identity: dict) -> dict | None:
    """What a stopped run of the same source and command left (mutants in the session, done,
    seconds spent), or None (and why, when there was one) to start anew."""
    if not (session.is_file() and ledger.is_file()):
        return None
    kept = json.loads(ledger.read_text())
    if {key: kept.get(key) for key in identity} != identity:
        print("   the kept session is of another source or test command: starting anew",
              file=sys.stderr)  # fmt: skip
        return None
    with contextlib.closing(sqlite3.connect(session)) as db:
        total = db.execute("select count(*) from work_items").fetchone()[0]
        done = db.execute("select count(*) from work_results").fetchone()[0]
    return {"total": total, "done": done, "seconds": float(kept.get("seconds", 0.0))}


# ----------------------------------------------------------------------------- results


def changed_lines(diff: str) -> tuple[str, str]:
    """The first removed and added line of a unified diff, stripped."""
    removed = [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("-") and not line.startswith("---")
    ]
    added = [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return (removed[0].strip() if removed else ""), (added[0].strip() if added else "")


def summarize(
    module: str, command: str, dump: str, source_lines: list[str], baseline: float, seconds: float,
    jobs: int,
) -> dict:  # fmt: skip
    """Counts and survivors of one module's session (``cosmic-ray dump`` lines)."""
    counts: Counter[str] = Counter()
    by_operator: dict[str, Counter[str]] = {}
    survivors = []
    for line in dump.splitlines():
        item, result = json.loads(line)
        mutation = item["mutations"][0]
        operator = mutation["operator_name"].removeprefix("core/")
        if result is None:
            outcome = "pending"
        elif result["worker_outcome"] == "skipped":
            continue
        elif result["worker_outcome"] != "normal":
            outcome = "error"
        else:
            outcome = result["test_outcome"]
        counts[outcome] += 1
        by_operator.setdefault(operator, Counter())[outcome] += 1
        if outcome in ("survived", "error", "pending"):
            row = mutation["start_pos"][0]
            original, mutated = changed_lines((result or {}).get("diff") or "")
            survivors.append({
                "line": row,
                "operator": operator,
                "occurrence": mutation["occurrence"],
                "outcome": outcome,
                "original": original or source_lines[row - 1].strip(),
                "mutated": mutated,
            })  # fmt: skip
    total = sum(counts.values())
    killed = counts["killed"] + counts["incompetent"]
    survivors.sort(key=lambda s: (s["line"], s["operator"], s["occurrence"]))
    return {
        "module": module,
        "date": datetime.date.today().isoformat(),
        "command": command.replace(shlex.quote(sys.executable), "python", 1),
        "mutants": total,
        "killed": killed,
        "survived": total - killed,
        "outcomes": dict(counts),
        "by_operator": {op: dict(c) for op, c in sorted(by_operator.items())},
        "kill_rate_percent": round(100.0 * killed / total, 1) if total else 100.0,
        "baseline_seconds": round(baseline, 1),
        "seconds": round(seconds, 1),
        "jobs": jobs,
        "seconds_per_mutant": round(seconds * jobs / total, 1) if total else 0.0,
        "survivors": survivors,
    }


def load_reasons(path: Path) -> list[dict]:
    """The triaged equivalent mutants: module, original line, mutated line, reason."""
    return tomllib.loads(path.read_text()).get("mutant", []) if path.is_file() else []


def reason_for(survivor: dict, module: str, reasons: list[dict]) -> str | None:
    for entry in reasons:
        if (
            entry["module"] == module
            and entry["original"] == survivor["original"]
            and entry["mutated"] == survivor["mutated"]
        ):
            return entry["reason"]
    return None


def module_report(result: dict, reasons: list[dict]) -> str:
    """The Markdown report of one module."""
    module = result["module"]
    lines = [
        f"# Mutation testing: `{module}`",
        "",
        f"Run {result['date']} by `make mutate MODULE={module}` (cosmic-ray, "
        f"scripts/mutation.toml). Each mutant ran:",
        "",
        "```",
        result["command"],
        "```",
        "",
        "| mutants | killed | survived | kill rate | unmutated run | time per mutant |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| {result['mutants']} | {result['killed']} | {result['survived']} | "
        f"{result['kill_rate_percent']}% | {result['baseline_seconds']} s | "
        f"{result['seconds_per_mutant']} s |",
        "",
    ]
    changed = result.get("changed")
    if changed:
        lines += [
            f"Brought to today's source on {changed['merged']} by `make mutate MODULE={module} "
            f"CHANGED=1`: {changed['mutants_run']} mutants of the {changed['lines_changed']} "
            f"lines changed since the whole run of {changed['kept_run']} ran, and "
            f"{changed['mutants_removed']} of removed or rewritten lines left the counts; the "
            "other mutants keep that run's outcomes."
            + (
                f" Every mutant of {', '.join(changed['operators_rerun'])} ran again (the whole "
                "run counted another number of them)."
                if changed.get("operators_rerun")
                else ""
            ),
            "",
        ]
    if result.get("killed_by_new_tests"):
        lines += [
            "## Killed by tests written for them",
            "",
            "Survivors of the run, killed on `--recheck` by a test added after it:",
            "",
        ]
        lines += [
            f"- line {k['line']}, {k['operator']}: `{k['original']}` -> `{k['mutated']}`: "
            f"`{k['test']}`"
            for k in result["killed_by_new_tests"]
        ]
        lines.append("")
    lines += ["## Survivors", ""]
    if not result["survivors"]:
        lines.append("None: every mutant was killed.")
    for survivor in result["survivors"]:
        reason = reason_for(survivor, module, reasons)
        lines += [
            f"- line {survivor['line']}, {survivor['operator']} ({survivor['outcome']}): "
            f"`{survivor['original']}` -> `{survivor['mutated']}`",
            f"  - {'equivalent: ' + reason if reason else 'NOT TRIAGED'}",
        ]
    return "\n".join(lines) + "\n"


def write_reports(results: list[dict], reports: Path) -> int:
    """Write each module's report, merge ``results.json``, rewrite the index; untriaged count."""
    reports.mkdir(parents=True, exist_ok=True)
    reasons = load_reasons(reports / "equivalent.toml")
    store = reports / "results.json"
    kept = json.loads(store.read_text()) if store.is_file() else {}
    untriaged = 0
    for result in results:
        slug = result["module"].removesuffix(".py").replace("/", ".")
        (reports / f"{slug}.md").write_text(module_report(result, reasons))
        kept[result["module"]] = result
        missing = [
            s for s in result["survivors"] if reason_for(s, result["module"], reasons) is None
        ]
        untriaged += len(missing)
        for survivor in missing:
            print(f"NOT TRIAGED {result['module']}:{survivor['line']} {survivor['operator']}: "
                  f"{survivor['original']} -> {survivor['mutated']}", file=sys.stderr)  # fmt: skip
    store.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
    rows = [
        "# Mutation testing results",
        "",
        "Written by `make mutate` (scripts/mutants.py); how to run it: docs/contributing.md.",
        "Every survivor is in its module's file with the reason it cannot change behaviour;",
        "the reasons live in equivalent.toml.",
        "",
        "Kill rate: killed of all mutants. Score: killed of the mutants not listed as",
        "equivalent (the usual mutation score); a module is done when no survivor is untriaged.",
        "",
        "| module | mutants | killed | listed equivalent | untriaged | kill rate | score "
        "| time per mutant | run |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for module, result in sorted(kept.items()):
        slug = module.removesuffix(".py").replace("/", ".")
        listed = sum(reason_for(s, module, reasons) is not None for s in result["survivors"])
        live = result["mutants"] - listed
        score = round(100.0 * result["killed"] / live, 1) if live else 100.0
        rows.append(
            f"| [{module}]({slug}.md) | {result['mutants']} | {result['killed']} | {listed} | "
            f"{result['survived'] - listed} | {result['kill_rate_percent']}% | {score}% | "
            f"{result['seconds_per_mutant']} s | {result['date']}"
            f"{' (changed lines)' if result.get('changed') else ''} |"
        )
    (reports / "README.md").write_text("\n".join(rows) + "\n")
    return untriaged


def recheck(config: dict, module: str, copies: list[Path], reports: Path) -> dict:
    """The kept survivors of ``module`` without a listed reason run again against today's
    tests (after a new test was written for them), each re-made with ``cosmic-ray apply``;
    the kept result, updated."""
    kept = json.loads((reports / "results.json").read_text())[module]
    digest = kept.get("source_sha256")
    if digest is not None and digest != source_digest(copies[0] / module):
        raise SystemExit(
            f"{module} changed since its run: run --changed or a whole run first (--recheck "
            "reruns only the survivors, so the killed mutants would be of other code)"
        )
    reasons = load_reasons(reports / "equivalent.toml")
    listed = [s for s in kept["survivors"] if reason_for(s, module, reasons) is not None]
    kept["survivors"] = [s for s in kept["survivors"] if s not in listed]
    settings = config["run"]
    command = test_command(config, config["modules"][module])
    free = list(copies)

    def one(survivor: dict) -> str | None:
        """The first failing test on the survivor, None if it survives again."""
        copy = free.pop()
        path = copy / module
        text = path.read_text()
        try:
            subprocess.run(
                [str(BIN / "cosmic-ray"), "apply", module, "core/" + survivor["operator"],
                 str(survivor["occurrence"])], cwd=copy, check=True,
            )  # fmt: skip
            mutated = path.read_text().splitlines()[survivor["line"] - 1].strip()
            if mutated != survivor["mutated"]:
                raise SystemExit(f"{module} changed since the run: rerun it whole ({mutated!r})")
            done = subprocess.run(shlex.split(command), cwd=copy, capture_output=True, text=True,
                                  env=copy_env(copy, dict(settings.get("env", {}))))  # fmt: skip
            if done.returncode == 0:
                return None
            failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, re.MULTILINE)
            return failed[0] if failed else f"pytest exit {done.returncode}"
        finally:
            path.write_text(text)
            free.append(copy)

    with ThreadPoolExecutor(max_workers=len(copies)) as pool:
        tests = list(pool.map(one, kept["survivors"]))
    for survivor, test in zip(kept["survivors"], tests, strict=True):
        print(
            f"{'killed' if test else 'survives':>9}  {module}:{survivor['line']} "
            f"{survivor['original']} -> {survivor['mutated']}  {test or ''}",
            file=sys.stderr,
        )
    kept.setdefault("killed_by_new_tests", []).extend(
        {**survivor, "outcome": "killed", "test": test}
        for survivor, test in zip(kept["survivors"], tests, strict=True)
        if test
    )
    now_killed = sum(test is not None for test in tests)
    kept["survivors"] = listed + [
        s for s, t in zip(kept["survivors"], tests, strict=True) if t is None
    ]
    kept["survivors"].sort(key=lambda s: (s["line"], s["operator"], s["occurrence"]))
    kept["killed"] += now_killed
    kept["survived"] -= now_killed
    kept["kill_rate_percent"] = round(100.0 * kept["killed"] / kept["mutants"], 1)
    kept["command"] = command.replace(shlex.quote(sys.executable), "python", 1)
    kept["rechecked"] = datetime.date.today().isoformat()
    return kept


def source_digest(path: Path) -> str:
    """The SHA-256 of a module's text: what a kept result was measured on."""
    return hashlib.sha256(path.read_text().encode()).hexdigest()


def report_states(config: dict, reports: Path, repo: Path) -> list[tuple[str, str, str]]:
    """Each module of the config with its kept report's date and whether the report is of
    today's source: (module, date or "-", state).

    A result keeps the digest of the source it mutated, so "current" and "source changed"
    are exact. Results kept before digests were have none: for those git says whether the
    module's last commit came after its report's last commit (the run then predates the code)."""
    store = reports / "results.json"
    kept = json.loads(store.read_text()) if store.is_file() else {}
    states = []
    for module in config["modules"]:
        result = kept.get(module)
        if result is None:
            states.append((module, "-", "never run"))
            continue
        digest = result.get("source_sha256")
        if digest is not None:
            same = (repo / module).is_file() and digest == source_digest(repo / module)
            state = "current" if same else "source changed since the run"
        else:
            slug = module.removesuffix(".py").replace("/", ".")
            state = (
                "no digest; by git history: "
                + ("current" if committed_after(repo, reports / f"{slug}.md", module)
                   else "source changed since the report")
            )  # fmt: skip
        states.append((module, result["date"], state))
    return states


def is_current(state: str) -> bool:
    """Whether a ``report_states`` state says the report is of today's source (exactly, or
    by git history for a result kept before digests were)."""
    return state in ("current", "no digest; by git history: current")


def in_repo(path: Path) -> str:
    """``path`` relative to this repo, as a git pathspec for any clone of it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(resolved)


def committed_after(repo: Path, report: Path, module: str) -> bool:
    """True when the module's last commit is the report's last commit or one of its ancestors."""

    def last(path: str) -> str:
        return subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", path], cwd=repo, check=True,
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip

    report_commit, module_commit = last(in_repo(report)), last(module)
    if not report_commit or not module_commit:
        return False
    ancestor = subprocess.run(
        ["git", "merge-base", "--is-ancestor", module_commit, report_commit], cwd=repo
    )
    return ancestor.returncode == 0


# ----------------------------------------------------------------------------- planted bugs


def run_planted(config: dict, planted: Path, copies: list[Path]) -> int:
    """Each hand-written bug applied in a copy and the planted tests run; 1 if one survives."""
    settings = config["run"]
    command = test_command(config, config["planted"])
    free = list(copies)

    def one(entry: dict) -> str:
        copy = free.pop()
        try:
            path = copy / entry["file"]
            text = path.read_text() if path.is_file() else ""
            if text.count(entry["old"]) != 1:
                return f"DID NOT APPLY ({text.count(entry['old'])} matches)"
            path.write_text(text.replace(entry["old"], entry["new"]))
            try:
                done = subprocess.run(shlex.split(command), cwd=copy,
                                      env=copy_env(copy, dict(settings.get("env", {}))),
                                      capture_output=True)  # fmt: skip
            finally:
                path.write_text(text)
            return "killed" if done.returncode != 0 else "SURVIVED"
        finally:
            free.append(copy)

    unmutated = subprocess.run(shlex.split(command), cwd=copies[0], capture_output=True,
                               env=copy_env(copies[0], dict(settings.get("env", {}))))  # fmt: skip
    if unmutated.returncode != 0:
        raise SystemExit("ABORT: the planted tests fail unmutated in the copy; fix that first")
    entries = json.loads(planted.read_text())
    with ThreadPoolExecutor(max_workers=len(copies)) as pool:
        outcomes = list(pool.map(one, entries))
    for entry, outcome in zip(entries, outcomes, strict=True):
        print(f"{outcome:>10}  {entry['name']} ({entry['file']})")
    return int(any(outcome != "killed" for outcome in outcomes))


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", help="a module of mutation.toml (repeat)")
    parser.add_argument("--jobs", type=int, default=2, help="copies run in parallel")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repo to copy")
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--reports", type=Path, default=REPORTS, help="where reports are kept")
    parser.add_argument("--planted", type=Path, help="run these hand-written bugs instead")
    parser.add_argument(
        "--recheck", action="store_true", help="rerun only the kept survivors (after new tests)"
    )
    parser.add_argument(
        "--sessions",
        type=Path,
        help="keep each module's cosmic-ray session here (default: a temporary folder, removed)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --sessions: go on with a stopped run's mutants (same source and tests)",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="run only the mutants on lines changed since the kept run and merge the result",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="rewrite the reports from results.json and equivalent.toml (after listing a "
        "reason); run nothing",
    )
    parser.add_argument(
        "--status",
        action="store_true",
        help="list every module's kept report and whether it is of today's source; run nothing",
    )
    args = parser.parse_args(argv)
    # A TERM (or an INT where a shell ignores it) ends the run through the finally blocks
    # below: the http-workers stopped, the copies removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    config = tomllib.loads(args.config.read_text())
    modules = args.module or list(config["modules"])
    unknown = [m for m in modules if m not in config["modules"]]
    if unknown:
        parser.error(f"not in {args.config}: {', '.join(unknown)} (add its tests there)")

    if args.status:
        states = report_states(config, args.reports, args.repo.resolve())
        width = max(len(module) for module in modules)
        for module, date, state in states:
            if module in modules:
                print(f"{module:<{width}}  {date:<10}  {state}")
        return int(any(not is_current(state) for module, _, state in states if module in modules))
    if args.render:
        store = args.reports / "results.json"
        kept = json.loads(store.read_text()) if store.is_file() else {}
        return int(write_reports([kept[m] for m in modules if m in kept], args.reports) > 0)
    if args.resume and args.sessions is None:
        parser.error("--resume needs --sessions DIR (where the stopped run kept its sessions)")
    repo = args.repo.resolve()
    files = repo_files(repo)
    workdir = Path(tempfile.mkdtemp(prefix="cardarena-mutants-"))
    sessions = workdir if args.sessions is None else args.sessions.resolve()
    sessions.mkdir(parents=True, exist_ok=True)
    try:
        copies = [make_copy(repo, files, workdir / f"copy{i}") for i in range(max(1, args.jobs))]
        if args.planted:
            return run_planted(config, args.planted, copies)
        untriaged = 0
        for module in modules:
            store = args.reports / "results.json"
            if (args.recheck or args.changed) and module not in (
                json.loads(store.read_text()) if store.is_file() else {}
            ):
                print(f"{module}: no kept result to build on: run it whole", file=sys.stderr)
                continue
            if args.recheck:
                untriaged += write_reports(
                    [recheck(config, module, copies, args.reports)], args.reports
                )
                continue
            if args.changed:
                changed = run_changed(config, module, copies, sessions, args.reports,
                                      repo, args.resume)  # fmt: skip
                if changed is None:
                    continue
                untriaged += write_reports([changed], args.reports)
                rerun = changed["changed"]["mutants_run"]
                print(f"   {changed['kill_rate_percent']}% killed of {changed['mutants']} "
                      f"({rerun} run again)", file=sys.stderr)  # fmt: skip
                continue
            result = run_module(config, module, copies, sessions, args.resume)
            untriaged += write_reports([result], args.reports)
            print(f"   {result['kill_rate_percent']}% killed of {result['mutants']}, "
                  f"{result['seconds_per_mutant']}s per mutant", file=sys.stderr)  # fmt: skip
        return int(untriaged > 0)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
