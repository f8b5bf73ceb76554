"""The ``cardarena`` command, run as a user runs it (a subprocess, real stdin and stdout), and
in-process for its error paths: every bad input is one clean line, never a traceback."""

from __future__ import annotations

import argparse
import dataclasses
import io
import re
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from helpers import env_names

from cardarena.agents.terminal import ask_human
from cardarena.cli import build_parser, main
from cardarena.cli.app import EXTRAS
from cardarena.envs.core import InvalidConfigError, install_hint
from cardarena.training.train_args import RULES, TrainArgs

TINY_PW = ["--config", "max_power=3", "decks=[1,2,3,1]"]


def cardarena(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def subcommands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list:
    """Every (nested) subcommand of ``parser`` as an argv prefix, found by walking it, so a new
    subcommand is covered without editing a list."""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += subcommands(sub, (*prefix, name))
    return found


COMMANDS = subcommands(build_parser())


def test_the_walk_finds_every_command():
    names = {command[0] for command in COMMANDS if command}
    assert {"list", "play", "eval", "replay", "bench", "train", "export", "curves"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "cardarena")
def test_help_on_every_subcommand(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: cardarena{''.join(' ' + c for c in command)}")
    assert "``" not in out, "docstring markup reached the terminal"


def test_help_everywhere_through_the_console_script():
    script = shutil.which("cardarena", path=str(Path(sys.executable).parent))
    assert script is not None, "the cardarena console script is not installed beside python"
    for command in COMMANDS:
        done = subprocess.run(
            [script, *command, "--help"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, (command, done.stderr)
        assert "usage: cardarena" in done.stdout and not done.stderr, (command, done.stderr)


def test_list_names_every_env_with_its_players():
    done = cardarena("list")
    assert done.returncode == 0
    for name in env_names(builtin=True):  # all the CLI subprocess sees
        assert name in done.stdout
    assert "2-8 players" in done.stdout and "War! for Promise TCG decks" in done.stdout


def test_a_person_plays_a_whole_game_and_bad_input_only_asks_again():
    moves = "x\n0\n99\n" + "a\n" * 60
    done = cardarena("play", "promise_war_v0", "--vs", "random", "--seat", "player_1", *TINY_PW,
                     "--seed", "0", stdin=moves)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you are player_1" in out
    assert "'x' is not a move here: type a letter a-c or a move's name" in out
    assert "'0' is not a move here" in out and "'99' is not a move here" in out
    assert "a) play power 1" in out and "player_1's hand:" in out
    assert re.search(r"^(you won|you lost|a draw) \(cards won: player_0 \d+, you \d+\)$", out, re.M)
    assert "game over" in out
    assert "player_0: play power" not in out  # no leak


@pytest.mark.parametrize("env", env_names(builtin=True))
def test_every_env_can_be_played_at_the_terminal(env):
    done = cardarena("play", env, "--vs", "random", "--seed", "3", stdin="a\n" * 3000, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^(you won|you lost|a draw|you tied|the game reached)", done.stdout, re.M)


def test_running_out_of_input_stops_cleanly():
    done = cardarena("play", "promise_war_v0", *TINY_PW, stdin="a\n")
    assert done.returncode == 130
    assert "the game was not finished" in done.stderr


def test_unknown_names_exit_2_and_list_what_is_known():
    done = cardarena("play", "promise_war_v0", "--vs", "nope")
    assert done.returncode == 2 and "unknown agent spec 'nope'; known: " in done.stderr
    assert "random (" in done.stderr
    done = cardarena("play", "chess_v6")
    assert done.returncode == 2 and "available: beast_wars_v0" in done.stderr
    done = cardarena("play", "promise_war_v0", "--config", "players=3")
    assert done.returncode == 2 and "unknown config key 'players'" in done.stderr


def test_bench_prints_the_table():
    done = cardarena("bench", "--seconds", "0.05", "--rounds", "1", "--env", "promise_war_v0")
    assert done.returncode == 0, done.stderr
    assert "tictactoe_v3" in done.stdout and "promise_war_v0 (rules)" in done.stdout


def test_a_recorded_game_replays_step_by_step_and_a_tampered_one_is_refused(tmp_path):
    path = tmp_path / "game.jsonl"
    done = cardarena("play", "promise_war_v0", *TINY_PW, "--record", str(path), stdin="a\n" * 40)
    assert done.returncode == 0 and f"recorded to {path}" in done.stdout
    shown = cardarena("replay", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "player_0: human, player_1: random" in shown.stdout
    assert "the deal:" in shown.stdout and "step 1: player_0 play power" in shown.stdout
    assert "outcome: terminated" in shown.stdout
    # the final table of the replay is the final table the person saw
    final = re.split(r"^(?:you won|you lost|a draw)", done.stdout, flags=re.M)[0]
    assert final.strip().endswith(shown.stdout.rsplit("outcome:", 1)[0].strip().splitlines()[-1])
    text = path.read_text()
    path.write_text(text.replace('"actions":[', '"actions":[7,'))
    refused = cardarena("replay", str(path))
    assert refused.returncode == 2 and "was edited after it was written" in refused.stderr
    first = text.split('"actions":[', 1)[1][0]
    path.write_text(text.replace(f'"actions":[{first},', '"actions":[0,'))  # no power 0 in hand
    refused = cardarena("replay", str(path))
    assert refused.returncode == 2 and "was edited after it was written" in refused.stderr
    no_digest = text.split(',"digest"')[0] + "}\n"  # a record without its digest is checked
    path.write_text(no_digest.replace(f'"actions":[{first},', '"actions":[0,'))  # by replaying
    refused = cardarena("replay", str(path))
    assert refused.returncode == 2 and "is not legal for player_0 at this step" in refused.stderr
    assert cardarena("replay", str(path), "--game", "3").returncode == 2


def test_eval_prints_ratings_writes_its_files_and_is_the_same_with_two_workers(tmp_path):
    args = ["eval", "ironman_war_v0", "random", "heuristic", "--games", "30", "--quiet"]
    one = cardarena(*args, "--jobs", "1", "--out", str(tmp_path / "one"))
    two = cardarena(*args, "--jobs", "2", "--out", str(tmp_path / "two"))
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    assert "heuristic" in one.stdout and "random" in one.stdout
    table = one.stdout.split("wrote ")[0]
    assert table == two.stdout.split("wrote ")[0]  # same numbers with 1 and 2 processes
    for name in ("results.json", "games.jsonl", "win_rates.png"):
        assert (tmp_path / "one" / name).stat().st_size > 0
    assert (tmp_path / "one" / "results.json").read_text() == (
        tmp_path / "two" / "results.json"
    ).read_text()
    shown = cardarena("replay", str(tmp_path / "one" / "games.jsonl"), "--game", "5")
    assert shown.returncode == 0 and "outcome:" in shown.stdout


def test_bad_input_to_every_command_is_a_clear_error_not_a_traceback(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    cases = [
        (["play", "cardline_v0", "--seed", "-5"], "argument --seed: must be an integer in [0, "),
        (["replay", str(tmp_path / "none.jsonl")], "No such file or directory"),
        (["replay", str(a_file)], "holds no games"),
        (["eval", "cardline_v0", "random", "heuristic", "--out", str(a_file)], "is a file"),
        (["eval", "cardline_v0", "random", "noisy:foo=1"], "unknown option 'foo'; 'noisy' takes"),
        (["eval", "ironman_war_v0", "random", "oracle"], "plays only cardline_v0"),
        (["eval", "ironman_war_v0", "random", "heuristic:x=2"], "'heuristic' takes no options"),
    ]
    for args, message in cases:
        done = cardarena(*args, stdin="1\n")
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)


def test_multi_player_eval_explains_what_n_counts():
    done = cardarena("eval", "promise_war_v0", "random", "heuristic", "--config", "num_players=3",
                     "--games", "4", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "n counts those comparisons" in done.stdout


# --- in-process: every bad value is a usage error or one clean line --------------------------
def run(argv: list[str], capsys, stdin: str | None = None) -> tuple[int, str, str]:
    """``main(argv)``: (exit code, stdout, stderr); argparse's exits count as exit codes."""
    out = io.StringIO()
    try:
        code = main(argv, out=out)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, out.getvalue() + captured.out, captured.err


BAD_TRAIN_FLAGS = [
    ("--batch-size", "0"),
    ("--batch-size", "1"),
    ("--learning-rate", "nan"),
    ("--learning-rate", "0"),
    ("--learning-rate", "inf"),
    ("--torch-threads", "0"),
    ("--net-arch", "-4"),
    ("--net-arch", "0"),
    ("--max-snapshots", "-1"),
    ("--n-steps", "0"),
    ("--n-epochs", "0"),
    ("--gamma", "0"),
    ("--gamma", "1.01"),
    ("--gamma", "nan"),
    ("--ent-coef", "-0.1"),
    ("--ent-coef", "inf"),
    ("--baseline-share", "1.5"),
    ("--baseline-share", "-0.5"),
    ("--eval-games", "-1"),
    ("--final-eval-games", "-1"),
    ("--league-eval-games", "-1"),
    ("--rate-games", "-1"),
    ("--num-env-runners", "0"),
    ("--n-envs", "0"),
    ("--steps", "0"),
    ("--steps", "1e5"),
    ("--steps", "9" * 5000),
    ("--checkpoint-every", "0"),
    ("--snapshot-every", "0"),
    ("--eval-every", "-1"),
    ("--seed", "-1"),
    ("--seed", str(2**32)),
    ("--num-players", "1"),
    ("--steps", "²"),
    ("--kl-coef", "-0.5"),
    ("--kl-coef", "nan"),
    ("--magnet-rate", "0"),
    ("--magnet-rate", "1.5"),
    ("--magnet-every", "0"),
    ("--exploiter-every", "-1"),
    ("--exploiter-steps", "0"),
    ("--exploiter-games", "0"),
]


@pytest.mark.parametrize(("flag", "value"), BAD_TRAIN_FLAGS)
def test_a_bad_train_flag_is_a_usage_error_naming_flag_value_and_what_is_allowed(
    flag, value, capsys
):
    code, _, err = run(["train", "promise_war_v0", flag, value], capsys)
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert f"argument {flag}: must be " in line and repr(value)[:40] in line, line


def test_every_train_field_is_checked_in_one_table():
    """A new numeric field must get its rule; the rest are checked by name in resolved()."""
    other = {"env", "opponent", "selfplay", "out", "resume", "backend", "address"}
    other |= {"league_mode", "progress", "hyper", "device", "rllib_policies", "precision"}
    other |= {"magnet", "sample"}
    assert {f.name for f in fields(TrainArgs)} - other == set(RULES)


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_same_rules_hold_for_train_args_built_in_python(name):
    rule = RULES[name]
    bad = (rule.low - 1) if rule.low is not None and not rule.low_open else rule.low
    for value in (bad, float("nan"), "3", True):
        value = [value] if name in ("net_arch", "rllib_hidden") else value
        with pytest.raises(InvalidConfigError, match="--" + name.replace("_", "-")):
            TrainArgs(**{name: value}).resolved()
    TrainArgs().resolved()  # the defaults pass


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--batch-size", "2048"], "--batch-size must be at most --n-steps x --n-envs = 128 x 8"),
        (["--n-steps", "16", "--n-envs", "2"], "at most --n-steps x --n-envs = 16 x 2 = 32"),
        (["--num-players", "9"], "--num-players must be in 2..8 for promise_war_v0, got 9"),
        (["--opponent", "noisy:sigma=nan"], "option 'sigma' must be a finite number, got 'nan'"),
        (["--opponent", "oracle"], "plays only cardline_v0"),
    ],
)
def test_train_values_that_depend_on_each_other_are_refused_before_training(
    argv, message, capsys, monkeypatch
):
    import cardarena.training.train as train_module

    monkeypatch.setattr(train_module, "train", lambda args: pytest.fail("train() was called"))
    code, _, err = run(["train", "promise_war_v0", *argv], capsys)
    assert code == 2 and message in err, err
    assert err.startswith("cardarena train: ") and len(err.strip().splitlines()) == 1


def test_num_players_is_refused_for_a_fixed_table(capsys):
    code, _, err = run(["train", "ironman_war_v0", "--num-players", "2"], capsys)
    assert code == 2 and "ironman_war_v0 always seats 2 players" in err


def test_a_percent_sign_in_a_field_docstring_is_shown_literally(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    assert "drifted to 15-39%" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "cardline_v0", "random", "heuristic", "--games", "0"], "argument --games"),
        (["eval", "cardline_v0", "random", "heuristic", "--jobs", "0"], "argument --jobs"),
        (["eval", "cardline_v0", "random", "heuristic", "--seed", "-3"], "argument --seed"),
        (["play", "cardline_v0", "--seed", "1.5"], "argument --seed"),
        (["replay", "x.jsonl", "--game", "-1"], "argument --game"),
        (["export", "a", "b.npz", "--min-step", "-1"], "argument --min-step"),
        (["bench", "--seconds", "0"], "argument --seconds"),
        (["bench", "--seconds", "nan"], "argument --seconds"),
        (["bench", "--rounds", "0"], "argument --rounds"),
    ],
)
def test_every_command_checks_its_numbers(argv, message, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and message in err and "must be " in err, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "cardline_v0", "random", "noisy:sigma=nan"], "must be a finite number"),
        (["eval", "cardline_v0", "random", "noisy:sigma=1e999"], "overflows to infinity"),
        (["eval", "cardline_v0", "random", "noisy:sigma=-1"], "sigma must be a finite number"),
        (["eval", "cardline_v0", "random", "noisy:sigma=" + "9" * 5000], "5000 digits"),
        (["play", "promise_war_v0", "--config", "max_power=" + "9" * 5000], "5000 digits"),
        (["play", "promise_war_v0", "--config", "decks=" + "[" * 100_000], "nested too deeply"),
        (["play", "promise_war_v0", "--config", "decks=" + "[" * 40 + "]" * 40], "at most 32"),
        (["play", "promise_war_v0", "--config", "max_power=NaN"], "only finite numbers"),
        (["play", "promise_war_v0", "--config", "render_mode=human"], "cannot set render_mode"),
        (["bench", "--env", "chess_v6"], "unknown env 'chess_v6'"),
    ],
)
def test_known_failures_are_one_clean_line(argv, message, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and len(err) < 1000


def test_a_superscript_digit_at_the_prompt_only_asks_again():
    answers = iter(["²", "\u0661", "1", "a"])
    out = io.StringIO()
    assert ask_human("> ", ["x", "y"], lambda _: next(answers), out) == 0
    assert "'²' is not a move" in out.getvalue() and "'\u0661' is not a move" in out.getvalue()
    assert "'1' is not a move" in out.getvalue()  # a number is never a menu choice


def test_replay_any_version_replays_a_record_of_another_version(tmp_path, capsys):
    from cardarena.agents import RandomAgent
    from cardarena.evaluation.records import play_match, write_records

    lineup = {seat: RandomAgent(i) for i, seat in enumerate(["player_0", "player_1"])}
    record = play_match("cardline_v0", lineup, seed=3)
    path = tmp_path / "old.jsonl"
    write_records(path, [dataclasses.replace(record, version="0.0.1")])
    code, _, err = run(["replay", str(path)], capsys)
    assert code == 2 and "0.0.1" in err and "--any-version" in err, err
    code, out, err = run(["replay", str(path), "--any-version"], capsys)
    assert code == 0, err
    assert "(cardarena 0.0.1)" in out and "outcome: " in out


def test_control_characters_in_a_record_are_escaped_on_replay(tmp_path, capsys):
    from cardarena.agents import RandomAgent
    from cardarena.evaluation.records import play_match, write_records

    lineup = {seat: RandomAgent(i) for i, seat in enumerate(["player_0", "player_1"])}
    record = play_match("cardline_v0", lineup, seed=3)
    crafted = {"player_0": "random\x1b[2J\x1b]0;pwned\x07", "player_1": "heuristic\u202e"}
    path = tmp_path / "crafted.jsonl"
    write_records(path, [dataclasses.replace(record, lineup=crafted)])
    code, out, err = run(["replay", str(path)], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "player_0: random\\x1b[2J\\x1b]0;pwned\\x07, player_1: heuristic\\u202e" in out


def test_a_file_that_is_not_text_is_one_line(tmp_path, capsys):
    path = tmp_path / "binary.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage\n")
    code, _, err = run(["replay", str(path)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err


# --- Ctrl-C: each command says what it left undone -------------------------------------------
def interrupted(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "target", "message"),
    [
        (["list"], "cardarena.cli.list.cmd_list", "stopped"),
        (["rules", "cardline_v0"], "cardarena.envs.rules_docs.rules_text", "stopped"),
        (["serve"], "cardarena.web.server.run_server",
         "stopped; the server is down and its games are gone"),
        (["play", "promise_war_v0", *TINY_PW], "cardarena.cli.play.ask_human",
         "stopped; the game was not finished"),
        (["play", "promise_war_v0", "--record", "r.jsonl"], "cardarena.cli.play.ask_human",
         "stopped; the game was not finished and was not recorded"),
        (["eval", "promise_war_v0", "random", "heuristic"],
         "cardarena.evaluation.tournament.run_tournament", "stopped; no results"),
        (["eval", "promise_war_v0", "random", "heuristic", "--out", "o"],
         "cardarena.evaluation.tournament.run_tournament", "stopped; no results written"),
        (["eval", "promise_war_v0", "random", "heuristic", "--out", "o", "--vector"],
         "cardarena.evaluation.tournament_vector.run_vector_tournament",
         "stopped; no results written"),
        (["replay", "r.jsonl"], "cardarena.evaluation.records.read_records", "stopped"),
        (["bench"], "cardarena.bench.run", "stopped; no table printed"),
        (["train", "promise_war_v0"], "cardarena.training.train.train",
         "stopped; continue from the last checkpoint with the same command and --resume"),
        (["export", "ck", "p.npz"], "cardarena.training.export.export_checkpoint",
         "stopped; p.npz may be missing or incomplete"),
        (["curves", "run"], "cardarena.training.curves.plot_learning_curves",
         "stopped; no plot written"),
        (["exploit", "promise_war_v0", "random", "--out", "x"],
         "cardarena.training.exploit.run_exploit",
         "stopped; no x/exploit.json written (the training runs in x keep their checkpoints: "
         "continue with the same command and --resume)"),
    ],
)  # fmt: skip
def test_ctrl_c_gives_each_command_its_own_message(
    argv, target, message, capsys, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(target, interrupted)
    code, _, err = run(argv, capsys)
    assert code == 130
    assert err.strip() == f"cardarena {argv[0]}: {message}", err


def test_every_command_has_a_ctrl_c_test():
    tested = {"list", "play", "eval", "replay", "bench", "train", "export", "curves", "rules",
              "serve", "exploit"}  # fmt: skip
    assert {command[0] for command in COMMANDS if command} == tested


# --- missing extras ---------------------------------------------------------------------------
def test_curves_without_matplotlib_names_the_extra(capsys, monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run(["curves", str(tmp_path)], capsys)
    assert code == 2
    assert err == (
        "cardarena curves: needs matplotlib, from the 'plot' extra: .venv/bin/pip install -c "
        ".ci/constraints.txt -e '.[plot]' in the cardarena clone\n"
    )


def test_bench_without_pygame_names_the_extra(capsys, monkeypatch):
    from cardarena.bench import engines

    def classic_without_pygame(name):  # what PettingZoo raises when pygame is missing
        import_error = ImportError("No module named 'pygame'", name="pygame")
        raise RuntimeError(f"cannot import {name}") from import_error

    # PettingZoo's registry keeps envs it loaded earlier in the run, so a missing pygame is
    # simulated where bench asks for the env rather than in sys.modules.
    monkeypatch.setattr(engines, "pettingzoo_classic", classic_without_pygame)
    code, _, err = run(["bench", "--seconds", "0.01", "--rounds", "1", "--env"], capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "needs pygame (in the 'dev' extra): .venv/bin/pip install -c .ci/constraints" in err


def test_every_install_hint_names_a_declared_extra_and_works_from_the_clone():
    """cardarena is on no package index: a hint that says ``pip install 'cardarena[x]'``
    would fetch someone else's package or nothing. Each hint is the clone's own install,
    with the constraints file that keeps torch the CPU build, and names a real extra."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert (root / ".ci" / "constraints.txt").is_file()
    for extra in {*EXTRAS.values(), "web", "train", "plot", "dev"}:
        assert extra in extras, extra
        assert install_hint(extra) == (
            f".venv/bin/pip install -c .ci/constraints.txt -e '.[{extra}]' in the cardarena clone"
        )
    sources = [*root.glob("training/**/*.py"), *root.glob("evaluation/**/*.py"),
               *root.glob("cli/**/*.py"), *root.glob("bench/**/*.py"),
               *root.glob("agents/**/*.py"), *root.glob("web/**/*.py"), *root.glob("envs/**/*.py"),
               *root.glob("docs/**/*.md"), root / "README.md"]  # fmt: skip
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert "cardarena[" not in text and "from a clone" not in text, source


def test_an_unexpected_error_is_one_line_or_with_debug_the_traceback(capsys, monkeypatch):
    def broken(args, out):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("cardarena.cli.list.cmd_list", broken)
    code, _, err = run(["list"], capsys)
    assert code == 1
    assert "internal error (ZeroDivisionError: a bug); please report it" in err
    assert "CARDARENA_DEBUG=1" in err and len(err.splitlines()) == 1
    monkeypatch.setenv("CARDARENA_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["list"])
