"""``set_state`` refuses a rules state the rules could not reach (issue 35), and only such.

States are reached by random legal play (every example config, multi-player tables, options
that leave cards out of the game or shorten the battle deck), sometimes resampled as search
does. Every one is accepted; one field tampered with at a time is refused with an
``InvalidConfigError`` naming that field, while the caller's state and the env's current game
stay as they were. The vector engines' ``set_state`` refuses the same states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from fake_game import HighCardEnv
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from cardarena.agents.ismcts import canonical_infostate
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.state_checks import check_loaded_state
from cardarena.envs.vector import make_vec

Options = Callable[[Any], dict[str, Any]] | None
Tamper = Callable[[Any], Any]

# --- reachable states ------------------------------------------------------------------------
#: A small custom deck, its rows by name rather than by year (CL-1).
TIMELINE = [
    {"name": name, "colour": "history", "year": year}
    for name, year in [
        ("Augustus", -27),
        ("Charlemagne", 800),
        ("Colosseum", 80),
        ("Columbus", 1492),
        ("Hastings", 1066),
        ("Magna Carta", 1215),
        ("Marathon", -490),
        ("Printing", 1450),
        ("Pyramid", -2560),
        ("Rome", -753),
    ]
]

#: Per env: (config, reset options built from the game or None). Options that fix the draw
#: pile leave cards out of the game; a short battle deck reshuffles often; decks that are not
#: the configured ones are smaller than it.
CONFIGS: dict[str, list[tuple[dict[str, Any], Options]]] = {
    "cardline_v0": [
        ({}, None),
        ({"num_players": 8}, None),
        ({"num_players": 3, "hand_size": 2, "deck": TIMELINE, "max_turns": 12}, None),
        ({"num_players": 4, "hand_size": 2}, lambda g: {"draw_pile": list(g.names[:6])}),
    ],
    "promise_war_v0": [
        ({}, None),
        ({"num_players": 3}, None),
        ({"num_players": 8}, None),
        ({"num_players": 3, "max_power": 2, "decks": [0, 0, 1, 1, 2, 2], "max_tricks": 6}, None),
        ({"num_players": 4, "max_power": 3}, lambda g: {"decks": [[1, 2], [3], [0, 3, 3], [2]]}),
    ],
    "ironman_war_v0": [
        ({}, None),
        ({"variant": "beginner"}, None),
        (
            {
                "deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2},
                "max_rounds": 4,
            },
            None,
        ),
        ({}, lambda g: {"decks": [["attack_2", "energy_shield", "upgrade"], ["final_attack"] * 5]}),
    ],
    "beast_wars_v0": [
        ({}, None),
        ({"team_selection": "random"}, None),
        ({"team_size": 3, "max_turns": 12, "first_player": "predacon"}, None),
        (
            {"team_selection": "random", "team_size": 12},
            lambda g: {"battle_deck": ["red:mutate", "blue:secret_weapon", "gold:basic"]},
        ),
    ],
}
ENV_NAMES = sorted(CONFIGS)
RAW = {
    (name, index): make_raw(name, **config)
    for name, configs in CONFIGS.items()
    for index, (config, _) in enumerate(configs)
}


def deal(name: str, index: int, seed: int) -> Any:
    raw = RAW[name, index]
    options = CONFIGS[name][index][1]
    return raw.game.new_initial_state(
        np.random.default_rng(seed), None if options is None else options(raw.game)
    )


def step_randomly(state: Any, rng: np.random.Generator) -> bool:
    """One random legal action; False once the game is over."""
    if state.current_player() == -1:
        return False
    state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    return True


def seen_by_search(state: Any, how: str, rng: np.random.Generator) -> Any:
    """The state as is, or as determinized search rebuilds it from a seat's information."""
    seat = int(rng.integers(len(state.game.agent_names)))
    if how == "resampled":
        return state.resample_from_infostate(seat, rng)
    if how == "canonical":
        return canonical_infostate(state, seat)
    return state


