"""Scenario tests for envs/rulebooks/beast_wars_v0.md (BW-1..BW-8) and the env's decided rules,
on the pure rules, plus property tests over random games.

Scenarios fix teams, the battle deck and the first player through reset options; positions
are reached by playing moves, except where a test says it arranges the board directly
(``arrange``), for positions that would take dozens of moves to reach.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_mask_is_what_the_rules_accept
from hypothesis import given, settings
from hypothesis import strategies as st

from cardarena.envs.beast_wars.rules import (
    ABSENT,
    ATTACKER,
    CALLED_OFF,
    CAPTURE,
    CHARACTERS_FILE,
    DEFENDER,
    DRAW,
    FALL,
    MAX_FACTION,
    NO_PIECE,
    NOT_IN_TEAM,
    OVER,
    PASS,
    PLACE,
    PLAY,
    PUSH,
    REMOVED,
    RESERVE,
    SELECT,
    load_characters,
    make_game,
)
from cardarena.envs.core import NO_PLAYER, IllegalActionError, InvalidConfigError

M, P = 0, 1
UP, RIGHT, DOWN, LEFT = range(4)
BEAST, ROBOT = 0, 1

NUMBER_KEYS = [f"{face}_{colour}" for face in ("beast", "robot")
               for colour in ("red", "blue", "gold", "green")]  # fmt: skip


def character(faction, name, beast, robot):
    return {
        "faction": faction,
        "name": name,
        **dict(zip(NUMBER_KEYS, [*beast, *robot], strict=True)),
    }


#: Scenario characters (numbers written out here, not taken from the shipped file). Optimus
#: Primal's beast blue 10 and Inferno's beast gold 7 are the rulebook's worked example.
CHARACTERS = [
    character("maximal", "Optimus Primal", (5, 10, 7, 3), (7, 8, 8, 3)),
    character("maximal", "Rhinox", (9, 7, 5, 8), (6, 6, 3, 5)),
    character("maximal", "Cheetor", (6, 5, 3, 8), (6, 7, 4, 8)),
    character("maximal", "Rattrap", (5, 6, 3, 7), (5, 7, 4, 6)),
    character("predacon", "Megatron", (6, 5, 8, 4), (7, 7, 10, 4)),
    character("predacon", "Inferno", (8, 6, 7, 4), (8, 8, 6, 3)),
    character("predacon", "Waspinator", (5, 3, 4, 6), (7, 5, 4, 7)),
    character("predacon", "Tarantulas", (6, 4, 7, 8), (5, 4, 8, 7)),
]
OPTIMUS, RHINOX, CHEETOR, RATTRAP = range(4)
MEGATRON, INFERNO, WASPINATOR, TARANTULAS = range(4)


def move(cell, direction):
    return cell * 4 + direction


def attack(cell, direction):
    return 48 + cell * 4 + direction


def reinforce(cell, member):
    return 96 + cell * 12 + member


def pick(member):
    return 240 + member


def piece(seat, member):
    return seat * MAX_FACTION + member


def deal(teams, deck=("red:basic", "red:basic"), first="maximal", team_size=3, seed=0, **config):
    game = make_game(team_size=team_size, characters=CHARACTERS, **config)
    options = {"teams": teams, "battle_deck": list(deck), "first_player": first}
    return game.new_initial_state(np.random.default_rng(seed), options)


def play(state, *actions):
    for action in actions:
        state.apply_action(action)


def legal(state):
    return np.flatnonzero(state.legal_action_mask()).tolist()


def check_invariants(state, deck_size):
    """Board, locations and counts agree; no two characters share a cell; cards conserved."""
    board, owner, location = state.board, state.owner, state.location
    assert owner[12] == 2
    for cell in range(12):
        if board[cell] == NO_PIECE:
            assert owner[cell] == -1
        else:
            assert owner[cell] == board[cell] // MAX_FACTION
            assert location[board[cell]] == cell
    on_board = [p for p in range(24) if location[p] >= 0]
    assert len(on_board) == len({int(location[p]) for p in on_board})  # never overlap
    for seat in (M, P):
        mine = range(seat * MAX_FACTION, (seat + 1) * MAX_FACTION)
        places = [int(location[p]) for p in mine]
        assert state.board_counts[seat] == sum(place >= 0 for place in places)
        assert state.reserve_counts[seat] == places.count(RESERVE)
        team = {p - seat * MAX_FACTION for p in mine if location[p] not in (NOT_IN_TEAM, ABSENT)}
        assert team == set(state.teams[seat])
        if state.phase >= PLAY:
            assert len(team) == state.game.team_size
    assert state.deck_size == int(state.deck_counts.sum())
    assert state.battle_cards_total() == deck_size
    assert (state.card_counts >= 0).all()


def arrange(state, cells, reserves=((), ())):
    """Set a position directly (tests only): ``cells`` maps cell -> (seat, id); every other
    team member not in ``reserves[seat]`` is removed. Faces stay as they are."""
    state.owner[:12] = -1
    state.board[:] = NO_PIECE
    for seat in (M, P):
        for member in state.teams[seat]:
            state.location[piece(seat, member)] = REMOVED
        for member in reserves[seat]:
            state.location[piece(seat, member)] = RESERVE
        state.reserve_counts[seat] = len(reserves[seat])
        state.board_counts[seat] = 0
    for cell, (seat, member) in cells.items():
        state.owner[cell] = seat
        state.board[cell] = piece(seat, member)
        state.location[piece(seat, member)] = cell
        state.board_counts[seat] += 1
    check_invariants(state, state.battle_cards_total())


# --- BW-1 board -------------------------------------------------------------------------------
def test_bw1_cells_and_directions_are_absolute_for_both_players():
    state = deal({"maximal": [0, 1, 2], "predacon": [0, 1, 2]})
    assert [int(state.owner[c]) for c in range(12)] == [M] * 3 + [-1] * 6 + [P] * 3
    play(state, move(1, UP))  # maximal: row 0 -> row 1, same column
    assert state.board[4] == piece(M, RHINOX) and state.board[1] == NO_PIECE
    play(state, move(10, DOWN))  # predacon "down" is towards row 0 too
    assert state.board[7] == piece(P, INFERNO) and state.board[10] == NO_PIECE
    play(state, move(4, RIGHT), move(7, LEFT))
    assert state.board[5] == piece(M, RHINOX) and state.board[6] == piece(P, INFERNO)
    # off-board and occupied targets are never legal moves
    assert move(0, LEFT) not in legal(state) and move(0, DOWN) not in legal(state)
    assert move(0, RIGHT) in legal(state) and move(2, LEFT) in legal(state)


# --- BW-2 characters --------------------------------------------------------------------------
def test_bw2_shipped_characters_are_the_real_names_with_invented_balanced_numbers():
    text = CHARACTERS_FILE.read_text()
    assert "INVENTED" in text.splitlines()[1]
    characters = load_characters(None)
    assert characters.sizes == (12, 12)
    assert {"Optimus Primal", "Rhinox", "Cheetor", "Rattrap", "Dinobot"} <= set(characters.names[0])
    assert {"Megatron", "Tarantulas", "Blackarachnia", "Waspinator"} <= set(characters.names[1])
    numbers = characters.numbers[:24].astype(float)  # (piece, face, colour)
    assert numbers[:12].sum() == numbers[12:].sum()  # faction totals equal
    assert numbers[:, ROBOT].mean() > numbers[:, BEAST].mean()  # robots a little stronger
    assert numbers[:, ROBOT].mean() - numbers[:, BEAST].mean() < 1.0
    for faces in numbers:  # a clear strong and weak colour, on each face
        assert faces.max() - faces.min() >= 4 and (faces.max(1) - faces.min(1) >= 3).all()
    tilt = numbers[:, ROBOT].mean(1) - numbers[:, BEAST].mean(1)
    assert (tilt >= 1.5).sum() >= 2 and (tilt <= -1.5).sum() >= 2  # Mutate matters
    averages = numbers.reshape(24, 8).mean(1)
    assert averages.max() - averages.min() >= 1.0  # leaders and weak ones


def test_bw2_character_ids_are_row_order_within_each_faction_from_csv_or_dicts(tmp_path):
    path = tmp_path / "chars.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, ["faction", "name", *NUMBER_KEYS])
        writer.writeheader()
        writer.writerows(CHARACTERS)
    from_file, from_rows = load_characters(path), load_characters(CHARACTERS)
    assert from_file == from_rows
    assert from_rows.names == (("Optimus Primal", "Rhinox", "Cheetor", "Rattrap"),
                               ("Megatron", "Inferno", "Waspinator", "Tarantulas"))  # fmt: skip
    assert from_rows.numbers[piece(P, INFERNO), BEAST].tolist() == [8, 6, 7, 4]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (CHARACTERS[:2] + CHARACTERS[4:], r"has 2 maximal row\(s\); each faction needs 3..12"),
        ([*CHARACTERS, *[character("maximal", f"M{i}", (1,) * 4, (1,) * 4) for i in range(9)]],
         r"has 13 maximal row\(s\)"),
        ([{**CHARACTERS[0], "beast_gold": "x"}, *CHARACTERS[1:]],
         r"row 1, column 'beast_gold': 'x' .*integer"),
        ([*CHARACTERS[:5], {**CHARACTERS[5], "faction": "autobot"}, *CHARACTERS[6:]],
         r"row 6, column 'faction': 'autobot'"),
        ([*CHARACTERS[:3], {**CHARACTERS[3], "robot_red": 100}, *CHARACTERS[4:]],
         r"row 4, column 'robot_red': 100 is out of range"),
    ],
)  # fmt: skip
def test_bw2_malformed_characters_name_row_column_and_value(rows, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_game(team_size=3, characters=rows)


def test_bw2_team_size_must_fit_both_factions():
    with pytest.raises(InvalidConfigError, match="team_size=5 is more than the 4 maximal"):
        make_game(team_size=5, characters=CHARACTERS)
    with pytest.raises(InvalidConfigError, match=r"team_size must be in 3..12, got 2"):
        make_game(team_size=2)


# --- BW-3 battle deck -------------------------------------------------------------------------
def test_bw3_default_deck_is_72_cards_9_3_3_3_per_colour_shuffled_by_the_seed():
    game = make_game()
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.deck_counts.reshape(4, 4).tolist() == [[9, 3, 3, 3]] * 4
    assert state.deck_size == 72 and state.discards.sum() == 0
    other = game.new_initial_state(np.random.default_rng(1))
    again = game.new_initial_state(np.random.default_rng(0))
    assert state.deck_top(72) == again.deck_top(72) != other.deck_top(72)


def test_bw3_a_resample_keeps_the_decks_cards_and_deals_their_order_anew():
    """The deck's composition is public but not its order: a copy from either seat holds the
    same cards in orders that vary with the generator (a sorted or the true order would
    tell a search which cards come next)."""
    state = make_game().new_initial_state(np.random.default_rng(0))
    orders = set()
    for seed in range(6):
        twin = state.resample_from_infostate(seed % 2, np.random.default_rng(100 + seed))
        assert twin.deck_counts.tolist() == state.deck_counts.tolist()
        assert sorted(twin.deck_top(72)) == sorted(state.deck_top(72))
        orders.add(tuple(twin.deck_top(72)))
    assert len(orders) == 6 and tuple(state.deck_top(72)) not in orders


WORKED_TEAMS = {"maximal": [RHINOX, OPTIMUS, CHEETOR], "predacon": [MEGATRON, INFERNO, WASPINATOR]}


def face_off(deck, **config):
    """Optimus Primal (maximal, column 1) and Inferno (predacon, column 1) step forward:
    Optimus on r1c1 (cell 4), Inferno on r2c1 (cell 7), maximal to act."""
    state = deal(WORKED_TEAMS, deck=deck, **config)
    play(state, move(1, UP), move(10, DOWN))
    assert state.board[4] == piece(M, OPTIMUS) and state.board[7] == piece(P, INFERNO)
    return state


def test_bw3_an_empty_deck_takes_the_shuffled_discards_even_in_mid_battle():
    state = face_off(["blue:basic", "gold:secret_weapon", "red:energon"])
    play(state, attack(4, UP))  # two cards drawn: one left
    assert state.deck_size == 1 and state.discards.sum() == 2
    assert state.board[10] == piece(P, INFERNO) and state.board[7] == piece(M, OPTIMUS)
    play(state, attack(10, DOWN))  # Inferno draws the last card; Optimus must reshuffle
    battle = state.last_battle
    red_energon, blue_basic, gold_secret = 3, 4, 10
    assert battle.cards[0] == red_energon
    assert battle.cards[1] in (blue_basic, gold_secret)
    left = state.deck_top(1)
    assert sorted([battle.cards[1], *left]) == [blue_basic, gold_secret]
    assert state.discards.sum() == 2 and state.battle_cards_total() == 3
    assert state.discards[red_energon] == 1


# --- BW-4 setup -------------------------------------------------------------------------------
def test_bw4_maximal_selects_then_predacon_then_both_place_in_column_order():
    game = make_game(team_size=3, characters=CHARACTERS, first_player="predacon")
    state = game.new_initial_state(np.random.default_rng(0))
    assert (state.phase, state.current_player()) == (SELECT, M)
    assert legal(state) == [pick(i) for i in range(4)]  # only the faction's 4 ids
    play(state, pick(RATTRAP), pick(OPTIMUS))
    assert legal(state) == [pick(RHINOX), pick(CHEETOR)]
    play(state, pick(CHEETOR))
    assert (state.phase, state.current_player()) == (SELECT, P)
    play(state, pick(TARANTULAS), pick(MEGATRON), pick(INFERNO))
    assert (state.phase, state.current_player()) == (PLACE, M)
    assert legal(state) == [pick(OPTIMUS), pick(CHEETOR), pick(RATTRAP)]
    play(state, pick(CHEETOR), pick(RATTRAP))
    assert legal(state) == [pick(OPTIMUS)]  # the last placement is still asked (D-1, C-2)
    play(state, pick(OPTIMUS))
    assert (state.phase, state.current_player()) == (PLACE, P)
    play(state, pick(INFERNO), pick(MEGATRON), pick(TARANTULAS))
    assert (state.phase, state.current_player()) == (PLAY, P)  # first_player
    assert state.board[:3].tolist() == [piece(M, i) for i in (CHEETOR, RATTRAP, OPTIMUS)]
    assert state.board[9:].tolist() == [piece(P, i) for i in (INFERNO, MEGATRON, TARANTULAS)]
    assert state.reserve_counts == [0, 0] and state.turn == 0
    assert (state.faces[:24] == BEAST).all()
    with pytest.raises(IllegalActionError, match=r"illegal action 244 \(pick character 4\)"):
        game.new_initial_state(np.random.default_rng(0)).apply_action(pick(4))


def test_bw4_a_whole_faction_team_skips_selection_and_the_rest_forms_the_reserve():
    game = make_game(team_size=4, characters=CHARACTERS)
    state = game.new_initial_state(np.random.default_rng(0), {"first_player": "maximal"})
    assert (state.phase, legal(state)) == (PLACE, [pick(i) for i in range(4)])
    play(state, pick(RATTRAP), pick(OPTIMUS), pick(RHINOX))
    play(state, pick(MEGATRON), pick(INFERNO), pick(WASPINATOR))
    assert state.phase == PLAY
    assert state.location[piece(M, CHEETOR)] == RESERVE
    assert state.location[piece(P, TARANTULAS)] == RESERVE
    assert state.teams == [[0, 1, 2, 3], [0, 1, 2, 3]]


def test_bw4_random_selection_draws_teams_and_placement_and_starts_play():
    game = make_game(team_selection="random", team_size=5)
    seen = set()
    for seed in range(20):
        state = game.new_initial_state(np.random.default_rng(seed))
        assert state.phase == PLAY and state.current_player() == state.first_player
        for seat in (M, P):
            team = state.teams[seat]
            assert len(set(team)) == 5 and all(0 <= i < 12 for i in team)
            row = state.board[[0, 1, 2]] if seat == M else state.board[[9, 10, 11]]
            assert row.tolist() == [piece(seat, i) for i in team[:3]]
            assert state.reserve_counts[seat] == 2
        seen.add((tuple(state.teams[0]), tuple(state.teams[1]), state.first_player))
        check_invariants(state, 72)
    assert len(seen) == 20
    assert {first for *_, first in seen} == {M, P}


def test_bw4_given_teams_skip_setup_and_the_first_player_option_overrides_config():
    game = make_game(team_size=3, characters=CHARACTERS, first_player="maximal")
    options = {"teams": [["Cheetor", 0, "Rhinox"], [3, 2, 1]], "first_player": "predacon"}
    state = game.new_initial_state(np.random.default_rng(0), options)
    assert state.phase == PLAY and state.current_player() == P
    assert state.board[:3].tolist() == [piece(M, CHEETOR), piece(M, OPTIMUS), piece(M, RHINOX)]
    assert state.board[9:].tolist() == [piece(P, 3), piece(P, 2), piece(P, 1)]


# --- BW-5 turn --------------------------------------------------------------------------------
def test_bw5_the_mask_is_moves_into_empty_spaces_and_attacks_on_adjacent_enemies():
    state = face_off(["red:basic", "red:basic"])
    expected = [move(0, UP), move(0, RIGHT), move(2, UP), move(2, LEFT),
                move(4, RIGHT), move(4, DOWN), move(4, LEFT), attack(4, UP)]  # fmt: skip
    assert legal(state) == sorted(expected)  # no reinforcement (no reserve), no pass
    with pytest.raises(
        IllegalActionError,
        match=r"illegal action 16 \(move r1c1 up \(Optimus Primal\)\) for maximal",
    ):
        state.apply_action(move(4, UP))


def test_bw5_reinforce_goes_to_an_empty_first_row_space_beast_side_up():
    state = deal({"maximal": [0, 1, 2, 3], "predacon": [0, 1, 2, 3]}, team_size=4)
    state.faces[piece(M, RATTRAP)] = ROBOT  # was flipped before; it comes in beast side up
    arrange(state, {1: (M, OPTIMUS), 7: (P, MEGATRON)}, reserves=((CHEETOR, RATTRAP), (INFERNO,)))
    actions = legal(state)
    reinforcements = [a for a in actions if 96 <= a < 240]
    assert reinforcements == [reinforce(c, m) for c in (0, 2) for m in (CHEETOR, RATTRAP)]
    assert PASS not in actions
    play(state, reinforce(2, RATTRAP))
    assert state.board[2] == piece(M, RATTRAP) and state.faces[piece(M, RATTRAP)] == BEAST
    assert state.reserve_counts == [1, 1] and state.turn == 1
    assert [a for a in legal(state) if 96 <= a < 240] == [
        reinforce(c, INFERNO) for c in (9, 10, 11)
    ]


def test_bw5_reinforce_anywhere_empty_only_when_all_three_first_row_spaces_are_enemy_held():
    state = deal({"maximal": [0, 1, 2, 3], "predacon": [0, 1, 2, 3]}, team_size=4)
    arrange(state, {0: (P, MEGATRON), 1: (P, INFERNO), 2: (P, WASPINATOR), 4: (M, OPTIMUS)},
            reserves=((RATTRAP,), ()))  # fmt: skip
    empty = [c for c in range(12) if c not in (0, 1, 2, 4)]
    assert [a for a in legal(state) if 96 <= a < 240] == [reinforce(c, RATTRAP) for c in empty]
    play(state, reinforce(11, RATTRAP))  # straight into predacon's first row
    assert state.board[11] == piece(M, RATTRAP)
    # two enemies and one own character in the first row: no reinforcement at all
    arrange(state, {0: (P, MEGATRON), 1: (M, OPTIMUS), 2: (P, WASPINATOR)},
            reserves=((RATTRAP,), (INFERNO,)))  # fmt: skip
    state.to_act = M
    assert not [a for a in legal(state) if 96 <= a < 240]


def test_bw5_pass_is_legal_only_when_nothing_else_is():
    """D-13: under BW-5 and BW-8 a player to act always has another action (a character on the
    board can move or attack unless its side fills the board; with none on the board, the
    reserve can come in), so pass needs a position BW-8 would have ended; it is built here
    directly. The property test below checks random play never meets a pass."""
    state = deal({"maximal": [0, 1, 2, 3], "predacon": [0, 1, 2, 3]}, team_size=4)
    assert PASS not in legal(state)
    arrange(state, {}, reserves=((RATTRAP,), (INFERNO,)))
    state.owner[:12] = P  # every cell enemy-held: nothing to move, nowhere to come in
    state.board[:] = piece(P, MEGATRON)
    assert legal(state) == [PASS]
    play(state, PASS)
    assert state.turn == 1 and state.current_player() == P


# --- BW-6 battle ------------------------------------------------------------------------------
def test_bw6_rulebook_worked_example_optimus_pushes_inferno_and_takes_his_space():
    """Optimus Primal draws a blue Basic (blue 10), Inferno a gold Secret Weapon (gold 7 -> 9):
    Optimus wins, Inferno is pushed one space and Optimus takes his space."""
    state = face_off(["blue:basic", "gold:secret_weapon", "red:basic"])
    play(state, attack(4, UP))
    battle = state.last_battle
    assert battle.cards == (4, 10) and battle.numbers == (10, 9)
    assert (battle.winner, battle.outcome) == (ATTACKER, PUSH)
    assert state.board[10] == piece(P, INFERNO)  # pushed one space up, away from Optimus
    assert state.board[7] == piece(M, OPTIMUS)  # Optimus takes his space
    assert state.board[4] == NO_PIECE
    assert state.discards.sum() == 2 and state.deck_size == 1
    assert state.current_player() == P and state.turn == 3
    assert state.scores() == (3, 3)


def test_bw6_each_side_uses_its_own_card_colour_and_bonuses():
    state = face_off(["gold:energon", "green:basic"])
    play(state, attack(4, UP))
    assert state.last_battle.numbers == (7 + 1, 4)  # Optimus gold 7 + 1; Inferno green 4
    state = face_off(["green:basic", "red:secret_weapon"])
    play(state, attack(4, UP))
    assert state.last_battle.numbers == (3, 8 + 2) and state.last_battle.winner == DEFENDER


def test_bw6_equal_numbers_call_the_battle_off_and_a_mutate_flip_stays():
    state = face_off(["red:mutate", "blue:energon"])
    play(state, attack(4, UP))  # Optimus flips: robot red 7; Inferno blue 6 + 1
    battle = state.last_battle
    assert battle.numbers == (7, 7) and (battle.winner, battle.outcome) == (NO_PLAYER, CALLED_OFF)
    assert state.board[4] == piece(M, OPTIMUS) and state.board[7] == piece(P, INFERNO)
    assert state.faces[piece(M, OPTIMUS)] == ROBOT and state.faces[piece(P, INFERNO)] == BEAST
    assert state.discards.sum() == 2 and state.current_player() == P


def test_bw6_mutate_flips_before_the_number_and_persists_until_the_next_mutate():
    deck = ["blue:mutate", "red:basic", "blue:basic", "red:basic", "green:mutate", "red:basic"]
    state = face_off(deck)
    play(state, attack(4, UP))
    assert state.last_battle.numbers == (8, 8)  # robot blue 8, not beast blue 10
    assert state.faces[piece(M, OPTIMUS)] == ROBOT
    play(state, attack(7, DOWN))  # Inferno blue 6 vs Optimus, still robot: red 7
    assert state.last_battle.numbers == (6, 7) and state.faces[piece(M, OPTIMUS)] == ROBOT
    play(state, attack(7, UP))  # the next Mutate flips Optimus back: beast green 3 vs 8
    assert state.last_battle.numbers == (3, 8) and state.faces[piece(M, OPTIMUS)] == BEAST


# --- BW-7 push --------------------------------------------------------------------------------
def test_bw7_a_winning_defender_pushes_the_attacker_back_and_takes_its_space():
    state = face_off(["blue:mutate", "red:basic", "blue:basic", "red:basic"])
    play(state, attack(4, UP))  # called off, Optimus is a robot now
    play(state, attack(7, DOWN))  # Inferno attacks down and loses 6 to 7
    battle = state.last_battle
    assert (battle.winner, battle.outcome, battle.pushed_to) == (DEFENDER, PUSH, 10)
    assert state.board[10] == piece(P, INFERNO)  # pushed up, opposite to his attack
    assert state.board[7] == piece(M, OPTIMUS) and state.board[4] == NO_PIECE


def test_bw7_pushed_into_a_teammate_is_captured_and_the_teammate_stays():
    teams = {"maximal": [RHINOX, OPTIMUS, CHEETOR], "predacon": [INFERNO, MEGATRON, WASPINATOR]}
    state = deal(teams, deck=["blue:basic", "green:basic"])
    play(state, move(1, UP), move(9, DOWN), move(0, UP), move(6, RIGHT))
    assert state.board[7] == piece(P, INFERNO) and state.board[10] == piece(P, MEGATRON)
    play(state, attack(4, UP))  # blue 10 vs green 4
    battle = state.last_battle
    assert (battle.winner, battle.outcome) == (ATTACKER, CAPTURE)
    assert state.location[piece(P, INFERNO)] == REMOVED
    assert state.board[10] == piece(P, MEGATRON)
    assert state.board[7] == piece(M, OPTIMUS) and state.board[4] == NO_PIECE
    assert state.scores() == (3, 2)


def surrounded_inferno(deck):
    """Inferno on r1c1 between Rhinox (r1c0) and Cheetor (r1c2), Optimus below on r0c1."""
    state = deal(WORKED_TEAMS, deck=deck)
    play(state, move(0, UP), move(10, DOWN), move(2, UP), move(7, DOWN))
    assert state.board[3:6].tolist() == [piece(M, RHINOX), piece(P, INFERNO), piece(M, CHEETOR)]
    return state


def test_bw7_pushed_into_an_enemy_is_captured_too():
    state = surrounded_inferno(["green:basic", "green:basic"])
    play(state, attack(5, LEFT))  # Cheetor green 8 vs Inferno green 4; Rhinox behind Inferno
    assert (state.last_battle.winner, state.last_battle.outcome) == (ATTACKER, CAPTURE)
    assert state.location[piece(P, INFERNO)] == REMOVED
    assert state.board[3] == piece(M, RHINOX) and state.board[4] == piece(M, CHEETOR)
    assert state.board[5] == NO_PIECE


def test_bw7_pushed_off_the_board_falls_attacker_or_defender():
    state = surrounded_inferno(["green:basic", "red:basic"])
    play(state, attack(1, UP))  # Optimus green 3 vs Inferno red 8: Optimus pushed down
    assert (state.last_battle.winner, state.last_battle.outcome) == (DEFENDER, FALL)
    assert state.location[piece(M, OPTIMUS)] == REMOVED
    assert state.board[1] == piece(P, INFERNO) and state.board[4] == NO_PIECE
    state = surrounded_inferno(["green:basic", "red:basic", "red:basic", "blue:basic"])
    play(state, attack(3, RIGHT))  # Rhinox green 8 vs Inferno red 8: called off
    assert state.last_battle.outcome == CALLED_OFF
    play(state, attack(4, LEFT))  # Inferno red 8 vs Rhinox blue 7: Rhinox off the left edge
    assert (state.last_battle.winner, state.last_battle.outcome) == (ATTACKER, FALL)
    assert state.location[piece(M, RHINOX)] == REMOVED
    assert state.board[3] == piece(P, INFERNO) and state.board[4] == NO_PIECE


# --- BW-8 end ---------------------------------------------------------------------------------
def test_bw8_no_character_on_the_board_and_none_in_reserve_loses():
    state = deal(WORKED_TEAMS, deck=["blue:basic", "green:basic"] * 2, team_size=3)
    arrange(state, {7: (M, OPTIMUS), 10: (P, INFERNO), 0: (M, RHINOX)}, reserves=((), ()))
    play(state, attack(7, UP))  # Inferno falls off the top edge: predacon has nothing left
    assert state.is_terminal() and not state.is_truncated()
    assert state.winner == M and state.returns() == (1.0, -1.0)
    assert state.current_player() == NO_PLAYER and state.phase == OVER
    assert not state.legal_action_mask().any()


def test_bw8_a_reserve_keeps_a_player_alive_and_losing_your_own_last_attack_loses():
    state = deal({"maximal": [0, 1, 2, 3], "predacon": [0, 1, 2, 3]}, team_size=4,
                 deck=["blue:basic", "green:basic", "green:basic", "red:basic"])  # fmt: skip
    arrange(state, {4: (M, OPTIMUS), 1: (P, INFERNO)}, reserves=((), (MEGATRON,)))
    play(state, attack(4, DOWN))  # Inferno falls off the bottom edge; Megatron still waits
    assert state.last_battle.outcome == FALL and not state.is_terminal()
    assert legal(state) == [reinforce(c, MEGATRON) for c in (9, 10, 11)]
    play(state, reinforce(10, MEGATRON))
    arrange(state, {1: (M, OPTIMUS), 4: (P, INFERNO)})  # maximal's last character attacks
    play(state, attack(1, UP))  # Optimus green 3 vs Inferno red 8: Optimus falls
    assert state.last_battle.winner == DEFENDER and state.last_battle.outcome == FALL
    assert state.is_terminal() and state.winner == P and state.returns() == (-1.0, 1.0)


def test_bw8_filling_all_12_cells_wins_at_once():
    game = make_game(team_size=12)
    everyone = list(range(12))
    options = {"teams": {"maximal": everyone, "predacon": everyone}, "first_player": "maximal"}
    state = game.new_initial_state(np.random.default_rng(0), options)
    cells = {cell: (M, cell if cell < 2 else cell - 1) for cell in range(12) if cell != 2}
    arrange(state, cells, reserves=((11,), (5,)))
    assert not state.is_terminal()
    play(state, reinforce(2, 11))
    assert state.board_counts == [12, 0] and state.reserve_counts == [0, 1]
    assert state.is_terminal() and state.winner == M and state.returns() == (1.0, -1.0)


def test_bw8_the_cap_ends_the_game_more_characters_win_equal_is_a_draw():
    state = face_off(["red:basic", "red:basic"], max_turns=4)
    play(state, move(0, UP))
    assert not state.is_terminal()
    play(state, move(11, DOWN))  # turn 4 of 4: 3 against 3
    assert state.is_terminal() and not state.is_truncated()
    assert state.winner == DRAW and state.returns() == (0.0, 0.0) and state.scores() == (3, 3)
    teams = {"maximal": [RHINOX, OPTIMUS, CHEETOR], "predacon": [INFERNO, MEGATRON, WASPINATOR]}
    state = deal(teams, deck=["blue:basic", "green:basic"], max_turns=5)
    play(state, move(1, UP), move(9, DOWN), move(0, UP), move(6, RIGHT))
    play(state, attack(4, UP))  # turn 5: Inferno captured, 3 against 2 at the cap
    assert state.is_terminal() and not state.is_truncated()
    assert state.winner == M and state.returns() == (1.0, -1.0) and state.scores() == (3, 2)


# --- copies, options, properties --------------------------------------------------------------
def test_clone_is_independent_and_continues_identically():
    game = make_game()
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(0)
    for _ in range(40):
        play(state, int(rng.choice(legal(state))))
    assert not state.is_terminal()
    twin = state.clone()
    actions = np.random.default_rng(1)
    replay = np.random.default_rng(1)
    while not state.is_terminal():
        play(state, int(actions.choice(legal(state))))
        play(twin, int(replay.choice(legal(twin))))
        assert np.array_equal(state.board, twin.board)
        assert state.deck_top(72) == twin.deck_top(72)
    assert twin.returns() == state.returns()
    assert state.board is not twin.board and state.teams[0] is not twin.teams[0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"battle_deck": ["red:basic"]}, r"options\['battle_deck'\] must hold 2..72 cards"),
        ({"battle_deck": ["red:basic"] * 73}, r"must hold 2..72 cards .* got 73"),
        ({"battle_deck": ["red:basic", "pink:basic"]},
         r"options\['battle_deck'\]\[1\] = 'pink:basic' is not a battle card"),
        ({"battle_deck": "red:basic"}, r"options\['battle_deck'\] must be a list"),
        ({"teams": {"maximal": [0, 1, 2]}}, r"options\['teams'\] must cover every player"),
        ({"teams": {"maximal": [0, 1], "predacon": [0, 1, 2]}},
         r"options\['teams'\]\['maximal'\] must hold exactly team_size=3 characters, got 2"),
        ({"teams": {"maximal": [0, 1, 1], "predacon": [0, 1, 2]}},
         r"= \[0, 1, 1\] names a character more than once"),
        ({"teams": {"maximal": [0, 1, 4], "predacon": [0, 1, 2]}},
         r"options\['teams'\]\['maximal'\]\[2\] must be in 0..3, got 4"),
        ({"teams": {"maximal": [0, 1, 2], "predacon": ["Optimus Primal", 1, 2]}},
         r"\['predacon'\]\[0\] = 'Optimus Primal' is not a predacon"),
        ({"first_player": "autobot"}, r"options\['first_player'\] must be one of .*'autobot'"),
    ],
)  # fmt: skip
def test_bad_reset_options_name_the_key_and_value(options, message):
    game = make_game(team_size=3, characters=CHARACTERS)
    with pytest.raises(InvalidConfigError, match=message):
        game.new_initial_state(np.random.default_rng(0), options)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"team_selection": "draft"}, r"team_selection must be one of 'choose', 'random'"),
        ({"first_player": "autobot"}, r"first_player must be one of .*got 'autobot'"),
        ({"max_turns": 0}, r"max_turns must be >= 1, got 0"),
        ({"team_size": 13}, r"team_size must be in 3..12, got 13"),
        ({"characters": Path("nowhere.csv")}, r"characters file nowhere.csv cannot be read"),
    ],
)
def test_bad_config_names_the_key_and_value(config, message):
    with pytest.raises(InvalidConfigError, match=message):
        make_game(**config)


def play_random_game(game, seed, full_mask_check_every=0):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    deck_size = state.battle_cards_total()
    steps = 0
    while not state.is_terminal():
        mask = state.legal_action_mask()
        assert mask.any() and not mask[PASS], "D-13: random play never meets a pass"
        if full_mask_check_every and steps % full_mask_check_every == 0:
            assert_mask_is_what_the_rules_accept(state)
        state.apply_action(int(rng.choice(np.flatnonzero(mask))))
        check_invariants(state, deck_size)
        steps += 1
        assert state.turn <= game.max_turns
        assert steps <= game.max_turns + 2 * game.team_size + 6, "the game must end (BW-8)"
    return state


@settings(max_examples=60, deadline=None)
@given(
    team_size=st.integers(3, 8),
    selection=st.sampled_from(["choose", "random"]),
    max_turns=st.integers(1, 120),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_games_keep_every_invariant_and_always_end(team_size, selection, max_turns, seed):
    game = make_game(team_size=team_size, team_selection=selection, max_turns=max_turns)
    state = play_random_game(game, seed, full_mask_check_every=25)
    assert state.is_terminal() and not state.is_truncated()
    left = state.scores()
    eliminated = [seat for seat in (M, P) if left[seat] == 0]
    full = [seat for seat in (M, P) if state.board_counts[seat] == 12]
    if eliminated:
        assert state.winner == 1 - eliminated[0]
    elif full:
        assert state.winner == full[0]
    else:  # BW-8 cap
        assert state.turn == max_turns
        assert state.winner == (DRAW if left[0] == left[1] else int(left[1] > left[0]))
    expected = {M: (1.0, -1.0), P: (-1.0, 1.0), DRAW: (0.0, 0.0)}[state.winner]
    assert state.returns() == expected


def test_a_fixed_small_deck_is_conserved_through_many_reshuffles():
    game = make_game(team_size=3, max_turns=200)
    for seed in range(30):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(rng, {"battle_deck": ["red:mutate", "blue:basic",
                                                             "gold:energon"]})  # fmt: skip
        while not state.is_terminal():
            state.apply_action(int(rng.choice(legal(state))))
            check_invariants(state, 3)
