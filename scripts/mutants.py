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

``--planted FILE`` runs hand-written realistic bugs instead (scripts/planted_bugs.json: a list
of ``{"name", "file", "old", "new"}``, ``old`` found exactly once in ``file``), which
cosmic-ray's operators cannot write.

Usage::

    python scripts/mutants.py [--module web/configs.py ...] [--jobs 2] [--repo DIR]
    python scripts/mutants.py --module web/configs.py --recheck
    python scripts/mutants.py --planted scripts/planted_bugs.json
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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tomllib

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
    skipped = 0
    with contextlib.closing(sqlite3.connect(session)) as db:
        rows = db.execute("SELECT job_id, start_pos_row, start_pos_col FROM mutation_specs")
        for job_id, row, col in rows.fetchall():
            done = db.execute("SELECT 1 FROM work_results WHERE job_id = ?", (job_id,))
            if (row, col) in inside and done.fetchone() is None:
                db.execute(
                    "INSERT INTO work_results (worker_outcome, output, test_outcome, diff, job_id)"
                    " VALUES ('SKIPPED', 'Inside a type annotation', NULL, NULL, ?)",
                    (job_id,),
                )
                skipped += 1
        db.commit()
    return skipped


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
    config: dict, module: str, copies: list[Path], workdir: Path, resume: bool = False
) -> dict:
    """Every mutant of ``module``: baseline, init, filters, exec; the results as a dict.

    The session (``<module>.sqlite`` in ``workdir``) records each mutant's outcome as it
    comes. With ``resume``, a session left there by a run that stopped (for the same source
    and test command, ``<module>.json``) goes on with the mutants not yet run, and the time
    per mutant counts the stopped run's time too; a session of another source or command is
    started anew, saying so."""
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
    source_lines = (copies[0] / module).read_text().splitlines()
    return summarize(module, command, dump, source_lines, baseline_seconds, seconds, len(copies))


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
            f"{result['seconds_per_mutant']} s | {result['date']} |"
        )
    (reports / "README.md").write_text("\n".join(rows) + "\n")
    return untriaged


def recheck(config: dict, module: str, copies: list[Path], reports: Path) -> dict:
    """The kept survivors of ``module`` without a listed reason run again against today's
    tests (after a new test was written for them), each re-made with ``cosmic-ray apply``;
    the kept result, updated."""
    kept = json.loads((reports / "results.json").read_text())[module]
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
    args = parser.parse_args(argv)
    # A TERM (or an INT where a shell ignores it) ends the run through the finally blocks
    # below: the http-workers stopped, the copies removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    config = tomllib.loads(args.config.read_text())
    modules = args.module or list(config["modules"])
    unknown = [m for m in modules if m not in config["modules"]]
    if unknown:
        parser.error(f"not in {args.config}: {', '.join(unknown)} (add its tests there)")

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
            if args.recheck:
                store = args.reports / "results.json"
                if module not in (json.loads(store.read_text()) if store.is_file() else {}):
                    print(f"{module}: no kept result to recheck", file=sys.stderr)
                    continue
                untriaged += write_reports(
                    [recheck(config, module, copies, args.reports)], args.reports
                )
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