@st.composite
def reachable(draw: Any, name: str) -> tuple[Any, Any]:
    """(raw env, a state random legal play reached), possibly resampled for search."""
    index = draw(st.integers(0, len(CONFIGS[name]) - 1), label="config")
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    state = deal(name, index, seed)
    steps = draw(st.one_of(st.integers(0, 40), st.integers(0, 400), st.just(10**6)), label="steps")
    for _ in range(steps):
        if not step_randomly(state, rng):
            break
    event("game over" if state.current_player() == -1 else "in play")
    how = draw(st.sampled_from(["as dealt", "resampled", "canonical"]), label="view")
    return RAW[name, index], seen_by_search(state, how, rng)


# --- tampering: each entry changes one field (or one fact) to something unreachable ----------
def _first_hand_seat(state: Any) -> int:
    return next((seat for seat, hand in enumerate(state.hands) if hand), 0)


def _second_copy_in_hand(state: Any) -> None:
    """A card of the line (or of a hand) also put into another seat's hand."""
    donor = _first_hand_seat(state)
    card = state.hands[donor][0] if state.hands[donor] else state.line[0]
    taker = (donor + 1) % state.num_players
    state.hands[taker] = sorted([*state.hands[taker], card])


def _unplaced_owned(state: Any) -> None:
    """Cards added to iron_man's discard pile: it owns more than its configured deck."""
    owned = int(state.card_counts(0).sum())
    state.discards[0, 0] += state.game.deck_size - owned + 1


def _extra_victory_card(state: Any) -> None:
    state.victory[0, 1] += 1
    state.victory_sizes[0] += 1


def _character_twice(state: Any) -> bool:
    """A character on the board copied into an empty cell."""
    taken = np.flatnonzero(state.owner[:12] >= 0)
    empty = np.flatnonzero(state.owner[:12] == -1)
    if not taken.size or not empty.size:
        return False
    state.board[empty[0]] = state.board[taken[0]]
    state.owner[empty[0]] = state.owner[taken[0]]
    return True


