"""Each game's bridge (``envs/<game>/bridge.py``) on its own contracts.

The exactness tests trust the bridges: ``set_state`` must load a slot whatever it held before,
``state_of`` must read it back, and ``state_difference`` must refuse every difference but the
interchange of cards a reshuffle in the step made chance. These tests check those contracts
directly, on positions of seeded random games and on hand-built boundary cases.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest
from vector_checks import random_legal_actions, vector_cases

from cardarena.envs import InvalidConfigError, make_raw
from cardarena.envs.cardline import bridge as cardline_bridge
from cardarena.envs.cardline.rules import IN_BOX, IN_HAND, IN_PILE
from cardarena.envs.ironman_war.rules import HAND_DRAW
from cardarena.envs.vector import vector_rules_class
from cardarena.envs.vector.front import BatchEnv

GAMES = ("cardline_v0", "promise_war_v0", "beast_wars_v0", "ironman_war_v0")
CASES = [case for case in vector_cases() if case[0] in GAMES]
#: The fields ``state_difference`` leaves out: the generators (``game`` is compared whole).
UNCOMPARED = {"rng", "_rng", "game"}
#: Cardline's card places, which must agree with ``where``: planted together further down.
LINKED = {"cardline_v0": {"hands", "pile", "box", "where"}}


def playout(env_name: str, config: dict[str, Any], seed: int) -> list[Any]:
    """Every state of one random legal game of the reference rules, the deal to the end."""
    raw = make_raw(env_name, **config)
    raw.reset(seed=seed)
    state = raw.game_state.clone()
    rng = np.random.default_rng(seed)
    states = [state.clone()]
    while not (state.is_terminal() or state.is_truncated()):
        state.apply_action(int(rng.choice(state.legal_actions())))
        states.append(state.clone())
    return states


def positions(env_name: str, config: dict[str, Any], games: int = 3, per_game: int = 4) -> list:
    """A few positions of each of ``games`` seeded random games, the last (ended) included."""
    found = []
    for seed in range(games):
        states = playout(env_name, config, seed)
        picks = np.linspace(0, len(states) - 1, per_game).round().astype(int)
        found += [states[k] for k in sorted(set(picks.tolist()))]
    return found


def rewards_of(state: Any) -> np.ndarray:
    players = len(state.game.agent_names)
    return np.asarray(state.returns() if state.is_terminal() else [0.0] * players, np.float32)


def check_slot(venv: BatchEnv, slot: int, state: Any, loaded: bool = False) -> None:
    """Slot ``slot`` is ``state``: every seat's view, the mask, the player, the ends, the
    rewards (the returns once over, else zeros; an ended game just ``loaded`` has its own
    test) and ``state_of`` (field by field)."""
    raw = venv.raw_env
    raw.set_state(state.clone())
    rules = venv.rules
    for seat, agent in enumerate(raw.possible_agents):
        seats = np.full(venv.num_envs, seat, np.int64)
        np.testing.assert_array_equal(venv.observe(seats)[slot], raw.observe(agent)["observation"])
    batch = venv._batch
    seat = state.current_player()
    assert batch.current_player[slot] == seat
    np.testing.assert_array_equal(batch.action_mask[slot], state.legal_action_mask())
    if seat >= 0:
        expected = raw.observe(raw.possible_agents[seat])["observation"]
        np.testing.assert_array_equal(batch.raw_observation[slot], expected)
    assert batch.terminated[slot] == state.is_terminal()
    assert batch.truncated[slot] == state.is_truncated()
    if not (loaded and state.is_terminal()):
        np.testing.assert_array_equal(batch.rewards[slot], rewards_of(state))
    assert rules.state_difference(state, state, venv.state_of(slot)) is None


@pytest.mark.parametrize(("env_name", "index", "config"), CASES, ids=str)
def test_set_state_into_a_used_slot_is_set_state_into_a_fresh_one(env_name, index, config):
    """A slot that held other games (longer piles, other hands, an end) must forget them:
    loaded with a position it shows what a never used slot shows, and plays on as the
    reference does."""
    fresh = BatchEnv(env_name, 1, seed=index, **config)  # never reset: all zeros
    used = BatchEnv(env_name, 3, seed=index, **config)
    batch = used.reset()
    rng = np.random.default_rng(index)
    for _ in range(30):  # other games in every slot, some ended
        batch = used.step(random_legal_actions(batch.action_mask, rng))
    for k, state in enumerate(positions(env_name, config)):
        slot = k % 3
        fresh.set_state(0, state.clone())
        used.set_state(slot, state.clone())
        check_slot(fresh, 0, state, loaded=True)
        check_slot(used, slot, state, loaded=True)
        np.testing.assert_array_equal(fresh.rules.rewards[0], used.rules.rewards[slot])
        assert vars(fresh.state_of(0)).keys() == vars(used.state_of(slot)).keys()
        assert used.rules.state_difference(state, fresh.state_of(0), used.state_of(slot)) is None
        # Plays on from there as the reference does (same slot generator in both batches).
        used.rules.rng[slot] = fresh.rules.rng[0]
        play_on(fresh, 0, state.clone(), rng)
        play_on(used, slot, state.clone(), rng)


def play_on(venv: BatchEnv, slot: int, state: Any, rng: np.random.Generator, steps: int = 4):
    """A few steps of slot ``slot`` from ``state``, each proved against the reference rules
    (``state_difference``, then the reference continues from the batch's state)."""
    raw = venv.raw_env
    for _ in range(steps):
        if state.current_player() < 0:
            return
        batch = venv._batch
        actions = random_legal_actions(batch.action_mask, rng)
        previous = state.clone()
        state.apply_action(int(actions[slot]))
        venv.step(actions)
        actual = venv.state_of(slot)
        difference = venv.rules.state_difference(previous, state, actual)
        assert difference is None, difference
        state = actual
        raw.set_state(state.clone())
        check_slot(venv, slot, state)


@pytest.mark.parametrize(("env_name", "index", "config"), CASES, ids=str)
def test_state_of_reads_back_every_position_set_state_wrote(env_name, index, config):
    """The bridge alone (no front, no checks): every position of two random games, written
    into a slot that held the one before, reads back equal field by field."""
    rules = BatchEnv(env_name, 2, seed=index, **config).rules
    bridge = rules.bridge()
    for seed in range(2):
        for state in playout(env_name, config, seed):
            bridge.set_state(rules, 1, state)
            back = bridge.state_of(rules, 1)
            assert bridge.state_difference(state, state, back) is None
            assert rules.current_player[1] == state.current_player()


def test_promise_war_round_trips_the_pot_with_its_owners():
    """Face-down pot cards are stored with their owners packed beside them: both come back,
    for every seat (wars among three players leave cards of seats 1 and 2 in the pot)."""
    config = {"num_players": 3}
    rules = BatchEnv("promise_war_v0", 1, seed=0, **config).rules
    bridge = rules.bridge()
    owners = set()
    for seed in range(6):
        for state in playout("promise_war_v0", config, seed):
            bridge.set_state(rules, 0, state)
            back = bridge.state_of(rules, 0)
            assert back.pot_face_down == state.pot_face_down
            assert back.pot_face_down_owners == state.pot_face_down_owners
            owners |= set(state.pot_face_down_owners)
    assert owners == {0, 1, 2}


@pytest.mark.parametrize("config", [{}, {"num_players": 3, "decks": [0, 0, 1, 1, 2, 2]}])
def test_promise_war_set_state_holds_exactly_what_its_arrays_can(config):
    """A draw pile as long as the largest deck and a pot of every card fit the engine's
    arrays; one card more is refused before the slot is touched."""
    rules = BatchEnv("promise_war_v0", 2, seed=0, **config).rules
    bridge = rules.bridge()
    state = playout("promise_war_v0", config, 0)[2]
    largest, total = state.game.largest_deck, state.game.total_cards
    full = state.clone()
    full.draw_piles[0] = [1] * largest
    full.pot_face_down, full.pot_face_down_owners = [1] * total, [1] * total
    bridge.set_state(rules, 1, full)
    back = bridge.state_of(rules, 1)
    assert back.draw_piles[0] == full.draw_piles[0]
    assert (back.pot_face_down, back.pot_face_down_owners) == ([1] * total, [1] * total)
    arrays = (rules.S, rules.C, rules.piles, rules.pot_down)
    rows = [array.copy() for array in arrays]
    for field, value in (("draw_piles", [[1] * (largest + 1)]), ("pot_face_down", [1])):
        over = full.clone()
        if field == "draw_piles":
            over.draw_piles[0] = value[0]
        else:
            over.pot_face_down = over.pot_face_down + value
            over.pot_face_down_owners = over.pot_face_down_owners + value
        with pytest.raises(InvalidConfigError, match="more cards than this config's decks"):
            bridge.set_state(rules, 1, over)
        for before, array in zip(
            rows, (rules.S, rules.C, rules.piles, rules.pot_down), strict=True
        ):
            np.testing.assert_array_equal(array, before)


def game_states(env_name: str) -> list[Any]:
    """Positions of every example config of ``env_name`` (two games each)."""
    return [
        state
        for name, _, config in CASES
        if name == env_name
        for state in positions(name, config, games=2, per_game=5)
    ]


def planted(value: Any) -> Any:
    """``value`` with one entry changed (same type and dtype), or None if it has none."""
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return None
        changed = value.copy()
        flat = changed.reshape(-1)
        flat[0] = not flat[0] if changed.dtype == np.bool_ else flat[0] + 1
        return changed
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, (list, tuple)):
        if not value:
            return type(value)([0])
        first = planted(value[0])
        return None if first is None else type(value)([first, *value[1:]])
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, turn=value.turn + 1)
    return None


