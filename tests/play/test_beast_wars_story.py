"""Beast Wars at a person's table: the event lines each seat reads (envs/rulebooks/beast_wars_v0.md
BW-4..BW-8), that draft picks reach only their owner, the table view and its SVG, the render.

Scenarios fix the teams (which skips the draft), the battle deck (top card first) and the
first player through reset options; cells are ``r<row>c<col>``, row 0 maximal's first row.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cardarena.agents.table import Table
from cardarena.envs import beast_wars_v0
from cardarena.envs.beast_wars.view import WIDTH, table_view
from cardarena.envs.core.events import PUBLIC, visible_events
from cardarena.envs.rules_docs import how_to_win

WORKED = {"teams": {"maximal": ["Rhinox", "Optimus Primal", "Cheetor"],
                    "predacon": ["Megatron", "Inferno", "Waspinator"]},
          "first_player": "maximal"}  # fmt: skip
#: Rhinox r0c0, Optimus Primal r0c1, Cheetor r0c2; Megatron r3c0, Inferno r3c1, Waspinator r3c2.
OPENING = (
    "play starts, you move first; all beast side up (numbers red/blue/gold/green): your team: "
    "r0c0 Rhinox 9/7/5/8, r0c1 Optimus Primal 5/10/7/3, r0c2 Cheetor 6/5/3/8; reserve: none | "
    "predacon's team: r3c0 Megatron 6/5/8/4, r3c1 Inferno 8/6/7/4, r3c2 Waspinator 5/3/4/6; "
    "reserve: none"
)


def table(deck, *actions, **config):
    env = beast_wars_v0.raw_env(render_mode="ansi", team_size=3, **config)
    env.record_events()
    env.reset(seed=0, options={**WORKED, "battle_deck": deck})
    for action in actions:
        env.step(action)
    return env


def lines(env, seat):
    return [env.describe_event(e, seat) for e in visible_events(env.game_state.events, seat)]


def legal(env):
    state = env.game_state
    return [(int(a), state.action_to_string(int(a))) for a in np.flatnonzero(env.legal_mask())]


def test_the_worked_example_tells_both_seats_the_moves_and_the_battle_with_its_numbers():
    env = table(["blue:basic", "gold:secret_weapon"], 4, 42, 64)
    assert lines(env, 0) == [
        OPENING,
        "you moved Optimus Primal (beast 5/10/7/3) up from r0c1 to r1c1",
        "predacon moved Inferno (beast 8/6/7/4) down from r3c1 to r2c1",
        "your Optimus Primal (r1c1) attacked predacon's Inferno (r2c1, up): Optimus Primal drew "
        "blue:basic, blue 10; Inferno drew gold:secret_weapon, gold 7 + 2 = 9; your Optimus "
        "Primal wins: Inferno is pushed to r3c1; Optimus Primal takes r2c1 (discard pile 2, "
        "deck 0)",
    ]
    theirs = lines(env, 1)
    assert theirs[0].startswith("play starts, maximal moves first;")
    assert "maximal's team: r0c0 Rhinox 9/7/5/8" in theirs[0] and "your team: r3c0" in theirs[0]
    assert theirs[1:3] == [
        "maximal moved Optimus Primal (beast 5/10/7/3) up from r0c1 to r1c1",
        "you moved Inferno (beast 8/6/7/4) down from r3c1 to r2c1",
    ]
    assert theirs[3].startswith("maximal's Optimus Primal (r1c1) attacked your Inferno (r2c1")
    assert "maximal's Optimus Primal wins" in theirs[3]


def test_a_fall_and_a_reshuffle_are_told_with_the_counts_that_changed():
    env = table(["green:basic", "red:basic"], 0, 42, 8, 30, 52, 38, 60)
    assert lines(env, 1)[5:] == [
        "maximal's Optimus Primal (r0c1) attacked your Inferno (r1c1, up): Optimus Primal drew "
        "green:basic, green 3; Inferno drew red:basic, red 8; your Inferno wins: Optimus Primal "
        "is pushed off the board and falls (maximal has 3 -> 2 characters left); Inferno takes "
        "r0c1 (discard pile 2, deck 0)",
        "you moved Megatron (beast 6/5/8/4) down from r3c0 to r2c0",
        "the battle deck ran out: the 2 discarded cards are shuffled into a new deck",
        "maximal's Rhinox (r1c0) attacked your Megatron (r2c0, up): Rhinox drew green:basic, "
        "green 8; Megatron drew red:basic, red 6; maximal's Rhinox wins: Megatron is pushed to "
        "r3c0; Rhinox takes r2c0 (discard pile 2, deck 0)",
    ]


@pytest.mark.parametrize(
    ("deck", "actions", "told"),
    [
        (["red:mutate", "blue:energon"], [4, 42, 64],
         "Optimus Primal drew red:mutate, mutated to robot, red 7; Inferno drew blue:energon, "
         "blue 6 + 1 = 7; equal numbers: called off, nobody moves"),
        (["green:basic", "green:basic"], [0, 42, 8, 30, 71],
         "your Cheetor wins: Inferno is pushed into an occupied space and is captured (predacon "
         "has 3 -> 2 characters left); Cheetor takes r1c1"),
    ],
)  # fmt: skip
def test_mutate_called_off_and_capture_are_told(deck, actions, told):
    env = table(deck, *actions)
    assert told in lines(env, 0)[-1]


def test_the_end_is_told_the_cap_as_a_draw_and_an_elimination_as_a_win():
    env = table(["red:basic"] * 2, 4, 38, 0, 46, max_turns=4)
    assert lines(env, 0)[-1] == (
        "game over at the 4-turn cap: a draw (characters left: you 3, predacon 3)"
    )
    env = beast_wars_v0.raw_env(team_size=3)
    env.record_events()
    env.reset(seed=0, options={**WORKED, "battle_deck": ["red:basic", "blue:basic"]})
    state = env.game_state
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    last = state.events[-1]
    assert last.kind == "game_over" and last.seen_by == PUBLIC
    winner = state.winner
    assert lines(env, winner)[-1].startswith("game over: you win (")
    assert lines(env, 1 - winner)[-1].startswith(f"game over: {env.possible_agents[winner]} wins (")


# --- the draft: picks are private until play starts ------------------------------------------
def draft(picks_maximal, picks_predacon, placements=()):
    env = beast_wars_v0.raw_env(render_mode="ansi", team_size=3, first_player="predacon")
    env.record_events()
    env.reset(seed=0)
    for member in (*picks_maximal, *picks_predacon, *placements):
        env.step(240 + member)
    return env


def test_each_draft_pick_is_told_to_its_owner_with_its_numbers_and_to_the_other_as_a_count():
    env = draft([1, 0], [])
    assert lines(env, 0) == [
        "the draft starts: each side picks 3 characters (maximal first), then places three in "
        "its first row, hidden until play starts; predacon plays first",
        "you picked Rhinox (beast 9/7/5/8, robot 6/6/3/5) (1 of 3)",
        "you picked Optimus Primal (beast 5/10/7/3, robot 7/8/8/3) (2 of 3)",
    ]
    assert lines(env, 1) == [
        "the draft starts: each side picks 3 characters (maximal first), then places three in "
        "its first row, hidden until play starts; you play first",
        "maximal picked a character, hidden until play starts (1 of 3)",
        "maximal picked a character, hidden until play starts (2 of 3)",
    ]
    private = [e for e in env.game_state.events if e.seen_by != PUBLIC]
    assert {e.kind for e in private} == {"picked", "opponent_picked"}
    assert all(e.seen_by == 0 for e in private if e.kind == "picked")


def test_placements_stay_hidden_until_play_starts_then_both_teams_are_told():
    env = draft([1, 0, 2], [0, 6, 3], [2, 1])
    assert lines(env, 0)[-2:] == [
        "you placed Cheetor at r0c0 (column 0), hidden until play starts",
        "you placed Rhinox at r0c1 (column 1), hidden until play starts",
    ]
    theirs = lines(env, 1)
    assert theirs[-1] == "maximal placed a character at r0c1 (column 1), hidden until play starts"
    assert not any("Rhinox" in line or "Cheetor" in line for line in theirs)
    env.step(240 + 0)  # maximal's last placement: Optimus Primal
    for member in (6, 0, 3):
        env.step(240 + member)
    start = lines(env, 1)[-1]
    assert start.startswith("play starts, you move first;")
    assert "maximal's team: r0c0 Cheetor 6/5/3/8, r0c1 Rhinox 9/7/5/8, r0c2 Optimus" in start


# --- what a seat sees: the view and its leaks ------------------------------------------------
def test_the_view_shows_own_picks_and_hides_the_others_until_play_starts():
    env = draft([1, 0, 2], [0, 6, 3], [2])
    mine, theirs = table_view(env.game_state, 0), table_view(env.game_state, 1)
    assert [c["name"] for c in mine["sides"][0]["reserve"]] == ["Optimus Primal", "Rhinox"]
    assert mine["board"][0]["piece"]["name"] == "Cheetor"
    assert mine["board"][0]["piece"]["numbers"] == [6, 5, 3, 8]
    assert theirs["sides"][0]["reserve"] is None and theirs["sides"][0]["picked"] == 3
    assert theirs["board"][0]["piece"] is None and theirs["board"][0]["hidden"]
    assert "Cheetor" not in json.dumps(theirs) and "Rhinox" not in json.dumps(theirs)
    assert env.table_view(1) == theirs


@pytest.mark.parametrize("config", [{}, {"team_size": 3, "max_turns": 40}])
def test_views_and_event_lines_survive_resampling_the_hidden_picks(config):
    """A seat's view and story equal those of any state it cannot tell apart."""
    env = beast_wars_v0.raw_env(**config)
    env.record_events()
    rng = np.random.default_rng(7)
    checked = 0
    for game in range(3):
        env.reset(seed=game)
        state = env.game_state
        for _ in range(60):
            if state.is_terminal():
                break
            json.dumps([table_view(state, 0), [e.to_json() for e in state.events]])
            for seat in range(2):
                twin = state.resample_from_infostate(seat, rng)
                assert table_view(twin, seat) == table_view(state, seat)
                assert twin.events == visible_events(state.events, seat)
                checked += 1
            state.apply_legal_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert checked > 100


