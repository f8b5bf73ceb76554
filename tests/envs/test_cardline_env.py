"""cardline_v0 through the PettingZoo API: the encoder against a slow reference, hidden values,
resampling, rendering, docs, rewards and bad input. The generic checks (api_test, seeds,
spaces, masks, copies) come from tests/conformance once the env is registered."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_playout

from cardarena.envs import ENVS, cardline_v0
from cardarena.envs.cardline.rules import make_game
from cardarena.envs.core import IllegalActionError, InvalidConfigError

TIES = [
    {"name": "Ant", "colour": "a", "v": 0, "w": 3.5},
    {"name": "Bee", "colour": "a", "v": 20, "w": -1},
    {"name": "Cat", "colour": "a", "v": 20, "w": -1},
    {"name": "Dog", "colour": "a", "v": -7.5, "w": 0},
    {"name": "Eel", "colour": "a", "v": 0, "w": 0},
    {"name": "Fox", "colour": "a", "v": 40, "w": 2},
    {"name": "Gnu", "colour": "a", "v": 40, "w": 0},
    {"name": "Hen", "colour": "a", "v": 5, "w": -9},
    {"name": "Ibis", "colour": "a", "v": 5, "w": 1},
]
CONFIGS = [
    {},
    {"num_players": 8},
    {"num_players": 3, "hand_size": 2, "deck": TIES},  # zeros, negatives, many ties
    {"num_players": 4, "hand_size": 1, "deck": TIES},  # one-card hands: many finishers
]


def raw(**config):
    return cardline_v0.raw_env(**config)


def random_states(env, games, seed=0):
    """Every decision point, then the final state, of ``games`` random games."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed + game)
        while True:
            yield env.game_state
            if env.game_state.is_terminal() or env.game_state.is_truncated():
                break
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))


# --- registry and sizes ----------------------------------------------------------------------
def test_registry_holds_cardline_once_registered():
    if "cardline_v0" not in ENVS:
        pytest.skip("cardline_v0 is not yet in cardarena.envs.ENVS")
    assert ENVS["cardline_v0"] is cardline_v0


@pytest.mark.parametrize(("n", "h", "deck"), [(2, 4, None), (8, 4, None), (3, 2, TIES)])
def test_observation_and_state_sizes_follow_the_documented_formulas(n, h, deck):
    env = raw(num_players=n, hand_size=h, deck=deck)
    d = env.game.deck_size
    c = len(env.game.characteristics)
    assert env.num_actions == h * (d + 1)
    obs = env.observation_space("player_0")["observation"].shape
    assert obs == (c + (h + 2 * n + 4) * d + h + 3 * (d + 1) + 8 * n + 4,)
    assert env.state_space.shape == (c + (2 * n + 6) * d + n * h + 3 * (d + 1) + 8 * n + 4,)
    assert env.metadata["zero_sum"] is False and env.metadata["max_players"] == 8


# --- the encoder against a slow, obvious reference --------------------------------------------
def rank_scaled(game, characteristic, card):
    """The documented scale, written out: rank among the deck's distinct values, onto 0..1."""
    column = [row[game.characteristics[characteristic]] for row in game.deck.rows]
    distinct = sorted(set(column))
    return distinct.index(column[card]) / max(len(distinct) - 1, 1)


