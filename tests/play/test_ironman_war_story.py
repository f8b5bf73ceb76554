"""Iron Man 2 Game of War at a person's table: the event lines (envs/rulebooks/ironman_war_v0.md),
the seat's view and its picture, and the text render's header.

Scenarios fix round 1's hands through reset options; the hidden-information tests compare a
seat's view and event lines with those of ``resample_from_infostate`` twins.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from cardarena.envs import ironman_war_v0
from cardarena.envs.core.events import visible_events
from cardarena.envs.ironman_war.rules import CONCEDE, KINDS, SHIELD_BASE
from cardarena.envs.ironman_war.view import table_svg, table_view

A1, A2, A3, A4, A5, UP, SH, FA = range(8)
IRON, WAR = 0, 1


def scenario(iron_hand, war_hand, **config):
    """A recording raw env whose round 1 hands are fixed (decks of attack 1 after them)."""
    env = ironman_war_v0.raw_env(render_mode="ansi", **config)
    env.record_events()
    env.reset(
        seed=0,
        options={
            "hands": {
                "iron_man": [KINDS[k] for k in iron_hand],
                "war_machine": [KINDS[k] for k in war_hand],
            },
            "decks": {"iron_man": ["attack_1"] * 10, "war_machine": ["attack_1"] * 10},
        },
    )
    return env


def play(env, *actions):
    for action in actions:
        env.step(action)


def lines(env, seat, start=0):
    """The lines ``seat`` read, from event ``start`` of the whole log on."""
    events = env.game_state.events[start:]
    return [env.describe_event(event, seat) for event in visible_events(events, seat)]


def test_im14_story_for_both_seats_ends_with_the_unseen_battles_and_the_round():
    """IM-14 played out: a concession, the shield's target, whose cards beat whose, and the
    battles resolved after iron_man's hand ran out, each as a line."""
    env = scenario([A3, A1, A1, A3, SH], [A5, A1, A1, A3, A2])
    play(env, A3, A1, A1, A5, A1, A1)  # commits: battle 1 attack 3 vs attack 5
    play(env, A3, A3, SH, SHIELD_BASE + A5, CONCEDE, A2)  # war_machine's standoff pick
    iron = lines(env, IRON)
    assert iron[:7] == [
        "you put Attack 3 face down for battle 1",
        "you put Attack 1 face down for battle 2",
        "you put Attack 1 face down for battle 3",
        "war_machine puts a card face down for battle 1",
        "war_machine puts a card face down for battle 2",
        "war_machine puts a card face down for battle 3",
        "battle 1 begins: you flip Attack 3, war_machine flips Attack 5",
    ]
    expected = [
        "war_machine leads 5 to 3: you must play a card face up or concede",
        "you play Attack 3 face up",
        "you lead 6 to 5: war_machine must play a card face up or concede",
        "war_machine plays Attack 3 face up",
        "war_machine leads 8 to 6: you must play a card face up or concede",
        "you play Energy Shield face up",
        "your Energy Shield discards war_machine's Attack 5",
        "you lead 6 to 3: war_machine must play a card face up or concede",
        "war_machine concedes battle 1",
        "you win battle 1: your Attack 3 + Attack 3 + Energy Shield = 6 beat war_machine's "
        "Attack 3 = 3",
        # iron_man's hand is empty now: the rest of the round resolves without asking him
        "battle 2 begins: you flip Attack 1, war_machine flips Attack 1",
        "standoff at 1 to 1 with 1 card each: only war_machine can play, face down",
        "war_machine picks a card face down",
        "the face-down cards are revealed: you have no card, war_machine plays Attack 2",
        "war_machine leads 3 to 1",
        "you have no cards left to play: you concede battle 2",
        "war_machine wins battle 2: war_machine's Attack 1 + Attack 2 = 3 beat your Attack 1 = 1",
        "battle 3 begins: you flip Attack 1, war_machine flips Attack 1",
        "standoff at 1 to 1 with 1 card each: nobody has a card left",
        "battle 3 is a draw: your Attack 1 = 1 and war_machine's Attack 1 = 1 are discarded",
        "round 1 ends: you won 1, war_machine 1, 1 drawn; nobody moves (it takes at least 2 "
        "wins and more than the other)",
        "round 2 begins (pawns on the Victory Cards 1..5: you on 1, war_machine on 1)",
        "you draw 7 (hand 7, deck 3); war_machine draws 7 (hand 7, deck 3)",
    ]
    assert iron[7:] == expected
    war = lines(env, WAR)
    assert "iron_man's Energy Shield discards your Attack 5" in war
    assert "you concede battle 1" in war
    assert "you pick Attack 2 face down" in war
    assert (
        "iron_man wins battle 1: iron_man's Attack 3 + Attack 3 + Energy Shield = 6 beat your "
        "Attack 3 = 3" in war
    )
    assert "iron_man puts a card face down for battle 1" in war
    assert not any("you put" in line for line in war[:3])
    for event in env.game_state.events:
        json.dumps(event.to_json())