def test_the_hidden_picks_do_change_under_resampling_so_the_test_is_not_empty():
    env = draft([1, 0, 2], [])
    rng = np.random.default_rng(0)
    teams = {tuple(env.game_state.resample_from_infostate(1, rng).teams[0]) for _ in range(20)}
    assert len(teams) > 1


# --- the picture -----------------------------------------------------------------------------
def clickable(svg):
    return [int(a) for a in re.findall(r'class="act" data-action="(\d+)"', svg)]


def picture(env):
    seat = env.game_state.current_player()
    svg = env.table_svg(env.table_view(seat), legal(env))
    root = ET.fromstring(svg)
    assert float(root.get("width")) <= WIDTH
    assert sorted(clickable(svg)) == sorted(a for a, _ in legal(env))  # each action once
    return svg


def test_the_draft_svg_shows_every_character_with_its_numbers_as_a_clickable_card():
    env = draft([1], [])
    svg = picture(env)
    for name in ("Optimus Primal", "Depth Charge", "Polar Claw", "Rhinox"):
        assert f">{name}</text>" in svg
    assert len(clickable(svg)) == 11  # Rhinox is in the team already
    assert ">10</text>" in svg  # Optimus Primal's blue beast number
    env = draft([1, 0, 2], [0, 6, 3])
    assert sorted(clickable(picture(env))) == [240, 241, 242]  # placing: the three picks


