"""The vector Cardline engine against the reference rules: the hard cases (ties, a wrong card
drawn back from an empty pile, box reshuffles, several finishers, shared wins, an eliminated
first player, the cap) loaded with ``set_state``, every player count, custom decks, the
incremental observation rows, the deal's distribution, the vector heuristic against the
scalar one, and JIT against plain Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from vector_checks import capture_ties, check_against_reference, random_legal_actions

from cardarena.agents import EnvSpec
from cardarena.agents.heuristics import cardline as scalar_module
from cardarena.agents.heuristics.cardline import CardlineStrategy
from cardarena.agents.heuristics.vector_cardline import VectorCardlineHeuristic
from cardarena.envs import make_raw
from cardarena.envs.cardline.bridge import shuffled_cards
from cardarena.envs.cardline.vector import (
    CHAR,
    LINE,
    PILE,
    PILE_LEN,
    VectorCardline,
)
from cardarena.envs.vector import make_vec

ENV = "cardline_v0"
VALUES = {
    "Ant": 10, "Bee": 20, "Cat": 30, "Dog": 40, "Eel": 50, "Fox": 20, "Gnu": -5, "Hen": 0.5,
    "Ibis": 60, "Jay": 70, "Kiwi": 80, "Lynx": 90, "Mole": 100, "Newt": 30, "Owl": 110,
    "Pig": 120,
}  # fmt: skip
#: Ties (Bee = Fox, Cat = Newt), a negative and a fractional value; ``w`` reverses the order.
DECK = [{"name": name, "colour": "animal", "v": v, "w": -v} for name, v in VALUES.items()]


def follow(config: dict[str, Any], options: dict[str, Any], script: list[tuple[str, int]]) -> Any:
    """Deal ``options`` in the reference, load it into slot 1 of a batch, play ``script``
    ((card name, gap) for the seat to act; then its first legal action until the end) in
    both and compare every step: the state, every seat's observation, the mask, the ends and
    the rewards. After a step that reshuffled the box the two may hold different cards, so
    the reference goes on from the batch's state. Returns the final state."""
    config = {"deck": DECK, **config}
    raw = make_raw(ENV, **config)
    raw.reset(seed=0, options=options)
    state = raw.game_state.clone()
    venv = make_vec(ENV, 3, seed=1, **config)
    batch = venv.set_state(1, state)
    agents = raw.possible_agents
    script = list(script)
    rng = np.random.default_rng(0)
    while True:
        assert VectorCardline.state_difference(state, state, venv.state_of(1)) is None
        raw.set_state(state)
        for seat, agent in enumerate(agents):
            seats = np.full(3, seat, np.int64)
            np.testing.assert_array_equal(venv.observe(seats)[1], raw.observe(agent)["observation"])
        np.testing.assert_array_equal(batch.action_mask[1], state.legal_action_mask())
        if state.current_player() < 0:
            assert batch.current_player[1] == -1
            return state
        if script:
            name, gap = script.pop(0)
            card = state.game.card_ids[name]
            action = state.hands[state.to_act].index(card) * state.game.num_gaps + gap
        else:
            action = int(np.flatnonzero(state.legal_action_mask())[0])
        actions = random_legal_actions(batch.action_mask, rng)
        actions[1] = action
        previous = state.clone()
        state.apply_action(action)
        batch = venv.step(actions)
        actual = venv.state_of(1)
        difference = VectorCardline.state_difference(previous, state, actual)
        assert difference is None, difference
        assert batch.terminated[1] == state.is_terminal()
        assert batch.truncated[1] == state.is_truncated()
        rewards = state.returns() if state.is_terminal() else (0.0,) * len(agents)
        np.testing.assert_array_equal(batch.rewards[1], np.asarray(rewards, np.float32))
        state = actual


def deal(hands: list[list[str]], initial: str, pile: list[str]) -> dict[str, Any]:
    """Reset options placing every card (cards named nowhere are out of the game)."""
    options = {"hands": hands, "initial_card": initial, "draw_pile": pile}
    return options | {"characteristic": "v", "first_player": 0}