def reference_observation(state, seat):
    game = state.game
    n, h, d = game.num_players, game.hand_size, game.deck_size
    c = state.characteristic
    seats = [(seat + k) % n for k in range(n)]  # you first, then the following seats
    to_act = state.current_player()
    line = state.line

    def value(card):
        return rank_scaled(game, c, card)

    def known(card):
        return value(card) if state.revealed[card] else -1.0

    hand = np.zeros((h, d))
    hand_known = np.full(h, -1.0)
    for slot, card in enumerate(sorted(state.hands[seat])):
        hand[slot, card] = 1
        hand_known[slot] = known(card)
    gap_open, gap_lower, gap_upper = np.zeros(d + 1), np.zeros(d + 1), np.zeros(d + 1)
    for gap in range(len(line) + 1):
        gap_open[gap] = 1
        gap_lower[gap] = value(line[gap - 1]) if gap > 0 else -1.0
        gap_upper[gap] = value(line[gap]) if gap < len(line) else 2.0
    hands, last_card = np.zeros((n, d)), np.zeros((n, d))
    last_result, last_value = np.zeros((n, 2)), np.full(n, -1.0)
    for row, other in enumerate(seats):
        for card in state.hands[other]:
            hands[row, card] = 1
        card = state.last_card[other]
        if card >= 0:
            last_card[row, card] = 1
            last_result[row, 0 if state.last_right[other] else 1] = 1
            last_value[row] = value(card)
    pile_top = np.zeros(d)
    if state.pile:
        pile_top[state.pile[-1]] = 1
    return {
        "characteristic": np.eye(len(game.characteristics))[c],
        "hand": hand,
        "hand_known_value": hand_known,
        "gap_open": gap_open,
        "gap_lower": gap_lower,
        "gap_upper": gap_upper,
        "hands": hands,
        "last_card": last_card,
        "last_result": last_result,
        "hand_sizes": np.array([len(state.hands[s]) for s in seats]),
        "eliminated": np.array([state.eliminated[s] for s in seats]),
        "finished": np.array([s in state.finishers for s in seats]),
        "to_act": np.array([s == to_act for s in seats]),
        "first_player": np.array([s == state.first_player for s in seats]),
        "last_value": last_value,
        "pile_top": pile_top,
        "in_line": np.array([card in line for card in range(d)]),
        "in_box": np.array([card in state.box for card in range(d)]),
        "known_value": np.array([known(card) for card in range(d)]),
        "pile_size": np.array([len(state.pile)]),
        "box_size": np.array([len(state.box)]),
        "line_length": np.array([len(line)]),
        "turns": np.array([state.turns]),
    }


def reference_state(state):
    game = state.game
    n, h, d = game.num_players, game.hand_size, game.deck_size
    seen = reference_observation(state, 0)  # seat 0's rows are in absolute seat order
    hand_values = np.full((n, h), -1.0)
    for seat, hand in enumerate(state.hands):
        for slot, card in enumerate(sorted(hand)):
            hand_values[seat, slot] = rank_scaled(game, state.characteristic, card)
    pile_order = np.zeros(d)
    for depth, card in enumerate(reversed(state.pile), start=1):
        pile_order[card] = depth
    not_in_state = ("hand", "hand_known_value", "pile_top", "known_value")
    keep = [piece for piece in seen if piece not in not_in_state]
    expected = {piece: seen[piece] for piece in keep}
    expected.update(
        values=np.array([rank_scaled(game, state.characteristic, c) for c in range(d)]),
        hand_values=hand_values,
        pile_order=pile_order,
        out=np.array([card in state.out for card in range(d)]),
        revealed=np.array([card in state.line or state.revealed[card] for card in range(d)]),
    )
    return expected


def assert_pieces_equal(layout, vector, expected, where):
    view = layout.view(vector)
    assert view.keys() == expected.keys(), where
    for piece, values in expected.items():
        got = view[piece]
        assert np.array_equal(got, np.asarray(values, dtype=np.float32).reshape(got.shape)), (
            piece, where, got, values)  # fmt: skip


@pytest.mark.parametrize("config", CONFIGS)
def test_encoder_matches_the_reference_piece_by_piece_for_every_seat(config):
    env = raw(**config)
    games = 12 if env.game.num_players > 2 and env.game.deck_size > 20 else 40
    counts = {"shared": 0, "eliminated": 0, "wrong": 0, "zero_in_line": 0}
    for state in random_states(env, games):
        for seat, agent in enumerate(env.possible_agents):
            where = (agent, state.turns)
            assert_pieces_equal(env.layout, env.observe(agent)["observation"],
                                reference_observation(state, seat), where)  # fmt: skip
        assert_pieces_equal(env.state_layout, env.state(), reference_state(state), "state")
        counts["eliminated"] += any(state.eliminated)
        counts["wrong"] += any(c >= 0 and not right for c, right in
                               zip(state.last_card, state.last_right, strict=True))  # fmt: skip
        counts["zero_in_line"] += bool((state.scaled[state.line] == 0).any())
        counts["shared"] += state.is_terminal() and sum(r > 0 for r in state.returns()) > 1
    assert counts["wrong"] and counts["zero_in_line"]  # the edges were exercised
    if config.get("hand_size") == 1:
        assert counts["eliminated"] and counts["shared"]


