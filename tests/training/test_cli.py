"""The ``cardarena`` command, run as a user runs it: a subprocess, real stdin and stdout."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cardarena.envs import ENVS

TINY_PW = ["--config", "max_power=3", "decks=[1,2,3,1]"]


def cardarena(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.training.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_help_everywhere():
    for command in ([], ["list"], ["play"], ["eval"], ["replay"], ["bench"]):
        done = cardarena(*command, "--help")
        assert done.returncode == 0 and "usage: cardarena" in done.stdout, done.stderr


def test_list_names_every_env_with_its_players():
    done = cardarena("list")
    assert done.returncode == 0
    for name in ENVS:
        assert name in done.stdout
    assert "2-8 players" in done.stdout and "War! for Promise TCG decks" in done.stdout


def test_a_person_plays_a_whole_game_and_bad_input_only_asks_again():
    moves = "x\n0\n99\n" + "1\n" * 60
    done = cardarena("play", "promise_war_v0", "--vs", "random", "--seat", "player_1", *TINY_PW,
                     stdin=moves)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "you are player_1" in out
    assert "please type a number from 1 to 3 (got 'x')" in out
    assert "please type a number from 1 to 3 (got '0')" in out
    assert "1. play power 1" in out and "player_1's hand:" in out
    assert "result: player_0" in out and "game over" in out
    assert "player_0 has played" in out and "player_0: play power" not in out  # no leak


@pytest.mark.parametrize("env", sorted(ENVS))
def test_every_env_can_be_played_at_the_terminal(env):
    done = cardarena("play", env, "--vs", "random", "--seed", "3", stdin="1\n" * 3000, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "result:" in done.stdout


def test_running_out_of_input_stops_cleanly():
    done = cardarena("play", "promise_war_v0", *TINY_PW, stdin="1\n")
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
    done = cardarena("play", "promise_war_v0", *TINY_PW, "--record", str(path), stdin="1\n" * 40)
    assert done.returncode == 0 and f"recorded to {path}" in done.stdout
    shown = cardarena("replay", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "player_0: human, player_1: random" in shown.stdout
    assert "the deal:" in shown.stdout and "step 1: player_0 play power" in shown.stdout
    assert "outcome: terminated" in shown.stdout
    # the final table of the replay is the final table the person saw
    assert (
        done.stdout.rsplit("result:", 1)[0]
        .strip()
        .endswith(shown.stdout.rsplit("outcome:", 1)[0].strip().splitlines()[-1])
    )
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
        (["play", "cardline_v0", "--seed", "-5"], "seed must be a non-negative integer, got -5"),
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