def test_ties_fit_either_side_and_one_finisher_wins_at_the_round_end() -> None:
    options = deal([["Fox", "Ant"], ["Newt", "Dog"]], "Bee", ["Eel", "Ibis"])
    # Fox = Bee fits left of it; Newt between the two 20s is wrong (box, draws Eel); Ant
    # empties player_0's hand, player_1 still plays (Dog, right), then player_0 wins.
    script = [("Fox", 0), ("Newt", 1), ("Ant", 0), ("Dog", 3)]
    end = follow({"hand_size": 2}, options, script)
    assert end.is_terminal() and end.returns() == (1.0, -1.0)
    assert end.scores() == (2, 1)


def test_wrong_card_from_an_empty_pile_comes_back_and_the_box_is_reshuffled() -> None:
    # Nothing to draw: Ant goes to the box, the box (Ant alone) becomes the pile, Ant returns.
    follow({"hand_size": 2}, deal([["Ant", "Pig"], ["Cat", "Dog"]], "Eel", []), [("Ant", 1)])
    # Kiwi is drawn first; then the box holds Ant and Cat and one of them is drawn at random.
    options = deal([["Ant", "Pig"], ["Cat", "Dog"]], "Eel", ["Kiwi"])
    follow({"hand_size": 2}, options, [("Ant", 1), ("Cat", 1)])


def test_several_finishers_play_on_and_draw_in_turn_order() -> None:
    # Ant and Pig finish, player_2 is wrong (draws Kiwi) and is eliminated (Cat and Kiwi to
    # the box); player_0 draws Lynx, player_1 Mole, and only they play the next round.
    options = deal([["Ant"], ["Pig"], ["Cat"]], "Eel", ["Kiwi", "Lynx", "Mole"])
    script = [("Ant", 0), ("Pig", 2), ("Cat", 3)]
    config = {"num_players": 3, "hand_size": 1}
    raw = make_raw(ENV, deck=DECK, **config)
    raw.reset(seed=0, options=options)
    state = raw.game_state
    for name, gap in script:
        card = state.game.card_ids[name]
        state.apply_action(state.hands[state.to_act].index(card) * state.game.num_gaps + gap)
    names = state.game.names
    assert state.eliminated == [False, False, True] and state.order == [0, 1]
    assert [[names[c] for c in hand] for hand in state.hands] == [["Lynx"], ["Mole"], []]
    follow(config, options, script)
    # With only Kiwi left to draw the finishers draw from the reshuffled box.
    follow(config, deal([["Ant"], ["Pig"], ["Cat"]], "Eel", ["Kiwi"]), script)


def test_shared_win_when_the_cards_cannot_deal_every_finisher() -> None:
    options = deal([["Ant"], ["Pig"], ["Ibis"]], "Eel", ["Kiwi"])
    end = follow({"num_players": 3, "hand_size": 1}, options, [("Ant", 0), ("Pig", 2), ("Ibis", 2)])
    assert end.is_terminal() and end.returns() == (1.0, 1.0, 1.0)


def test_an_eliminated_first_player_is_skipped() -> None:
    options = deal([["Cat"], ["Ant"], ["Pig"]], "Eel", ["Kiwi", "Lynx", "Mole"])
    options["first_player"] = "player_0"
    config = {"num_players": 3, "hand_size": 1}
    end = follow(config, options, [("Cat", 1), ("Ant", 0), ("Pig", 2)])
    assert end.eliminated[0] and end.rounds >= 2


def test_the_cap_truncates_but_a_win_on_its_step_terminates() -> None:
    options = deal([["Ant", "Cat"], ["Pig", "Dog"]], "Eel", ["Kiwi"])
    end = follow({"hand_size": 2, "max_turns": 1}, options, [("Ant", 0)])
    assert end.is_truncated() and not end.is_terminal()
    options = deal([["Ant"], ["Pig"]], "Eel", [])
    end = follow({"hand_size": 1, "max_turns": 2}, options, [("Ant", 0), ("Pig", 2)])
    assert end.is_terminal() and not end.is_truncated()
    assert end.returns() == (1.0, 1.0)  # both right: a shared win, pile and box empty
    end = follow({"hand_size": 1, "max_turns": 2}, options, [("Ant", 0), ("Pig", 0)])
    assert end.is_terminal() and end.returns() == (1.0, -1.0)


