"""Cardline at a person's table: the event lines each seat reads (envs/rulebooks/cardline_v0.md
CL-2..CL-7), the table view (only what a seat may see, CL-3) and its SVG, the text render.

Deals are fixed through reset options; most use the small deck ``DECK`` (one value ``v`` per
card, with ties) and the Marvel deck for the issue's own example (Mysterio, combat power 45).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cardarena.agents.table import Table
from cardarena.envs import cardline_v0
from cardarena.envs.cardline.view import WIDTH, table_view
from cardarena.envs.core.events import PUBLIC, Event, visible_events
from cardarena.envs.rules_docs import how_to_win

VALUES = {"Ant": 10, "Bee": 20, "Cat": 30, "Dog": 40, "Eel": 50, "Fox": 20, "Gnu": -5, "Hen": 0,
          "Ibis": 60, "Jay": 70, "Kiwi": 80, "Lynx": 90, "Mole": 100.5}  # fmt: skip
DECK = [{"name": name, "colour": "animal", "v": value} for name, value in VALUES.items()]


def table(hands, initial, pile, *, deck=DECK, characteristic="v", first_player=0, **config):
    env = cardline_v0.raw_env(render_mode="ansi", num_players=len(hands), deck=deck, **config)
    env.record_events()
    options = {"hands": hands, "initial_card": initial, "draw_pile": pile,
               "characteristic": characteristic, "first_player": first_player}  # fmt: skip
    env.reset(seed=0, options=options)
    return env


def place(env, name, gap):
    """The seat to act places its card ``name`` into gap ``gap``."""
    state = env.game_state
    slot = [state.game.names[c] for c in state.hands[state.current_player()]].index(name)
    env.step(slot * state.game.num_gaps + gap)


def lines(env, seat, start=0):
    events = visible_events(env.game_state.events[start:], seat)
    return [env.describe_event(e, seat) for e in events]


def test_your_own_wrong_placement_is_told_with_its_value_and_the_penalty_draw():
    """The issue's example: today only ``cardarena replay`` says where Mysterio went."""
    env = table([["Mysterio", "Hulk"], ["Thor", "Loki"]], "Hawkeye", ["Wolverine", "Venom"],
                deck=None, characteristic="combat_power", hand_size=2)  # fmt: skip
    assert lines(env, 0) == [
        "new game with the Marvel deck, comparing combat_power: the line starts with Hawkeye "
        "(55); you start every round; your hand: Hulk, Mysterio",
    ]
    start = len(env.game_state.events)
    place(env, "Mysterio", 1)
    place(env, "Loki", 1)
    assert lines(env, 0, start) == [
        "you placed Mysterio (45) right of Hawkeye (55): wrong, to the box",
        "you draw a penalty card: Wolverine (1 left in the pile; top of the pile: Venom)",
        "player_1 placed Loki (80) right of Hawkeye (55): right, it stays",
    ]
    assert lines(env, 1, start)[:2] == [
        "player_0 placed Mysterio (45) right of Hawkeye (55): wrong, to the box",
        "player_0 draws a penalty card: Wolverine (1 left in the pile; top of the pile: Venom)",
    ]
    place(env, "Hulk", 1)  # 92 between Hawkeye 55 and Loki 80: wrong
    assert lines(env, 0)[-2] == (
        "you placed Hulk (92) between Hawkeye (55) and Loki (80): wrong, to the box"
    )


def test_several_finishers_eliminate_the_rest_draw_and_then_one_wins():
    env = table([["Bee"], ["Dog", "Eel"], ["Jay"]], "Cat", ["Ant", "Kiwi", "Lynx"])
    place(env, "Bee", 0)  # 20 left of Cat 30: right, player_0 finishes
    place(env, "Eel", 2)  # 50 right of Cat: right
    place(env, "Jay", 3)  # 70 right of Eel: right, player_2 finishes
    assert lines(env, 2)[1:] == [
        "player_0 placed Bee (20) left of Cat (30): right, it stays; player_0 has no cards "
        "left and finishes this round",
        "player_1 placed Eel (50) right of Cat (30): right, it stays",
        "you placed Jay (70) right of Eel (50): right, it stays; you have no cards left and "
        "finish this round",
        "round 1 is over: you and player_0 placed their last cards",
        "player_1 is eliminated; to the box: Dog",
        "player_0 draws a new card (finisher): Ant (2 left in the pile; top of the pile: Kiwi)",
        "you draw a new card (finisher): Kiwi (1 left in the pile; top of the pile: Lynx)",
    ]
    start = len(env.game_state.events)
    place(env, "Ant", 0)
    place(env, "Kiwi", 5)  # both finish again; the pile holds Lynx, the box Dog
    assert lines(env, 1, start)[2:] == [
        "round 2 is over: player_0 and player_2 placed their last cards",
        "player_0 draws a new card (finisher): Lynx (0 left in the pile)",
        "the draw pile is empty: the box's card is shuffled into a new pile",
        "player_2 draws a new card (finisher): Dog (0 left in the pile)",
    ]
    start = len(env.game_state.events)
    place(env, "Lynx", 6)  # right: player_0 finishes alone
    place(env, "Dog", 0)  # 40 left of Ant 10: wrong, to the box and drawn straight back
    assert lines(env, 0, start) == [
        "you placed Lynx (90) right of Kiwi (80): right, it stays; you have no cards left and "
        "finish this round",
        "player_2 placed Dog (40) left of Ant (10): wrong, to the box",
        "the draw pile is empty: the box's card is shuffled into a new pile",
        "player_2 draws a penalty card: Dog (0 left in the pile)",
        "round 3 is over: you alone placed your last card",
        "game over: you win",
    ]
    assert lines(env, 2)[-1] == "game over: player_0 wins"
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_a_shared_win_when_the_finishers_cannot_be_dealt():
    env = table([["Bee"], ["Eel", "Fox"], ["Dog"]], "Cat", [])
    place(env, "Bee", 0)
    place(env, "Eel", 2)
    place(env, "Dog", 2)  # 40 between Cat 30 and Eel 50: right; player_0 and player_2 finish
    assert lines(env, 1)[-3:] == [
        "round 1 is over: player_0 and player_2 placed their last cards",
        "you are eliminated; to the box: Fox",
        "game over: player_0 and player_2 share the win (too few cards left in the pile and "
        "the box to deal every finisher)",
    ]
    assert lines(env, 2)[-1].startswith("game over: you and player_0 share the win")


