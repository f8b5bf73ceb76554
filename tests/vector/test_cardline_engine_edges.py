"""Edges of the vector Cardline engine that random play rarely reaches, each against the rules.

Rows left unobserved while the engine's list of changed cards fills (one turn short of its
last place, at it and past it, beside untouched neighbours); a finished row shown by a new
mask array and dealt again; every card on top of the pile in a freshly written row; the
characteristic and first seat fixed to index 0; decks at and one past a row of sixteen card
slots, hands at their largest; and a line that ends up holding the whole deck, filled at its
first and last gaps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

# DECK: sixteen cards (one padded row of the engine's card arrays), ties Bee = Fox and Cat =
# Newt; ``w`` reverses the order, so a fixed characteristic has a first and a last to choose.
from test_cardline_vector import DECK, ENV, VALUES
from vector_checks import check_against_reference

from cardarena.envs import make_raw
from cardarena.envs.cardline.vector import VectorCardline
from cardarena.envs.vector import make_vec


def dealt(config: dict[str, Any], hands: list[list[str]], initial: str, pile: list[str]) -> Any:
    """The reference state of a deal that names every card's place (``v``, player_0 first)."""
    raw = make_raw(ENV, **config)
    options = {"hands": hands, "initial_card": initial, "draw_pile": pile}
    raw.reset(seed=0, options=options | {"characteristic": "v", "first_player": 0})
    return raw.game_state.clone()


def placing(state: Any, name: str, right: bool) -> int:
    """The action of the seat to act putting card ``name`` into its first right (or wrong)
    gap, by the rules' own values."""
    card = state.game.card_ids[name]
    values, line = state.values, state.line
    for gap in range(len(line) + 1):
        fits = (gap == 0 or values[line[gap - 1]] <= values[card]) and (
            gap == len(line) or values[card] <= values[line[gap]]
        )
        if fits == right:
            return state.hands[state.to_act].index(card) * state.game.num_gaps + gap
    raise AssertionError(f"{name} has no {'right' if right else 'wrong'} gap in {line}")


def assert_row(venv: Any, out: np.ndarray, slot: int, seat: int) -> None:
    """Row ``slot`` of ``out`` is what the raw env shows ``seat`` in the slot's state."""
    raw = venv.raw_env
    raw.set_state(venv.state_of(slot))
    expected = raw.observe(raw.possible_agents[seat])["observation"]
    np.testing.assert_array_equal(out[slot], expected, err_msg=f"slot {slot}, seat {seat}")


def test_rows_unobserved_while_the_change_list_fills_are_exact_beside_their_neighbours() -> None:
    """Between two writes of a row the engine lists the cards that changed, in a row as wide
    as the padded deck (sixteen here: two places for the first changed line position and the
    count, fourteen for cards); past it, it rewrites every card. Slots 0, 2 and 4 play the
    same turns (three wrong, then right) unobserved and are written again after 13, 14 and 15
    turns; the fourteenth is Gnu right into gap 0, left of where any card changed before.
    Slots 1, 3 and 5 never move and must stay as they were loaded."""
    config = {"deck": DECK, "num_players": 3, "hand_size": 4}
    hands = [["Ant", "Cat", "Ibis", "Mole"], ["Bee", "Gnu", "Kiwi", "Owl"]]
    hands.append(["Dog", "Hen", "Jay", "Pig"])
    start = dealt(config, hands, "Eel", ["Lynx", "Newt", "Fox"])  # top first
    script = [("Ant", False), ("Bee", False), ("Dog", False)]  # the whole pile drawn
    script += [(name, True) for name in ("Cat", "Kiwi", "Hen", "Ibis", "Owl", "Jay", "Mole")]
    script += [(name, True) for name in ("Newt", "Pig", "Lynx", "Gnu", "Fox")]
    observed_after = {13: 0, 14: 2, 15: 4}  # turns played -> the slot written then
    venv = make_vec(ENV, 6, seed=0, **config)
    rules = venv.rules
    for slot in range(6):
        venv.set_state(slot, start.clone())
    out = np.zeros((6, venv.observation_size), np.float32)
    mask = np.zeros((6, venv.num_actions), np.bool_)
    rules.observations(np.zeros(6, np.int64), out)  # whole rows: ``out`` is followed now
    reference = start.clone()
    playing = np.zeros(6, np.bool_)
    playing[list(observed_after.values())] = True
    for turn, (name, right) in enumerate(script):
        assert right or reference.pile  # a wrong card's penalty draw needs no reshuffle
        action = placing(reference, name, right)
        previous = reference.clone()
        reference.apply_action(action)
        with np.errstate(over="ignore"):  # the slots' random streams wrap by design
            rules.step_games(np.full(6, action, np.int64), playing)
        for slot in np.flatnonzero(playing):
            actual = venv.state_of(int(slot))
            assert VectorCardline.state_difference(previous, reference, actual) is None
        if turn + 1 in observed_after:  # written again (every seat's view), then left alone
            slot = observed_after[turn + 1]
            for seat in (reference.to_act, 0, 1, 2):
                seats = np.full(6, -1, np.int64)
                seats[slot] = seat
                rules.observations(seats, out)
                assert_row(venv, out, slot, seat)
            playing[slot] = False
    assert reference.to_act >= 0 and reference.finishers == []  # three finishers drew
    for slot in (1, 3, 5):
        assert VectorCardline.state_difference(start, start, venv.state_of(slot)) is None
    for seat in range(3):
        rules.observations(np.full(6, seat, np.int64), out)
        for slot in range(6):
            assert_row(venv, out, slot, seat)
    rules.legal_masks(mask)
    for slot in range(6):
        np.testing.assert_array_equal(mask[slot], venv.state_of(slot).legal_action_mask())