def test_a_win_names_the_winners_cards_under_the_winner():
    """The issue's "won by war_machine (final_attack vs upgrade)": the line says whose is whose."""
    env = scenario([A1, A1, A1, UP, A1], [A2, A1, A1, FA])
    play(env, A1, A1, A1, A2, A1, A1)
    start = len(env.game_state.events)
    play(env, UP, FA, CONCEDE)  # 2 (2 cards) leads 2; Final Attack makes 8; concede
    assert lines(env, IRON, start)[:5] == [
        "you play Upgrade face up",
        "you lead 2 to 2 with more cards (2 to 1): war_machine must play a card face up or concede",
        "war_machine plays Final Attack (6) face up",
        "war_machine leads 8 to 2: you must play a card face up or concede",
        "you concede battle 1",
    ]
    assert lines(env, IRON, start)[5] == (
        "war_machine wins battle 1: war_machine's Attack 2 + Final Attack (6) = 8 beat your "
        "Attack 1 + Upgrade = 2"
    )


def test_cancelled_specials_and_a_shield_without_target_are_told():
    env = scenario([UP, A1], [SH, A1])
    play(env, UP, A1, SH, A1)
    assert lines(env, IRON)[4:9] == [
        "battle 1 begins: you flip Upgrade, war_machine flips Energy Shield",
        "your Upgrade and war_machine's Energy Shield are both special cards: they cancel and "
        "are discarded",
        "standoff at 0 to 0 with 0 cards each: nobody has a card left",
        "battle 1 is a draw: no card is left in it",
        "battle 2 begins: you flip Attack 1, war_machine flips Attack 1",
    ]
    env = scenario([A1, SH], [A1])
    play(env, A1, SH, A1)
    assert lines(env, WAR)[6:11] == [
        "battle 2 begins: you have no card, iron_man flips Energy Shield",
        "iron_man's Energy Shield finds no card of you to discard: no effect",
        "iron_man leads 0 to 0 with more cards (1 to 0)",
        "you have no cards left to play: you concede battle 2",
        "iron_man wins battle 2: iron_man's Energy Shield = 0 beats your empty side = 0",
    ]


def test_own_face_down_cards_are_private_events_and_in_the_render():
    env = scenario([A3, UP, A1, A2], [A5, A1, A1, A2])
    play(env, A3)
    state = env.game_state
    committed = [e for e in state.events if e.kind == "committed"]
    assert [e.seen_by for e in committed] == [IRON]
    assert lines(env, IRON) == ["you put Attack 3 face down for battle 1"]
    assert lines(env, WAR) == ["iron_man puts a card face down for battle 1"]
    text = env.render()
    # the header names the battle the menu commits to, not the battle last fought
    assert "round 1, commit for battle 2 of 3; to act: iron_man (commit)" in text
    assert "iron_man's face-down cards: battle 1 attack_3" in text
    assert env.game_state.action_to_string(UP) == "commit upgrade to battle 2"
    play(env, UP, A1)
    text = env.render()  # war_machine to act: iron_man's cards are not shown
    assert "commit for battle 1 of 3; to act: war_machine" in text
    assert "face-down cards" not in text
    assert table_view(state, WAR)["your_face_down"] == {}
    assert table_view(state, IRON)["your_face_down"] == {"1": "attack_3", "2": "upgrade",
                                                         "3": "attack_1"}  # fmt: skip


def test_render_lists_the_winners_card_first_in_last_round():
    env = scenario([A1, A5, A2], [A3, A3, A2], variant="beginner")
    play(env, A1, A5, A2, A3, A3, A2)
    text = env.render()
    assert (
        "last round: 1 won by war_machine (attack_3 vs attack_1); 2 won by iron_man "
        "(attack_5 vs attack_3); 3 draw (iron_man's attack_2 vs war_machine's attack_2)" in text
    )
    told = lines(env, IRON)
    assert "war_machine wins battle 1: war_machine's Attack 3 = 3 beats your Attack 1 = 1" in told
    assert "battle 3 is a draw: your Attack 2 = 2 and war_machine's Attack 2 = 2 are discarded" in (
        told
    )
    assert "round 1 ends: you won 1, war_machine 1, 1 drawn; nobody moves" in " ".join(told)


def test_the_game_end_is_told():
    env = scenario([A5, A5, A5], [A1, A1, A1], variant="beginner", victory_cards=3)
    play(env, A5, A5, A5, A1, A1, A1)
    told = lines(env, IRON)
    assert told[-2:] == [
        "round 1 ends: you won 3, war_machine 0; your pawn moves from Victory Card 1 to 3 of 3",
        "your pawn reaches the last Victory Card (3): you win the game",
    ]
    assert (
        lines(env, WAR)[-1]
        == "iron_man's pawn reaches the last Victory Card (3): iron_man wins the game"
    )
    view = table_view(env.game_state, WAR)
    assert view["finished"] and view["winner"] == "iron_man"