def test_the_play_svg_has_an_arrow_per_move_and_attack_and_a_button_per_reinforcement():
    env = beast_wars_v0.raw_env(team_size=6)
    env.reset(seed=0, options={"teams": {"maximal": [0, 1, 2, 3, 4, 5],
                                         "predacon": [0, 1, 2, 3, 4, 5]},
                               "first_player": "maximal"})  # fmt: skip
    env.step(4)  # Rhinox r0c1 -> r1c1: r0c1 is free for a reinforcement
    env.step(38)  # Megatron r3c0 -> r2c0
    svg = picture(env)
    kinds = {a // 48 for a, _ in legal(env) if a < 96}
    assert kinds == {0} and any(96 <= a < 240 for a, _ in legal(env))
    assert ">to r0c1</text>" in svg and "Dinobot" in svg and "Tarantulas" in svg
    env.step(16 + 0)  # Rhinox r1c1 -> r2c1, beside Megatron and below Tarantulas
    env.step(46)  # Blackarachnia r3c2 -> r2c2
    svg = picture(env)
    assert any(48 <= a < 96 for a, _ in legal(env))
    assert "attack" in svg


def test_a_whole_game_at_the_table_clicks_only_drawn_actions_and_ends_told():
    assert beast_wars_v0.raw_env.how_to_win == how_to_win("beast_wars_v0")
    person = Table("beast_wars_v0", "random", seed=11, config={"team_size": 3, "max_turns": 60})
    told = person.story()
    rng = np.random.default_rng(0)
    while not person.is_over():
        shown = clickable(person.svg())
        assert sorted(shown) == sorted(a for a, _ in person.legal_actions())
        person.act(int(rng.choice(shown)))
        told += person.story()
    assert told[0].startswith("the draft starts")
    assert any(line.startswith("you picked ") for line in told)
    assert any(line.startswith("predacon picked a character, hidden") for line in told)
    assert told[-1].startswith("game over")
    assert "game over" in person.svg()


# --- text play -------------------------------------------------------------------------------
def test_the_render_shows_full_names_and_the_numbers_on_the_cards():
    env = draft([], [])
    text = env.render()
    assert "maximal draft: pick 3 (0 picked)" in text
    assert "Optimus Primal  beast 5/10/7/3     robot 7/8/8/3" in text
    assert "Depth Charge" in text and "Megatron" not in text
    env = table(["blue:basic", "gold:secret_weapon"])
    text = env.render()
    rows = [line for line in text.splitlines() if line.lstrip().startswith("row")]
    assert "P Waspinator" in rows[0] and "M Optimus Primal" in rows[3]
    assert "beast 5/10/7/3" in text
    env.step(4)
    assert env.render().splitlines()[0].endswith("predacon to move")