TAMPERS: dict[str, list[tuple[str, Tamper]]] = {
    "cardline_v0": [
        ("line", lambda s: s.line.append(1_000_000)),
        ("hands", _second_copy_in_hand),
        ("hands", lambda s: s.hands[0].append(-1)),
        ("pile", lambda s: s.pile.append(s.line[0])),
        ("box", lambda s: s.box.append(s.game.deck_size)),
        ("out", lambda s: s.out.append(s.line[0])),
        ("line", lambda s: s.line.pop()),
        ("where", lambda s: s.where.__setitem__(s.line[0], 0)),
        ("where", lambda s: setattr(s, "where", s.where.astype(np.int64))),
        ("revealed", lambda s: s.revealed.__setitem__(s.line[-1], False)),
        ("revealed", lambda s: setattr(s, "revealed", s.revealed[:-1])),
        ("known", lambda s: s.known.__setitem__(0, 7.0)),
        ("turns", lambda s: setattr(s, "turns", -1)),
        ("turns", lambda s: setattr(s, "turns", s.game.max_turns + 1)),
        ("rounds", lambda s: setattr(s, "rounds", 0)),
        ("to_act", lambda s: setattr(s, "to_act", s.num_players)),
        ("first_player", lambda s: setattr(s, "first_player", -1)),
        ("correct", lambda s: s.correct.__setitem__(0, -1)),
        ("correct", lambda s: s.correct.__setitem__(0, s.correct[0] + 1)),
        ("eliminated", lambda s: setattr(s, "eliminated", s.eliminated[:-1])),
        ("eliminated", lambda s: setattr(s, "eliminated", [True] * s.num_players)),
        ("last_mover", lambda s: setattr(s, "last_mover", s.num_players)),
        ("last_card", lambda s: s.last_card.__setitem__(0, s.game.deck_size)),
        ("last_right", lambda s: s.last_right.__setitem__(0, 1)),
        ("turn_index", lambda s: setattr(s, "turn_index", 10**6)),
        ("order", lambda s: s.order.append(s.num_players)),
        ("finishers", lambda s: s.finishers.append(-1)),
        ("characteristic", lambda s: setattr(s, "characteristic", 99)),
        ("values", lambda s: setattr(s, "values", s.values[::-1] + 1.0)),
        ("num_players", lambda s: setattr(s, "num_players", s.num_players + 1)),
        ("rng", lambda s: setattr(s, "rng", None)),
        ("_returns", lambda s: setattr(s, "_returns", (5.0,) * s.num_players)),
        ("terminal", lambda s: setattr(s, "terminal", 1)),
    ],
    "promise_war_v0": [
        ("hands", lambda s: s.hands.__setitem__((0, 1), -5)),
        ("hands", lambda s: s.hands.__setitem__((0, 1), 10**6)),
        ("hands", lambda s: setattr(s, "hands", s.hands.astype(np.int32))),
        ("hand_sizes", lambda s: s.hand_sizes.__setitem__(0, -5)),
        ("hand_sizes", lambda s: s.hand_sizes.__setitem__(0, s.hand_sizes[0] + 1)),
        ("deck_counts", lambda s: s.deck_counts.__setitem__((0, 1), s.deck_counts[0, 1] + 1)),
        ("draw_piles", lambda s: s.draw_piles[0].append(s.game.max_power + 1)),
        ("deck_sizes", lambda s: s.deck_sizes.__setitem__(0, s.deck_sizes[0] + 1)),
        ("victory", lambda s: s.victory.__setitem__((0, 0), -1)),
        ("victory", _extra_victory_card),
        ("victory_sizes", lambda s: s.victory_sizes.__setitem__(0, s.victory_sizes[0] + 1)),
        ("discarded", lambda s: setattr(s, "discarded", s.discarded[:-1])),
        ("pot_face_up", lambda s: s.pot_face_up.__setitem__(0, -1)),
        ("pot_face_down", lambda s: s.pot_face_down.append(s.game.max_power + 1)),
        ("pot_face_down_owners", lambda s: s.pot_face_down_owners.append(0)),
        ("pot_face_down_by_player", lambda s: s.pot_face_down_by_player.__setitem__(0, 99)),
        ("buried", lambda s: s.buried.__setitem__((0, 0, 0), -1)),
        ("revealed", lambda s: s.revealed.__setitem__((0, 0), -1)),
        ("picks", lambda s: s.picks.__setitem__(0, s.game.max_power + 1)),
        ("last_revealed", lambda s: s.last_revealed.__setitem__(0, -2)),
        ("has_picked", lambda s: setattr(s, "has_picked", s.has_picked[:-1])),
        ("sitting_out", lambda s: s.sitting_out.__setitem__(0, 1)),
        ("contenders", lambda s: s.contenders.append(s.num_players)),
        ("pick_index", lambda s: setattr(s, "pick_index", 10**6)),
        ("phase", lambda s: setattr(s, "phase", 2)),
        ("tricks_played", lambda s: setattr(s, "tricks_played", -1)),
        ("num_players", lambda s: setattr(s, "num_players", 1)),
        ("rng", lambda s: setattr(s, "rng", 0)),
        ("_returns", lambda s: setattr(s, "_returns", (2.0,) * s.num_players)),
    ],
    "ironman_war_v0": [
        ("hands", lambda s: s.hands.__setitem__((0, 0), -3)),
        ("hands", lambda s: s.hands.__setitem__((1, 4), 10**6)),
        ("hand_sizes", lambda s: s.hand_sizes.__setitem__(0, -3)),
        ("deck_counts", lambda s: s.deck_counts.__setitem__((1, 2), s.deck_counts[1, 2] + 1)),
        ("_piles", lambda s: s._piles[0].append(8)),
        ("deck_sizes", lambda s: s.deck_sizes.__setitem__(1, s.deck_sizes[1] + 1)),
        ("discards", lambda s: s.discards.__setitem__((0, 1), -1)),
        ("discards", _unplaced_owned),
        ("table", lambda s: s.table.__setitem__((1, 0), -1)),
        ("battle_cards", lambda s: setattr(s, "battle_cards", s.battle_cards.T.copy())),
        ("battle_totals", lambda s: s.battle_totals.__setitem__(0, s.battle_totals[0] + 1)),
        ("battle_card_counts", lambda s: s.battle_card_counts.__setitem__(1, -1)),
        ("committed", lambda s: s.committed.__setitem__((0, 0), 8)),
        ("face_down", lambda s: setattr(s, "face_down", s.face_down.astype(np.int64))),
        ("flipped", lambda s: s.flipped.__setitem__((1, 2), 9)),
        ("pending_play", lambda s: s.pending_play.__setitem__(0, 8)),
        ("has_pending", lambda s: s.has_pending.__setitem__(1, 1)),
        ("last_reveal", lambda s: s.last_reveal.__setitem__(0, -2)),
        ("battle_results", lambda s: s.battle_results.__setitem__(0, 5)),
        ("battles_won", lambda s: s.battles_won.__setitem__(0, s.battles_won[0] + 1)),
        ("previous_results", lambda s: s.previous_results.__setitem__(2, 3)),
        ("previous_flipped", lambda s: s.previous_flipped.__setitem__((0, 0), 8)),
        ("pawns", lambda s: s.pawns.__setitem__(0, 0)),
        ("round", lambda s: setattr(s, "round", 0)),
        ("battle", lambda s: setattr(s, "battle", 3)),
        ("commit_slot", lambda s: setattr(s, "commit_slot", -1)),
        ("decision", lambda s: setattr(s, "decision", 5)),
        ("current_seat", lambda s: setattr(s, "current_seat", 2)),
        ("winner", lambda s: setattr(s, "winner", 2)),
        ("_to_pick", lambda s: setattr(s, "_to_pick", [0, 0, 0])),
        ("_beginner", lambda s: setattr(s, "_beginner", not s._beginner)),
        ("_rng", lambda s: setattr(s, "_rng", None)),
        ("_returns", lambda s: setattr(s, "_returns", (0.5, 0.5))),
    ],
    "beast_wars_v0": [
        ("_deck", lambda s: s._deck.append(999)),
        ("card_counts", lambda s: s.card_counts.__setitem__((0, 0), s.card_counts[0, 0] + 1)),
        ("card_counts", lambda s: s.card_counts.__setitem__((1, 3), -1)),
        ("card_counts", lambda s: s.card_counts.__setitem__((1, 0), s.card_counts[1, 0] + 73)),
        ("owner", lambda s: s.owner.__setitem__(0, 5)),
        ("owner", lambda s: s.owner.__setitem__(12, -1)),
        ("board", lambda s: s.board.__setitem__(0, 99)),
        ("board", _character_twice),
        ("location", lambda s: s.location.__setitem__(0, 12)),
        ("location", lambda s: setattr(s, "location", s.location[:-1])),
        ("faces", lambda s: s.faces.__setitem__(0, 3)),
        ("teams", lambda s: s.teams[0].append(99)),
        ("placed", lambda s: s.placed.__setitem__(0, 4)),
        ("board_counts", lambda s: s.board_counts.__setitem__(0, s.board_counts[0] + 1)),
        ("reserve_counts", lambda s: s.reserve_counts.__setitem__(1, -1)),
        ("first_player", lambda s: setattr(s, "first_player", 2)),
        ("turn", lambda s: setattr(s, "turn", -1)),
        ("winner", lambda s: setattr(s, "winner", 3)),
        ("phase", lambda s: setattr(s, "phase", 4)),
        ("to_act", lambda s: setattr(s, "to_act", 2)),
        ("last_battle", lambda s: setattr(s, "last_battle", "a battle")),
        ("_numbers", lambda s: setattr(s, "_numbers", s._numbers + 1)),
        ("_rng", lambda s: setattr(s, "_rng", None)),
        ("_returns", lambda s: setattr(s, "_returns", (1.0, 1.0))),
    ],
}


