"""Scenario tests for envs/rulebooks/promise_war_v0.md (PW-1..PW-7), one or more per rule, on the
pure rules.

Decks are fixed through reset options (top card first); hands are the first 3 cards.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.envs.core import NO_PLAYER, IllegalActionError, InvalidConfigError
from cardarena.envs.promise_war.rules import TIEBREAK, TRICK, default_deck, make_game


def deal(*decks, **config):
    game = make_game(num_players=len(decks), **config)
    return game.new_initial_state(np.random.default_rng(0), {"decks": [list(d) for d in decks]})


def play(state, *moves):
    """Apply (seat, power) moves, checking that each seat is the one asked."""
    for seat, power in moves:
        assert state.current_player() == seat
        state.apply_action(power)


def hand(state, seat):
    return sorted(np.repeat(np.arange(state.hands.shape[1]), state.hands[seat]).tolist())


def test_pw1_default_deck_is_four_copies_of_1_to_10():
    game = make_game()
    assert all(sorted(deck) == sorted(list(range(1, 11)) * 4) for deck in game.decks)
    assert len(default_deck()) == 40
    assert sorted(default_deck(5)) == sorted(list(range(1, 6)) * 4)


def test_pw1_decks_may_differ_per_player_and_must_not_be_empty():
    game = make_game(num_players=3, decks=[[1, 2], [3], [0, 0, 7]])
    assert game.decks == ((1, 2), (3,), (0, 0, 7))
    as_arrays = make_game(num_players=3, decks=[np.array([1, 2]), (3,), np.array([0, 0, 7])])
    assert as_arrays.decks == game.decks
    with pytest.raises(InvalidConfigError, match=r"decks\['player_1'\] is empty"):
        make_game(decks=[[1], []])
    with pytest.raises(InvalidConfigError, match="decks is empty"):
        make_game(decks=[])


def test_pw2_setup_deals_three_from_the_top_of_each_own_deck():
    state = deal([9, 8, 7, 6, 5], [1, 2, 3, 4])
    assert hand(state, 0) == [7, 8, 9] and hand(state, 1) == [1, 2, 3]
    assert state.deck_sizes == [2, 1]
    assert state.current_player() == 0 and state.phase == TRICK


def test_pw2_default_setup_shuffles_each_deck_from_the_seeded_rng():
    game = make_game()
    a = game.new_initial_state(np.random.default_rng(1))
    b = game.new_initial_state(np.random.default_rng(1))
    c = game.new_initial_state(np.random.default_rng(2))
    assert a.draw_piles == b.draw_piles
    assert a.draw_piles != c.draw_piles
    for seat in range(2):
        assert sorted(a.draw_piles[seat] + hand(a, seat)) == sorted(default_deck())


def test_pw3_sole_highest_takes_all_revealed_cards():
    state = deal([5, 1, 1, 2], [3, 1, 1, 2])
    play(state, (0, 5))
    assert state.has_picked == [True, False] and state.last_revealed == [-1, -1]
    play(state, (1, 3))
    assert state.victory_sizes == [2, 0]
    assert state.victory[0, 5] == 1 and state.victory[0, 3] == 1
    assert state.last_revealed == [5, 3]
    assert state.pot_face_up.sum() == 0 and state.tricks_played == 1


def test_pw3_three_players_all_pick_in_seat_order():
    state = deal([2, 1, 1], [9, 1, 1], [4, 1, 1])
    play(state, (0, 2), (1, 9), (2, 4))
    assert state.victory_sizes == [0, 3, 0]


def test_pw4_tie_goes_to_a_tiebreak_with_one_up_and_the_rest_face_down():
    state = deal([5, 1, 1, 9, 2, 2], [5, 1, 1, 4, 3, 3])
    play(state, (0, 5), (1, 5))
    assert state.phase == TIEBREAK and state.contenders == [0, 1]
    assert hand(state, 0) == [1, 1, 9] and hand(state, 1) == [1, 1, 4]  # drew back up to 3
    play(state, (0, 9))
    assert state.pot_face_down == []  # face-down cards move at the reveal, with the face-up one
    play(state, (1, 4))
    # pot: 5 5 (trick) + 9 4 (face up) + 1 1 1 1 (face down) -> 8 cards to player_0
    assert state.victory_sizes == [8, 0]
    assert state.victory[0, 1] == 4 and state.discarded.sum() == 0
    assert hand(state, 0) == [2, 2] and hand(state, 1) == [3, 3]
    assert state.phase == TRICK


def test_pw4_chained_tie_repeats_the_tiebreak_and_the_winner_takes_the_whole_pot():
    state = deal([5, 1, 1, 9, 2, 2, 7], [5, 1, 1, 9, 3, 3, 6])
    play(state, (0, 5), (1, 5), (0, 9), (1, 9))
    assert state.phase == TIEBREAK
    assert state.pot_face_down_by_player == [2, 2]
    assert hand(state, 0) == [2, 2, 7] and hand(state, 1) == [3, 3, 6]
    play(state, (0, 7), (1, 6))
    assert state.victory_sizes == [14, 0]


def test_pw4_tiebreak_with_two_cards_puts_one_down_and_with_none_left_the_pot_is_discarded():
    state = deal([5, 1, 1], [5, 1, 1])
    play(state, (0, 5), (1, 5))
    assert state.hand_sizes == [2, 2]  # nothing left to draw
    play(state, (0, 1), (1, 1))  # 1 up, 1 down each: tied again
    # Both tied players are now out of cards: they drop out and the pot (5 5 1 1 up, 1 1 down)
    # is discarded.
    assert state.discarded.sum() == 6 and state.victory_sizes == [0, 0]
    assert state.is_terminal()  # PW-6: nobody can play any more
    assert state.returns() == (0.0, 0.0)


def test_pw4_tiebreak_with_one_card_plays_it_face_up_and_nothing_down():
    state = deal([5, 4], [5, 3, 2, 2])
    play(state, (0, 5), (1, 5))
    assert hand(state, 0) == [4] and hand(state, 1) == [2, 2, 3]
    play(state, (0, 4), (1, 3))
    assert state.victory_sizes == [6, 0]  # 5 5 4 3 up + player_1's 2 2 down; player_0 put none


def test_pw4_a_sole_tied_player_left_with_cards_takes_the_pot_without_playing():
    state = deal([5], [5, 1, 1, 8])
    play(state, (0, 5), (1, 5))
    assert state.victory_sizes == [0, 2]
    assert hand(state, 1) == [1, 1, 8]  # took the pot without playing a card
    assert state.is_terminal() and state.returns() == (-1.0, 1.0)


def test_pw4_three_player_two_way_tie_leaves_the_third_player_out_of_the_tiebreak():
    state = deal([7, 1, 1, 9], [7, 2, 2, 8], [3, 4, 4, 4])
    play(state, (0, 7), (1, 7), (2, 3))
    assert state.contenders == [0, 1] and state.phase == TIEBREAK
    assert hand(state, 2) == [4, 4]  # the third player does not draw during the tiebreak
    play(state, (0, 9), (1, 8))
    assert state.victory_sizes == [9, 0, 0]  # 7 7 3 + 9 8 + 1 1 + 2 2
    assert hand(state, 2) == [4, 4, 4]


def test_pw4_face_down_powers_are_kept_apart_from_the_public_face_up_counts():
    state = deal([5, 1, 1, 9, 2, 2, 7], [5, 1, 1, 9, 3, 3, 6])
    play(state, (0, 5), (1, 5), (0, 9), (1, 9))
    assert sorted(state.pot_face_down) == [1, 1, 1, 1]
    assert state.pot_face_up.sum() == 4  # only face-up cards are counted by power in public


def test_pw5_everyone_draws_back_up_to_three_after_a_trick():
    state = deal([9, 1, 1, 2, 2], [3, 1, 1, 4], [2, 1, 1])
    play(state, (0, 9), (1, 3), (2, 2))
    assert state.hand_sizes == [3, 3, 2]
    assert state.deck_sizes == [1, 0, 0]


def test_pw6_a_player_with_an_empty_hand_sits_out_and_is_never_asked_again():
    state = deal([9, 8, 7, 6], [1, 1, 1, 1], [2])
    play(state, (0, 9), (1, 1), (2, 2))
    assert state.sitting_out == [False, False, True]
    assert state.contenders == [0, 1]
    asked = []
    while not state.is_terminal():
        asked.append(state.current_player())
        state.apply_action(state.legal_actions()[0])
    assert 2 not in asked


def test_pw6_game_ends_when_fewer_than_two_can_play_and_scores_by_victory_pile():
    state = deal([9, 8], [1, 1], [2, 2])
    play(state, (0, 8), (1, 1), (2, 2), (0, 9), (1, 1), (2, 2))
    assert state.is_terminal() and state.current_player() == NO_PLAYER
    assert state.scores() == (6, 0, 0)
    assert state.returns() == (1.0, -1.0, -1.0)


def test_pw6_players_tied_for_top_score_get_zero_and_the_rest_minus_one():
    state = deal([9, 1], [1, 9], [2, 2])
    play(state, (0, 9), (1, 1), (2, 2), (0, 1), (1, 9), (2, 2))
    assert state.scores() == (3, 3, 0)
    assert state.returns() == (0.0, 0.0, -1.0)


def test_pw7_cap_truncates_after_max_tricks():
    state = deal([9, 8, 7, 6], [1, 2, 3, 4], max_tricks=1)
    play(state, (0, 9), (1, 1))
    assert state.is_truncated() and not state.is_terminal()
    assert state.current_player() == NO_PLAYER
    assert state.returns() == (0.0, 0.0)


def test_pw7_a_rule_ending_on_the_cap_step_wins_over_the_cap():
    state = deal([9], [1], max_tricks=1)
    play(state, (0, 9), (1, 1))
    assert state.is_terminal() and not state.is_truncated()
    assert state.returns() == (1.0, -1.0)


def test_illegal_action_raises_naming_the_legal_ones_and_changes_nothing():
    state = deal([5, 1, 1], [3, 2, 2])
    before = state.clone()
    with pytest.raises(
        IllegalActionError,
        match=r"illegal action 7 \(play power 7\) for player_0; "
        r"legal actions: 1 \(play power 1\), 5 \(play power 5\)$",
    ):
        state.apply_action(7)
    assert state.hands.tolist() == before.hands.tolist()
    assert state.current_player() == before.current_player() and state.picks == before.picks


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_players": 1}, "num_players must be in 2..8, got 1"),
        ({"num_players": 9}, "num_players must be in 2..8, got 9"),
        ({"num_players": "2"}, "num_players must be an integer"),
        ({"max_power": 0}, "max_power must be >= 1, got 0"),
        ({"max_tricks": 0}, "max_tricks must be >= 1, got 0"),
        ({"decks": [1, 11]}, r"decks\[1\] must be in 0..10, got 11"),
        ({"decks": [1, 2.5]}, r"decks\[1\] must be an integer, got 2.5"),
        (
            {"decks": [[1], [2], [3]]},
            r"decks must have one entry per player \(2: .player_0., .player_1.\), got 3",
        ),
        ({"decks": {"player_0": [1]}}, r"decks must cover every player: missing .player_1."),
        ({"decks": "1234"}, "decks must be a list"),
    ],
)
def test_invalid_config_names_key_and_value(config, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_game(**config)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"decks": [[1, 2]]}, r"one entry per player \(2: .*\), got 1"),
        ({"decks": {"player_0": [1], "player_9": [2]}}, r"unknown agent\(s\) .player_9."),
        ({"decks": [[1], []]}, r"options\['decks'\]\['player_1'\] is empty"),
        ({"decks": [[1], [-1]]}, r"options\['decks'\]\['player_1'\]\[0\] must be in 0..10, got -1"),
        ({"decks": [[1], ["ace"]]}, "must be an integer, got 'ace'"),
    ],
)
def test_invalid_reset_options_name_key_and_value(options, message):
    game = make_game()
    with pytest.raises(InvalidConfigError, match=message):
        game.new_initial_state(np.random.default_rng(0), options)


# --- resampling: what a seat cannot see ------------------------------------------------------
def _unseen(state, other):
    """Every card of ``other`` never shown face up: hand, pick, face-down (pot and buried), pile."""
    powers = state.hands.shape[1]
    cards = np.repeat(np.arange(powers), state.hands[other]).tolist()
    cards += [state.picks[other]] if state.picks[other] >= 0 else []
    owners = state.pot_face_down_owners
    cards += [p for p, o in zip(state.pot_face_down, owners, strict=True) if o == other]
    cards += np.repeat(np.arange(powers), state.buried[other].sum(0)).tolist()
    return sorted(cards + state.draw_piles[other])


def _fields(state):
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v)
            for k, v in vars(state).items() if k not in ("rng", "events", "game")}  # fmt: skip


@pytest.mark.parametrize("players", [2, 3])
def test_a_resample_redraws_face_down_cards_and_depends_on_the_information_set_only(players):
    """PW-4's face-down cards are seen by their owner only, in the pot and after it is won:
    a resample deals each other player's never-shown cards (those included) anew, keeping
    every count and pile size, and two true states of one information set resample to the
    same copy with the same generator (the hidden cards cannot steer the redraw)."""
    game = make_game(num_players=players, max_power=3)  # small powers: many ties
    rng = np.random.default_rng(players)
    moved = 0
    for deal_seed in range(12):
        state = game.new_initial_state(np.random.default_rng(deal_seed))
        while not (state.is_terminal() or state.is_truncated()):
            seat = state.current_player()
            twin = state.resample_from_infostate(seat, rng)
            for other in range(players):
                assert _unseen(twin, other) == _unseen(state, other)
                assert twin.buried[other].sum(1).tolist() == state.buried[other].sum(1).tolist()
            assert twin.buried[seat].tolist() == state.buried[seat].tolist()
            assert (twin.victory.sum(1) == state.victory_sizes).all()
            assert (twin.card_counts() == state.card_counts()).all()
            moved += twin.buried.tolist() != state.buried.tolist()
            again = [
                s.resample_from_infostate(seat, np.random.default_rng(7)) for s in (state, twin)
            ]
            assert _fields(again[0]) == _fields(again[1])
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply_action(int(legal[rng.integers(legal.size)]))
    assert moved > 20, f"face-down cards were redrawn only {moved} times: a vacuous test"


@pytest.mark.parametrize("players", [2, 3])
def test_a_resample_reshuffles_the_seats_own_draw_pile_and_keeps_its_hand(players):
    """A player knows which cards are left in their own draw pile but not their order (the
    next draw is hidden from them too): the copies keep the seat's hand, pick and pile
    contents and deal the pile in orders that vary with the generator."""
    game = make_game(num_players=players)
    state = game.new_initial_state(np.random.default_rng(5))
    seat = state.current_player()
    orders = set()
    for seed in range(10):
        twin = state.resample_from_infostate(seat, np.random.default_rng(seed))
        assert twin.hands[seat].tolist() == state.hands[seat].tolist()
        assert twin.picks[seat] == state.picks[seat]
        assert sorted(twin.draw_piles[seat]) == sorted(state.draw_piles[seat])
        orders.add(tuple(twin.draw_piles[seat]))
    assert len(set(state.draw_piles[seat])) > 1, "one kind of card: every order is the same"
    assert len(orders) > 1, "the seat's own draw pile kept one order: it would know its draws"
