"""The vector Beast Wars engine against the reference rules: the hard cases loaded with
``set_state`` (battles drawing from a reshuffled discard pile, with the reshuffle's
distribution; push, capture, fall, called off, a winning defender, Mutate; reinforcing
anywhere when the enemy holds the whole first row; a full board; elimination; the cap), every
example config and odd ones (whole factions as teams, small custom character tables), the
vector heuristic against the scalar one, and JIT against plain Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from typing import Any

import numpy as np
import pytest
from vector_checks import check_against_reference, random_legal_actions

from cardarena.agents import EnvSpec
from cardarena.agents.heuristics import beast_wars as scalar_module
from cardarena.agents.heuristics.beast_wars import BeastWarsStrategy
from cardarena.agents.heuristics.vector_beast_wars import (
    VectorBeastWarsHeuristic,
    _pairwise_sum,
)
from cardarena.envs import make_raw
from cardarena.envs.beast_wars.rules import (
    ATTACK_BASE,
    CALLED_OFF,
    CAPTURE,
    DEFENDER,
    DRAW,
    FALL,
    MAX_FACTION,
    NO_PIECE,
    NUM_ACTIONS,
    NUM_CELLS,
    PASS,
    PICK_BASE,
    PLAY,
    PUSH,
    REINFORCE_BASE,
    REMOVED,
    RESERVE,
    BeastWarsState,
)
from cardarena.envs.beast_wars.vector import (
    O_CARDS,
    O_CHARACTER,
    O_FACE,
    O_OWNER,
    O_PHASE,
    VectorBeastWars,
)
from cardarena.envs.vector import make_vec

ENV = "beast_wars_v0"
differ = VectorBeastWars.state_difference
OUTCOME_NAMES = {PUSH: "push", CAPTURE: "capture", FALL: "fall", CALLED_OFF: "called off"}
TEAMS = {"maximal": [0, 1, 2, 3, 4, 5], "predacon": [0, 1, 2, 3, 4, 5]}


def reshuffled(previous: BeastWarsState, expected: BeastWarsState) -> bool:
    """Whether the step drew a battle card from a reshuffled discard pile."""
    battle = expected.last_battle
    fought = battle is not None and battle.turn == previous.turn + 1
    return fought and len(previous._deck) < 2


def check_rows(views: list[np.ndarray], raw: Any, batch: Any, slot: int, state: Any) -> None:
    """Both seats' observations (``views[seat]``, all slots) and the mask of ``slot`` equal
    the reference's."""
    raw.set_state(state)
    for seat, agent in enumerate(raw.possible_agents):
        np.testing.assert_array_equal(views[seat][slot], raw.observe(agent)["observation"])
    np.testing.assert_array_equal(batch.action_mask[slot], state.legal_action_mask())
    assert batch.current_player[slot] == state.current_player()


def play(
    config: dict[str, Any],
    states: list[BeastWarsState],
    steps: int,
    seed: int = 0,
    script: list[int] | None = None,
    attack_bias: float = 0.8,
) -> Counter[str]:
    """Load ``states`` into slots 0.. of a batch and play ``script`` in slot 0, then random
    legal actions (attacks preferred with ``attack_bias``), checking every transition of every
    slot against the reference: rows, state (``state_difference``), ends and rewards.
    Returns what happened (battle outcomes, reshuffles, ends)."""
    venv = make_vec(ENV, len(states), seed=seed, **config)
    raw = make_raw(ENV, **config)
    batch = venv.reset()
    for slot, state in enumerate(states):
        batch = venv.set_state(slot, state)
    rng = np.random.default_rng(seed)
    script = list(script or [])
    seen: Counter[str] = Counter()
    current = [venv.state_of(slot) for slot in range(len(states))]
    for _ in range(steps):
        done = batch.done.copy()
        actions = random_legal_actions(batch.action_mask, rng)
        attacks = batch.action_mask[:, 48:96]
        keys = np.where(attacks, rng.random(attacks.shape), -1.0)
        biased = attacks.any(axis=1) & (rng.random(len(states)) < attack_bias)
        actions = np.where(biased, 48 + keys.argmax(axis=1), actions)
        if script:
            actions[0] = script.pop(0)
        views = [venv.observe(np.full(len(states), seat)) for seat in (0, 1)]
        for slot, state in enumerate(current):
            if not done[slot]:
                check_rows(views, raw, batch, slot, state)
        batch = venv.step(actions)
        for slot, previous in enumerate(current):
            actual = venv.state_of(slot)
            if done[slot]:
                current[slot] = actual
                continue
            expected = previous.clone()
            expected.apply_action(int(actions[slot]))
            difference = differ(previous, expected, actual)
            assert difference is None, difference
            # The end and rewards of the state reached (the reference's, or under a
            # reshuffle the reference's outcome with the batch's deck order).
            assert batch.terminated[slot] == actual.is_terminal() and not batch.truncated[slot]
            rewards = actual.returns() if actual.is_terminal() else (0.0, 0.0)
            np.testing.assert_array_equal(batch.rewards[slot], np.asarray(rewards, np.float32))
            battle = actual.last_battle
            if battle is not None and battle.turn == previous.turn + 1:
                seen[OUTCOME_NAMES[battle.outcome]] += 1
                seen["defender won"] += battle.winner == DEFENDER
                seen["mutate"] += any(card % 4 == 1 for card in battle.cards)
                seen["reshuffle"] += reshuffled(previous, expected)
            if actual.is_terminal():
                seen["draw" if actual.winner == DRAW else "won"] += 1
                seen["eliminated"] += min(actual.scores()) == 0
                seen["full board"] += max(actual.board_counts) == 12
                raw.set_state(actual)
                mover = raw.possible_agents[previous.current_player()]
                np.testing.assert_array_equal(
                    batch.observation[slot], raw.observe(mover)["observation"]
                )
            current[slot] = actual
    return seen