def test_an_empty_pile_is_refilled_from_the_box_and_no_card_has_its_line():
    env = table([["Bee", "Fox"], ["Eel"]], "Cat", [])
    place(env, "Bee", 1)  # 20 right of Cat 30: wrong; the box (Bee) becomes the pile
    assert lines(env, 1)[1:] == [
        "player_0 placed Bee (20) right of Cat (30): wrong, to the box",
        "the draw pile is empty: the box's card is shuffled into a new pile",
        "player_0 draws a penalty card: Bee (0 left in the pile)",
    ]
    event = Event("no_card", {"seat": 1, "reason": "penalty"})
    assert env.describe_event(event, 0) == (
        "nothing for player_1 to draw: the draw pile and the box are empty"
    )


def test_the_cap_and_an_empty_box_are_told():
    env = table([["Bee", "Dog"], ["Eel", "Fox"]], "Cat", ["Ant"], max_turns=2)
    place(env, "Bee", 0)
    place(env, "Eel", 2)
    assert lines(env, 1)[-1] == "the game stops at its cap of 2 turns: nobody wins"
    assert env.truncations["player_0"]


def test_every_event_is_public_and_a_resampled_twin_keeps_the_log():
    env = table([["Bee", "Dog"], ["Eel", "Fox"]], "Cat", ["Ant", "Gnu", "Hen"])
    place(env, "Bee", 1)
    state = env.game_state
    assert all(e.seen_by == PUBLIC for e in state.events)
    twin = state.resample_from_infostate(1, np.random.default_rng(0))
    assert twin.events == state.events and twin.events is not state.events
    assert state.clone().events == state.events
    quiet = cardline_v0.raw_env()
    quiet.reset(seed=0)
    assert quiet.game_state.events is None  # training never records


# --- what a seat sees: the view and its leaks ---------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_views_survive_resampling_what_nobody_sees(num_players):
    env = cardline_v0.raw_env(num_players=num_players, hand_size=3)
    env.record_events()
    rng = np.random.default_rng(num_players)
    checked = 0
    for game in range(4):
        env.reset(seed=game)
        state = env.game_state
        for _ in range(40):
            if state.is_terminal() or state.is_truncated():
                break
            for seat in range(num_players):
                twin = state.resample_from_infostate(seat, rng)
                assert table_view(twin, seat) == table_view(state, seat)
                assert twin.events == visible_events(state.events, seat)
                checked += 1
            state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert checked > 60


def test_no_view_shows_a_value_never_revealed_but_a_card_back_from_the_box_keeps_its_value():
    env = table([["Bee", "Mole"], ["Eel", "Fox"]], "Cat", [])
    for seat in range(2):
        text = str(table_view(env.game_state, seat))
        assert "100.5" not in text and "50.0" not in text  # Mole and Eel, in hands
    place(env, "Bee", 1)  # wrong: to the box, and straight back (the pile is empty)
    view = table_view(env.game_state, 1)
    assert view["players"][0]["hand"] == [
        {"name": "Bee", "known_value": 20.0},
        {"name": "Mole", "known_value": None},
    ]
    assert view["hand"] == [{"slot": 0, "name": "Eel", "known_value": None},
                            {"slot": 1, "name": "Fox", "known_value": None}]  # fmt: skip
    assert view["line"] == [{"name": "Cat", "value": 30.0}]
    assert view["draw_pile"] == {"size": 0, "top": None} and view["to_act"] == 1
    assert "shown before: 20" in env.render()


