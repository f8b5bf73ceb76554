"""Promise War at a person's table: the event lines each seat reads (PW-3..PW-7 of
envs/rulebooks/promise_war_v0.md), that hidden cards reach only their owner, the table view and
its SVG, the render.

Decks are fixed through reset options (top card first); hands are the first 3 cards.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from cardarena.agents.table import Table
from cardarena.envs import promise_war_v0
from cardarena.envs.core.events import PUBLIC, visible_events
from cardarena.envs.promise_war.view import WIDTH, table_view
from cardarena.envs.rules_docs import how_to_win


def table(*decks, **config):
    env = promise_war_v0.raw_env(render_mode="ansi", num_players=len(decks), **config)
    env.record_events()
    env.reset(seed=0, options={"decks": [list(d) for d in decks]})
    return env


def play(env, *powers):
    for power in powers:
        env.step(power)


def lines(env, seat):
    return [env.describe_event(e, seat) for e in visible_events(env.game_state.events, seat)]


def actions(env, seat):
    if env.game_state.current_player() != seat:
        return []
    return [(int(a), f"play power {a}") for a in np.flatnonzero(env.legal_mask())]


#: p0 takes tricks 1-4 (9 vs 1), then trick 5 ties at 5; the tiebreak 8 vs 6 moves 8 cards.
TIEBREAK_DECKS = ([9, 9, 9, 9, 5, 2, 3, 8], [1, 1, 1, 1, 5, 4, 4, 6])


def test_a_trick_tells_the_pick_to_its_owner_the_reveal_and_the_winner_to_all():
    env = table([7, 2, 3, 4], [5, 1, 1, 1])
    play(env, 7, 5)
    assert lines(env, 0) == [
        "you picked 7 face down",
        "trick 1 revealed: you 7, player_1 5",
        "you take trick 1 (2 cards): won 0 -> 2",
        "everyone draws back up to 3: you draw 1 (0 left in your deck), player_1 draws 1 "
        "(0 left in their deck)",
    ]
    assert lines(env, 1) == [
        "you picked 5 face down",
        "trick 1 revealed: player_0 7, you 5",
        "player_0 takes trick 1 (2 cards): won 0 -> 2",
        "everyone draws back up to 3: player_0 draws 1 (0 left in their deck), you draw 1 "
        "(0 left in your deck)",
    ]


def test_a_tiebreak_that_moves_a_victory_pile_is_told_with_face_down_counts_only():
    env = table(*TIEBREAK_DECKS)
    play(env, 9, 1, 9, 1, 9, 1, 9, 1)
    start = len(env.game_state.events)
    play(env, 5, 5, 8, 6)
    events = env.game_state.events[start:]
    mine = [env.describe_event(e, 0) for e in visible_events(events, 0)]
    theirs = [env.describe_event(e, 1) for e in visible_events(events, 1)]
    assert mine == [
        "you picked 5 face down",
        "trick 5 revealed: you 5, player_1 5",
        "tie at 5 between you and player_1: a tiebreak for the whole pot",
        "the tied players draw back up to 3: you draw 1 (0 left in your deck), player_1 draws 1 "
        "(0 left in their deck)",
        "you picked 8 to play face up (hidden until every tied player has picked)",
        "trick 5 tiebreak revealed: you 8 (+2 face down), player_1 6 (+2 face down)",
        "you put 2 and 3 face down into the pot",
        "you win the tiebreak and take the pot of trick 5 (8 cards, 4 of them face down): "
        "won 8 -> 16",
        "you have no cards left and sit out for the rest of the game",
        "player_1 has no cards left and sits out for the rest of the game",
        "game over after 5 tricks (cards won: you 16, player_1 0): you win",
    ]
    assert "you put 4 and 4 face down into the pot" in theirs
    assert not any("2 and 3" in line for line in theirs)
    assert (
        "player_0 wins the tiebreak and takes the pot of trick 5 (8 cards, 4 of them face down): "
        "won 8 -> 16" in theirs
    )
    assert theirs[-1] == "game over after 5 tricks (cards won: player_0 16, you 0): player_0 wins"


def test_private_events_reach_only_their_owner():
    env = table(*TIEBREAK_DECKS)
    play(env, 9, 1, 9, 1, 9, 1, 9, 1, 5, 5, 8, 6)
    private = [e for e in env.game_state.events if e.seen_by != PUBLIC]
    assert {e.kind for e in private} == {"picked", "put_face_down"}
    for seat in range(2):
        seen = visible_events(env.game_state.events, seat)
        assert all(e.seen_by in (PUBLIC, seat) for e in seen)
        assert all(e.fields["seat"] == e.seen_by for e in private)
        assert sum(e.kind == "picked" for e in seen) == 6  # five tricks and one tiebreak


def test_a_tied_player_without_cards_drops_out_and_the_last_one_takes_the_pot():
    env = table([5], [5, 3])
    play(env, 5, 5)
    assert lines(env, 0)[2:5] == [
        "tie at 5 between you and player_1: a tiebreak for the whole pot",
        "you have no card left and drop out of the tiebreak",
        "player_1 is the last tied player with cards and takes the pot of trick 1 without "
        "playing (2 cards): won 0 -> 2",
    ]
    assert lines(env, 1)[-1] == "game over after 1 trick (cards won: player_0 0, you 2): you win"


def test_a_pot_with_nobody_left_is_discarded_and_a_tie_for_the_top_is_told():
    env = table([5], [5])
    play(env, 5, 5)
    told = lines(env, 0)
    assert "no tied player has a card left: the pot of trick 1 (2 cards) is discarded" in told
    assert told[-1].endswith("you and player_1 tie for the most cards")


def test_the_cap_is_told():
    env = table([5, 5, 5, 5], [4, 4, 4, 4], max_tricks=1)
    play(env, 5, 4)
    assert lines(env, 1)[-1] == (
        "the game stops at the cap of 1 trick with no winner (cards won: player_0 2, you 0)"
    )


def test_three_players_sitting_out_and_turn_order_are_told():
    env = table([9, 9, 9, 9], [1], [2, 2, 2, 2])
    play(env, 9, 1, 2)
    told = lines(env, 2)
    assert told[:3] == [
        "you picked 2 face down",
        "trick 1 revealed: player_0 9, player_1 1, you 2",
        "player_0 takes trick 1 (3 cards): won 0 -> 3",
    ]
    assert "player_1 has no cards left and sits out for the rest of the game" in told
    assert env.game_state.current_player() == 0


# --- what a seat sees: the view and its leaks -------------------------------------------------
def test_the_view_shows_the_own_pick_to_its_owner_only():
    env = table([7, 2, 3, 4], [5, 1, 1, 1])
    play(env, 7)
    mine, theirs = table_view(env.game_state, 0), table_view(env.game_state, 1)
    assert mine["own_pick"] == 7 and mine["hand"] == [2, 3]
    assert theirs["own_pick"] is None and theirs["hand"] == [1, 1, 5]
    assert mine["seats"][0]["has_picked"] and theirs["seats"][0]["has_picked"]
    assert 7 not in [v for v in theirs["pot"]["face_up"]]
    assert env.table_view(1) == theirs


@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_views_and_event_lines_survive_resampling_the_hidden_cards(num_players):
    """A seat's view and story equal those of any state it cannot tell apart."""
    env = promise_war_v0.raw_env(num_players=num_players, decks=[1, 1, 2, 2, 3, 3, 4, 5])
    env.record_events()
    rng = np.random.default_rng(num_players)
    checked = 0
    for game in range(4):
        env.reset(seed=game)
        state = env.game_state
        while not (state.is_terminal() or state.is_truncated()):
            json.dumps([table_view(state, 0), [e.to_json() for e in state.events]])
            for seat in range(num_players):
                twin = state.resample_from_infostate(seat, rng)
                assert table_view(twin, seat) == table_view(state, seat)
                assert twin.events == visible_events(state.events, seat)
                checked += 1
            state.apply_legal_action(rng.choice(np.flatnonzero(state.legal_action_mask())))
    assert checked > 50


