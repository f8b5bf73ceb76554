"""Fuzzing the command line: whatever the argument list, ``cardarena`` answers with argparse's
usage error or one clean line and a known exit code, never a traceback.

The flags are read off ``build_parser()`` (so a new subcommand or flag is fuzzed without editing
this file); the expensive work (training, tournaments, benchmark loops, the prompt, the web
server) is stubbed so that a valid argument list returns at once. ``CARDARENA_DEBUG=1`` makes an
internal error raise here instead of printing its one line, so hypothesis reports and shrinks it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardarena import bench
from cardarena.cli import build_parser, main
from cardarena.cli import play as play_command
from cardarena.cli.app import DEBUG_VARIABLE
from cardarena.envs import ENVS
from cardarena.evaluation import tournament, tournament_vector
from cardarena.training import exploit
from cardarena.training import train as train_module
from cardarena.web import server as web_server
from cardarena.web.configs import read_served_tables

PARSER = build_parser()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


COMMANDS = _subparsers(PARSER)

SPECS = ["random", "heuristic", "oracle", "noisy", "noisy:sigma=0.3", "memory", "nope"]
NUMBERS = [
    "0", "1", "2", "-1", "3", "100", "1.5", "0.5", "nan", "-nan", "inf", "-inf", "1e999",
    "1e-320", "-0.0", "9" * 50, "9" * 5000, "²", "\u0661", "1_000", "0x10", "", " ", "--",
    "2048", str(2**32), str(2**64),
]  # fmt: skip
CONFIGS = [
    "max_power=3", "decks=[1,2,3,1]", "num_players=3", "num_players=99", "num_players=-1",
    "max_power=nan", "max_power=" + "9" * 5000, "decks=" + "[" * 50 + "]" * 50, "decks=[]",
    "decks={}", "decks=\"x\"", "render_mode=human", "nope=1", "=1", "novalue", "max_tricks=0",
    "variant=beginner", "team_size=0", "hand_size=0", "deck=missing.csv",
]  # fmt: skip
PATHS = ["game.jsonl", "missing.jsonl", ".", "out", "a.npz", "sub/dir"]
text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
anything = st.one_of(
    st.sampled_from(NUMBERS),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(sorted(ENVS) + SPECS + CONFIGS + PATHS),
    text,
)
#: Plausible values by what a positional or flag takes (its dest), else anything.
BY_DEST = {
    "env": st.sampled_from([*sorted(ENVS), "chess_v6"]),
    "agents": st.sampled_from(SPECS),
    "agent": st.sampled_from([*SPECS, "pretrained"]),
    "vs": st.sampled_from(SPECS),
    "opponent": st.sampled_from(SPECS),
    "config": st.sampled_from(CONFIGS),
    "file": st.sampled_from(PATHS),
    "record": st.sampled_from(PATHS),
    "out": st.sampled_from(PATHS),
    "checkpoint": st.sampled_from(PATHS),
    "runs": st.sampled_from(PATHS),
    "seat": st.sampled_from(["player_0", "player_1", "iron_man", "nobody"]),
}


def _value(action: argparse.Action) -> st.SearchStrategy[str]:
    """Mostly what the action takes (its choices, numbers for typed flags), sometimes garbage."""
    if action.choices:
        plausible: st.SearchStrategy[str] = st.sampled_from(sorted(map(str, action.choices)))
    elif action.dest in BY_DEST:
        plausible = BY_DEST[action.dest]
    elif action.type is not None and action.type not in (str, Path):
        plausible = st.one_of(
            st.integers(0, 300).map(str),
            st.sampled_from(["0.5", "0.01", "1.0"]),
            st.sampled_from(NUMBERS),
        )
    else:
        plausible = text
    # (one_of would flatten ``anything``'s branches and draw them as often as ``plausible``)
    return st.integers(0, 5).flatmap(lambda pick: plausible if pick else anything)


def _how_many(action: argparse.Action) -> tuple[int, int]:
    if action.nargs == 0:
        return 0, 0
    if action.nargs in ("+", "*"):
        return (1 if action.nargs == "+" else 0), 3
    if isinstance(action.nargs, int):
        return action.nargs, action.nargs
    return (0 if action.nargs == "?" else 1), 1


@st.composite
def argument_lists(draw: Any) -> list[str]:
    """A subcommand with its positionals and flags, read off its parser (or garbage)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.lists(anything, max_size=5))
    command = draw(st.sampled_from(sorted(COMMANDS)))
    parser = COMMANDS[command]
    argv = [command]
    flags = [a for a in parser._actions if a.option_strings and a.dest != "help"]
    for action in parser._actions:
        if not action.option_strings:
            low, high = _how_many(action)
            if draw(st.integers(0, 9)) == 0:  # sometimes one too few or too many
                low, high = max(low - 1, 0), high + 1
            argv += draw(st.lists(_value(action), min_size=low, max_size=high))
    for action in draw(st.lists(st.sampled_from(flags), max_size=3)) if flags else []:
        argv.append(draw(st.sampled_from(action.option_strings)))
        low, high = _how_many(action)
        argv += draw(st.lists(_value(action), min_size=low, max_size=high))
    if draw(st.integers(0, 4)) == 0:
        argv.insert(draw(st.integers(1, len(argv))), draw(anything))
    return argv