@pytest.mark.parametrize("env_name", GAMES)
def test_state_difference_names_each_planted_difference(env_name):
    """Equal states pass; one changed entry in any compared field is named."""
    differ = vector_rules_class(env_name).state_difference
    planted_fields = set()
    for state in game_states(env_name):
        assert differ(state, state, state.clone()) is None
        for name, value in vars(state).items():
            if name in UNCOMPARED | LINKED.get(env_name, set()):
                continue
            changed = planted(value)
            if changed is None:
                continue
            actual = state.clone()
            setattr(actual, name, changed)
            message = differ(state, state, actual)
            assert message is not None and name in message, (name, message)
            planted_fields.add(name)
    compared = set(vars(state)) - UNCOMPARED - LINKED.get(env_name, set())
    assert planted_fields == compared


@pytest.mark.parametrize("env_name", GAMES)
def test_state_difference_names_an_array_of_another_kind(env_name):
    """An array field must match in dtype too, and a list is not an array."""
    differ = vector_rules_class(env_name).state_difference
    state = game_states(env_name)[1]
    arrays = [name for name, value in vars(state).items() if isinstance(value, np.ndarray)]
    arrays = [name for name in arrays if name not in UNCOMPARED | LINKED.get(env_name, set())]
    assert arrays
    for name in arrays:
        value = getattr(state, name)
        other = np.int32 if value.dtype != np.int32 else np.int64
        for changed in (value.astype(other), value.tolist()):
            actual = state.clone()
            setattr(actual, name, changed)
            message = differ(state, state, actual)
            assert message is not None and name in message, (name, message)