@pytest.mark.parametrize("num_players", range(2, 9))
def test_every_player_count(num_players: int) -> None:
    counts = check_against_reference(ENV, {"num_players": num_players}, 300, num_envs=16)
    assert counts["transitions"] >= 300


def test_custom_deck_fixed_characteristic_and_first_player() -> None:
    config = {"deck": DECK, "num_players": 3, "hand_size": 3, "characteristic": "w"}
    config |= {"first_player": "player_2", "max_turns": 30}
    counts = check_against_reference(ENV, config, 500, num_envs=16, seed=3)
    assert counts["games_ended"] > 0


def test_observation_rows_by_difference_any_seat_and_skipped_rows() -> None:
    """Drive the rules directly: rows of one array written by difference for random seats,
    rows with seat -1 left alone (and exact once written again), masks by difference."""
    venv = make_vec(ENV, 6, seed=2, num_players=4)
    raw = make_raw(ENV, num_players=4)
    rules = venv.rules
    rng = np.random.default_rng(2)
    mine = np.full((6, venv.observation_size), 7.0, np.float32)
    mask = np.ones((6, venv.num_actions), np.bool_)
    for _ in range(80):
        seats = rng.integers(-1, 4, size=6)
        before = mine.copy()
        rules.observations(seats, mine)
        rules.legal_masks(mask)
        for i in range(6):
            state = venv.state_of(i)
            np.testing.assert_array_equal(mask[i], state.legal_action_mask())
            if seats[i] < 0:
                np.testing.assert_array_equal(mine[i], before[i])
                continue
            raw.set_state(state)
            observed = raw.observe(f"player_{seats[i]}")["observation"]
            np.testing.assert_array_equal(mine[i], observed)
        done = rules.terminated | rules.truncated
        rules.reset_games(done)
        rules.legal_masks(mask)
        rules.step_games(random_legal_actions(mask, rng), ~done)


def test_deal_distribution() -> None:
    venv = make_vec(ENV, 4000, seed=9, num_players=3)
    rules = venv.rules
    first = np.bincount(rules.current_player, minlength=3)
    chars = np.bincount(rules.scal[:, CHAR], minlength=3)
    initial = np.bincount(rules.piles[:, LINE, 0], minlength=110)
    tops = rules.piles[np.arange(4000), PILE, rules.scal[:, PILE_LEN] - 1]
    pile_top = np.bincount(tops, minlength=110)
    for counts, expected in ((first, 4000 / 3), (chars, 4000 / 3)):
        assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected)), counts
    for counts in (initial, pile_top):  # each card about 36 times: chi-square, 109 dof
        chi2 = ((counts - 4000 / 110) ** 2 / (4000 / 110)).sum()
        assert chi2 < 200, chi2
    hands = rules.hands.reshape(4000, -1)
    assert (np.diff(rules.hands, axis=2) > 0).all()  # sorted hands of distinct cards
    assert np.bincount(hands.ravel(), minlength=110).min() > 0


def test_reshuffled_box_is_uniform() -> None:
    # Every slot: player_0 was wrong with Ant and drew Kiwi, the pile's last card; now Fox is
    # wrong too, the box (Ant and Fox) is reshuffled and player_1 draws one of the two.
    raw = make_raw(ENV, deck=DECK, hand_size=3)
    raw.reset(seed=0, options=deal([["Ant", "Bee", "Cat"], ["Dog", "Fox", "Gnu"]], "Hen", ["Kiwi"]))
    state = raw.game_state
    gaps = state.game.num_gaps
    state.apply_action(0 * gaps + 0)  # Ant (10) left of Hen (0.5)
    slots = 2000
    venv = make_vec(ENV, slots, seed=4, deck=DECK, hand_size=3)
    for i in range(slots):
        venv.rules.set_state(i, state)
    venv.set_state(0, state)
    wrong = 1 * gaps + 0  # Fox (20) left of Hen
    venv.step(np.full(slots, wrong, np.int64))
    ant, fox = state.game.card_ids["Ant"], state.game.card_ids["Fox"]
    assert shuffled_cards(state, wrong) == {ant, fox}
    drew_fox = (venv.rules.hands[:, 1, :] == fox).any(axis=1)
    drew_ant = (venv.rules.hands[:, 1, :] == ant).any(axis=1)
    assert (drew_fox ^ drew_ant).all()
    assert abs(drew_fox.mean() - 0.5) < 0.05