def test_no_events_unless_asked():
    env = ironman_war_v0.raw_env()
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.legal_mask())[0]))
    assert env.game_state.events is None


def _random_states(config, games, seed):
    """States along random games of a recording env (both seats act at random)."""
    rng = np.random.default_rng(seed)
    env = ironman_war_v0.raw_env(**config)
    env.record_events()
    for game in range(games):
        env.reset(seed=seed * 100 + game)
        while not (env.game_state.is_terminal() or env.game_state.is_truncated()):
            yield env
            legal = np.flatnonzero(env.legal_mask())
            env.step(int(rng.choice(legal)))
        yield env


@pytest.mark.parametrize(
    "config", [{"max_rounds": 8}, {"variant": "beginner", "max_rounds": 8}], ids=str
)
def test_views_and_event_lines_hold_nothing_a_seat_cannot_see(config):
    rng = np.random.default_rng(5)
    own_hidden_seen = False
    for env in _random_states(config, games=3, seed=7):
        state = env.game_state
        for seat in (IRON, WAR):
            twin = state.resample_from_infostate(seat, rng)
            view = table_view(state, seat)
            assert view == table_view(twin, seat)
            mine = [env.describe_event(e, seat) for e in visible_events(state.events, seat)]
            assert mine == [env.describe_event(e, seat) for e in twin.events]
            assert json.loads(json.dumps(view)) == view
            if state.face_down[seat].any():
                # a seat's own hidden card appears in its own view, never in the other's
                battle = int(np.flatnonzero(state.face_down[seat])[0])
                kind = KINDS[state.committed[seat, battle]]
                assert view["your_face_down"][str(battle + 1)] == kind
                assert view["battles"][battle]["your_face_down"] == kind
                theirs = table_view(state, 1 - seat)["battles"][battle]["your_face_down"]
                other_card = state.committed[1 - seat, battle]
                assert theirs == (KINDS[other_card] if state.face_down[1 - seat, battle] else None)
                own_hidden_seen = True
    assert own_hidden_seen


def test_svg_has_the_cards_and_one_clickable_element_per_legal_action():
    seen = set()
    for env in _random_states({"max_rounds": 6}, games=2, seed=3):
        state = env.game_state
        seat = state.current_player()
        if seat < 0:
            svg = env.table_svg(env.table_view(IRON), [])
            assert "game over" in svg and 'class="act"' not in svg
            continue
        legal = [(int(a), state.action_to_string(int(a))) for a in np.flatnonzero(env.legal_mask())]
        svg = table_svg(env.table_view(seat), legal)
        clickable = {int(a) for a in re.findall(r'data-action="(\d+)"', svg)}
        assert clickable == {a for a, _ in legal}
        assert "ATTACK" in svg and "your hand" in svg
        if any(a == CONCEDE for a, _ in legal):
            assert "concede battle" in svg
        seen.add(str(state.decision))
    assert len(seen) >= 3  # commit, play or concede, and at least one more decision drawn
    # the other player's face-down cards are backs; the viewer's own are faces
    env = scenario([A3, UP, A1, A2], [A5, A1, A1, A2])
    play(env, A3, UP, A1, A5, A1)
    svg = env.table_svg(env.table_view(IRON), [])
    assert svg.count('class="back"') == 2  # war_machine's battle 1 and 2 cards
    assert "yours, face down" in svg and "UPGRADE" in svg


def test_the_battle_header_counts_one_card_in_the_singular():
    env = scenario([A3, A1, A1, A3], [A5, A1, A1, A3])
    play(env, A3, A1, A1, A5, A1, A1)  # battle 1: attack 3 against attack 5, one card each
    state = env.game_state
    legal = [(int(a), state.action_to_string(int(a))) for a in np.flatnonzero(env.legal_mask())]
    svg = env.table_svg(env.table_view(IRON), legal)
    assert "you: total 3, 1 card<" in svg and "war_machine: total 5, 1 card<" in svg
    assert "1 cards" not in svg
    play(env, A3)
    assert "iron_man: total 6, 2 cards<" in env.table_svg(env.table_view(WAR), [])


def test_shield_targets_are_clickable_cards():
    env = scenario([A3, A1, A1, A3, SH], [A5, A1, A1, A3, A2])
    play(env, A3, A1, A1, A5, A1, A1, A3, A3, SH)
    state = env.game_state
    legal = [(int(a), state.action_to_string(int(a))) for a in np.flatnonzero(env.legal_mask())]
    assert [a for a, _ in legal] == [SHIELD_BASE + A3, SHIELD_BASE + A5]
    view = env.table_view(IRON)
    assert view["phase"] == "shield_target" and view["in_battle"][WAR] == {
        "attack_3": 1,
        "attack_5": 1,
    }
    svg = env.table_svg(view, legal)
    assert f'data-action="{SHIELD_BASE + A5}"' in svg and "shield attack_5" in svg