@pytest.mark.parametrize("env_name", GAMES)
def test_state_difference_names_a_field_present_in_only_one_state(env_name):
    differ = vector_rules_class(env_name).state_difference
    state = game_states(env_name)[1]
    extra = state.clone()
    extra.surplus = 0
    for expected, actual in ((state, extra), (extra, state)):
        message = differ(state, expected, actual)
        assert message is not None and "surplus" in message, message
        assert not [name for name in vars(state) if name in message], message  # only that one


@pytest.mark.parametrize("env_name", GAMES)
def test_set_state_of_a_finished_game_shows_its_returns_as_rewards(env_name):
    """The contract of ``VectorRules.rewards``: a slot holding an ended game shows the rules'
    returns (a learner reading the batch after ``set_state`` sees the game's outcome).
    Promise War's bridge zeroed them until this test found it."""
    config = next(config for name, _, config in CASES if name == env_name)
    venv = BatchEnv(env_name, 2, seed=0, **config)
    ended = [states[-1] for states in (playout(env_name, config, seed) for seed in range(4))]
    ended = [state for state in ended if state.is_terminal()]
    assert any(any(state.returns()) for state in ended), "no decided game to load"
    for state in ended:
        batch = venv.set_state(1, state.clone())
        np.testing.assert_array_equal(batch.rewards[1], np.float32(state.returns()))