@pytest.mark.parametrize("over", ["terminal", "truncated"])
def test_a_finished_row_shown_by_a_new_mask_array_is_right_once_dealt_again(over: str) -> None:
    """A new mask array makes every row be written whole; a finished game's row is all False
    and must be remembered as showing nothing, so that the next deal writes all of its own."""
    config = {"deck": DECK, "hand_size": 1, "max_turns": 1 if over == "truncated" else 10}
    state = dealt(config, [["Ant"], ["Pig"]], "Eel", ["Kiwi"])
    state.apply_action(placing(state, "Ant", True))  # player_0 finishes (or the cap hits)
    if over == "terminal":
        state.apply_action(placing(state, "Pig", False))  # the round ends: player_0 wins
    assert state.is_terminal() == (over == "terminal") and state.current_player() < 0
    venv = make_vec(ENV, 3, seed=0, **config)
    venv.set_state(1, state)
    rules = venv.rules
    mask = np.ones((3, venv.num_actions), np.bool_)
    for deal in (np.zeros(3, np.bool_), np.array([False, True, False])):
        venv.deal(deal)
        rules.legal_masks(mask)
        for slot in range(3):
            want = venv.state_of(slot).legal_action_mask()
            np.testing.assert_array_equal(mask[slot], want, err_msg=f"slot {slot}")
    assert mask[1].any()


def test_every_card_on_top_of_the_pile_is_shown_in_a_row_written_whole() -> None:
    """``observe`` writes into a new array, so each row is written from nothing: the pile's top
    card (each card of the deck in turn, and none) must be set even if it is card 0 or 1."""
    config = {"deck": DECK, "hand_size": 1}
    venv = make_vec(ENV, 2, seed=0, **config)
    raw = venv.raw_env
    others = [name for name in VALUES if name not in ("Gnu", "Hen", "Eel")]
    for pile in [[]] + [[name] for name in others] + [others]:
        state = dealt(config, [["Gnu"], ["Hen"]], "Eel", pile)
        batch = venv.set_state(0, state)
        raw.set_state(state.clone())
        for seat, agent in enumerate(raw.possible_agents):
            expected = raw.observe(agent)["observation"]
            fresh = venv.observe(np.full(2, seat, np.int64))
            np.testing.assert_array_equal(fresh[0], expected, err_msg=f"pile {pile}")
            if seat == 0:  # the batch's own row (player_0 acts)
                np.testing.assert_array_equal(batch.raw_observation[0], expected)


