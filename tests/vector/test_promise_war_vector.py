"""The vector Promise War engine against the reference rules: the hard cases (ties, tiebreaks
with face-down cards, drop-outs, discarded pots, eliminations, caps) loaded with ``set_state``,
every player count, the vector heuristic against the scalar one, and JIT against plain Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from vector_checks import capture_ties, check_against_reference, random_legal_actions

from cardarena.agents import EnvSpec
from cardarena.agents.heuristics import promise_war as scalar_module
from cardarena.agents.heuristics.promise_war import PromiseWarStrategy
from cardarena.agents.heuristics.vector_promise_war import VectorPromiseWarHeuristic
from cardarena.envs import make_raw
from cardarena.envs.promise_war.rules import TIEBREAK
from cardarena.envs.promise_war.vector import VectorPromiseWar
from cardarena.envs.vector import make_vec

ENV = "promise_war_v0"


def follow(config: dict[str, Any], decks: list[list[int]], actions: list[int]) -> Any:
    """Deal ``decks`` (top first) in the reference, load it into a batch slot, play
    ``actions`` (then the lowest legal card until the end) in both, and compare every step:
    state, every seat's observation, mask, ends and rewards. Returns the final reference."""
    raw = make_raw(ENV, **config)
    raw.reset(seed=0, options={"decks": decks})
    state = raw.game_state.clone()
    venv = make_vec(ENV, 3, seed=1, **config)
    batch = venv.set_state(1, state)
    agents = raw.possible_agents
    script = list(actions)
    while True:
        actual = venv.state_of(1)
        assert VectorPromiseWar.state_difference(state, state, actual) is None
        raw.set_state(state)
        for seat, agent in enumerate(agents):
            seats = np.zeros(3, np.int64) + seat
            np.testing.assert_array_equal(venv.observe(seats)[1], raw.observe(agent)["observation"])
        np.testing.assert_array_equal(batch.action_mask[1], state.legal_action_mask())
        if state.current_player() < 0:
            assert batch.current_player[1] == -1
            return state
        action = script.pop(0) if script else int(np.flatnonzero(state.legal_action_mask())[0])
        others = random_legal_actions(batch.action_mask, np.random.default_rng(0))
        others[1] = action
        previous = state.clone()
        state.apply_action(action)
        batch = venv.step(others)
        difference = VectorPromiseWar.state_difference(previous, state, venv.state_of(1))
        assert difference is None, difference
        assert batch.terminated[1] == state.is_terminal()
        assert batch.truncated[1] == state.is_truncated()
        rewards = state.returns() if state.is_terminal() else (0.0,) * len(agents)
        np.testing.assert_array_equal(batch.rewards[1], np.asarray(rewards, np.float32))


def test_tiebreak_face_down_cards_go_to_the_winner() -> None:
    # 5 v 5 ties; both draw up, play 9 v 8 face up, 1 2 and 3 4 go down: 8 cards to player_0.
    end = follow({}, [[5, 1, 2, 9, 3], [5, 3, 4, 8, 2]], [5, 5, 9, 8])
    assert end.victory_sizes == [10, 0] and end.returns() == (1.0, -1.0)


def test_observation_mid_tiebreak() -> None:
    raw = make_raw(ENV, num_players=3)
    raw.reset(seed=0, options={"decks": [[7, 1, 6, 2, 5, 9, 9], [7, 1, 6, 3, 5, 8, 8], [2] * 3]})
    state = raw.game_state
    for action in (7, 7, 2, 6):  # a tie of 7s, then player_0 has picked in the tiebreak
        state.apply_action(action)
    assert state.phase == TIEBREAK and state.contenders == [0, 1]
    venv = make_vec(ENV, 2, seed=0, num_players=3)
    venv.set_state(0, state)
    for seat in range(3):
        raw.set_state(state)
        observed = venv.observe(np.array([seat, seat]))[0]
        np.testing.assert_array_equal(observed, raw.observe(f"player_{seat}")["observation"])


def test_repeated_tie_among_the_tied_only() -> None:
    # 7 7 2: players 0 and 1 tie; 6 v 6 ties again; 9 v 8 takes everything.
    decks = [[7, 1, 6, 2, 5, 9, 9], [7, 1, 6, 3, 5, 8, 8], [2, 2, 2, 2]]
    follow({"num_players": 3}, decks, [7, 7, 2, 6, 6, 9, 8])


def test_tied_player_without_cards_drops_out() -> None:
    # player_0 has no card to draw after the tie: player_1 takes the pot without playing,
    # then player_0 sits out and the game ends.
    end = follow({}, [[5], [5, 1, 2, 3]], [5, 5])
    assert end.is_terminal() and end.returns() == (-1.0, 1.0)


def test_nobody_left_discards_the_pot_and_a_tie_for_top_scores_zero() -> None:
    end = follow({}, [[4], [4]], [4, 4])
    assert end.discarded[4] == 2 and end.returns() == (0.0, 0.0)