# --- Cardline ---------------------------------------------------------------------------------
CARDLINE = "cardline_v0"
VALUES = {"Ant": 10, "Bee": 20, "Cat": 30, "Dog": 40, "Eel": 50, "Fox": 20, "Gnu": -5, "Hen": 0.5}
VALUES |= {"Kiwi": 80}
#: A small deck with a tie (Bee = Fox); cards dealt nowhere are out of the game.
DECK = [{"name": name, "colour": "animal", "v": v} for name, v in VALUES.items()]


def cardline_deal(hands: list[list[str]], initial: str, pile: list[str]) -> Any:
    raw = make_raw(CARDLINE, deck=DECK, hand_size=len(hands[0]))
    options = {"hands": hands, "initial_card": initial, "draw_pile": pile}
    raw.reset(seed=0, options=options | {"characteristic": "v", "first_player": 0})
    return raw.game_state.clone()


def play(state: Any, name: str, gap: int) -> int:
    """The action of the seat to act that puts card ``name`` into ``gap``; played."""
    card = state.game.card_ids[name]
    action = state.hands[state.to_act].index(card) * state.game.num_gaps + gap
    state.apply_action(action)
    return action


def moved(state: Any, card: int, source: list[int], target: list[int], code: int) -> None:
    """Move ``card`` from the list ``source`` to ``target`` (kept sorted if a hand) and
    update ``where`` to ``code``, so that the state stays self-consistent."""
    source.remove(card)
    target.append(card)
    if code >= IN_HAND:
        target.sort()
    state.where[card] = code


@pytest.fixture
def reshuffle() -> tuple[Any, int, Any]:
    """(previous, action, expected) for a step in which the box (Cat and Gnu, both played
    wrong) is reshuffled into the empty pile and player_1 draws one of the two back."""
    state = cardline_deal([["Cat", "Dog", "Eel"], ["Ant", "Bee", "Gnu"]], "Hen", ["Kiwi"])
    play(state, "Cat", 0)  # Cat (30) left of Hen (0.5): wrong; draws Kiwi, the last card
    previous = state.clone()
    action = play(state, "Gnu", 1)  # Gnu (-5) right of Hen: wrong, from an empty pile
    return previous, action, state


def test_cardline_shuffled_cards_are_the_box_at_the_reshuffle(reshuffle):
    previous, action, expected = reshuffle
    ids = previous.game.card_ids
    assert cardline_bridge.shuffled_cards(previous, action) == set(previous.box) | {ids["Gnu"]}
    assert len(expected.pile) + len(expected.hands[1]) - len(previous.hands[1]) + 1 == 2
    first = cardline_deal([["Cat", "Dog", "Eel"], ["Ant", "Bee", "Gnu"]], "Hen", ["Kiwi"])
    assert cardline_bridge.shuffled_cards(first, 0) == set()  # Kiwi is drawn, no shuffle


def test_cardline_state_difference_lets_shuffled_cards_change_places(reshuffle):
    """After a reshuffle the batch may have drawn the other box card: accepted; the same
    swap without a reshuffle in the step is a difference."""
    previous, action, expected = reshuffle
    shuffled = sorted(cardline_bridge.shuffled_cards(previous, action))
    actual = expected.clone()
    pile_card, hand_card = actual.pile[0], next(c for c in actual.hands[1] if c in shuffled)
    moved(actual, pile_card, actual.pile, actual.hands[1], IN_HAND + 1)
    moved(actual, hand_card, actual.hands[1], actual.pile, IN_PILE)
    assert actual.hands[1] != expected.hands[1]
    assert cardline_bridge.state_difference(previous, expected, actual) is None
    assert cardline_bridge.implied_action(previous, expected) == action
    assert cardline_bridge.state_difference(expected, expected, actual) is not None