# --- hidden information ----------------------------------------------------------------------
def swapped_values_game(game, characteristic, a, b):
    """``game`` with the values of cards ``a`` and ``b`` swapped in one characteristic."""
    column = game.characteristics[characteristic]
    rows = [dict(row) for row in game.deck.rows]
    rows[a][column], rows[b][column] = rows[b][column], rows[a][column]
    return make_game(num_players=game.num_players, hand_size=game.hand_size, deck=rows,
                     max_turns=game.max_turns)  # fmt: skip


def observe_as_if(env, state, game):
    """Every seat's observation of ``state`` played with ``game``'s values, and its state()."""
    twin = state.clone()
    twin.game = game
    twin.values = game.values[state.characteristic]
    twin.scaled = game.scaled[state.characteristic]
    original = env._state
    env._state = twin
    try:
        seen = [env.observe(agent)["observation"] for agent in env.possible_agents]
        return seen, env.state()
    finally:
        env._state = original


@pytest.mark.parametrize("config", [{}, {"num_players": 3, "hand_size": 2, "deck": TIES}])
def test_swapping_the_values_of_never_revealed_cards_changes_no_observation(config):
    """CL-3: no observation depends on the value of a card never revealed (in a hand, the
    pile or the box). Swapping a revealed card's value instead must show (the check bites)."""
    env = raw(**config)
    rng = np.random.default_rng(4)
    checked = tried = bites = 0
    for state in random_states(env, 15):
        if rng.random() > 0.3:
            continue
        c = state.characteristic
        hidden = np.flatnonzero(~state.revealed)
        if hidden.size < 2:
            continue
        a, b = rng.choice(hidden, 2, replace=False)
        if state.values[a] == state.values[b]:
            continue
        before = [env.observe(agent)["observation"] for agent in env.possible_agents]
        seen, full = observe_as_if(env, state, swapped_values_game(state.game, c, a, b))
        for agent, old, new in zip(env.possible_agents, before, seen, strict=True):
            assert np.array_equal(old, new), (agent, state.game.names[a], state.game.names[b])
        assert not np.array_equal(full, env.state())  # the state does show every value
        checked += 1
        shown = state.line[int(rng.integers(len(state.line)))]
        if state.values[shown] != state.values[a]:
            tried += 1
            seen, _ = observe_as_if(env, state, swapped_values_game(state.game, c, shown, a))
            bites += any(not np.array_equal(o, s) for o, s in zip(before, seen, strict=True))
    assert checked >= 20 and tried >= 10 and bites == tried


def test_a_revealed_card_back_in_a_hand_keeps_its_known_value():
    env = raw(deck=TIES, hand_size=2)
    env.reset(options={"hands": [["Fox", "Ant"], ["Bee", "Gnu"]], "initial_card": "Eel",
                       "draw_pile": [], "characteristic": "v", "first_player": 0})  # fmt: skip
    g = env.game.num_gaps
    env.step(1 * g + 0)  # player_0 puts Fox (40) left of Eel (0): wrong, box, drawn back
    state = env.game_state
    assert state.hands[0] == [0, 5] and state.box == [] and not state.last_right[0]
    view = env.layout.view(env.observe("player_0")["observation"])
    fox = float(np.float32(rank_scaled(env.game, 0, 5)))
    assert view["hand_known_value"].tolist() == [-1, fox]
    other = env.layout.view(env.observe("player_1")["observation"])
    assert other["known_value"][5] == fox and other["last_value"].tolist() == [-1, fox]
    assert other["last_result"].tolist() == [[0, 0], [0, 1]]  # player_1 first: none; p0 wrong


def test_resampling_keeps_every_public_card_and_reshuffles_the_hidden_pile():
    env = raw()
    env.reset(seed=3)
    state = env.game_state
    rng = np.random.default_rng(0)
    orders = set()
    for seat in (0, 1, 0):
        twin = state.resample_from_infostate(seat, rng)
        assert twin.hands == state.hands and twin.line == state.line
        assert twin.pile[-1] == state.pile[-1] and sorted(twin.pile) == sorted(state.pile)
        assert np.array_equal(twin.where, state.where) and twin.rng is not state.rng
        orders.add(tuple(twin.pile))
    assert len(orders) == 3


