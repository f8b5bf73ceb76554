"""Scenario tests for envs/rulebooks/ironman_war_v0.md (IM-1..IM-14) and the D-n decisions, on the
pure rules.

Hands and decks are fixed through reset options (top card first). With exactly three cards in
hand a player commits them all, so every battle of that round resolves without a question.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from cardarena.envs.core import NO_PLAYER, CheckedActions, IllegalActionError, InvalidConfigError
from cardarena.envs.ironman_war.rules import (
    AGENTS,
    COMMIT,
    CONCEDE,
    DEFAULT_DECK,
    DRAW,
    GAME_OVER,
    KINDS,
    NO_CARD,
    NUM_ACTIONS,
    PLAY_OR_CONCEDE,
    SHIELD_BASE,
    SHIELD_TARGET,
    STANDOFF_PLAY,
    UNDECIDED,
    make_game,
)

A1, A2, A3, A4, A5, UP, SH, FA = range(8)
IM, WM = 0, 1
VALUES = (1, 2, 3, 4, 5, 0, 0, 6)  # IM-8, written out independently of the module
FILLER = [A1] * 10
FIXED = ["attack_1", "attack_2", "upgrade", "attack_3", "energy_shield", "attack_4", "final_attack"]


def names(kinds):
    return [KINDS[k] for k in kinds]


def deal(iron, war, deck_iron=FILLER, deck_war=FILLER, seed=0, **config):
    """A game whose round-1 hands are ``iron`` / ``war`` and whose decks are fixed."""
    game = make_game(**config)
    options = {
        "hands": {"iron_man": names(iron), "war_machine": names(war)},
        "decks": {"iron_man": names(deck_iron), "war_machine": names(deck_war)},
    }
    return game.new_initial_state(np.random.default_rng(seed), options)


def commit(state, seat, *kinds):
    """Commit ``kinds`` for battles 1, 2, 3 in order, checking each decision is asked of seat."""
    for slot, kind in enumerate(kinds):
        assert (state.decision, state.current_player(), state.commit_slot) == (COMMIT, seat, slot)
        state.apply_action(kind)


def play(state, seat, decision, action):
    assert (state.current_player(), state.decision) == (seat, decision)
    state.apply_action(action)


def hand(state, seat):
    return sorted(np.repeat(np.arange(8), state.hands[seat]).tolist())


def legal(state):
    return np.flatnonzero(state.legal_action_mask()).tolist()


def counts(kinds):
    return np.bincount(kinds, minlength=8).tolist()


def snapshot(state):
    """Every attribute (private ones and the generator state included), for equality checks."""
    values = {}
    for name, value in vars(state).items():
        if isinstance(value, np.random.Generator):
            values[name] = repr(value.bit_generator.state)
        elif isinstance(value, np.ndarray):
            values[name] = (value.dtype.str, value.tolist())
        else:
            values[name] = repr(value)
    return values


PUBLIC = (
    "round", "battle", "decision", "current_seat", "commit_slot", "pawns", "winner",
    "hand_sizes", "deck_sizes", "discards", "table", "battle_cards", "battle_totals",
    "battle_card_counts", "face_down", "flipped", "has_pending", "last_reveal",
    "battle_results", "battles_won", "previous_results", "previous_flipped", "discard_sizes",
)  # fmt: skip


def view(state, seat):
    """What ``seat`` may see according to the IronManWarState docstring."""
    seen = {name: np.asarray(getattr(state, name)).tolist() for name in PUBLIC}
    seen["own_hand"] = state.hands[seat].tolist()
    seen["own_deck"] = state.deck_counts[seat].tolist()
    seen["own_committed"] = state.committed[seat].tolist()
    seen["own_pending"] = state.pending_play[seat]
    return seen


# --- IM-1 setup --------------------------------------------------------------------------------
def test_im1_default_deck_is_the_55_card_clash_of_the_lightsabers_composition():
    expected = {
        "attack_1": 10, "attack_2": 10, "attack_3": 10, "attack_4": 3, "attack_5": 2,
        "upgrade": 8, "energy_shield": 8, "final_attack": 4,
    }  # fmt: skip
    assert expected == DEFAULT_DECK
    game = make_game()
    assert game.deck_dict() == expected and game.deck_size == 55
    assert game.agent_names == AGENTS == ("iron_man", "war_machine")
    assert game.num_actions == NUM_ACTIONS == 17
    assert game.zero_sum is True  # IM-12: +1 / -1, or 0 / 0 at the cap


def test_state_names_its_agents_for_the_shared_checked_apply_action():
    state = make_game().new_initial_state(np.random.default_rng(0))
    assert isinstance(state, CheckedActions)
    assert state.agent_names == AGENTS


def test_im1_setup_shuffles_each_own_deck_from_the_seeded_rng_and_pawns_start_on_card_1():
    game = make_game()
    a = game.new_initial_state(np.random.default_rng(7))
    b = game.new_initial_state(np.random.default_rng(7))
    c = game.new_initial_state(np.random.default_rng(8))
    assert snapshot(a) == snapshot(b)
    assert a.deck_order(0) != c.deck_order(0)
    assert a.deck_order(0) != a.deck_order(1)  # each player shuffles their own deck
    assert a.pawns == [1, 1] and a.round == 1 and a.winner == NO_PLAYER
    assert a.scores() == (1, 1)
    for seat in range(2):
        assert a.hand_sizes[seat] == 7 and a.deck_sizes[seat] == 48
        owned = a.hands[seat] + np.bincount(a.deck_order(seat), minlength=8)
        assert owned.tolist() == list(DEFAULT_DECK.values())


def test_im1_bad_options_are_refused_before_the_rng_is_touched():
    game = make_game()
    rng = np.random.default_rng(3)
    before = repr(rng.bit_generator.state)
    bad = {"hands": {"iron_man": ["attack_1"], "war_machine": ["laser"]}}
    with pytest.raises(InvalidConfigError, match="laser"):
        game.new_initial_state(rng, bad)
    assert repr(rng.bit_generator.state) == before


def test_im1_beginner_drops_special_cards_from_the_configured_deck():
    game = make_game("beginner")
    assert game.deck_dict() == {**DEFAULT_DECK, "upgrade": 0, "energy_shield": 0, "final_attack": 0}
    assert game.deck_size == 35
    custom = make_game("beginner", deck={"attack_2": 4, "upgrade": 3, "final_attack": 1})
    assert custom.deck == (0, 4, 0, 0, 0, 0, 0, 0)
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.hands[:, UP:].sum() == 0 and state.deck_counts[:, UP:].sum() == 0


@pytest.mark.parametrize("key", ["hands", "decks"])
@pytest.mark.parametrize("special", ["upgrade", "energy_shield", "final_attack"])
def test_im1_beginner_special_card_in_reset_options_raises(key, special):
    game = make_game("beginner")
    options = {key: {"iron_man": ["attack_1"], "war_machine": ["attack_2", special]}}
    with pytest.raises(InvalidConfigError, match=rf"\['war_machine'\]\[1\].*{special}"):
        game.new_initial_state(np.random.default_rng(0), options)


def test_im1_hands_option_alone_deals_the_rest_of_the_configured_deck_shuffled():
    game = make_game()
    options = {"hands": {"iron_man": ["attack_5", "attack_5"], "war_machine": ["upgrade"]}}
    state = game.new_initial_state(np.random.default_rng(0), options)
    assert hand(state, IM) == [A5, A5] and hand(state, WM) == [UP]
    assert state.deck_sizes == [53, 54]
    for seat in range(2):
        assert state.card_counts(seat).tolist() == list(DEFAULT_DECK.values())


def test_im1_four_steps_win_with_five_victory_cards():
    state = deal([A5, A5, A5], [A1, A1, A1], deck_iron=[A5] * 7, deck_war=[A1] * 7)
    commit(state, IM, A5, A5, A5)
    commit(state, WM, A1, A1, A1)
    assert state.pawns == [3, 1] and not state.is_terminal()
    commit(state, IM, A5, A5, A5)
    commit(state, WM, A1, A1, A1)
    for _ in range(3):  # war_machine loses every battle but holds cards, so it is asked
        play(state, WM, PLAY_OR_CONCEDE, CONCEDE)
    assert state.pawns == [5, 1] and state.is_terminal() and state.returns() == (1.0, -1.0)
    assert state.scores() == (5, 1)  # scores are the pawn positions


# --- IM-2 drawing ------------------------------------------------------------------------------
def test_im2_round_start_draws_seven_from_the_top_of_the_own_deck():
    game = make_game()
    deck_iron = [A1, A2, A3, A4, A5, UP, SH, FA, A1, A2]
    deck_war = [FA] * 3 + [A2] * 6
    options = {"decks": {"iron_man": names(deck_iron), "war_machine": names(deck_war)}}
    state = game.new_initial_state(np.random.default_rng(0), options)
    assert hand(state, IM) == sorted(deck_iron[:7]) and hand(state, WM) == sorted(deck_war[:7])
    assert state.deck_order(IM) == deck_iron[7:] and state.deck_sizes == [3, 2]


def test_im2_unplayed_cards_are_kept_and_there_is_no_hand_limit():
    state = deal([A3] * 10, [A2] * 10, deck_iron=[A4] * 9, deck_war=[A1] * 9)
    commit(state, IM, A3, A3, A3)
    commit(state, WM, A2, A2, A2)
    # war_machine loses each battle holding cards; conceding keeps them for the next round
    for _ in range(3):
        play(state, WM, PLAY_OR_CONCEDE, CONCEDE)
    assert state.round == 2
    assert hand(state, IM) == [A3] * 7 + [A4] * 7 and state.hand_sizes == [14, 14]
    assert hand(state, WM) == [A1] * 7 + [A2] * 7


def test_im2_discard_pile_is_reshuffled_at_once_when_the_last_card_is_drawn():
    # Round 1 hands are fixed; the 7-card deck is drawn out at round 2 start.
    state = deal([A3, A3, A3], [A1, A1, A1], deck_iron=[A5] * 7, deck_war=[A2] * 7)
    commit(state, IM, A3, A3, A3)
    commit(state, WM, A1, A1, A1)
    assert state.round == 2
    assert hand(state, IM) == [A5] * 7 and hand(state, WM) == [A2] * 7
    assert state.deck_sizes == [3, 3] and state.discards.sum() == 0
    assert sorted(state.deck_order(IM)) == [A3] * 3 and sorted(state.deck_order(WM)) == [A1] * 3
    assert state.deck_counts[IM].tolist() == counts([A3] * 3)


def test_im2_empty_deck_with_cards_discarded_since_reshuffles_on_the_next_draw():
    game = make_game()
    options = {"decks": {"iron_man": names([A4] * 7), "war_machine": names([A1] * 7)}}
    state = game.new_initial_state(np.random.default_rng(0), options)
    assert state.deck_sizes == [0, 0]  # last card drawn while the discard pile was empty
    commit(state, IM, A4, A4, A4)
    commit(state, WM, A1, A1, A1)
    for _ in range(3):
        play(state, WM, PLAY_OR_CONCEDE, CONCEDE)
    # Round 2: each discard pile (3 cards) becomes the deck and is drawn out.
    assert state.round == 2 and hand(state, IM) == [A4] * 7
    assert hand(state, WM) == [A1] * 7 and state.deck_sizes == [0, 0]


def test_im2_drawing_stops_when_deck_and_discard_pile_are_both_empty():
    state = deal([A3, A3, A3], [A1, A1, A1], deck_iron=[], deck_war=[A2])
    commit(state, IM, A3, A3, A3)
    commit(state, WM, A1, A1, A1)
    assert state.round == 2 and hand(state, IM) == [A3] * 3 and state.hand_sizes == [3, 4]
    assert state.deck_sizes == [0, 0] and state.discards.sum() == 0


# --- IM-3 commit -------------------------------------------------------------------------------
def test_im3_each_player_commits_battle_1_2_3_in_turn_iron_man_first():
    state = deal([A1, A2, A3, A4], [A5, A5, A5, A5])
    assert legal(state) == [A1, A2, A3, A4]
    assert state.action_to_string(A2) == "commit attack_2 to battle 1"
    commit(state, IM, A2, A4, A1)
    # war_machine has a single legal kind and is still asked three times (C-2)
    for slot in range(3):
        assert (state.current_player(), state.commit_slot) == (WM, slot)
        assert legal(state) == [A5]
        state.apply_action(A5)
    assert state.committed.tolist() == [[A2, A4, A1], [A5, A5, A5]]
    assert state.flipped[:, 0].tolist() == [A2, A5] and state.face_down.tolist() == [
        [False, True, True],
        [False, True, True],
    ]


def test_im3_committed_cards_are_hidden_from_the_opponent_until_flipped():
    base = deal([A1, A2, A3, A4, A5], [A5, A5, A5, A1])
    one, two = base.clone(), base.clone()
    commit(one, IM, A1, A2, A3)
    commit(two, IM, A5, A4, A1)
    assert view(one, WM) == view(two, WM)
    assert one.legal_action_mask().tolist() == two.legal_action_mask().tolist()
    assert view(one, IM) != view(two, IM)
    assert one.face_down[IM].tolist() == [True, True, True]
    assert one.flipped.tolist() == [[NO_CARD] * 3] * 2


def test_im3_fewer_than_three_cards_go_to_the_earliest_battles_and_battle_3_starts_empty():
    state = deal([A5, A4], [A1, A1, A1])
    commit(state, IM, A5, A4)
    assert state.face_down[IM].tolist() == [True, True, False]
    commit(state, WM, A1, A1, A1)
    # battles 1 and 2: war_machine loses empty-handed; battle 3: no card against 1
    assert state.previous_results == [IM, IM, WM]
    assert state.pawns == [2, 1]


def test_im3_a_player_with_no_cards_is_not_asked():
    state = deal([A2, A2, A2], [], deck_war=[A1] * 10)
    commit(state, IM, A2, A2, A2)
    # war_machine never committed: iron_man wins 3-0 and round 2 starts
    assert state.round == 2 and state.pawns == [3, 1] and state.current_player() == IM


# --- IM-4 battle start -------------------------------------------------------------------------
def test_im4_battle_start_flips_both_cards_and_the_loser_is_asked():
    state = deal([A2, A1, A1, A5], [A4, A1, A1, A1])
    commit(state, IM, A2, A1, A1)
    commit(state, WM, A4, A1, A1)
    assert state.battle == 0 and state.flipped[:, 0].tolist() == [A2, A4]
    assert state.last_reveal == [A2, A4]
    assert state.battle_cards[IM].tolist() == counts([A2])
    assert state.battle_cards[WM].tolist() == counts([A4])
    assert state.battle_totals == [2, 4] and state.battle_card_counts == [1, 1]
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)


def test_im4_im9_both_special_cards_at_battle_start_cancel_then_a_simultaneous_play():
    state = deal([UP, A1, A1, A2], [SH, A1, A1, A3])
    commit(state, IM, UP, A1, A1)
    commit(state, WM, SH, A1, A1)
    # no shield question: both are discarded with no effect
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    assert state.discards[IM].tolist() == counts([UP]) and state.discards[WM].tolist() == counts(
        [SH]
    )
    assert state.battle_cards.sum() == 0 and state.flipped[:, 0].tolist() == [UP, SH]
    assert state.last_reveal == [UP, SH]
    play(state, IM, STANDOFF_PLAY, A2)
    play(state, WM, STANDOFF_PLAY, A3)
    # 2 against 3: iron_man loses empty-handed; battles 2 and 3 are 1-1 standoffs with no cards
    assert state.previous_results == [WM, DRAW, DRAW]
    assert state.pawns == [1, 1]  # 1 win + 2 draws moves nobody (IM-11)


def test_im4_d5_special_flipped_against_no_card_takes_effect_without_a_question():
    state = deal([A1, A2], [A1, A1, SH, A1])
    commit(state, IM, A1, A2)
    commit(state, WM, A1, A1, SH)
    # battle 1: 1-1 standoff, only war_machine holds a card: it plays and leads
    play(state, WM, STANDOFF_PLAY, A1)
    # battle 2: 2 vs 1, war_machine empty-handed concedes; battle 3: shield vs nothing
    # has no target (no step) but counts as a card: 0 (1 card) beats 0 (0 cards)
    assert state.round == 2 and state.current_player() == IM and state.decision == COMMIT
    assert state.previous_results == [WM, IM, WM] and state.pawns == [1, 2]


def test_im4_d5_upgrade_flipped_against_no_card_wins_by_card_count():
    state = deal([A1], [A1, UP, A3])
    commit(state, IM, A1)
    commit(state, WM, A1, UP, A3)
    assert state.previous_results == [DRAW, WM, WM] and state.pawns == [1, 2]


# --- IM-5 standing -----------------------------------------------------------------------------
def test_im5_equal_totals_more_cards_is_winning():
    state = deal([A3, A1, A1, A1], [A1, A1, A1, A2, A3])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A1, A1, A1)
    play(state, WM, PLAY_OR_CONCEDE, A2)  # 3 (2 cards) beats 3 (1 card)
    assert state.battle_totals == [3, 3] and state.battle_card_counts == [1, 2]
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)
    play(state, IM, PLAY_OR_CONCEDE, A1)
    assert state.battle_totals == [4, 3]
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)


def test_im5_equal_totals_and_counts_is_a_standoff():
    state = deal([A2, A1, A1, A1, A4], [A2, A1, A1, A1, A3])
    commit(state, IM, A2, A1, A1)
    commit(state, WM, A2, A1, A1)
    assert state.battle_totals == [2, 2] and state.battle_card_counts == [1, 1]
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    play(state, IM, STANDOFF_PLAY, A1)
    play(state, WM, STANDOFF_PLAY, A1)
    assert state.battle_totals == [3, 3] and state.battle_card_counts == [2, 2]
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    play(state, IM, STANDOFF_PLAY, A4)
    play(state, WM, STANDOFF_PLAY, A3)  # 7 vs 6: war_machine loses with an empty hand
    assert state.previous_results == [IM, DRAW, DRAW]


def test_im5_im6_a_loser_still_behind_after_playing_is_asked_again():
    state = deal([A3, A1, A1, A4], [A2, A1, A1, A1, A1, A1])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A2, A1, A1)
    play(state, WM, PLAY_OR_CONCEDE, A1)  # 3 vs 3 with 2 cards against 1: war_machine leads
    play(state, IM, PLAY_OR_CONCEDE, A4)  # 7 vs 3
    play(state, WM, PLAY_OR_CONCEDE, A1)  # 7 vs 4, still losing: asked again
    assert state.battle_totals == [7, 4]
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)


def test_im5_upgrade_doubles_later_cards_and_a_second_upgrade_adds_0_but_counts_as_a_card():
    state = deal([A2, A5, A5, A1, A1], [UP, A1, A1, A2, UP, A3])
    commit(state, IM, A2, A5, A5)
    commit(state, WM, UP, A1, A1)
    assert state.battle_totals == [2, 0] and state.battle_card_counts == [1, 1]
    play(state, WM, PLAY_OR_CONCEDE, A2)  # (0 + 2) x 2 = 4
    assert state.battle_totals == [2, 4]
    play(state, IM, PLAY_OR_CONCEDE, A1)
    play(state, IM, PLAY_OR_CONCEDE, A1)  # 4 with 3 cards beats 4 with 2
    assert state.battle_totals == [4, 4] and state.battle_card_counts == [3, 2]
    play(state, WM, PLAY_OR_CONCEDE, UP)  # still 4 (not 8), now 3 cards: a standoff
    assert state.battle_totals == [4, 4] and state.battle_card_counts == [3, 3]
    # IM-7: only war_machine has a card left, so only war_machine plays
    assert (state.current_player(), state.decision) == (WM, STANDOFF_PLAY)
    play(state, WM, STANDOFF_PLAY, A3)  # (2 + 3) x 2 = 10: iron_man loses empty-handed
    # battles 2 and 3: 5 vs 1, war_machine has no card left and concedes
    assert state.previous_results == [WM, IM, IM] and state.pawns == [2, 1]


# --- IM-6 losing -------------------------------------------------------------------------------
def test_im6_the_loser_plays_or_concedes_and_the_winner_never_acts():
    state = deal([A1, A1, A1, A3, A2], [A3, A2, A2])
    commit(state, IM, A1, A1, A1)
    commit(state, WM, A3, A2, A2)
    assert state.current_player() == IM and legal(state) == [A2, A3, CONCEDE]
    assert state.action_to_string(A3) == "play attack_3"
    assert state.action_to_string(CONCEDE) == "concede"
    play(state, IM, PLAY_OR_CONCEDE, A2)  # 3 vs 3, 2 cards against 1: leads
    # war_machine is losing with an empty hand: it concedes automatically
    assert state.battle_results[0] == IM and state.battle == 1
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)
    assert legal(state) == [A3, CONCEDE]


def test_im6_empty_handed_loser_concedes_automatically_after_playing_its_last_card():
    state = deal([A1, A1, A1, A2], [A5, A5, A5])
    commit(state, IM, A1, A1, A1)
    commit(state, WM, A5, A5, A5)
    play(state, IM, PLAY_OR_CONCEDE, A2)  # 3 vs 5 and no card left: no further question
    assert state.round == 2 and state.previous_results == [WM, WM, WM]
    assert state.pawns == [1, 3]


def test_im6_nobody_may_concede_in_a_standoff():
    state = deal([A3, A1, A1, A2], [A3, A1, A1, A2])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    assert state.decision == STANDOFF_PLAY and legal(state) == [A2]
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="concede"):
        state.apply_action(CONCEDE)
    assert snapshot(state) == before


# --- IM-7 standoff -----------------------------------------------------------------------------
def test_im7_standoff_plays_are_picked_in_seat_order_and_revealed_together():
    state = deal([A3, A1, A1, A2, A4], [A3, A1, A1, A5, A1])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    assert state.action_to_string(A4) == "play attack_4 face down"
    other = state.clone()
    play(state, IM, STANDOFF_PLAY, A4)
    play(other, IM, STANDOFF_PLAY, A2)
    # C-3: war_machine sees that iron_man picked, not what
    assert state.has_pending == [True, False] and state.pending_play[IM] == A4
    assert view(state, WM) == view(other, WM)
    assert state.battle_cards[IM].tolist() == counts([A3]) and state.last_reveal == [A3, A3]
    play(state, WM, STANDOFF_PLAY, A1)
    assert state.last_reveal == [A4, A1] and state.has_pending == [False, False]
    assert state.battle_totals == [7, 4] and state.pending_play == [NO_CARD, NO_CARD]
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)


def test_im7_only_the_player_with_cards_plays():
    state = deal([A3, A1, A1], [A3, A1, A1, A1])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    assert (state.current_player(), state.decision) == (WM, STANDOFF_PLAY)
    play(state, WM, STANDOFF_PLAY, A1)
    assert state.previous_results == [WM, DRAW, DRAW]


def test_im7_im10_standoff_with_no_cards_left_is_a_draw_and_both_discard():
    state = deal([A3, A2, A5], [A3, A2, A1])
    commit(state, IM, A3, A2, A5)
    commit(state, WM, A3, A2, A1)
    assert state.previous_results == [DRAW, DRAW, IM]
    assert state.pawns == [1, 1]
    assert state.discards[IM].tolist() == counts([A3, A2, A5])
    assert state.discards[WM].tolist() == counts([A3, A2, A1])


# --- IM-8 special cards ------------------------------------------------------------------------
def test_im8_final_attack_is_worth_6():
    state = deal([FA, A1, A1, A1], [A5, A1, A1, A1])
    commit(state, IM, FA, A1, A1)
    commit(state, WM, A5, A1, A1)
    assert state.battle_totals == [6, 5]
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)


def test_im8_shield_owner_is_asked_even_with_a_single_target():
    state = deal([A4, A1, A1], [SH, A1, A1, A2])
    commit(state, IM, A4, A1, A1)
    commit(state, WM, SH, A1, A1)
    assert (state.current_player(), state.decision) == (WM, SHIELD_TARGET)
    assert legal(state) == [SHIELD_BASE + A4]
    assert state.action_to_string(SHIELD_BASE + A4) == "shield attack_4"
    play(state, WM, SHIELD_TARGET, SHIELD_BASE + A4)
    # battle 1: iron_man has nothing left and no hand: concedes; battle 2: war_machine plays its
    # 2 alone in the 1-1 standoff; battle 3: a 1-1 standoff with no cards is a draw
    assert state.battle_results[0] == WM and state.discards[IM, A4] == 1
    play(state, WM, STANDOFF_PLAY, A2)
    assert state.previous_results == [WM, WM, DRAW] and state.pawns == [1, 2]
    assert state.discards[IM, A4] == 1


def test_im8_shield_may_hit_the_card_revealed_with_it():
    state = deal([A3, A1, A1, SH], [A3, A1, A1, A5])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    play(state, IM, STANDOFF_PLAY, SH)
    play(state, WM, STANDOFF_PLAY, A5)  # war_machine would lead 8 to 3
    assert (state.current_player(), state.decision) == (IM, SHIELD_TARGET)
    assert legal(state) == [SHIELD_BASE + A3, SHIELD_BASE + A5]
    assert state.battle_totals == [3, 8]
    play(state, IM, SHIELD_TARGET, SHIELD_BASE + A5)
    # 3 with 2 cards beats 3 with 1: war_machine, empty-handed, concedes; two 1-1 draws follow
    assert state.previous_results == [IM, DRAW, DRAW]
    assert state.pawns == [1, 1]  # 1 win + 2 draws moves nobody


def test_im8_d7_shield_hitting_the_only_upgrade_removes_the_doubling():
    state = deal([A1, A1, A1, SH, A1], [UP, A1, A1, A3])
    commit(state, IM, A1, A1, A1)
    commit(state, WM, UP, A1, A1)
    play(state, WM, PLAY_OR_CONCEDE, A3)  # 6 vs 1
    play(state, IM, PLAY_OR_CONCEDE, SH)
    assert legal(state) == [SHIELD_BASE + A3, SHIELD_BASE + UP]
    play(state, IM, SHIELD_TARGET, SHIELD_BASE + UP)
    assert state.battle_totals == [1, 3] and state.battle_card_counts == [2, 1]
    assert state.discards[WM].tolist() == counts([UP])
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)


def test_im8_d8_shield_with_no_opposing_card_has_no_effect_and_asks_nothing():
    state = deal([UP, A1, A1, SH], [FA], deck_war=[A1] * 10)
    commit(state, IM, UP, A1, A1)
    commit(state, WM, FA)
    # UPGRADE and FINAL ATTACK cancel; only iron_man has a card for the standoff play
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    assert legal(state) == [SH]
    play(state, IM, STANDOFF_PLAY, SH)
    # no target: no question; the shield is a card, so iron_man leads 0 (1) to 0 (0);
    # war_machine has no hand and concedes this battle and the next two
    assert state.round == 2 and (state.current_player(), state.decision) == (IM, COMMIT)
    assert state.previous_results == [IM, IM, IM] and state.pawns == [3, 1]


# --- IM-9 cancelling ---------------------------------------------------------------------------
def test_im9_two_special_cards_in_a_standoff_play_cancel_and_the_standoff_goes_on():
    state = deal([A3, A1, A1, FA, A2], [A3, A1, A1, UP, A2])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    play(state, IM, STANDOFF_PLAY, FA)
    play(state, WM, STANDOFF_PLAY, UP)
    assert state.last_reveal == [FA, UP]
    assert state.discards[IM].tolist() == counts([FA])
    assert state.discards[WM].tolist() == counts([UP])
    assert state.battle_totals == [3, 3] and state.battle_card_counts == [1, 1]
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    play(state, IM, STANDOFF_PLAY, A2)
    play(state, WM, STANDOFF_PLAY, A2)
    assert state.previous_results == [DRAW, DRAW, DRAW]


def test_im9_d6_shield_revealed_with_an_upgrade_cancels_without_a_target_question():
    state = deal([A3, A1, A1, SH], [A3, A1, A1, UP])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    play(state, IM, STANDOFF_PLAY, SH)
    play(state, WM, STANDOFF_PLAY, UP)
    assert state.round == 2 and state.previous_results == [DRAW, DRAW, DRAW]
    assert state.discards[IM, SH] == 1 and state.discards[WM, UP] == 1


def test_im9_d6_two_shields_at_battle_start_cancel():
    state = deal([SH, A2, A2, A1], [SH, A1, A1])
    commit(state, IM, SH, A2, A2)
    commit(state, WM, SH, A1, A1)
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    assert state.battle_cards.sum() == 0


# --- IM-10 battle end --------------------------------------------------------------------------
def test_im10_conceder_discards_and_the_winners_cards_stay_on_the_table_until_round_end():
    state = deal([A1, A1, A2, A3], [A2, A2, A1])
    commit(state, IM, A1, A1, A2)
    commit(state, WM, A2, A2, A1)
    play(state, IM, PLAY_OR_CONCEDE, CONCEDE)
    assert state.battle_results == [WM, UNDECIDED, UNDECIDED] and state.battles_won == [0, 1]
    assert state.discards[IM].tolist() == counts([A1])
    assert state.table[WM].tolist() == counts([A2]) and state.discards[WM].sum() == 0
    assert state.battle == 1 and (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)
    play(state, IM, PLAY_OR_CONCEDE, A3)  # 4 vs 2, war_machine has no hand: concedes
    # battle 3: 2 vs 1, war_machine concedes again; round end clears the table
    assert state.round == 2 and state.previous_results == [WM, IM, IM]
    assert state.table.sum() == 0 and state.pawns == [2, 1]
    assert state.discards[IM].tolist() == counts([A1, A1, A3, A2])
    assert state.discards[WM].tolist() == counts([A2, A2, A1])


# --- IM-11 round scoring -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("iron", "war", "results", "pawns"),
    [
        ([A5, A5, A1], [A1, A1, A5], [IM, IM, WM], [2, 1]),  # 2-1: one step
        ([A1, A5, A1], [A2, A1, A2], [WM, IM, WM], [1, 2]),  # 1-2 for war_machine
        ([A5, A5, A5], [A1, A2, A4], [IM, IM, IM], [3, 1]),  # 3-0: two steps
        ([A1, A1, A1], [A2, A2, A2], [WM, WM, WM], [1, 3]),
        ([A5, A5, A3], [A1, A1, A3], [IM, IM, DRAW], [2, 1]),  # 2 wins + 1 draw: one step
        ([A5, A1, A3], [A1, A5, A3], [IM, WM, DRAW], [1, 1]),  # win, loss, draw: nobody
        ([A5, A3, A3], [A1, A3, A3], [IM, DRAW, DRAW], [1, 1]),  # 1 win + 2 draws: nobody
        ([A2, A3, A4], [A2, A3, A4], [DRAW, DRAW, DRAW], [1, 1]),
    ],
)
def test_im11_round_scoring(iron, war, results, pawns):
    state = deal(iron, war)
    commit(state, IM, *iron)
    commit(state, WM, *war)
    assert state.previous_results == results and state.pawns == pawns
    assert state.round == 2 and state.battle_results == [UNDECIDED] * 3
    assert state.battles_won == [0, 0] and state.table.sum() == 0


# --- IM-12 game end and cap --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("iron", "war", "winner", "returns"),
    [
        ([A5, A5, A1], [A1, A1, A5], IM, (1.0, -1.0)),
        ([A1, A1, A1], [A2, A2, A2], WM, (-1.0, 1.0)),  # 3-0 passes the last card: clamped
    ],
)
def test_im12_first_pawn_to_reach_the_last_victory_card_wins(iron, war, winner, returns):
    state = deal(iron, war, victory_cards=2)
    commit(state, IM, *iron)
    commit(state, WM, *war)
    assert state.is_terminal() and not state.is_truncated()
    assert state.returns() == returns and state.winner == winner
    assert state.pawns[winner] == 2 and state.pawns[1 - winner] == 1
    assert state.current_player() == NO_PLAYER and state.decision == GAME_OVER
    assert not state.legal_action_mask().any()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(A1)


def test_im12_returns_are_zero_before_the_end():
    state = deal([A5, A5, A1], [A1, A1, A5])
    commit(state, IM, A5, A5, A1)
    commit(state, WM, A1, A1, A5)
    assert state.returns() == (0.0, 0.0) and not state.is_terminal()


def test_im12_c5_cap_truncates_after_max_rounds_without_a_winner():
    state = deal([A5, A1, A3], [A1, A5, A3], max_rounds=1)
    commit(state, IM, A5, A1, A3)
    commit(state, WM, A1, A5, A3)
    assert state.is_truncated() and not state.is_terminal()
    assert state.returns() == (0.0, 0.0) and state.current_player() == NO_PLAYER
    assert not state.legal_action_mask().any() and state.round == 1


def test_im12_c5_a_win_in_the_last_round_beats_the_cap():
    state = deal([A5, A5, A5], [A1, A1, A1], victory_cards=3, max_rounds=1)
    commit(state, IM, A5, A5, A5)
    commit(state, WM, A1, A1, A1)
    assert state.is_terminal() and not state.is_truncated() and state.returns() == (1.0, -1.0)


def test_im12_no_truncation_before_the_cap():
    state = deal([A5, A1, A3], [A1, A5, A3], max_rounds=2)
    commit(state, IM, A5, A1, A3)
    commit(state, WM, A1, A5, A3)
    assert not state.is_truncated() and state.round == 2 and state.current_player() == IM


# --- IM-13 beginner variant --------------------------------------------------------------------
def test_im13_beginner_battles_are_the_flipped_cards_alone():
    state = deal([A5, A3], [A2, A3, A1], variant="beginner")
    commit(state, IM, A5, A3)
    # commits are the only decisions: the round resolves on war_machine's last commit
    commit(state, WM, A2, A3, A1)
    assert state.previous_results == [IM, DRAW, WM]  # a card beats no card
    assert state.previous_flipped.tolist() == [[A5, A3, NO_CARD], [A2, A3, A1]]
    assert state.pawns == [1, 1] and state.round == 2 and state.decision == COMMIT
    assert state.discards[IM].tolist() == counts([A5, A3])


def test_im13_beginner_none_against_none_is_a_draw_and_scoring_is_im11():
    state = deal([A5, A5], [A1, A1], variant="beginner")
    commit(state, IM, A5, A5)
    commit(state, WM, A1, A1)
    assert state.previous_results == [IM, IM, DRAW] and state.pawns == [2, 1]


def test_im13_beginner_game_only_ever_asks_for_commits():
    game = make_game("beginner")
    state = game.new_initial_state(np.random.default_rng(5))
    chooser = random.Random(5)
    while not (state.is_terminal() or state.is_truncated()):
        assert state.decision == COMMIT and max(legal(state)) < UP
        actions = legal(state)
        state.apply_action(actions[chooser.randrange(len(actions))])


# --- IM-14 the rulebook's worked example -------------------------------------------------------
def test_im14_worked_example_action_by_action():
    state = deal([A3, A1, A1, A3, SH, A1], [A5, A2, A2, A3, A4])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A5, A2, A2)
    # War Machine leads with a 5; Iron Man flipped a 3 and is losing
    assert state.battle_totals == [3, 5]
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)
    assert legal(state) == [A1, A3, SH, CONCEDE]
    play(state, IM, PLAY_OR_CONCEDE, A3)
    assert state.battle_totals == [6, 5]  # Iron Man leads
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)
    play(state, WM, PLAY_OR_CONCEDE, A3)
    assert state.battle_totals == [6, 8]  # War Machine leads
    assert (state.current_player(), state.decision) == (IM, PLAY_OR_CONCEDE)
    play(state, IM, PLAY_OR_CONCEDE, SH)
    assert (state.current_player(), state.decision) == (IM, SHIELD_TARGET)
    assert legal(state) == [SHIELD_BASE + A3, SHIELD_BASE + A5]
    play(state, IM, SHIELD_TARGET, SHIELD_BASE + A5)
    assert state.battle_totals == [6, 3] and state.discards[WM].tolist() == counts([A5])
    # War Machine must play or concede
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)
    assert legal(state) == [A4, CONCEDE]
    play(state, WM, PLAY_OR_CONCEDE, CONCEDE)
    assert state.battle_results[0] == IM and state.table[IM].tolist() == counts([A3, A3, SH])
    assert state.discards[WM].tolist() == counts([A5, A3])
    # battle 2: 1 vs 2, iron_man concedes; battle 3 the same: war_machine wins the round 2-1
    play(state, IM, PLAY_OR_CONCEDE, CONCEDE)
    play(state, IM, PLAY_OR_CONCEDE, CONCEDE)
    assert state.previous_results == [IM, WM, WM] and state.pawns == [1, 2]


# --- config and option validation --------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"variant": "expert"}, r"variant.*'expert'"),
        ({"deck": {"attack_9": 1}}, r"deck kind 'attack_9'"),
        ({"deck": {"attack_1": -1}}, r"deck\['attack_1'\] must be >= 0, got -1"),
        ({"deck": {"attack_1": 2.5}}, r"deck\['attack_1'\] must be an integer, got 2.5"),
        ({"deck": [10, 10]}, r"deck must be a dict.*\[10, 10\]"),
        ({"deck": {}}, r"deck must hold at least one card"),
        ({"variant": "beginner", "deck": {"upgrade": 3}}, r"at least one attack card.*upgrade"),
        ({"victory_cards": 1}, r"victory_cards must be >= 2, got 1"),
        ({"max_rounds": 0}, r"max_rounds must be >= 1, got 0"),
        ({"max_rounds": True}, r"max_rounds must be an integer, got True"),
    ],
)
def test_config_invalid_values_raise_naming_key_and_value(config, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_game(**config)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["decks"], r"reset options must be a dict"),
        ({"decks": {"iron_man": ["attack_1"]}}, r"options\['decks'\].*missing 'war_machine'"),
        (
            {"hands": {"iron_man": [], "war_machine": [], "hulk": []}},
            r"options\['hands'\] has unknown agent\(s\) 'hulk'",
        ),
        (
            {"decks": {"iron_man": ["attack_6"], "war_machine": []}},
            r"options\['decks'\]\['iron_man'\]\[0\].*'attack_6'",
        ),
        (
            {"decks": [["attack_1"], ["laser"]]},
            r"options\['decks'\]\['war_machine'\]\[0\].*'laser'",
        ),
        (
            {"decks": {"iron_man": "attack_1", "war_machine": []}},
            r"options\['decks'\]\['iron_man'\] must be a list, got 'attack_1'",
        ),
        ({"decks": [["attack_1"]]}, r"options\['decks'\] must have one entry per player"),
        ({"hands": "attack_1"}, r"options\['hands'\] must be a list with one entry per player"),
        (
            {"hands": {"iron_man": ["attack_5"] * 3, "war_machine": []}},
            r"options\['hands'\]\['iron_man'\].*3 x attack_5.*only 2",
        ),
        (
            {"decks": {"iron_man": [], "war_machine": ["attack_1"]}},
            r"'iron_man' no card at all \(hands not given, decks \[\]\)",
        ),
        (
            {"decks": [[], ["attack_1"]], "hands": [[], ["attack_2"]]},
            r"'iron_man' no card at all \(hands \[\], decks \[\]\)",
        ),
    ],
)
def test_c6_invalid_reset_options_raise_naming_key_and_value(options, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_game().new_initial_state(np.random.default_rng(0), options)


def test_c6_options_per_player_as_a_list_in_seat_order_or_a_dict_give_the_same_game():
    hands = [["attack_5", "upgrade", "attack_1"], ["energy_shield", "attack_2"]]
    decks = [["attack_3"] * 5, ["final_attack", "attack_4"]]
    listed = make_game().new_initial_state(
        np.random.default_rng(4), {"hands": hands, "decks": tuple(decks)}
    )
    keyed = make_game().new_initial_state(
        np.random.default_rng(4),
        {
            "hands": dict(zip(AGENTS, hands, strict=True)),
            "decks": dict(zip(AGENTS, decks, strict=True)),
        },
    )
    assert snapshot(listed) == snapshot(keyed)
    assert hand(listed, IM) == [A1, A5, UP] and hand(listed, WM) == [A2, SH]
    assert listed.deck_order(WM) == [FA, A4]
    # hands alone, as a list: the rest of the configured deck, shuffled from the same rng
    alone = make_game().new_initial_state(np.random.default_rng(4), {"hands": hands})
    same = make_game().new_initial_state(
        np.random.default_rng(4), {"hands": dict(zip(AGENTS, hands, strict=True))}
    )
    assert snapshot(alone) == snapshot(same)


def test_c6_unknown_option_key_warns_naming_it_and_is_ignored():
    game = make_game()
    plain = game.new_initial_state(np.random.default_rng(2), {"decks": [FIXED, FIXED]})
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) 'hand'.*'decks', 'hands'"):
        odd = game.new_initial_state(
            np.random.default_rng(2), {"decks": [FIXED, FIXED], "hand": {"iron_man": []}}
        )
    assert snapshot(odd) == snapshot(plain)
    with pytest.warns(UserWarning, match="'options'"):
        probed = game.new_initial_state(np.random.default_rng(2), {"options": 1})
    assert snapshot(probed) == snapshot(game.new_initial_state(np.random.default_rng(2)))


# --- illegal actions ---------------------------------------------------------------------------
LEGAL_AT_SLOT_2 = (
    re.escape("legal actions: 0 (commit attack_1 to battle 2), 1 (commit attack_2 to battle 2)")
    + "$"
)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (A5, r"illegal action 4 \(commit attack_5 to battle 2\) for iron_man; " + LEGAL_AT_SLOT_2),
        (CONCEDE, r"illegal action 8 \(concede\) for iron_man; " + LEGAL_AT_SLOT_2),
        (SHIELD_BASE + A1, r"illegal action 9 \(shield attack_1\) .*" + LEGAL_AT_SLOT_2),
        (np.int64(A4), r"illegal action 3 \(commit attack_4 to battle 2\)"),
        (NUM_ACTIONS, r"action 17 for iron_man is out of range: .*Discrete\(17\), so 0..16"),
        (-1, r"action -1 for iron_man is out of range"),
        (2.0, r"must be an integer in 0..16, got 2.0 \(float\)"),
        (True, r"must be an integer in 0..16, got True \(bool\)"),
        (np.bool_(True), r"must be an integer in 0..16, got (np.)?True"),
        (None, r"got None \(NoneType\)"),
        ("0", r"got '0' \(str\)"),
        (np.array([1.0]), r"must be an integer in 0..16"),
    ],
)
def test_c7_bad_or_illegal_action_raises_naming_it_and_the_legal_ones_and_changes_nothing(
    action, message
):
    state = deal([A1, A2, A2], [A3, A3, A3])
    state.apply_action(A2)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=message):
        state.apply_action(action)
    assert snapshot(state) == before


def test_c7_apply_action_accepts_numpy_integers_and_plays_like_apply_legal_action():
    checked = deal([A1, A2, A2], [A3, A3, A3])
    unchecked = checked.clone()
    for action in (np.int64(A2), np.array(A1), A2):
        checked.apply_action(action)
    for action in (A2, A1, A2):
        unchecked.apply_legal_action(action)
    assert snapshot(checked) == snapshot(unchecked)
    assert checked.current_player() == WM


def test_c7_im8_illegal_shield_target_names_the_targets():
    state = deal([A4, A1, A1], [SH, A1, A1, A2])
    commit(state, IM, A4, A1, A1)
    commit(state, WM, SH, A1, A1)
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"shield attack_1.*12 \(shield attack_4\)"):
        state.apply_action(SHIELD_BASE + A1)
    with pytest.raises(IllegalActionError, match="play attack_2"):
        state.apply_action(A2)  # a card in hand, but the shield target is asked now
    assert snapshot(state) == before


# --- clone, determinism ------------------------------------------------------------------------
def test_clone_is_independent_including_the_generator():
    game = make_game()
    state = game.new_initial_state(np.random.default_rng(11))
    twin = state.clone()
    chooser = random.Random(0)
    while not (twin.is_terminal() or twin.is_truncated()):
        actions = legal(twin)
        twin.apply_action(actions[chooser.randrange(len(actions))])
    fresh = game.new_initial_state(np.random.default_rng(11))
    assert snapshot(state) == snapshot(fresh)


def run_trajectory(seed):
    game = make_game()
    state = game.new_initial_state(np.random.default_rng(seed))
    chooser = random.Random(seed)
    trail = []
    while not (state.is_terminal() or state.is_truncated()):
        np.random.random()  # global generators must not matter (C-8)
        random.random()
        actions = legal(state)
        action = actions[chooser.randrange(len(actions))]
        trail.append(action)
        state.apply_action(action)
    return trail, snapshot(state)


def test_c8_same_seed_same_game_regardless_of_global_random_state():
    np.random.seed(1)
    random.seed(1)
    first = run_trajectory(4)
    np.random.seed(2)
    random.seed(2)
    assert run_trajectory(4) == first


# --- resampling what a seat cannot see -----------------------------------------------------------
def hidden_cards(state, seat):
    """What nobody but ``seat`` knows: hand, face-down commits, pending pick, deck contents."""
    down = [int(k) for k, d in zip(state.committed[seat], state.face_down[seat], strict=True) if d]
    pending = state.pending_play[seat] if state.has_pending[seat] else NO_CARD
    return (state.hands[seat].tolist(), down, pending, state.deck_counts[seat].tolist())


def random_states(count, seed):
    """``count`` states at random points of random games, both variants."""
    chooser = random.Random(seed)
    states = []
    for index in range(count):
        game = make_game(("advanced", "beginner")[index % 4 == 3], max_rounds=8)
        state = game.new_initial_state(np.random.default_rng(seed * 1000 + index))
        for _ in range(chooser.randrange(200)):
            if state.is_terminal() or state.is_truncated():
                break
            actions = legal(state)
            state.apply_action(actions[chooser.randrange(len(actions))])
        states.append(state)
    return states


def test_resample_keeps_all_a_seat_sees_and_redraws_the_rest_consistently():
    rng = np.random.default_rng(0)
    changed = total = 0
    for state in random_states(150, seed=1):
        before = snapshot(state)
        for seat in (IM, WM):
            other = 1 - seat
            twin = state.resample_from_infostate(seat, rng)
            assert snapshot(state) == before  # the original is untouched
            assert view(twin, seat) == view(state, seat)
            check_invariants(twin, state.game)  # every card still somewhere, counts consistent
            assert twin.card_counts(other).tolist() == state.card_counts(other).tolist()
            assert twin.deck_sizes == state.deck_sizes and twin.hand_sizes == state.hand_sizes
            assert sorted(twin.deck_order(seat)) == sorted(state.deck_order(seat))
            flipped = ~state.face_down[other]
            assert (
                twin.committed[other][flipped].tolist() == state.committed[other][flipped].tolist()
            )
            if not state.has_pending[other]:
                assert twin.pending_play[other] == state.pending_play[other]
            # the twin's generator is detached: neither the original's (which knows the order
            # of later reshuffles) nor ``rng`` itself
            assert repr(twin._rng.bit_generator.state) != repr(state._rng.bit_generator.state)
            assert twin._rng is not state._rng and twin._rng is not rng
            total += 1
            changed += hidden_cards(twin, other) != hidden_cards(state, other)
    assert changed > 0.6 * total  # not all: e.g. an empty hand and nothing face down


def test_resample_redraws_a_face_down_pick_and_face_down_commits_but_not_flipped_cards():
    state = deal([A3, A1, A1, A2, A4, A5], [A3, A1, A1, A2, A2])
    commit(state, IM, A3, A1, A1)
    commit(state, WM, A3, A1, A1)
    play(state, IM, STANDOFF_PLAY, A4)  # iron_man picks face down; war_machine to pick
    picks, commits = set(), set()
    for seed in range(40):
        twin = state.resample_from_infostate(WM, np.random.default_rng(seed))
        assert view(twin, WM) == view(state, WM)
        assert twin.committed[IM, 0] == A3  # flipped: public
        picks.add(twin.pending_play[IM])
        commits.add(tuple(twin.committed[IM, 1:].tolist()))
        assert (
            twin.pending_play[WM] == NO_CARD and twin.hands[WM].tolist() == state.hands[WM].tolist()
        )
    assert len(picks) > 1 and len(commits) > 1
    # iron_man sees its own pick and commits; war_machine's face-down commits are redrawn
    theirs = set()
    for seed in range(20):
        twin = state.resample_from_infostate(IM, np.random.default_rng(seed))
        assert view(twin, IM) == view(state, IM)
        assert twin.pending_play[IM] == A4
        assert twin.committed[IM].tolist() == state.committed[IM].tolist()
        assert twin.committed[WM, 0] == A3
        theirs.add(tuple(twin.committed[WM, 1:].tolist()))
    assert len(theirs) > 1


def test_resample_reshuffles_the_seats_own_deck_order_only():
    state = make_game().new_initial_state(np.random.default_rng(3))
    orders = set()
    for seed in range(10):
        twin = state.resample_from_infostate(IM, np.random.default_rng(seed))
        assert twin.hands[IM].tolist() == state.hands[IM].tolist()
        assert twin.deck_counts[IM].tolist() == state.deck_counts[IM].tolist()
        orders.add(tuple(twin.deck_order(IM)))
    assert len(orders) > 1


# --- random play -------------------------------------------------------------------------------
def check_invariants(state, game):
    composition = np.asarray(game.deck)
    for seat in range(2):
        deck = np.bincount(state.deck_order(seat), minlength=8)
        assert state.deck_counts[seat].tolist() == deck.tolist()
        face_down = zip(state.committed[seat], state.face_down[seat], strict=True)
        committed = [kind for kind, down in face_down if down]
        pending = [state.pending_play[seat]] if state.has_pending[seat] else []
        total = (
            state.hands[seat] + deck + state.discards[seat] + state.table[seat]
            + state.battle_cards[seat] + np.bincount(committed + pending, minlength=8).astype(int)
        )  # fmt: skip
        assert total.tolist() == composition.tolist()
        assert state.hand_sizes[seat] == state.hands[seat].sum()
        assert state.deck_sizes[seat] == deck.sum()
        cards = state.battle_cards[seat]
        raw = int(np.dot(cards, VALUES))
        assert state.battle_totals[seat] == (2 * raw if cards[UP] else raw)
        assert state.battle_card_counts[seat] == cards.sum()


def accepted_actions(state):
    """Actions ``apply_action`` accepts, tried on clones; a refusal must change nothing."""
    before = snapshot(state)
    accepted = []
    for action in range(NUM_ACTIONS):
        trial = state.clone()
        try:
            trial.apply_action(action)
        except IllegalActionError:
            assert snapshot(trial) == before
        else:
            accepted.append(action)
    return accepted


def test_random_play_keeps_every_invariant_in_both_variants():
    chooser = random.Random(2024)
    games = 1000
    outcomes = {"terminal": 0, "truncated": 0}
    for index in range(games):
        variant = "advanced" if index % 2 == 0 else "beginner"
        max_rounds = (2, 5, 50)[index % 3]
        game = make_game(variant, victory_cards=(5, 3)[index % 2], max_rounds=max_rounds)
        state = game.new_initial_state(np.random.default_rng(index))
        steps = 0
        while not (state.is_terminal() or state.is_truncated()):
            mask = state.legal_action_mask()
            actions = np.flatnonzero(mask).tolist()
            assert actions and state.returns() == (0.0, 0.0)
            if index < 20 or steps % 50 == 0:
                assert accepted_actions(state) == actions
            else:
                illegal = np.flatnonzero(~mask).tolist()
                wrong = illegal[chooser.randrange(len(illegal))]
                seat, decision = state.current_player(), state.decision
                with pytest.raises(IllegalActionError):
                    state.apply_action(wrong)
                assert (state.current_player(), state.decision) == (seat, decision)
            state.apply_action(actions[chooser.randrange(len(actions))])
            steps += 1
            check_invariants(state, game)
            assert state.round <= max_rounds and steps < max_rounds * 250
        assert state.current_player() == NO_PLAYER and not state.legal_action_mask().any()
        if state.is_terminal():
            outcomes["terminal"] += 1
            assert not state.is_truncated()
            assert state.returns() in ((1.0, -1.0), (-1.0, 1.0))
            winner = 0 if state.returns()[0] > 0 else 1
            assert state.pawns[winner] == game.victory_cards > state.pawns[1 - winner]
        else:
            outcomes["truncated"] += 1
            assert state.returns() == (0.0, 0.0) and state.round == max_rounds
            assert max(state.pawns) < game.victory_cards
    assert outcomes["terminal"] > 0 and outcomes["truncated"] > 0