def test_eliminations_with_many_players() -> None:
    decks = [[3], [1, 1, 1, 1, 1], [2, 2], [9, 0, 0, 0, 0, 0, 0], [0]]
    end = follow({"num_players": 5}, decks, [])
    assert end.is_terminal() and end.sitting_out.count(True) >= 4


def test_cap_truncates_but_the_end_rule_comes_first() -> None:
    assert follow({"max_tricks": 1}, [[3, 4], [2, 1]], [3, 2]).is_truncated()
    end = follow({"max_tricks": 1}, [[3], [2]], [3, 2])
    assert end.is_terminal() and not end.is_truncated()
    # a tiebreak counts within its trick: the cap strikes after it, phase back to trick
    assert follow(
        {"max_tricks": 1}, [[5, 1, 9, 2, 3], [5, 1, 8, 2, 4]], [5, 5, 9, 8]
    ).is_truncated()


@pytest.mark.parametrize("num_players", range(2, 9))
def test_every_player_count(num_players: int) -> None:
    counts = check_against_reference(ENV, {"num_players": num_players}, 300, num_envs=16)
    assert counts["transitions"] >= 300


def test_custom_decks_and_power_zero() -> None:
    config = {"max_power": 3, "decks": [[0, 0, 1], [3, 2, 2, 0, 0]], "max_tricks": 9}
    counts = check_against_reference(ENV, config, 400, num_envs=16)
    assert counts["games_ended"] > 0


def test_state_difference_can_fail() -> None:
    venv = make_vec(ENV, 2, seed=3)
    state = venv.state_of(0)
    other = venv.state_of(0)
    assert VectorPromiseWar.state_difference(state, state, other) is None
    other.pot_face_down = [1]
    assert "pot_face_down" in str(VectorPromiseWar.state_difference(state, state, other))
    other = venv.state_of(0)
    other.draw_piles[1] = other.draw_piles[1][::-1]
    assert other.draw_piles != state.draw_piles  # 37 cards in a row
    assert "draw_piles" in str(VectorPromiseWar.state_difference(state, state, other))


# --- the vector heuristic ---------------------------------------------------------------------
HEURISTIC_CONFIGS = [
    {},
    {"num_players": 3},
    {"num_players": 8},
    {"num_players": 3, "max_power": 2, "decks": [0, 0, 1, 1, 2, 2], "max_tricks": 6},
]


@pytest.mark.parametrize("config", HEURISTIC_CONFIGS, ids=str)
def test_heuristic_matches_the_scalar(config: dict[str, Any], monkeypatch: Any) -> None:
    spec = EnvSpec(ENV, config)
    venv = make_vec(ENV, 32, seed=5, **config)
    vector = VectorPromiseWarHeuristic(spec)
    scalar = PromiseWarStrategy(spec)
    agents = venv.possible_agents
    rng = np.random.default_rng(5)
    ties = capture_ties(monkeypatch, scalar_module)
    batch = venv.reset()
    rows = 0
    for _ in range(120):
        live = np.flatnonzero(batch.current_player >= 0)
        seats = batch.current_player[live]
        got = vector.act(batch.observation[live], batch.action_mask[live], seats, rng)
        for k, slot in enumerate(live):
            scalar.start_game(agents[seats[k]], rng)
            mask = batch.action_mask[slot].astype(np.int8)
            ties.clear()
            want = scalar.act({"observation": batch.observation[slot], "action_mask": mask}, rng)
            assert got[k] in ties[-1], (slot, got[k], want, ties[-1])
            rows += 1
        actions = np.zeros(venv.num_envs, np.int64)
        actions[live] = got
        noise = rng.random(venv.num_envs) < 0.5  # also visit positions the heuristic avoids
        actions[noise] = random_legal_actions(batch.action_mask, rng)[noise]
        batch = venv.step(actions)
    assert rows > 3000


#: The reference state's fields a deal draws at random (PW-2): which cards each deck holds
#: in which order, so which land in each hand; everything else a new game sets is fixed.
DEALT = {"rng", "draw_piles", "hands", "deck_counts"}


@pytest.mark.parametrize("config", make_raw(ENV).example_configs, ids=str)
def test_a_new_vector_game_starts_as_the_rules_start_one_but_the_cards_dealt(config) -> None:
    """The exactness runs continue the reference from each vector reset, so they never check
    what a reset sets besides the cards: here every other field against a fresh rules game."""
    venv = make_vec(ENV, 4, seed=11, **config)
    venv.reset()
    for slot in range(4):
        raw = make_raw(ENV, **config)
        raw.reset(seed=slot)
        expected, actual = raw.game_state, venv.state_of(slot)
        assert set(vars(expected)) == set(vars(actual))
        for name in sorted(set(vars(expected)) - DEALT):
            mine, theirs = getattr(expected, name), getattr(actual, name)
            if isinstance(mine, np.ndarray):
                np.testing.assert_array_equal(theirs, mine, err_msg=name)
            else:
                assert theirs == mine, (name, theirs, mine)