@pytest.mark.parametrize(("characteristic", "first"), [("v", "player_0"), ("w", "player_2")])
def test_a_fixed_characteristic_and_first_seat_hold_at_index_zero(
    characteristic: str, first: str
) -> None:
    """Fixed values are kept in every deal, the first of each (index 0) as well as the last;
    a drawn one would give some slots another characteristic or first seat."""
    config = {"deck": DECK, "num_players": 3, "characteristic": characteristic}
    config |= {"first_player": first, "max_turns": 20}
    game = make_raw(ENV, **config).game
    want_char = game.characteristics.index(game.characteristic)
    venv = make_vec(ENV, 64, seed=5, **config)
    for redeal in range(2):
        if redeal:
            venv.deal(np.ones(64, np.bool_))
        for slot in range(64):
            state = venv.state_of(slot)
            assert (state.characteristic, state.first_player) == (want_char, game.first_player)
            assert venv.rules.current_player[slot] == game.first_player
    counts = check_against_reference(ENV, config, 300, num_envs=8, seed=2)
    assert counts["games_ended"] > 0


def numbered_deck(size: int) -> list[dict[str, Any]]:
    """``size`` cards, rows in no value order, with ties in both characteristics."""
    rows = [{"name": f"c{k}", "colour": "x", "v": (5 * k) % 7} for k in range(size)]
    return [row | {"w": -((3 * k) % 11)} for k, row in enumerate(rows)]


@pytest.mark.parametrize(
    ("deck", "num_players", "hand_size"),
    [(16, 3, 5), (17, 2, 8), (17, 8, 2), (33, 4, 8)],
    ids=["16-cards", "17-cards-2x8", "17-cards-8x2", "33-cards-4x8"],
)
def test_decks_around_a_row_of_sixteen_with_the_largest_hands(
    deck: int, num_players: int, hand_size: int
) -> None:
    """The engine pads its card rows to a multiple of sixteen: a deck of 17 or 33 cards needs
    the next one. Each deal here hands out every card but the initial one (or all but one
    so the pile starts empty and the box is reshuffled early and often."""
    config = {"deck": numbered_deck(deck), "num_players": num_players, "hand_size": hand_size}
    config["max_turns"] = 30
    assert deck == num_players * hand_size + 1
    counts = check_against_reference(ENV, config, 600, num_envs=8, seed=deck)
    assert counts["games_ended"] > 0
    rules = make_vec(ENV, 2, seed=1, **config).rules
    assert rules.piles.shape[2] >= deck and rules.cards.shape[2] >= deck


def test_a_line_filled_at_its_first_and_last_gaps_to_the_whole_deck() -> None:
    """Three cards, all placed: Gnu into gap 0 (left of everything), Eel into the last gap,
    a shared win with every gap open. Every step's rows (the batch's and fresh ones for each
    seat), masks, rewards and ends equal the rules'."""
    deck = [card for card in DECK if card["name"] in ("Cat", "Eel", "Gnu")]
    config = {"deck": deck, "hand_size": 1}
    state = dealt(config, [["Gnu"], ["Eel"]], "Cat", [])
    venv = make_vec(ENV, 2, seed=0, **config)
    batch = venv.set_state(0, state)
    raw = venv.raw_env
    for name, gap in (("Gnu", 0), ("Eel", 2)):
        action = placing(state, name, True)
        assert action % state.game.num_gaps == gap
        previous = state.clone()
        state.apply_action(action)
        actions = np.array([action, np.flatnonzero(batch.action_mask[1])[0]], np.int64)
        batch = venv.step(actions)
        assert VectorCardline.state_difference(previous, state, venv.state_of(0)) is None
        raw.set_state(state.clone())
        shown = state.current_player() if state.current_player() >= 0 else previous.to_act
        expected = raw.observe(raw.possible_agents[shown])["observation"]
        np.testing.assert_array_equal(batch.raw_observation[0], expected)
        for seat, agent in enumerate(raw.possible_agents):
            fresh = venv.observe(np.full(2, seat, np.int64))[0]
            np.testing.assert_array_equal(fresh, raw.observe(agent)["observation"])
        np.testing.assert_array_equal(batch.action_mask[0], state.legal_action_mask())
        assert bool(batch.terminated[0]) == state.is_terminal()
        assert bool(batch.truncated[0]) == state.is_truncated()
        rewards = state.returns() if state.is_terminal() else (0.0, 0.0)
        np.testing.assert_array_equal(batch.rewards[0], np.asarray(rewards, np.float32))
    assert state.is_terminal() and state.returns() == (1.0, 1.0)
    assert sorted(state.line) == list(range(state.game.deck_size))
