"""Properties of Promise War over many random games: mask == legal, conservation of cards,
the game ends, rewards add up as PW-6 says."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_mask_is_what_the_rules_accept
from hypothesis import given, settings
from hypothesis import strategies as st

from cardarena.envs.promise_war.rules import make_game


def expected_returns(scores: list[int]) -> tuple[float, ...]:
    """PW-6 written out: sole top scorer +1, players tied for top 0, everyone else -1."""
    top = max(scores)
    tied = scores.count(top)
    return tuple((1.0 if tied == 1 else 0.0) if score == top else -1.0 for score in scores)


def play_random_game(game, rng, options=None, full_mask_check_every=0):
    state = game.new_initial_state(rng, options)
    all_cards = state.card_counts().copy()
    steps = 0
    while state.current_player() != -1:
        if full_mask_check_every and steps % full_mask_check_every == 0:
            assert_mask_is_what_the_rules_accept(state)
        legal = np.flatnonzero(state.legal_action_mask())
        assert legal.size > 0
        state.apply_action(int(rng.choice(legal)))
        steps += 1
        assert np.array_equal(state.card_counts(), all_cards), "cards were created or lost"
        assert all(0 <= size <= 3 for size in state.hand_sizes)
    return state


@pytest.mark.parametrize("num_players", [2, 3, 4, 6, 8])
def test_1000_random_games_per_table_size_end_conserve_cards_and_score_correctly(num_players):
    game = make_game(num_players=num_players)
    rng = np.random.default_rng(num_players)
    for _ in range(250 if num_players > 2 else 1000):
        state = play_random_game(game, rng)
        assert state.is_terminal() and not state.is_truncated()
        assert state.tricks_played < game.max_tricks
        assert state.returns() == expected_returns(state.scores())
        assert sum(state.scores()) + int(state.discarded.sum()) <= game.total_cards


decks = st.lists(st.integers(0, 6), min_size=1, max_size=14)


@settings(max_examples=200, deadline=None)
@given(
    per_player=st.lists(decks, min_size=2, max_size=8),
    seed=st.integers(0, 2**32 - 1),
    max_tricks=st.integers(1, 30),
)
def test_any_decks_any_cap_keep_every_invariant(per_player, seed, max_tricks):
    game = make_game(num_players=len(per_player), decks=per_player, max_power=6,
                     max_tricks=max_tricks)  # fmt: skip
    rng = np.random.default_rng(seed)
    state = play_random_game(game, rng, full_mask_check_every=5)
    assert state.is_terminal() != state.is_truncated()
    if state.is_truncated():
        assert state.tricks_played == max_tricks and state.returns() == (0.0,) * len(per_player)
    else:
        assert state.returns() == expected_returns(state.scores())
        assert sum(not out for out in state.sitting_out) < 2