def test_the_pile_below_its_top_changes_under_resampling_so_the_test_is_not_empty():
    env = table([["Bee"], ["Eel"]], "Cat", ["Ant", "Dog", "Gnu", "Hen", "Ibis"])
    rng = np.random.default_rng(0)
    state = env.game_state
    seconds = {state.resample_from_infostate(0, rng).pile[-2] for _ in range(20)}
    assert len(seconds) > 1
    assert {state.resample_from_infostate(0, rng).pile[-1] for _ in range(5)} == {state.pile[-1]}


# --- the picture --------------------------------------------------------------------------------
def clickable(svg):
    return [int(a) for a in re.findall(r'class="act" data-action="(\d+)"', svg)]


def legal(env):
    state = env.game_state
    return [(int(a), state.action_to_string(int(a))) for a in np.flatnonzero(env.legal_mask())]


@pytest.mark.parametrize("num_players", range(2, 9))
def test_the_svg_draws_the_line_the_hand_and_a_gap_marker_per_legal_action(num_players):
    env = cardline_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(0)
    for _ in range(3 * num_players):
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    if env.game_state.is_terminal():
        pytest.skip("the random game ended early")
    seat = env.game_state.current_player()
    view, actions = env.table_view(seat), legal(env)
    svg = env.table_svg(view, actions)
    root = ET.fromstring(svg)
    assert float(root.get("width")) <= WIDTH
    assert sorted(clickable(svg)) == sorted(a for a, _ in actions)
    for card in view["line"] + view["hand"]:
        assert card["name"].split()[0] in svg
    for player in view["players"]:
        assert player["name"] in svg or player is view["players"][seat]
    xs = [float(x) for x in re.findall(r'<rect x="([\d.]+)"', svg)]
    assert max(xs) < WIDTH
    watcher = env.table_svg(env.table_view((seat + 1) % num_players), [])
    assert not clickable(watcher)


def test_an_empty_box_is_drawn_as_a_labelled_place():
    env = table([["Bee", "Dog"], ["Eel", "Fox"]], "Cat", ["Ant"])
    svg = env.table_svg(env.table_view(0), legal(env))
    assert env.table_view(0)["box"]["size"] == 0
    assert svg.count('class="empty"') == 1  # the box; the draw pile shows Ant's name
    assert ">box:</text>" in svg and ">empty</text>" in svg
    assert "the line: 1 card, lowest v" in svg


def test_the_svg_of_a_long_line_and_a_big_hand_still_reaches_every_action():
    deck = [{"name": f"Card number {i}", "colour": "x", "v": i * 17 % 40} for i in range(40)]
    env = table([[f"Card number {i}" for i in range(8)], ["Card number 8"]], "Card number 9",
                [f"Card number {i}" for i in range(10, 40)], deck=deck, hand_size=8)  # fmt: skip
    state = env.game_state
    for card in range(10, 30):  # grow the line to 21 cards
        state.line.append(card)
    actions = legal(env)
    assert len(actions) == 8 * 22
    svg = env.table_svg(env.table_view(0), actions)
    ET.fromstring(svg)
    assert sorted(clickable(svg)) == sorted(a for a, _ in actions)
    assert "place Card number 0 left of Card number 9 (slot 0, gap 0)" in svg  # the tooltip


def test_the_end_of_the_game_is_drawn_for_winner_and_loser():
    env = table([["Bee"], ["Eel", "Dog"]], "Cat", ["Ant"])
    place(env, "Bee", 0)
    place(env, "Eel", 2)
    assert "game over: you win" in env.table_svg(env.table_view(0), [])
    assert "game over: player_0 wins" in env.table_svg(env.table_view(1), [])


# --- text play ----------------------------------------------------------------------------------
def test_the_render_header_counts_the_turn_being_played():
    env = table([["Bee", "Dog"], ["Eel", "Fox"]], "Cat", ["Ant"], max_turns=9)
    assert "round 1, turn 1 (cap 9); to act: player_0" in env.render()
    place(env, "Bee", 0)
    assert "round 1, turn 2 (cap 9); to act: player_1" in env.render()
    place(env, "Eel", 2)
    assert "round 2, turn 3 (cap 9); to act: player_0" in env.render()


def test_a_whole_game_at_the_table_tells_every_placement_and_how_to_win_matches_the_rules():
    assert cardline_v0.raw_env.how_to_win == how_to_win("cardline_v0")
    person = Table("cardline_v0", "random", seed=3)
    told = person.story()
    assert told[0].startswith("new game with the Marvel deck")
    mine = 0
    while not person.is_over():
        action = person.legal_actions()[0][0]
        person.act(action)
        mine += 1
        told += person.story()
    placements = [line for line in told if " placed " in line and "last card" not in line]
    assert sum(line.startswith("you placed") for line in placements) == mine
    assert len(placements) == person.state.turns
    assert told[-1].startswith(("game over", "the game stops"))