def test_an_opponents_hidden_hand_changes_under_resampling_so_the_test_is_not_empty():
    env = table([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 5, 6, 7, 8, 9])
    rng = np.random.default_rng(0)
    hands = {tuple(table_view(env.game_state.resample_from_infostate(0, rng), 1)["hand"])
             for _ in range(20)}  # fmt: skip
    assert len(hands) > 1


# --- the picture --------------------------------------------------------------------------------
def clickable(svg):
    return [int(a) for a in re.findall(r'class="act" data-action="(\d+)"', svg)]


@pytest.mark.parametrize("num_players", range(2, 9))
def test_the_svg_draws_every_seat_the_pot_and_a_clickable_card_per_legal_action(num_players):
    env = promise_war_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(0)
    for _ in range(num_players + 1):  # into the second trick: a reveal to show
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    seat = env.game_state.current_player()
    view = env.table_view(seat)
    svg = env.table_svg(view, actions(env, seat))
    root = ET.fromstring(svg)
    assert float(root.get("width")) <= WIDTH
    for name in env.possible_agents:
        assert name in svg
    assert sorted(set(clickable(svg))) == sorted(a for a, _ in actions(env, seat))
    assert len(clickable(svg)) == len(view["hand"])
    for power in view["hand"]:
        assert f">{power}</text>" in svg
    other = (seat + 1) % num_players
    assert clickable(env.table_svg(env.table_view(other), [])) == []


def test_the_svg_of_a_tiebreak_shows_face_down_backs_with_their_count_and_the_own_pick():
    env = table(*TIEBREAK_DECKS)
    play(env, 9, 1, 9, 1, 9, 1, 9, 1, 5, 5, 8)
    svg = env.table_svg(env.table_view(0), [])
    assert "tiebreak between you and player_1" in svg
    assert "you picked 8 to play face up" in svg
    assert 'class="back"' in svg
    env.step(6)
    over = env.table_svg(env.table_view(1), [])
    assert "game over after 5 tricks, you lost" in over


# --- text play ------------------------------------------------------------------------------
def test_the_render_header_is_never_stale():
    env = table(*TIEBREAK_DECKS)
    play(env, 9, 1, 9, 1, 9, 1, 9, 1, 5, 5)
    text = env.render()
    assert text.splitlines()[0] == (
        "Promise War: trick 5, tiebreak between player_0 and player_1; to act: player_0 "
        "(pick a card to play face up)"
    )
    assert "player_0's hand: 2 3 8" in text
    play(env, 8)
    assert "player_0: hand 2, deck 0, won 8 [picked; last revealed 5]" in env.render()
    env.step(6)
    assert env.render().splitlines()[0] == (
        "Promise War: game over after 5 tricks: player_0 wins (cards won: player_0 16, player_1 0)"
    )


def test_a_whole_game_at_the_table_tells_a_story_and_how_to_win_matches_the_rules():
    assert promise_war_v0.raw_env.how_to_win == how_to_win("promise_war_v0")
    person = Table("promise_war_v0", "random", seed=3, config={"num_players": 3})
    told = person.story()
    while not person.is_over():
        person.act(person.legal_actions()[0][0])
        told += person.story()
    assert any(line.startswith("you picked ") for line in told)
    assert not any(line.startswith(("player_1 picked", "player_2 picked")) for line in told)
    assert told[-1].startswith(("game over after", "the game stops at the cap"))
    assert person.outcome() is not None