def state_fields(state: Any) -> dict[str, Any]:
    """Every attribute of ``state`` as comparable values (generators by their state)."""
    fields: dict[str, Any] = {}
    for name, value in vars(state).items():
        if isinstance(value, np.ndarray):
            value = (value.dtype.str, value.shape, value.tolist())
        elif isinstance(value, np.random.Generator):
            value = value.bit_generator.state
        elif isinstance(value, list):
            value = repr(value)
        fields[name] = value
    return fields


def assert_refused(raw: Any, tampered: Any, field: str) -> None:
    """``raw.set_state(tampered)`` raises naming ``field``; nothing else changes."""
    before = raw.game_state
    observation = raw.observe(raw.agent_selection)["observation"].copy()
    given = state_fields(tampered)
    with pytest.raises(InvalidConfigError) as refused:
        raw.set_state(tampered)
    message = str(refused.value)
    assert field in message and "state" in message, message
    assert state_fields(tampered) == given, "set_state changed the caller's state"
    assert raw.game_state is before
    assert np.array_equal(raw.observe(raw.agent_selection)["observation"], observation)


@pytest.mark.parametrize("name", ENV_NAMES)
def test_every_tamper_has_a_reachable_state_to_start_from(name):
    assert len(TAMPERS[name]) >= 20
    assert len(CONFIGS[name]) >= 4