def test_resampling_redeals_only_never_revealed_cards_between_pile_and_out():
    """With ``draw_pile`` fixed, cards named nowhere are out: which never-revealed cards are
    out rather than below the pile's top is hidden, so it is redrawn; a revealed card (one
    back from the box) stays in the pile, and the public top card stays on top."""
    game = make_game(deck=TIES, hand_size=1)
    state = game.new_initial_state(
        np.random.default_rng(0),
        {"hands": [["Ant"], ["Bee"]], "initial_card": "Cat", "draw_pile": ["Dog", "Eel", "Gnu"],
         "first_player": 0, "characteristic": "v"},
    )  # fmt: skip
    gnu, eel, dog = 6, 4, 3
    state.revealed[gnu] = True  # as if Gnu had been placed wrong and come back from the box
    assert state.pile == [gnu, eel, dog] and sorted(state.out) == [5, 7, 8]
    rng = np.random.default_rng(1)
    below = set()
    for _ in range(60):
        twin = state.resample_from_infostate(0, rng)
        assert twin.pile[-1] == dog and gnu in twin.pile[:-1] and len(twin.pile) == 3
        assert sorted(twin.pile[:-1] + twin.out) == [4, 5, 6, 7, 8]
        assert all(twin.where[c] == 3 for c in twin.out)  # OUT_OF_GAME
        below.add(next(c for c in twin.pile[:-1] if c != gnu))
    assert below == {4, 5, 7, 8}
    assert state.pile == [gnu, eel, dog] and sorted(state.out) == [5, 7, 8]  # original intact


# --- rewards, C-4, truncation through the env -------------------------------------------------
def test_a_shared_win_gives_plus_one_to_each_finisher_and_minus_one_to_the_eliminated():
    env = cardline_v0.env(num_players=3, deck=TIES, hand_size=2)
    env.reset(options={"hands": [["Dog"], ["Ibis"], ["Ant", "Fox"]], "initial_card": "Eel",
                       "draw_pile": [], "first_player": 0, "characteristic": "v"})  # fmt: skip
    g = env.unwrapped.game.num_gaps
    env.step(0 * g + 0)  # Dog -7.5 left of Eel 0: right, player_0 finished
    env.step(0 * g + 2)  # Ibis 5 right of Eel: right, player_1 finished
    assert not any(env.terminations.values())
    env.step(0 * g + 2)  # player_2: Ant 0 between Eel 0 and Ibis 5, right; keeps Fox
    # player_2 is eliminated, Fox goes to the box: 1 card for 2 finishers, a shared win
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": -1.0}
    assert env.infos["player_2"]["winners"].tolist() == [1, 1, 0]
    assert env.infos["player_0"]["scores"].tolist() == [1, 1, 1]


def test_eliminated_players_stay_in_agents_with_a_zero_mask_and_are_never_asked():
    env = raw(num_players=3, deck=TIES, hand_size=2)
    env.reset(options={"hands": [["Dog"], ["Ibis"], ["Ant", "Fox"]], "initial_card": "Eel",
                       "draw_pile": ["Gnu", "Hen"], "first_player": 0,
                       "characteristic": "v"})  # fmt: skip
    g = env.game.num_gaps
    env.step(0)
    env.step(2)
    env.step(1 * g + 0)  # player_2 eliminated; finishers draw Gnu, Hen
    assert env.game_state.eliminated == [False, False, True]
    assert env.agents == env.possible_agents and not any(env.terminations.values())
    asked = []
    while not (env.game_state.is_terminal() or env.game_state.is_truncated()):
        assert not env.action_mask("player_2").any()
        assert not env.observe("player_2")["action_mask"].any()
        asked.append(env.agent_selection)
        env.step(int(np.flatnonzero(env.action_mask(env.agent_selection))[-1]))
    assert "player_2" not in asked and len(asked) >= 2
    ended = {agent: env.terminations[agent] or env.truncations[agent] for agent in env.agents}
    assert ended == dict.fromkeys(env.possible_agents, True)  # all on the same step (C-4)