def test_cardline_state_difference_names_a_moved_card_the_shuffle_did_not_touch(reshuffle):
    previous, action, expected = reshuffle
    kiwi = expected.game.card_ids["Kiwi"]
    assert kiwi not in cardline_bridge.shuffled_cards(previous, action)
    actual = expected.clone()
    moved(actual, kiwi, actual.hands[0], actual.box, IN_BOX)
    assert cardline_bridge._where_difference(actual) is None
    message = cardline_bridge.state_difference(previous, expected, actual)
    assert message is not None and f"where[{kiwi}]" in message, message


def test_cardline_state_difference_keeps_the_sizes_of_the_places_a_shuffle_filled(reshuffle):
    """Shuffled cards are interchangeable, but each place keeps as many as the reference's."""
    previous, _, expected = reshuffle
    actual = expected.clone()
    moved(actual, actual.pile[0], actual.pile, actual.hands[1], IN_HAND + 1)
    message = cardline_bridge.state_difference(previous, expected, actual)
    assert message is not None and "pile" in message, message


@pytest.mark.parametrize("name", ["Ant", "Bee"])
def test_cardline_state_difference_refuses_a_copy_in_place_of_a_shuffled_card(reshuffle, name):
    """player_1's drawn card replaced by a second copy of a card it held: never the same."""
    previous, action, expected = reshuffle
    shuffled = cardline_bridge.shuffled_cards(previous, action)
    copy = expected.game.card_ids[name]
    actual = expected.clone()
    drawn = next(card for card in actual.hands[1] if card in shuffled)
    actual.hands[1] = sorted([*(c for c in actual.hands[1] if c != drawn), copy])
    actual.where[drawn] = -1  # in no place: where agrees with the lists
    assert cardline_bridge._where_difference(actual) is None
    message = cardline_bridge.state_difference(previous, expected, actual)
    assert message is not None and "hands[1]" in message, message


def test_cardline_state_difference_never_accepts_an_extra_hand(reshuffle):
    """An extra (empty) seat's hand: a message, or the refusal of the zip of the hands."""
    previous, _, expected = reshuffle
    actual = expected.clone()
    actual.hands.append([])
    try:
        message = cardline_bridge.state_difference(previous, expected, actual)
    except ValueError as error:  # zip(..., strict=True) of the hands
        assert "zip" in str(error)
        return
    assert message is not None


def test_cardline_set_state_rewrites_a_line_the_row_showed_before():
    """The batch writes a row from the first line position that changed: loading a deal of
    the same characteristic with another line must rewrite it from position 0 (the batch's
    own rows only: an ``observe`` between would make the next row be written whole)."""
    venv = BatchEnv(CARDLINE, 2, seed=0, deck=DECK, hand_size=2)
    raw = venv.raw_env
    for initial in ("Hen", "Bee", "Eel", "Hen"):
        state = cardline_deal([["Cat", "Dog"], ["Ant", "Gnu"]], initial, ["Kiwi"])
        batch = venv.set_state(1, state)
        raw.set_state(state.clone())
        expected = raw.observe(raw.possible_agents[0])["observation"]
        np.testing.assert_array_equal(batch.raw_observation[1], expected)


def test_cardline_set_state_refuses_a_state_of_another_config_or_game():
    engine = BatchEnv(CARDLINE, 2, seed=0).rules
    before = engine.scal.copy()
    others = [cardline_deal([["Cat"], ["Ant"]], "Hen", ["Kiwi"])]
    others.append(playout("promise_war_v0", {}, 0)[0])
    for other in others:
        with pytest.raises(TypeError, match="CardlineState of this batch's game"):
            cardline_bridge.set_state(engine, 1, other)
    np.testing.assert_array_equal(engine.scal, before)


