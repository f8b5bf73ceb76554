"""The commands the README and the documentation show (issue 38, a newcomer's path): every
``cardarena`` line of their shell blocks is accepted by the real parser with its flags, train
settings and agent specs, writes only under ``runs/`` (which ``.gitignore`` holds), and the
README's own commands and Python blocks run as written."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.agents import make_agent
from cardarena.cli import build_parser
from cardarena.training.train_args import args_from_namespace

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PROGRAM = re.compile(r"(?:\.venv/bin/)?cardarena\s")
#: Placeholders the pages write for "any env" (replaced by a real one to check the rest).
PLACEHOLDERS = {"ENV": "promise_war_v0"}
#: Flags and positions that name a file or folder the command writes.
WRITES = {"--out", "--record"}


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """``(language, text)`` of every fenced block of a markdown page, in order."""
    blocks, language, lines = [], None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            if language is None:
                language, lines = line.strip()[3:].strip(), []
            else:
                blocks.append((language, "\n".join(lines)))
                language = None
            continue
        if language is not None:
            lines.append(line)
    return blocks


def shell_commands(path: Path) -> list[str]:
    """The ``cardarena`` command lines of a page's shell blocks, continuations joined."""
    commands = []
    for language, text in code_blocks(path):
        if language in ("sh", "bash", "console", ""):
            for line in text.replace("\\\n", " ").splitlines():
                if PROGRAM.match(line.strip()):
                    commands.append(line.strip())
    return commands


COMMANDS = [(path, command) for path in PAGES for command in shell_commands(path)]


def argv_of(command: str) -> list[str]:
    words = shlex.split(command, comments=True)[1:]
    return [PLACEHOLDERS.get(word, word) for word in words]


def test_the_pages_show_commands_of_every_kind():
    shown = {argv_of(command)[0] for _, command in COMMANDS}
    assert {"play", "serve", "train", "eval", "exploit", "export", "curves"} <= shown
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize(
    ("path", "command"), COMMANDS, ids=[f"{p.name}:{c[:60]}" for p, c in COMMANDS]
)
def test_a_shown_command_is_one_the_cli_accepts(path, command):
    argv = argv_of(command)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{path.name}: the parser refuses {command!r}")
    if argv[0] == "train":
        args_from_namespace(args).resolved()  # every setting in range, together
    specs = [*getattr(args, "agents", []), getattr(args, "vs", None), getattr(args, "agent", None)]
    for spec in specs:
        if isinstance(spec, str) and "/" not in spec and not spec.endswith((".npz", ".zip")):
            make_agent(spec)  # a spec the registry knows, with options it takes
    for flag, value in itertools.pairwise(argv):
        if flag in WRITES:
            assert value.startswith("runs/"), f"{path.name}: {command!r} writes outside runs/"
    if argv[0] in ("export", "curves"):
        written = argv[-1] if argv[0] == "export" else argv[argv.index("--out") + 1]
        assert written.startswith("runs/"), f"{path.name}: {command!r} writes outside runs/"


def test_runs_is_what_gitignore_holds():
    assert "runs/" in (ROOT / ".gitignore").read_text().splitlines()


def _cardarena(argv: list[str], cwd: Path, stdin: str = "", timeout: float = 600):
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *argv],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_the_readme_python_blocks_run_as_written(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    blocks = [text for language, text in code_blocks(ROOT / "README.md") if language == "python"]
    assert len(blocks) == 3  # PettingZoo, SB3, the vector engine
    for text in blocks:
        exec(compile(text, "README.md", "exec"), {"__name__": "readme"})
    shown = capsys.readouterr().out
    assert "200 games:" in shown and "Promise War" in shown
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


@pytest.mark.slow
def test_the_readme_commands_run_as_written(tmp_path):
    """The README's own commands in a fresh folder, in its order: play a shipped agent (every
    move the first one offered), train, and evaluate the run folder. ``serve`` is run the same
    way by the web tests (``tests/web/web_helpers.ServeProcess``)."""
    commands = [argv_of(command) for command in shell_commands(ROOT / "README.md")]
    assert [argv[0] for argv in commands] == ["play", "serve", "train", "eval"]
    played = _cardarena(commands[0], tmp_path, stdin="a\n" * 400)
    assert played.returncode == 0, played.stderr[-2000:]
    assert re.search(r"^(you won|you lost|a draw) \(cards placed right: ", played.stdout, re.M)
    trained = _cardarena(commands[2], tmp_path)
    assert trained.returncode == 0, trained.stderr[-2000:]
    evaluated = _cardarena(commands[3], tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    assert "heuristic" in evaluated.stdout and "random" in evaluated.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["runs"]