def test_state_difference_can_fail() -> None:
    venv = make_vec(ENV, 2, seed=3)
    state = venv.state_of(0)
    assert VectorCardline.state_difference(state, state, venv.state_of(0)) is None
    other = venv.state_of(0)
    other.turns += 1
    assert "turns" in str(VectorCardline.state_difference(state, state, other))
    other = venv.state_of(0)
    other.pile = other.pile[::-1]
    assert "pile" in str(VectorCardline.state_difference(state, state, other))
    other = venv.state_of(0)
    other.hands[0], other.hands[1] = other.hands[1], other.hands[0]
    assert VectorCardline.state_difference(state, state, other) is not None


# --- the vector heuristic ---------------------------------------------------------------------
HEURISTIC_CONFIGS = [
    {},
    {"num_players": 8},
    {"num_players": 3, "hand_size": 3, "deck": DECK, "max_turns": 40},
]


@pytest.mark.parametrize("config", HEURISTIC_CONFIGS, ids=lambda c: str(sorted(c))[:30])
def test_heuristic_matches_the_scalar(config: dict[str, Any], monkeypatch: Any) -> None:
    spec = EnvSpec(ENV, config)
    venv = make_vec(ENV, 24, seed=5, **config)
    vector = VectorCardlineHeuristic(spec)
    scalar = CardlineStrategy(spec)
    rng = np.random.default_rng(5)
    ties = capture_ties(monkeypatch, scalar_module)
    batch = venv.reset()
    rows = exact = 0
    for _ in range(70):
        live = np.flatnonzero(batch.current_player >= 0)
        seats = batch.current_player[live]
        got = vector.act(batch.observation[live], batch.action_mask[live], seats, rng)
        for k, slot in enumerate(live):
            mask = batch.action_mask[slot].astype(np.int8)
            ties.clear()
            want = scalar.act({"observation": batch.observation[slot], "action_mask": mask}, rng)
            assert got[k] in ties[-1], (slot, got[k], want, ties[-1])
            exact += len(ties[-1]) == 1
            rows += 1
        actions = np.zeros(venv.num_envs, np.int64)
        actions[live] = got
        noise = rng.random(venv.num_envs) < 0.5  # also visit positions the heuristic avoids
        actions[noise] = random_legal_actions(batch.action_mask, rng)[noise]
        batch = venv.step(actions)
    assert rows > 1000 and exact > 0


class FixedUniforms:
    """A stand-in generator whose ``random`` gives the values it was made with."""

    def __init__(self, *values: float) -> None:
        self.values = np.array(values)

    def random(self, size: int) -> np.ndarray:
        assert size == self.values.size
        return self.values


def test_heuristic_takes_the_kth_tie_for_a_uniform_in_the_kth_share(monkeypatch: Any) -> None:
    spec = EnvSpec(ENV, {})
    batch = make_vec(ENV, 1, seed=3).reset()  # no card revealed yet: every card ties per gap
    observation, mask = batch.observation[0], batch.action_mask[0]
    ties = capture_ties(monkeypatch, scalar_module)
    view = {"observation": observation, "action_mask": mask.astype(np.int8)}
    CardlineStrategy(spec).act(view, np.random.default_rng(0))
    tied = sorted(ties[-1])
    assert len(tied) > 2
    vector = VectorCardlineHeuristic(spec)
    for k, action in enumerate(tied):
        for share in (0.0, 0.5, 0.999):
            u = (k + share) / len(tied)
            seat = np.zeros(1, np.int64)
            got = vector.act(observation[None], mask[None], seat, FixedUniforms(u))
            assert got[0] == action, (k, share, got[0], tied)