def dealt(config: dict[str, Any], seed: int, **options: Any) -> BeastWarsState:
    raw = make_raw(ENV, **config)
    raw.reset(seed=seed, options=options or None)
    return raw.game_state.clone()


# --- battles, reshuffles and their distribution ----------------------------------------------
SHORT_DECK = ["red:mutate", "blue:secret_weapon", "red:mutate", "gold:energon", "gold:basic"]


def test_battles_from_a_short_deck_reshuffle_often_and_cover_every_outcome() -> None:
    deck = SHORT_DECK
    first = ("maximal", "predacon")
    states = [
        dealt({}, seed, battle_deck=deck, teams=TEAMS, first_player=first[seed % 2])
        for seed in range(16)
    ]
    seen = play({}, states, 120)
    for what in ("push", "capture", "fall", "called off", "defender won", "mutate", "reshuffle"):
        assert seen[what] > 0, seen
    assert seen["reshuffle"] > 20, seen


def _adjacent(config: dict[str, Any], deck: list[str], **options: Any) -> BeastWarsState:
    """Maximal's column-1 character and predacon's face to face (cells 4 and 7), maximal to
    act: 64 attacks up."""
    state = dealt(config, 0, battle_deck=deck, teams=TEAMS, first_player="maximal", **options)
    state.apply_action(1 * 4 + 0)  # r0c1 up to r1c1
    state.apply_action(10 * 4 + 2)  # r3c1 down to r2c1
    return state


@pytest.mark.parametrize("left", [0, 1])
def test_a_reshuffle_inside_a_battle_is_uniform_over_the_discards(left: int) -> None:
    """An empty deck (``left`` 0: the attacker draws from the reshuffled discards) or one card
    left (the defender does): the reshuffled card is each discard kind about equally often."""
    state = _adjacent({}, ["green:basic", "green:basic"])
    discards = [0, 4, 8]  # red, blue, gold basic
    state._deck = [12] * left  # green basic
    state.card_counts[:] = 0
    state.card_counts[0, 12] = left
    state.card_counts[1, discards] = 1
    slots = 96
    venv = make_vec(ENV, slots, seed=3)
    for slot in range(slots):
        venv.set_state(slot, state)
    venv.step(np.full(slots, 48 + 4 * 4 + 0))
    expected = state.clone()
    expected.apply_action(64)
    drawn: Counter[int] = Counter()
    for slot in range(slots):
        actual = venv.state_of(slot)
        assert differ(state, expected, actual) is None
        drawn[actual.last_battle.cards[left]] += 1
        if left:
            assert actual.last_battle.cards[0] == 12
    assert set(drawn) == set(discards) and min(drawn.values()) >= 16, drawn