def test_cardline_where_must_place_every_card_and_hands_be_sorted():
    """A card dropped from its place (whatever the place) leaves ``where`` wrong."""
    states = playout(CARDLINE, {"deck": DECK, "hand_size": 3}, 1)
    states.append(cardline_deal([["Cat", "Dog"], ["Ant", "Bee"]], "Hen", ["Kiwi"]))  # Fox out
    kinds = set()
    for state in states:
        places = {"line": state.line, "pile": state.pile, "box": state.box, "out": state.out}
        places |= {f"hands[{s}]": hand for s, hand in enumerate(state.hands)}
        assert cardline_bridge._where_difference(state) is None
        for name, cards in places.items():
            if not cards:
                continue
            broken = state.clone()
            getattr_path(broken, name).pop()
            assert cardline_bridge._where_difference(broken) is not None, name
            kinds.add(name.partition("[")[0])
        for seat, hand in enumerate(state.hands):
            if len(hand) > 1:
                unsorted = state.clone()
                unsorted.hands[seat].reverse()
                message = cardline_bridge._where_difference(unsorted)
                assert message == f"hands[{seat}] is not sorted: {unsorted.hands[seat]}"
                kinds.add("unsorted")
    assert kinds == {"line", "pile", "box", "out", "hands", "unsorted"}


def getattr_path(state: Any, name: str) -> list[int]:
    """``state.line`` for "line", ``state.hands[1]`` for "hands[1]"."""
    field, _, index = name.partition("[")
    value = getattr(state, field)
    return value[int(index[:-1])] if index else value


@pytest.mark.parametrize("config", [{"deck": DECK, "hand_size": 3}, {"num_players": 3}])
def test_cardline_implied_action_replays_every_turn(config):
    """For each turn of random games, the action ``implied_action`` finds leads from the
    previous state to the very same next state."""
    for seed in range(3):
        states = playout(CARDLINE, config, seed)
        for previous, expected in itertools.pairwise(states):
            action = cardline_bridge.implied_action(previous, expected)
            assert action is not None
            replay = previous.clone()
            replay.apply_action(action)
            assert cardline_bridge.state_difference(previous, expected, replay) is None
            assert replay.where.tolist() == expected.where.tolist()


def test_cardline_implied_action_at_a_tie():
    """Fox (20) ties Bee (20) at the left end of Bee, Cat, Dog: gaps 0 and 1 fit, so Fox
    after Dog is wrong and the first wrong gap is 2, not one where a tie fits."""
    state = cardline_deal([["Cat", "Fox", "Eel"], ["Dog", "Ant", "Gnu"]], "Bee", ["Kiwi", "Hen"])
    play(state, "Cat", 1)
    play(state, "Dog", 2)
    previous = state.clone()
    play(state, "Fox", 3)
    assert not state.last_right[0]
    action = cardline_bridge.implied_action(previous, state)
    assert action == previous.hands[0].index(state.game.card_ids["Fox"]) * state.game.num_gaps + 2
    for gap in (0, 1):
        right = previous.clone()
        play(right, "Fox", gap)
        assert right.last_right[0]
        assert cardline_bridge.implied_action(previous, right) == action - 2 + gap


def test_cardline_implied_action_is_none_for_what_no_turn_reaches():
    """No action: the next state is not one turn later, nobody was to act, or the card was
    wrong where every gap fits (Fox beside Bee, equal values)."""
    state = cardline_deal([["Fox", "Eel"], ["Dog", "Ant"]], "Bee", ["Kiwi", "Hen"])
    play(state, "Fox", 0)
    previous = state.clone()
    play(state, "Dog", 2)  # player_1, the last seat, moves
    assert cardline_bridge.implied_action(previous, state) is not None
    later = state.clone()
    later.turns += 1
    assert cardline_bridge.implied_action(previous, later) is None
    nobody = previous.clone()
    nobody.to_act = -1
    assert cardline_bridge.implied_action(nobody, state) is None
    first = cardline_deal([["Fox", "Eel"], ["Dog", "Ant"]], "Bee", ["Kiwi", "Hen"])
    fits = first.clone()
    play(fits, "Fox", 1)
    fits.last_right[0] = False
    assert cardline_bridge.implied_action(first, fits) is None