def test_the_small_deck_example_reaches_the_cap_and_the_end():
    config = cardline_v0.raw_env.example_configs[2]
    assert min(row["year"] for row in config["deck"]) < 0
    env = cardline_v0.env(**config)
    outcomes = set()
    for seed in range(30):
        env.reset(seed=seed)
        random_playout(env, np.random.default_rng(seed))
        state = env.unwrapped.game_state
        outcomes.add("truncated" if state.is_truncated() else "terminated")
    assert outcomes == {"terminated", "truncated"}


# --- bad input ---------------------------------------------------------------------------------
def test_bad_actions_raise_and_nothing_changes():
    env = raw(deck=TIES, hand_size=2)
    env.reset(options={"hands": [["Ant", "Bee"], ["Cat", "Dog"]], "initial_card": "Eel",
                       "first_player": 0, "characteristic": "v"})  # fmt: skip
    before = env.state().copy()
    g = env.game.num_gaps
    for action, message in [
        (2, r"illegal action 2 \(place Ant past the end of the line \(slot 0, gap 2\)\) for pl"),
        (2 * g, r"out of range: the action space is Discrete\(20\)"),
        (1.0, r"must be an integer in 0..19, got 1.0"),
    ]:
        with pytest.raises(IllegalActionError, match=message):
            env.step(action)
    assert np.array_equal(env.state(), before)
    env.step(np.int64(g + 1))  # Bee 20 right of Eel 0: right
    assert env.game_state.line == [4, 1]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"num_players": 9}, "num_players must be in 2..8, got 9"),
        ({"deck": TIES, "num_players": 3, "hand_size": 3}, r"has 9 cards; .* at least 10"),
        ({"characteristic": "v"}, r"one of the Marvel deck's characteristics 'strength', 'int"),
        ({"speed": 1}, r"unknown config key 'speed' for cardline_v0; allowed: 'num_players'"),
    ],
)
def test_bad_config_raises(config, message):
    with pytest.raises(InvalidConfigError, match=message):
        raw(**config)


def test_bad_reset_options_leave_the_running_game_intact():
    env = raw()
    env.reset(seed=1)
    before = env.state().copy()
    for options in ({"hands": [["Hulk"], ["Hulk"]]}, {"initial_card": "Batman"},
                    {"characteristic": "speed"}, {"hands": [["Hulk"]]}):  # fmt: skip
        with pytest.raises(InvalidConfigError):
            env.reset(seed=2, options=options)
    assert np.array_equal(env.state(), before)


# --- rendering and docs ------------------------------------------------------------------------
def test_render_shows_line_values_and_hands_by_name_only(capsys):
    env = raw(render_mode="ansi", deck=TIES, hand_size=2)
    env.reset(options={"hands": [["Fox", "Hen"], ["Bee", "Dog"]], "initial_card": "Ibis",
                       "draw_pile": ["Gnu"], "first_player": 1, "characteristic": "v"})  # fmt: skip
    text = env.render()
    assert "[Ibis 5]" in text and "to act: player_1" in text
    assert "player_0: Fox, Hen" in text and "player_1: Bee, Dog" in text
    assert "40" not in text and "-7.5" not in text and "20" not in text  # hand values hidden
    assert "top: Gnu" in text
    env.step(1 * env.game.num_gaps + 1)  # Dog -7.5 right of Ibis 5: wrong
    text = env.render()
    assert "player_1 placed Dog (-7.5): wrong" in text and "to act: player_0" in text
    human = raw(render_mode="human")
    human.reset(seed=0)
    assert human.render() is None and "player_1" in capsys.readouterr().out


def test_docstring_states_invented_values_the_deck_warning_and_the_decisions():
    doc = cardline_v0.__doc__
    assert "values are invented" in doc
    assert "sorted by a characteristic leaks the value order" in " ".join(doc.split())
    decided = doc.split("## Decided rules")[1].split("## Version History")[0]
    for rule in ("CL-1", "CL-2", "CL-3", "CL-4", "CL-5", "CL-6", "CL-7", "Hidden information",
                 "first_player=None", "characteristic=None", "Scores"):  # fmt: skip
        assert rule in decided, rule