def test_heuristic_refuses_a_mask_or_observation_no_cardline_env_makes() -> None:
    spec = EnvSpec(ENV, {})
    vector = VectorCardlineHeuristic(spec)
    batch = make_vec(ENV, 2, seed=3).reset()
    observations, masks = batch.observation, batch.action_mask
    seats = np.zeros(2, np.int64)
    gaps, hand = vector.gaps, vector.hand_size
    assert vector.act(observations, masks, seats).shape == (2,)
    open_gaps = int(observations[1, vector._line_at]) + 1
    held = int(observations[1, vector._sizes_at])
    assert open_gaps < gaps and held == hand
    # A legal action in a gap not yet open, then one for a card no longer held.
    fewer = observations.copy()
    fewer[1, vector._sizes_at] = held - 1
    for crafted, action in ((observations, open_gaps), (fewer, (held - 1) * gaps)):
        outside = masks.copy()
        outside[1, action] = True
        with pytest.raises(ValueError, match=rf"row 1: legal action {action} \("):
            vector.act(crafted, outside, seats)
    # More cards held, or more gaps open, than the config has.
    for column, value in ((vector._sizes_at, hand + 1), (vector._line_at, gaps)):
        crafted = observations.copy()
        crafted[:, column] = value  # both rows: the first is named
        with pytest.raises(ValueError, match="row 0 is not an observation of this config"):
            vector.act(crafted, masks, seats)
    widest = observations.copy()  # every gap open: the most the kernel's rows can hold
    widest[0, vector._line_at] = gaps - 1
    assert vector.act(widest, masks, seats).shape == (2,)
    with pytest.raises(ValueError, match=f"masks have {masks.shape[1] - 1} actions"):
        vector.act(observations, masks[:, :-1], seats)


@pytest.mark.parametrize("config", HEURISTIC_CONFIGS, ids=lambda c: str(sorted(c))[:30])
def test_heuristic_chance_per_gap_is_the_scalars_bit_for_bit(config: dict[str, Any]) -> None:
    """The kernel's chance of an unrevealed card per open gap (its ``chances`` scratch row
    after one row) against ``CardlineStrategy.gap_chances``, at every count of seen values;
    and the compiled kernel against itself as plain Python (which checks every index)."""
    from cardarena.agents.heuristics.vector_cardline import _act

    spec = EnvSpec(ENV, config)
    venv = make_vec(ENV, 8, seed=9, **config)
    vector, scalar = VectorCardlineHeuristic(spec), CardlineStrategy(spec)
    layout, gaps = scalar.layout, vector.gaps
    rng = np.random.default_rng(9)
    batch = venv.reset()
    counts = set()
    for _ in range(40):
        for m in np.flatnonzero(batch.current_player >= 0):
            observation = batch.observation[m : m + 1].astype(np.float32)
            mask = batch.action_mask[m : m + 1].astype(np.bool_)
            held = vector._playable(observation, mask)
            u = rng.random(1)
            chances, out = np.zeros(gaps), np.zeros(1, np.int64)
            _act(observation, mask, u, vector._offsets, held, gaps,
                 np.zeros(gaps + 1, np.int64), chances, np.zeros(mask.shape[1]), out)  # fmt: skip
            # The same kernel as plain Python: numpy checks every index numba does not.
            python = getattr(_act, "py_func", _act)
            chances_py, out_py = np.zeros(gaps), np.zeros(1, np.int64)
            scratch = np.zeros(gaps + 1, np.int64), chances_py, np.zeros(mask.shape[1])
            python(observation, mask, u, vector._offsets, held, gaps, *scratch, out_py)
            assert np.array_equal(chances_py, chances) and out_py[0] == out[0]
            view = layout.view(observation[0])
            known = view["known_value"].astype(np.float64)
            seen = known[known >= 0]
            open_gaps = int(view["line_length"][0]) + 1
            lower = view["gap_lower"][:open_gaps].astype(np.float64)
            upper = view["gap_upper"][:open_gaps].astype(np.float64)
            want = scalar.gap_chances(0, -1.0, 0, seen, lower, upper)
            assert np.array_equal(chances[:open_gaps], want), (seen, lower, upper)
            counts.add(seen.size)
        batch = venv.step(random_legal_actions(batch.action_mask, rng))
    assert {1, 2, 3} <= counts  # (never 0: the line starts with a card face up)