@pytest.mark.parametrize("name", ENV_NAMES)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_one_tampered_field_is_refused_naming_it(name, data):
    raw, state = data.draw(reachable(name))
    raw.reset(seed=0)
    field, tamper = data.draw(st.sampled_from(TAMPERS[name]), label="tamper")
    tampered = state.clone()
    assume(tamper(tampered) is not False)
    assert_refused(raw, tampered, field)


@pytest.mark.parametrize(
    ("name", "index"), [(name, i) for name in ENV_NAMES for i in range(len(CONFIGS[name]))]
)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_state_of_a_random_game_is_accepted(name, index, seed):
    """Not over-strict: each state along a whole random game, and search's views of it."""
    raw = RAW[name, index]
    rng = np.random.default_rng(seed)
    state = deal(name, index, seed)
    while True:
        for how in ("as dealt", "resampled", "canonical"):
            view = seen_by_search(state, how, rng)
            given = state_fields(view)
            raw.set_state(view, 3)
            assert state_fields(view) == given
            assert raw.num_steps == 3 and raw.game_state is not view
        if not step_randomly(state, rng):
            break


# --- the cases issue 35 names ----------------------------------------------------------------
def test_cardline_a_line_card_that_is_not_in_the_deck_is_refused_not_an_index_error():
    raw = make_raw("cardline_v0")
    raw.reset(seed=1)
    state = raw.game_state.clone()
    state.line.append(1_000_000)
    with pytest.raises(InvalidConfigError, match=r"state\.line\[1\] is 1000000; allowed: 0\.\.109"):
        raw.set_state(state)


def test_cardline_one_card_in_two_hands_is_refused_naming_both():
    raw = make_raw("cardline_v0")
    raw.reset(seed=1)
    state = raw.game_state.clone()
    card = state.hands[0][0]
    state.hands[1] = sorted([*state.hands[1][:-1], card])
    with pytest.raises(InvalidConfigError, match=r"hands\[1\].* also in state\.hands\[0\]"):
        raw.set_state(state)


@pytest.mark.parametrize("count", [-5, 10**6])
def test_promise_war_a_hand_count_out_of_range_is_refused(count):
    raw = make_raw("promise_war_v0")
    raw.reset(seed=1)
    state = raw.game_state.clone()
    state.hands[1, 4] = count
    with pytest.raises(InvalidConfigError, match=rf"state\.hands\[1\]\[4\] is {count}; allowed"):
        raw.set_state(state)