def test_state_difference_fails_on_a_wrong_step() -> None:
    state = _adjacent({}, ["red:basic", "blue:mutate", "gold:basic", "green:energon"])
    expected = state.clone()
    expected.apply_action(64)
    venv = make_vec(ENV, 1, seed=0)
    venv.set_state(0, state)
    venv.step(np.array([64]))
    actual = venv.state_of(0)
    assert differ(state, expected, actual) is None
    wrong = actual.clone()
    wrong.faces[0] ^= 1
    assert "faces" in differ(state, expected, wrong)
    wrong = actual.clone()
    wrong._deck = wrong._deck[::-1]
    assert "_deck" in differ(state, expected, wrong)
    # Under a reshuffle the batch's order is free, its cards are not.
    state._deck, state.card_counts[:] = [], 0
    state.card_counts[1, [0, 4, 8]] = 1
    expected = state.clone()
    expected.apply_action(64)
    venv.set_state(0, state)
    venv.step(np.array([64]))
    actual = venv.state_of(0)
    assert differ(state, expected, actual) is None
    wrong = actual.clone()
    wrong._deck = [12]
    assert "permutation" in differ(state, expected, wrong)


# --- reinforcement, full board, elimination, cap ------------------------------------------
def _move_piece(state: BeastWarsState, source: int, target: int) -> None:
    piece = int(state.board[source])
    state.board[target], state.owner[target] = piece, state.owner[source]
    state.board[source], state.owner[source] = NO_PIECE, -1
    state.location[piece] = target


def test_reinforcing_anywhere_once_the_enemy_holds_the_whole_first_row() -> None:
    state = dealt({}, 0, teams=TEAMS, first_player="maximal")
    for cell in (0, 1, 2):
        _move_piece(state, cell, cell + 3)  # maximal steps forward
    for cell in (9, 10, 11):
        _move_piece(state, cell, cell - 9)  # predacon takes maximal's first row
    anywhere = [REINFORCE_BASE + 7 * 12 + 3, REINFORCE_BASE + 10 * 12 + 5]
    play({}, [state.clone()], 1, script=anywhere[:1])
    mask = state.legal_action_mask()
    assert mask[anywhere].all() and mask[REINFORCE_BASE : REINFORCE_BASE + 3 * 12].sum() == 0
    _move_piece(state, 2, 8)  # one first-row cell free again: only it
    play({}, [state.clone()], 2, script=[REINFORCE_BASE + 2 * 12 + 4])
    assert not state.legal_action_mask()[anywhere].any()


def test_reinforcing_anywhere_leaves_the_attacks_from_the_far_row_offered() -> None:
    """Offering every empty cell must not touch the other actions' entries: maximal attacks
    from r3c2 (cell 11, beside a predacon at r2c2) while it may reinforce anywhere (a loop over
    the cells that started one cell early wrote the far row's attacks as illegal)."""
    state = dealt({}, 0, teams=TEAMS, first_player="maximal")
    for cell in (0, 1, 2):
        _move_piece(state, cell, cell + 3)
    for cell in (9, 10, 11):
        _move_piece(state, cell, cell - 9)
    _move_piece(state, 5, 11)
    piece = 12 + 3  # predacon's member 3, from its reserve to r2c2
    state.board[8], state.owner[8], state.location[piece] = piece, 1, 8
    state.reserve_counts[1] -= 1
    state.board_counts[1] += 1
    mask = state.legal_action_mask()
    from_r3c2 = ATTACK_BASE + 11 * 4
    attack = from_r3c2 + int(np.flatnonzero(mask[from_r3c2 : from_r3c2 + 4])[0])
    assert mask[attack] and mask[REINFORCE_BASE + 7 * 12 + 3]  # the attack, and anywhere
    play({}, [state.clone()], 1, script=[attack])


def test_predacon_reinforces_anywhere_once_maximal_holds_its_whole_first_row() -> None:
    """The same rule for the second seat, whose first row (cells 9 to 11) the engine reads at
    another offset (a mutant reading it from the wrong column survived the maximal case), and
    with the far corner, cell 0, among the empty cells offered."""
    state = dealt({}, 0, teams=TEAMS, first_player="predacon")
    for cell in (9, 10, 11):
        _move_piece(state, cell, cell - 3)  # predacon steps forward
    for cell in (0, 1, 2):
        _move_piece(state, cell, cell + 9)  # maximal takes predacon's first row
    anywhere = [REINFORCE_BASE + 0 * 12 + 3, REINFORCE_BASE + 4 * 12 + 5]
    mask = state.legal_action_mask()
    assert mask[anywhere].all() and mask[REINFORCE_BASE + 9 * 12 : PICK_BASE].sum() == 0
    play({}, [state.clone()], 1, script=anywhere[:1])
    play({}, [state.clone()], 1, script=anywhere[1:])
    _move_piece(state, 9, 3)  # maximal leaves r3c0, holding the other two: only r3c0 again
    assert not state.legal_action_mask()[anywhere].any()
    play({}, [state.clone()], 2, script=[REINFORCE_BASE + 9 * 12 + 4])


