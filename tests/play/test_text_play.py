"""``cardarena play`` as a person meets it (issue 20): whole games through stdin in every env.

Each game's own event lines are asserted in ``tests/play/test_<game>_story.py``; here what
every env shares: the seed printed and a fresh deal by default, the one line on how to win,
menus keyed by letters (so a typed card value is never a menu number), ``?`` and ``??``, the
public events told before each of your turns, and "you won" / "you lost" at the end.
"""

from __future__ import annotations

import io
import re

import pytest

from cardarena.agents.table import Table
from cardarena.agents.terminal import ask_human
from cardarena.cli import build_parser, main
from cardarena.cli.play import cmd_play
from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import IllegalActionError
from cardarena.envs.rules_docs import how_to_win, rules_text, short_rules, table_rules

BUILTIN = ["beast_wars_v0", "cardline_v0", "ironman_war_v0", "promise_war_v0"]
END = re.compile(r"^(you won|you lost|a draw|you tied for first|the game reached its cap)", re.M)


def _reader(answers: list[str]):
    """A prompt reader that types ``answers`` in order."""
    feed = iter(answers)
    return lambda prompt: next(feed)


def play(argv: list[str], answers: list[str]) -> str:
    """The text ``cardarena play ARGV`` prints when a person types ``answers`` (then "a")."""
    args = build_parser().parse_args(["play", *argv])
    feed = iter(answers)
    out = io.StringIO()
    code = cmd_play(args, out, read=lambda prompt: next(feed, "a"))
    assert code == 0
    return out.getvalue()


@pytest.mark.parametrize("env", BUILTIN)
def test_a_whole_game_tells_its_story_and_who_won(env):
    out = play([env, "--vs", "heuristic", "--seed", "7"], ["?"])
    assert "seed 7 (the same deal again: --seed 7)" in out
    assert f"How to win: {how_to_win(env)}" in out
    assert short_rules(env).splitlines()[0] in out  # ? printed the rules in short
    assert re.search(r"^\s+a\) ", out, re.M), "menus are keyed by letters"
    assert not re.search(r"^\s+1[.)] ", out, re.M), "no menu is keyed by numbers"
    told = [line for line in out.splitlines() if line.startswith("  > ")]
    assert len(told) >= 3, "the public events reach the player"
    assert not any(" has played" in line for line in told)
    assert len(END.findall(out)) == 1


def test_without_a_seed_every_game_is_a_fresh_deal_and_says_its_seed():
    seeds = set()
    for _ in range(3):
        out = play(["promise_war_v0", "--vs", "random", "--config", "max_power=3",
                    "decks=[1,2,3,1]"], [])  # fmt: skip
        seeds.add(int(re.search(r"seed (\d+) \(the same deal again: --seed \1\)", out).group(1)))
    assert len(seeds) == 3


def test_the_printed_seed_deals_the_same_game_again():
    first = play(["cardline_v0", "--vs", "heuristic"], [])
    seed = re.search(r"--seed (\d+)\)", first).group(1)
    again = play(["cardline_v0", "--vs", "heuristic", "--seed", seed], [])
    assert again == first


def test_a_card_value_typed_plays_that_card_never_a_menu_number():
    # Promise War with a hand 2 3 7: the menu is a) 2 b) 3 c) 7, and "3" plays the 3.
    env = make_raw("promise_war_v0", max_power=7)
    env.reset(options={"decks": [[2, 3, 7, 1, 1], [4, 4, 4, 4, 4]]})
    state = env.game_state
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert len(names) == 3
    out = io.StringIO()
    chosen = ask_human("> ", names, _reader(["3"]), out, env_name="promise_war_v0")
    assert names[chosen].endswith(" 3"), names
    chosen = ask_human("> ", names, _reader(["9", "c"]), out)
    assert names[chosen].endswith(" 7") and "'9' is not a move here" in out.getvalue()


def test_help_words_print_the_rules_then_the_table_again_and_ask_again():
    out = io.StringIO()
    answers = iter(["?", "help", "??", "b"])
    redrawn: list[int] = []
    index = ask_human("> ", ["x", "y"], lambda _: next(answers), out, env_name="cardline_v0",
                          redraw=lambda: redrawn.append(len(out.getvalue())))  # fmt: skip
    assert index == 1
    text = out.getvalue()
    assert text.count(short_rules("cardline_v0").splitlines()[0]) >= 2
    assert "## Rules" in text and "CL-1" in text  # ?? printed the game's rules
    assert len(redrawn) == 3 and redrawn[-1] == len(text), "the table comes back after each"


@pytest.mark.parametrize("env", BUILTIN)
def test_the_rules_at_the_table_are_for_players_and_say_where_the_rest_is(env):
    shown = table_rules(env)
    assert shown.startswith("# ") and f"**How to win:** {how_to_win(env)}" in shown
    assert "## Rules" in shown and shown.endswith(f"cardarena rules {env})")
    for developer_text in ("For agents", "docs/", ".py", "IllegalActionError", "raw_env"):
        assert developer_text not in shown, developer_text
    assert len(shown.splitlines()) < len(rules_text(env).splitlines()) / 2