def test_ironman_war_a_negative_count_is_refused():
    raw = make_raw("ironman_war_v0")
    raw.reset(seed=1)
    state = raw.game_state.clone()
    state.deck_counts[0, 2] = -3
    with pytest.raises(InvalidConfigError, match=r"state\.deck_counts\[0\]\[2\] is -3"):
        raw.set_state(state)


def test_beast_wars_a_deck_card_that_does_not_exist_is_refused():
    raw = make_raw("beast_wars_v0")
    raw.reset(seed=1)
    state = raw.game_state.clone()
    state._deck[-1] = 999
    with pytest.raises(InvalidConfigError, match=r"state\._deck\[\d+\] is 999; allowed: 0\.\.15"):
        raw.set_state(state)


def test_a_refused_state_leaves_the_game_playable_where_it_was():
    raw = make_raw("promise_war_v0", num_players=3)
    raw.reset(seed=4)
    raw.step(int(np.flatnonzero(raw.action_mask(raw.agent_selection))[0]))
    agent, steps = raw.agent_selection, raw.num_steps
    broken = raw.game_state.clone()
    broken.hand_sizes[2] = -5
    with pytest.raises(InvalidConfigError):
        raw.set_state(broken)
    assert (raw.agent_selection, raw.num_steps) == (agent, steps)
    raw.step(int(np.flatnonzero(raw.action_mask(agent))[0]))
    assert raw.num_steps == steps + 1


def test_num_steps_is_checked_under_its_own_name():
    raw = make_raw("cardline_v0")
    raw.reset(seed=0)
    with pytest.raises(InvalidConfigError, match="num_steps"):
        raw.set_state(raw.game_state, -1)


# --- the vector engines load states through the same check ----------------------------------
BATCH_TAMPERS = {
    "cardline_v0": ("hands", _second_copy_in_hand),
    "promise_war_v0": ("hands", lambda s: s.hands.__setitem__((0, 1), -5)),
    "ironman_war_v0": ("hands", lambda s: s.hands.__setitem__((0, 0), -3)),
    "beast_wars_v0": ("_deck", lambda s: s._deck.append(999)),
}


@pytest.mark.parametrize("name", ENV_NAMES)
def test_batch_set_state_refuses_the_same_states_and_keeps_the_slot(name):
    venv = make_vec(name, num_envs=2, seed=3)
    batch = venv.reset()
    for _ in range(5):
        batch = venv.step(np.array([int(np.flatnonzero(row)[0]) for row in batch.action_mask]))
    kept = state_fields(venv.state_of(1))
    observation = batch.observation.copy()
    tampered = venv.state_of(1)
    field, tamper = BATCH_TAMPERS[name]
    tamper(tampered)
    with pytest.raises(InvalidConfigError, match=field):
        venv.set_state(1, tampered)
    assert state_fields(venv.state_of(1)) == kept
    assert np.array_equal(venv.observe(np.maximum(batch.current_player, 0)), observation)
    venv.set_state(0, venv.state_of(1))  # an untampered state still loads


# --- a game without its own check gets the generic one ---------------------------------------
def test_a_game_without_check_state_gets_the_protocol_checks():
    raw = HighCardEnv()
    raw.reset(seed=0)
    state = raw.game_state.clone()
    assert not hasattr(state, "check_state")
    check_loaded_state(state)
    state.to_act = 7
    with pytest.raises(InvalidConfigError, match=r"current_player\(\) is 7; allowed: 0\.\.1"):
        raw.set_state(state)
    state.to_act = 0
    state.hands[0] = [99]
    with pytest.raises(InvalidConfigError, match="cannot be read by its own rules"):
        raw.set_state(state)
    state.hands[0] = []
    with pytest.raises(InvalidConfigError, match="at least one"):
        raw.set_state(state)
    state.terminal = True
    state._returns = (1.0, -1.0)
    state.to_act = 0
    raw.set_state(state)  # over: current_player() is NO_PLAYER in this game