# --- Beast Wars -------------------------------------------------------------------------------
BEAST = "beast_wars_v0"
ATTACK_UP_FROM_CELL_4 = 48 + 4 * 4 + 0


def beast_face_to_face(left: int) -> Any:
    """Maximal's and predacon's characters face to face (cells 4 and 7), maximal to attack,
    ``left`` green basics in the battle deck and one red, blue and gold basic discarded."""
    raw = make_raw(BEAST)
    teams = {"maximal": [0, 1, 2, 3, 4, 5], "predacon": [0, 1, 2, 3, 4, 5]}
    options = {"battle_deck": ["green:basic"] * 2, "teams": teams, "first_player": "maximal"}
    raw.reset(seed=0, options=options)
    state = raw.game_state.clone()
    state.apply_action(1 * 4 + 0)  # r0c1 up to r1c1
    state.apply_action(10 * 4 + 2)  # r3c1 down to r2c1
    state._deck = [12] * left
    state.card_counts[:] = 0
    state.card_counts[0, 12] = left
    state.card_counts[1, [0, 4, 8]] = 1
    return state


@pytest.mark.parametrize("left", [0, 1])
def test_beast_wars_state_difference_wants_the_battle_that_drew_a_reshuffle(left):
    """When the battle drew from a reshuffled deck, the batch's state must hold that battle
    (of the step's turn): its order is free, the battle is not."""
    differ = vector_rules_class(BEAST).state_difference
    previous = beast_face_to_face(left)
    expected = previous.clone()
    expected.apply_action(ATTACK_UP_FROM_CELL_4)
    venv = BatchEnv(BEAST, 1, seed=0)
    venv.set_state(0, previous.clone())
    venv.step(np.array([ATTACK_UP_FROM_CELL_4]))
    actual = venv.state_of(0)
    assert differ(previous, expected, actual) is None
    turn = expected.last_battle.turn
    for battle in (None, dataclasses.replace(actual.last_battle, turn=turn + 1)):
        wrong = actual.clone()
        wrong.last_battle = battle
        message = differ(previous, expected, wrong)
        assert message is not None and message.startswith("last_battle"), message
        assert f"battle of turn {turn}," in message, message


# --- Iron Man ---------------------------------------------------------------------------------
IRONMAN = "ironman_war_v0"


def test_ironman_state_difference_compares_kinds_not_reprs():
    """A NumPy int is an int (accepted), a float or a bool is not (named)."""
    differ = vector_rules_class(IRONMAN).state_difference
    state = playout(IRONMAN, {}, 0)[5]
    same = state.clone()
    same.battles_won = [np.int64(v) for v in state.battles_won]
    assert repr(same.battles_won) != repr(state.battles_won)
    assert differ(state, state, same) is None
    ints = state.clone()
    ints.battles_won = [1, 0]
    bools = state.clone()
    bools.battles_won = [True, False]
    floats = state.clone()
    floats.round = float(state.round)
    for expected, actual, name in ((ints, bools, "battles_won"), (state, floats, "round")):
        message = differ(expected, expected, actual)
        assert message is not None and name in message, message