class _Result:
    """What the stubbed ``run_tournament`` returns."""

    def to_markdown(self) -> str:
        return "| agent | rating |"

    def to_json(self) -> str:
        return "{}"

    def save_heatmap(self, path: Path) -> None:
        pass


def _stub(patch: pytest.MonkeyPatch, work: Path) -> None:
    """Make a valid argument list return at once, in a scratch folder."""
    patch.chdir(work)
    patch.setenv(DEBUG_VARIABLE, "1")
    patch.setattr(train_module, "train", lambda args: work)
    patch.setattr(exploit, "run_exploit", lambda plan, stream=None: {})  # checks, no training
    patch.setattr(tournament, "run_tournament", lambda *args, **kwargs: _Result())
    patch.setattr(tournament_vector, "run_vector_tournament", lambda *a, **k: _Result())
    patch.setattr(bench, "run", bench.check_args)  # the checks, not the measuring
    patch.setattr(play_command, "ask_human", _no_more_input)
    patch.setattr(web_server, "run_server", _serve_checks)
    patch.setattr(sys, "stdin", io.StringIO(""))


def _serve_checks(*args: Any, decks: Any = (), **kwargs: Any) -> None:
    """``serve``: the start-up checks (the served decks are read), not the serving."""
    read_served_tables(decks)


def _no_more_input(*args: Any, **kwargs: Any) -> int:
    raise EOFError


def _record(work: Path) -> None:
    from cardarena.agents import RandomAgent
    from cardarena.evaluation.records import play_match, write_records

    lineup = {seat: RandomAgent(i) for i, seat in enumerate(["player_0", "player_1"])}
    write_records(work / "game.jsonl", [play_match("cardline_v0", lineup, seed=1)])


def check(argv: list[str]) -> None:
    """``main(argv)`` is a usage error, success, a clean one-line error or a clean stop."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv, out=out)
            usage = False
        except SystemExit as stop:
            code, usage = stop.code, True
    shown = err.getvalue()
    assert "Traceback" not in shown + out.getvalue(), (argv, shown)
    if usage:
        assert code in (0, 2), (argv, code, shown)
        assert code == 0 or "usage: cardarena" in shown, (argv, shown)
        return
    assert code in (0, 2, 130), (argv, code, shown)
    lines = [line for line in shown.splitlines() if line.strip()]
    if code == 0:
        return
    assert len(lines) == 1, (argv, shown)
    assert lines[0].startswith(f"cardarena {argv[0]}: "), (argv, shown)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(argument_lists())
def _fuzz(argv: list[str]) -> None:
    check(argv)


def test_no_argument_list_gives_a_traceback(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz")
    _record(work)
    with pytest.MonkeyPatch.context() as patch:
        _stub(patch, work)
        _fuzz()


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "promise_war_v0", "--batch-size", "0"],
        ["train", "promise_war_v0", "--learning-rate", "nan"],
        ["train", "promise_war_v0", "--batch-size", "4096"],
        ["bench", "--seconds", "0"],
        ["eval", "cardline_v0", "random", "noisy:sigma=nan"],
        ["play", "promise_war_v0", "--config", "max_power=" + "9" * 5000],
        ["play", "promise_war_v0", "--config", "decks=" + "[" * 100_000],
        ["play", "promise_war_v0"],
        ["replay", "game.jsonl", "--any-version"],
        ["replay", "game.jsonl", "--step"],
        ["eval", "promise_war_v0", "random", "heuristic", "--out", "results"],
        ["train", "promise_war_v0"],
        ["exploit", "promise_war_v0", "pretrained", "--out", "x"],
        ["exploit", "cardline_v0", "memory", "--steps", "1"],
        ["list"],
    ],
)
def test_the_stubbed_commands_answer_cleanly(argv, tmp_path):
    """The fuzz harness itself: known inputs through the same check (fast, no hypothesis)."""
    _record(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        _stub(patch, tmp_path)
        check(argv)