def test_a_move_is_found_by_any_whole_words_of_its_name_and_several_are_named():
    names = ["place Optimus Primal in column 0", "place Rhinox in column 0",
             "place Tigerhawk in column 0"]  # fmt: skip
    out = io.StringIO()
    assert ask_human("> ", names, _reader(["Tigerhawk"]), out) == 2
    assert ask_human("> ", names, _reader(["optimus  PRIMAL"]), out) == 0
    assert ask_human("> ", names, _reader(["column", "tiger", "b"]), out) == 1
    told = out.getvalue()
    assert "'column' fits 3 moves (a) place Optimus Primal in column 0; b) " in told
    assert told.count(": type the letter of one\n") == 1
    assert "'tiger' is not a move here" in told  # words are whole: no guessing from a part
    # an ending still wins over words inside a name: "7" plays the 7, not "power 7 x"
    assert ask_human("> ", ["play 17", "play 7", "play 7 twice"], _reader(["7"]), out) == 1


@pytest.mark.parametrize(
    ("env", "counted"),
    [("beast_wars_v0", "characters left"), ("cardline_v0", "cards placed right"),
     ("ironman_war_v0", "Victory Card reached"), ("promise_war_v0", "cards won")],
)  # fmt: skip
def test_the_final_line_says_what_the_scores_count(env, counted):
    table = Table(env, "random", seed=2)
    while not table.is_over():
        table.act(table.legal_actions()[0][0])
    scores = table.state.scores()
    seats = ", ".join(
        f"{'you' if seat == table.human else seat} {score}"
        for seat, score in zip(table.seats, scores, strict=True)
    )
    assert table.outcome().line.endswith(f" ({counted}: {seats})")


def test_an_agent_that_does_not_fit_the_config_is_refused_by_name(capsys):
    code = main(["play", "ironman_war_v0", "--vs", "pretrained", "--config",
                     "variant=beginner"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "variant" in err and "pretrained" in err
    assert len(err.strip().splitlines()) == 1


def test_the_table_refuses_a_move_out_of_turn_and_after_the_end():
    table = Table("promise_war_v0", "random", seed=1, config={"max_power": 3,
                  "decks": [[1, 2, 3, 1], [1, 2, 3, 1]]})  # fmt: skip
    legal = [a for a, _ in table.legal_actions()]
    illegal = next(a for a in range(4) if a not in legal)
    with pytest.raises(IllegalActionError, match="legal actions"):
        table.act(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        table.act(100)
    while not table.is_over():
        table.act(table.legal_actions()[0][0])
    with pytest.raises(IllegalActionError, match="the game is over"):
        table.act(legal[0])
    assert table.legal_actions() == [] and table.outcome() is not None


def test_every_registered_env_has_a_seat_at_the_table():
    for name in ENVS:
        seats = make_raw(name).possible_agents
        table = Table(name, "random", seat=seats[-1], seed=3)
        while not table.is_over():
            table.act(table.legal_actions()[0][0])
        assert table.outcome().result in {"won", "lost", "drew", "truncated"}


#: A line each game must tell a person in a whole game (through a real stdin, below).
TOLD = {
    "promise_war_v0": [r"you picked \d+ face down", r"trick \d+ revealed: you \d+, player_1 \d+",
                       r"(you take|player_1 takes) trick \d+ \(\d+ cards\): won \d+ -> \d+"],
    "ironman_war_v0": [r"you put .+ face down for battle 1",
                       r"battle 1 begins: you flip .+, war_machine flips .+",
                       r"(you win|war_machine wins) battle \d: (your|war_machine's) .+ = \d+ beat"],
    "beast_wars_v0": [r"you picked .+ \(beast \d+/\d+/\d+/\d+, robot \d+/\d+/\d+/\d+\)",
                      r"predacon picked a character, hidden until play starts",
                      r"play starts, .+ moves first"],
    "cardline_v0": [r"you placed .+ \(\d+\) .+: (right, it stays|wrong, to the box)",
                    r"player_1 placed .+ \(\d+\) .+: (right, it stays|wrong, to the box)"],
}  # fmt: skip


@pytest.mark.parametrize("env", BUILTIN)
def test_a_whole_game_through_stdin_tells_the_events_of_each_game(env):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "play", env, "--vs", "heuristic",
         "--seed", "4"],
        input="a\n" * 3000, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    # (piped input is not echoed, so a line may follow the prompt on the same line)
    told = "\n".join(
        line.split("  > ", 1)[1] for line in done.stdout.splitlines() if "  > " in line
    )
    for pattern in TOLD[env]:
        assert re.search(pattern, told), (pattern, told[:2000])
    assert len(END.findall(done.stdout)) == 1