def test_ironman_a_reshuffled_hand_keeps_all_but_the_card_played():
    """A new round emptied the mover's deck: its hand and new deck are chance, but the hand
    must hold its old hand and old deck except at most the one card it played."""
    differ = vector_rules_class(IRONMAN).state_difference
    states = playout(IRONMAN, {}, 24)
    previous, expected = next(
        (a, b)
        for a, b in itertools.pairwise(states)
        if b.round != a.round
        and len(a._piles[a.current_player()]) <= HAND_DRAW
        and b._piles[a.current_player()]
    )
    seat = previous.current_player()
    kept = previous.hands[seat] + np.bincount(previous._piles[seat], minlength=8)[:8]
    given = [kind for kind in range(8) if kept[kind] and expected.hands[seat][kind] <= kept[kind]]
    spare = [kind for kind in set(expected._piles[seat]) if not kept[kind]]
    assert len(given) >= 2 and spare
    for lacking in (1, 2):
        actual = expected.clone()
        for kind in given[:lacking]:  # a kept card into the deck, a card nobody kept out
            actual.hands[seat][kind] -= 1
            actual.hands[seat][spare[0]] += 1
            pile = actual._piles[seat]
            pile[pile.index(spare[0])] = kind
            actual.deck_counts[seat][kind] += 1
            actual.deck_counts[seat][spare[0]] -= 1
        message = differ(previous, expected, actual)
        assert (message is None) == (lacking == 1), message
    actual = expected.clone()
    actual.hands[seat][given[0]] += 1
    total = (expected.hands[seat] + expected.deck_counts[seat]).tolist()
    got = (actual.hands[seat] + actual.deck_counts[seat]).tolist()
    message = differ(previous, expected, actual)
    assert message is not None and f"hand + deck expected {total}, got {got}" in message, message


def test_ironman_a_reshuffled_deck_is_as_long_as_the_references():
    """Same cards in hand + deck, but one drawn too many: the deck is shorter, refused."""
    differ = vector_rules_class(IRONMAN).state_difference
    states = playout(IRONMAN, {}, 24)
    previous, expected = next(
        (a, b)
        for a, b in itertools.pairwise(states)
        if b.round != a.round and len(a._piles[a.current_player()]) <= HAND_DRAW
    )
    seat = previous.current_player()
    actual = expected.clone()
    card = actual._piles[seat].pop()
    actual.hands[seat][card] += 1
    actual.deck_counts[seat][card] -= 1
    message = differ(previous, expected, actual)
    assert message is not None and "deck" in message, message


def test_ironman_hands_of_another_shape_are_named():
    differ = vector_rules_class(IRONMAN).state_difference
    state = playout(IRONMAN, {}, 0)[5]
    actual = state.clone()
    actual.hands = np.vstack([state.hands, np.zeros_like(state.hands[:1])])
    message = differ(state, state, actual)
    assert message is not None and "hands" in message, message


def test_ironman_set_state_holds_a_deck_as_long_as_its_arrays():
    """A deck of the engine's capacity loads (either seat); one card more is refused before
    the slot is touched."""
    rules = BatchEnv(IRONMAN, 2, seed=0).rules
    bridge = rules.bridge()
    state = playout(IRONMAN, {}, 0)[3]
    for seat in (0, 1):
        full = state.clone()
        full._piles[seat] = [0] * rules.capacity
        bridge.set_state(rules, 1, full)
        assert bridge.state_of(rules, 1)._piles[seat] == full._piles[seat]
        before = (rules.S.copy(), rules.piles.copy())
        full._piles[seat].append(0)
        with pytest.raises(InvalidConfigError, match="more than the"):
            bridge.set_state(rules, 1, full)
        np.testing.assert_array_equal(rules.S, before[0])
        np.testing.assert_array_equal(rules.piles, before[1])


def test_beast_wars_state_difference_compares_types_not_only_values():
    """A number of another type (``1.0`` or ``True`` for ``1``), in a field or inside a list,
    is a difference: the engine must give back the rules' own types."""
    differ = vector_rules_class("beast_wars_v0").state_difference
    state = next(s for s in game_states("beast_wars_v0") if s._deck and s.placed)
    for name in ("turn", "to_act", "first_player"):
        actual = state.clone()
        setattr(actual, name, float(getattr(state, name)))
        message = differ(state, state, actual)
        assert message is not None and message.startswith(name), (name, message)
    for name in ("_deck", "placed"):
        actual = state.clone()
        values = list(getattr(state, name))
        values[0] = float(values[0])
        setattr(actual, name, type(getattr(state, name))(values))
        message = differ(state, state, actual)
        assert message is not None and message.startswith(name), (name, message)