def test_predacon_filling_the_board_wins() -> None:
    """The full-board win for the second seat (its board count sits at another offset)."""
    config = {"team_size": 12}
    every = {"maximal": list(range(12)), "predacon": list(range(12))}
    state = dealt(config, 0, teams=every, first_player="predacon")
    state.owner[:12], state.board[:] = -1, NO_PIECE
    state.location[:] = REMOVED  # maximal: one left, in the reserve
    state.location[11] = RESERVE
    cells = [cell for cell in range(12) if cell != 9]  # predacon holds all but r3c0
    for k, cell in enumerate(cells):
        state.board[cell], state.owner[cell], state.location[12 + k] = 12 + k, 1, cell
    state.location[23] = RESERVE
    state.board_counts[:], state.reserve_counts[:] = [0, 11], [1, 1]
    seen = play(config, [state.clone()], 1, script=[REINFORCE_BASE + 9 * 12 + 11])
    assert seen["won"] == 1 and seen["full board"] == 1, seen


def test_filling_the_board_wins_and_eliminations_end_the_game() -> None:
    config = {"team_size": 12}
    every = {"maximal": list(range(12)), "predacon": list(range(12))}
    state = dealt(config, 0, teams=every, first_player="maximal")
    state.owner[:12], state.board[:] = -1, NO_PIECE
    state.location[:] = REMOVED  # predacon: one left, in the reserve
    state.location[23] = RESERVE
    for piece in range(11):  # maximal holds every cell but r0c0, one in the reserve
        state.board[piece + 1], state.owner[piece + 1], state.location[piece] = piece, 0, piece + 1
    state.location[11] = RESERVE
    state.board_counts[:], state.reserve_counts[:] = [11, 0], [1, 1]
    seen = play(config, [state.clone()], 1, script=[REINFORCE_BASE + 0 * 12 + 11])
    assert seen["won"] == 1 and seen["full board"] == 1, seen
    small = {"team_size": 3}
    seen = play(small, [dealt(small, seed) for seed in range(8)], 200)
    assert seen["eliminated"] > 0, seen


@pytest.mark.parametrize("team_size", [3, 6])
def test_the_cap_ends_level_or_with_a_winner(team_size: int) -> None:
    """At the cap the side with more pieces left wins, the reserve counting: with teams of 6
    both seats still hold reserves (three each after placement), in uneven numbers once one
    reinforces, so a count that left a reserve out or read the other seat's fails."""
    config = {"team_size": team_size, "max_turns": 4, "team_selection": "random"}
    seen = play(config, [dealt(config, seed) for seed in range(16)], 40)
    assert seen["won"] + seen["draw"] >= 16 and seen["draw"] > 0, seen


# --- every config ------------------------------------------------------------------------------
SMALL_TABLE = [
    {"faction": faction, "name": f"{faction}{k}", "beast_red": (3 * k + s) % 7,
     "beast_blue": k + 1, "beast_gold": 4, "beast_green": (k * s) % 5, "robot_red": 6 - k,
     "robot_blue": (2 * k) % 5, "robot_gold": 3 + s, "robot_green": k}
    for s, (faction, size) in enumerate((("maximal", 3), ("predacon", 5)))
    for k in range(size)
]  # fmt: skip


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"team_selection": "random"},
        {"team_size": 3, "max_turns": 12, "first_player": "predacon"},
        {"team_size": 12, "first_player": "maximal"},  # both teams whole: placement only
        {"characters": SMALL_TABLE, "team_size": 3},  # maximal's team whole, predacon picks
        {"characters": SMALL_TABLE, "team_size": 3, "team_selection": "random", "max_turns": 9},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items() if k != "characters") or "default",
)
def test_every_config_against_the_reference(config: dict[str, Any]) -> None:
    counts = check_against_reference(ENV, config, 300, num_envs=8, seed=5)
    assert counts["transitions"] >= 300


# --- the heuristic -------------------------------------------------------------------------
@pytest.mark.parametrize("config", [{}, {"team_size": 3, "max_turns": 40}])
def test_vector_heuristic_equals_the_scalar_one(
    config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = EnvSpec(ENV, config)
    vector = VectorBeastWarsHeuristic(spec)
    scalar = BeastWarsStrategy(spec)
    tied: list[set[int]] = []
    choose = scalar_module.choose

    def spy(actions: Any, scores: Any, rng: Any, tolerance: float = 1e-9) -> int:
        values = np.asarray(scores, np.float64)
        tied.append({int(actions[b]) for b in np.flatnonzero(values >= values.max() - tolerance)})
        return choose(actions, scores, rng, tolerance)

    monkeypatch.setattr(scalar_module, "choose", spy)
    venv = make_vec(ENV, 24, seed=2, **config)
    rng = np.random.default_rng(2)
    batch = venv.reset()
    rows = ties = 0
    for _ in range(110):
        seats = batch.current_player.copy()
        live = np.flatnonzero(seats >= 0)
        chosen = vector.act(batch.observation[live], batch.action_mask[live], seats[live], rng)
        for row, action in zip(live, chosen, strict=True):
            scalar.start_game(venv.possible_agents[seats[row]], rng)
            tied.clear()
            mask = batch.action_mask[row].astype(np.int8)
            scalar.act({"observation": batch.observation[row], "action_mask": mask}, rng)
            assert int(action) in tied[-1], (row, int(action), tied[-1])
            rows += 1
            ties += len(tied[-1]) > 1
        actions = random_legal_actions(batch.action_mask, rng)
        heuristic = rng.random(len(live)) < 0.7  # mostly heuristic games: real positions
        actions[live[heuristic]] = chosen[heuristic]
        batch = venv.step(actions)
    assert rows > 2000 and ties > 0


def test_pairwise_sum_is_numpys() -> None:
    """Bit for bit, for every count a row can have (0..256 card pairs), on values spread
    over six orders of magnitude so that summing in another order shows in the last bits."""
    rng = np.random.default_rng(0)
    for count in range(257):
        for _ in range(20):
            values = rng.random(256) * 10.0 ** rng.uniform(-3, 3, 256)
            assert _pairwise_sum(values, count) == values[:count].sum(), count


@pytest.fixture
def scalar_choices(monkeypatch: pytest.MonkeyPatch) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every (actions, scores) the scalar strategy hands ``choose``, in order."""
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    choose = scalar_module.choose

    def spy(actions: Any, scores: Any, rng: Any, tolerance: float = 1e-9) -> int:
        seen.append((np.array(actions, np.int64), np.array(scores, np.float64)))
        return choose(actions, scores, rng, tolerance)

    monkeypatch.setattr(scalar_module, "choose", spy)
    return seen


def played_positions(games: int, steps: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(observation, mask, seat) of every seat to act along heuristic-and-random play."""
    heuristic = VectorBeastWarsHeuristic(EnvSpec(ENV))
    venv = make_vec(ENV, games, seed=seed)
    rng = np.random.default_rng(seed)
    batch, positions = venv.reset(), []
    for _ in range(steps):
        live = np.flatnonzero(batch.current_player >= 0)
        seats = batch.current_player[live]
        positions += [
            (batch.observation[r].copy(), batch.action_mask[r].copy(), int(batch.current_player[r]))
            for r in live
        ]
        chosen = heuristic.act(batch.observation[live], batch.action_mask[live], seats, rng)
        actions = random_legal_actions(batch.action_mask, rng)
        actions[live] = np.where(rng.random(len(live)) < 0.7, chosen, actions[live])
        batch = venv.step(actions)
    return positions


#: The battle deck and discard pile a seat sees, as card kinds (colour * 4 + type), at the
#: edges of ``draw_chances``: the deck running out, one card left, nothing left at all.
CARDS_LEFT = {
    "one in the deck, none discarded": ([3], []),
    "none in the deck, one discarded": ([], [5]),
    "no cards anywhere": ([], []),
    "one in the deck, one discarded": ([7], [9]),
    "one in the deck, two discarded": ([7], [0, 9]),
    "none in the deck, two alike discarded": ([], [2, 2]),
    "two in the deck": ([1, 1], [4]),
}
#: Legal sets the scalar strategy treats apart: the pass alone (a seat that cannot act), and
#: the position's own attacks alone, moves alone, reinforcements alone (where it has some).
_ACTIONS = np.arange(NUM_ACTIONS)
ONLY = {
    "pass": lambda mask: _ACTIONS == PASS,
    "attacks": lambda mask: mask & (_ACTIONS >= ATTACK_BASE) & (_ACTIONS < REINFORCE_BASE),
    "moves": lambda mask: mask & (_ACTIONS < ATTACK_BASE),
    "reinforcements": lambda mask: mask & (_ACTIONS >= REINFORCE_BASE) & (_ACTIONS < PICK_BASE),
}


def scalar_and_vector_scores(
    scalar: BeastWarsStrategy,
    vector: VectorBeastWarsHeuristic,
    seen: list[tuple[np.ndarray, np.ndarray]],
    observation: np.ndarray,
    mask: np.ndarray,
    seat: int,
) -> None:
    """The vector heuristic's candidates and scores are exactly those the scalar chooses from."""
    seen.clear()
    scalar.start_game(scalar.data.agent_names[seat], np.random.default_rng(0))
    scalar.act(
        {"observation": observation, "action_mask": mask.astype(np.int8)}, np.random.default_rng(0)
    )
    actions, values = seen[-1]
    got = vector.scores(observation[None], mask[None], np.array([seat]))[0]
    assert np.flatnonzero(np.isfinite(got)).tolist() == sorted(actions.tolist())
    np.testing.assert_array_equal(got[actions], values)


def without_enemies(observation: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The position with every enemy piece lifted off the board (the board as a seat sees it
    when all the enemy's pieces wait in reserve), attacks no longer legal."""
    edited, cut = (
        observation.copy(),
        mask & ~((_ACTIONS >= ATTACK_BASE) & (_ACTIONS < REINFORCE_BASE)),
    )
    for cell in range(NUM_CELLS):
        if edited[O_OWNER + cell * 3 + 2]:
            edited[O_OWNER + cell * 3 : O_OWNER + cell * 3 + 3] = (1, 0, 0)
            edited[O_CHARACTER + cell * MAX_FACTION : O_CHARACTER + (cell + 1) * MAX_FACTION] = 0
            edited[O_FACE + cell * 2 : O_FACE + cell * 2 + 2] = 0
    return edited, cut


def edge_positions() -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Positions of real play, then play positions with the cards left moved to each edge of
    the draw odds, with the legal set cut to one kind of action (the pass alone, attacks
    alone, ...) and with no enemy on the board."""
    positions = played_positions(games=12, steps=90, seed=4)
    play = [p for p in positions if np.argmax(p[0][O_PHASE : O_PHASE + 3]) == PLAY]
    assert len(positions) > 1000 and len(play) > 500
    edges = list(positions)
    for deck, discards in CARDS_LEFT.values():
        for observation, mask, seat in play[::7]:
            edited = observation.copy()
            edited[O_CARDS : O_CARDS + 32] = 0
            np.add.at(edited, O_CARDS + np.array(deck, np.int64), 1)
            np.add.at(edited, O_CARDS + 16 + np.array(discards, np.int64), 1)
            edges.append((edited, mask, seat))
    cut = Counter()
    for name, keep in ONLY.items():
        for observation, mask, seat in play[::3]:
            if keep(mask).any():
                edges.append((observation, keep(mask), seat))
                cut[name] += 1
    assert min(cut[name] for name in ONLY) > 5, cut
    for observation, mask, seat in play[::5]:
        edited, moves = without_enemies(observation, mask)
        if moves.any():
            edges.append((edited, moves, seat))
            cut["no enemy"] += 1
    assert cut["no enemy"] > 5, cut
    return edges


#: The strategy's defaults and another setting of each parameter (every term weighed apart).
PARAMETERS = [{}, {"attack_margin": 0.3, "push": 0.4, "caution": 0.5}]


@pytest.mark.parametrize("parameters", PARAMETERS, ids=["defaults", "other"])
def test_vector_scores_are_the_scalar_ones_at_every_edge(scalar_choices, parameters) -> None:
    """Not only the action drawn: every candidate and its score, bit for bit, in each of
    ``edge_positions``, one row at a time; and all of them in one call give the same rows."""
    spec = EnvSpec(ENV)
    scalar = BeastWarsStrategy(spec, **parameters)
    vector = VectorBeastWarsHeuristic(spec, **parameters)
    positions = edge_positions()
    for observation, mask, seat in positions:
        scalar_and_vector_scores(scalar, vector, scalar_choices, observation, mask, seat)
    rows, masks, seats = (np.array(column) for column in zip(*positions, strict=True))
    singles = [vector.scores(o[None], m[None], np.array([s]))[0] for o, m, s in positions]
    np.testing.assert_array_equal(vector.scores(rows, masks, seats), np.array(singles))


def test_plain_python_gives_the_jits_scores_bit_for_bit(tmp_path) -> None:
    """The compiled loop reads and writes fixed-size buffers without bounds checks; run as
    plain Python (``CARDARENA_JIT=0``) every index is checked, and the scores must be the
    same bits, so a buffer too small or an index past its end fails here."""
    vector = VectorBeastWarsHeuristic(EnvSpec(ENV), caution=0.5)
    positions = edge_positions()[::4]
    rows, masks, seats = (np.array(column) for column in zip(*positions, strict=True))
    np.savez(tmp_path / "rows.npz", rows=rows, masks=masks, seats=seats)
    script = (
        "import sys, numpy as np\n"
        "from cardarena.agents import EnvSpec\n"
        "from cardarena.agents.heuristics import vector_beast_wars as b\n"
        "from cardarena.envs.core.kernels import JIT_ENABLED\n"
        "assert not JIT_ENABLED\n"
        "d = np.load(sys.argv[1])\n"
        "h = b.VectorBeastWarsHeuristic(EnvSpec('beast_wars_v0'), caution=0.5)\n"
        "np.save(sys.argv[2], h.scores(d['rows'], d['masks'], d['seats']))\n"
        "for count in range(257):\n"
        "    values = np.random.default_rng(count).random(256)\n"
        "    assert b._pairwise_sum(values, count) == values[:count].sum(), count\n"
    )
    env = {**os.environ, "CARDARENA_JIT": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "rows.npz"), str(tmp_path / "out.npy")],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), vector.scores(rows, masks, seats))


def test_a_row_without_a_legal_action_is_named() -> None:
    vector = VectorBeastWarsHeuristic(EnvSpec(ENV))
    observation, mask, seat = played_positions(games=1, steps=1, seed=0)[0]
    rows, masks = np.repeat(observation[None], 3, axis=0), np.repeat(mask[None], 3, axis=0)
    masks[1:] = False
    with pytest.raises(ValueError, match=r"^row 1 has no legal action"):
        vector.act(rows, masks, np.full(3, seat), np.random.default_rng(0))


def test_scores_give_a_row_without_legal_actions_no_candidates_and_go_on() -> None:
    """``scores`` (unlike ``act``) takes a row whose mask is all False: all ``-inf``, and the
    rows after it are scored as if it were not there."""
    vector = VectorBeastWarsHeuristic(EnvSpec(ENV))
    positions = played_positions(games=3, steps=1, seed=1)
    rows = np.array([p[0] for p in positions])
    masks = np.array([p[1] for p in positions])
    seats = np.array([p[2] for p in positions])
    alone = vector.scores(rows[1:], masks[1:], seats[1:])
    masks[0] = False
    scores = vector.scores(rows, masks, seats)
    assert np.isneginf(scores[0]).all()
    np.testing.assert_array_equal(scores[1:], alone)


@pytest.mark.parametrize("constant", ["OBSERVATION_SIZE", "O_PHASE"])
def test_the_heuristic_refuses_an_observation_layout_it_was_not_written_for(
    constant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its compiled loop reads fixed offsets: either one moving must stop it at once."""
    from cardarena.agents.heuristics import vector_beast_wars

    monkeypatch.setattr(vector_beast_wars, constant, getattr(vector_beast_wars, constant) + 1)
    with pytest.raises(AssertionError, match="observation layout changed"):
        VectorBeastWarsHeuristic(EnvSpec(ENV))


@pytest.mark.parametrize("moved", ["size", "offset"])
def test_the_engine_refuses_an_observation_layout_it_was_not_written_for(
    moved: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine writes observations at fixed offsets: a layout whose size or any one offset
    differs from those must stop it when it is built, either alone."""
    from cardarena.envs.beast_wars import vector as engine

    if moved == "size":
        monkeypatch.setattr(engine, "OBSERVATION_SIZE", engine.OBSERVATION_SIZE + 1)
    else:
        monkeypatch.setitem(engine._EXPECTED_OFFSETS, "phase", engine.O_PHASE + 1)
    with pytest.raises(AssertionError, match="beast_wars observation layout changed"):
        make_vec(ENV, 2, seed=0)
