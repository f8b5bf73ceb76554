"""Vector Beast Wars (``beast_wars_v0``): many games as rows of one int32 matrix.

The reference rules (``rules.py``) define the game; this module advances ``num_envs`` games per
call in four compiled loops (``kernels.jit``): deal, step, legal masks and observations. One
row of ``state`` holds a whole game at the column offsets below (the reference attribute each
mirrors in brackets). The battle deck is a pile with its top card *last*, like the reference's
list; a reshuffle rebuilds it from the discard counts and Fisher-Yates shuffles it with the
slot's own SplitMix64 stream (same distribution as the reference's ``rng.shuffle``).

``state_difference`` is exact, and for the one chance event inside a step (a battle drawing
from an empty deck reshuffles the discards) it replays the reference step with the vector
engine's new deck order forced into the reference's shuffle, after checking that order is a
permutation of the pile the reference shuffled: so every consequence of the reshuffle (cards,
numbers, faces, push) is checked exactly too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import NO_PLAYER
from ..core.kernels import jit, rng_below, rng_shuffle
from ..core.moved import deprecate
from ..vector.rules import VectorRules
from .env import observation_layout
from .rules import (
    ABSENT,
    CARD_BONUS,
    CARD_TYPES,
    DECK_SIZE,
    DEFAULT_DECK,
    DRAW,
    FIRST_ROWS,
    MAX_FACTION,
    NEIGHBOURS,
    NO_FACE,
    NO_PIECE,
    NOT_IN_TEAM,
    NUM_CARD_KINDS,
    NUM_CELLS,
    NUM_PIECES,
    OFF_BOARD,
    OPPOSITE,
    OVER,
    PLACE,
    PLAY,
    REMOVED,
    RESERVE,
    SELECT,
    BeastWarsGame,
)

# --- columns of one game's row in ``state`` (int32) --------------------------------------------
PHASE, TO_ACT, FIRST, TURN, WINNER, DECK_LEN = 0, 1, 2, 3, 4, 5
#: ``last_battle``: present (0/1), attacker seat, cells (2), pieces (2), cards (2), numbers (2),
#: winner, outcome, pushed_to, turn.
HAS_BATTLE, B_SEAT, B_CELLS, B_PIECES, B_CARDS, B_NUMBERS = 6, 7, 8, 10, 12, 14
B_WINNER, B_OUTCOME, B_PUSHED, B_TURN = 16, 17, 18, 19
PLACED, BOARD_COUNTS, RESERVE_COUNTS, TEAM_LEN = 20, 22, 24, 26  # two seats each
OWNER = 28  # 13: the 12 cells and the sentinel (2, "off the board")
BOARD = OWNER + NUM_CELLS + 1  # 12
LOCATION = BOARD + NUM_CELLS  # 24
FACES = LOCATION + NUM_PIECES  # 25
TEAMS = FACES + NUM_PIECES + 1  # 2 x 12, ids in pick order
CARDS = TEAMS + 2 * MAX_FACTION  # 2 x 16: deck counts, then discard counts
DECK = CARDS + 2 * NUM_CARD_KINDS  # 72, top card last
STATE_SIZE = DECK + DECK_SIZE

# --- per-config table ``config`` (int64) ------------------------------------------------------
C_TEAM_SIZE, C_MAX_TURNS, C_FIRST, C_RANDOM_TEAMS, C_SIZES = 0, 1, 2, 3, 4  # sizes: two
CONFIG_SIZE = 6

# --- observation offsets (checked against the env's layout in ``__init__``) ------------------
O_OWNER, O_CHARACTER, O_FACE, O_NUMBERS = 0, 36, 180, 204
O_SIDE, O_FIRST, O_RESERVE, O_REMOVED, O_CARDS = 252, 254, 256, 280, 304
O_ATTACKER, O_CELLS, O_CHARACTERS, O_BATTLE_CARDS = 336, 338, 362, 386
O_BATTLE_NUMBERS, O_WINNER, O_OUTCOME, O_AGE, O_TURN, O_PHASE = 418, 420, 422, 426, 427, 428
OBSERVATION_SIZE = 431
_EXPECTED_OFFSETS = {
    "cell_owner": O_OWNER, "cell_character": O_CHARACTER, "cell_face": O_FACE,
    "cell_numbers": O_NUMBERS, "side": O_SIDE, "first_player": O_FIRST,
    "reserve": O_RESERVE, "removed": O_REMOVED, "deck": O_CARDS, "battle_attacker": O_ATTACKER,
    "battle_cells": O_CELLS, "battle_characters": O_CHARACTERS, "battle_cards": O_BATTLE_CARDS,
    "battle_numbers": O_BATTLE_NUMBERS, "battle_winner": O_WINNER,
    "battle_outcome": O_OUTCOME, "battle_age": O_AGE, "turn": O_TURN, "phase": O_PHASE,
}  # fmt: skip

# --- constant tables (numba freezes module-level arrays) ------------------------------------
#: ``NEIGHBOURS`` with off-board sent to the sentinel cell 12 (owner 2: never empty or enemy).
_NEIGH = np.where(NEIGHBOURS < 0, NUM_CELLS, NEIGHBOURS).astype(np.int64)
_OPPOSITE = np.array(OPPOSITE, np.int64)
_FIRST_ROWS = np.array(FIRST_ROWS, np.int64)
_DEFAULT_DECK = np.array(DEFAULT_DECK, np.int64)
_BONUS = np.array(CARD_BONUS, np.int64)
_TYPES = len(CARD_TYPES)
_MUTATE = 1
_SENTINEL = NUM_CELLS
#: Piece id -> character id within its faction.
_MEMBER = np.arange(NUM_PIECES + 1, dtype=np.int64) % MAX_FACTION
#: Per observer: the piece ids in observation order, its own faction first.
_SIDE_ORDER = np.array([np.roll(np.arange(NUM_PIECES), -MAX_FACTION * s) for s in (0, 1)])
_PUSH, _CAPTURE, _FALL, _CALLED_OFF = 0, 1, 2, 3
_MOVE_END, _ATTACK_BASE, _ATTACK_END, _PICK_BASE, _PASS = 48, 48, 96, 240, 252
_REINFORCE_BASE = 96


# --- kernels ----------------------------------------------------------------------------------
@jit
def _pick(st: np.ndarray, seat: int, member: int) -> None:
    st[TEAMS + seat * MAX_FACTION + st[TEAM_LEN + seat]] = member
    st[TEAM_LEN + seat] += 1
    st[LOCATION + seat * MAX_FACTION + member] = RESERVE
    st[RESERVE_COUNTS + seat] += 1


@jit
def _enter(st: np.ndarray, piece: int, cell: int) -> None:
    seat = piece // MAX_FACTION
    st[OWNER + cell] = seat
    st[BOARD + cell] = piece
    st[LOCATION + piece] = cell
    st[FACES + piece] = 0
    st[BOARD_COUNTS + seat] += 1


@jit
def _place(st: np.ndarray, seat: int, member: int) -> None:
    cell = _FIRST_ROWS[seat, st[PLACED + seat]]
    st[PLACED + seat] += 1
    st[RESERVE_COUNTS + seat] -= 1
    _enter(st, seat * MAX_FACTION + member, cell)


@jit
def _next_setup_decision(st: np.ndarray, team_size: int) -> None:
    while True:
        seat = st[TO_ACT]
        if st[PHASE] == SELECT:
            if st[TEAM_LEN + seat] < team_size:
                return
            if seat == 0:
                st[TO_ACT] = 1
            else:
                st[PHASE] = PLACE
                st[TO_ACT] = 0
        else:
            if st[PLACED + seat] < 3:
                return
            if seat == 1:
                st[PHASE] = PLAY
                st[TO_ACT] = st[FIRST]
                return
            st[TO_ACT] = 1


@jit
def _move(st: np.ndarray, source: int, target: int) -> None:
    piece = st[BOARD + source]
    st[OWNER + target] = st[OWNER + source]
    st[BOARD + target] = piece
    st[LOCATION + piece] = target
    st[OWNER + source] = -1
    st[BOARD + source] = NO_PIECE


@jit
def _remove(st: np.ndarray, cell: int) -> None:
    st[BOARD_COUNTS + st[OWNER + cell]] -= 1
    st[LOCATION + st[BOARD + cell]] = REMOVED
    st[OWNER + cell] = -1
    st[BOARD + cell] = NO_PIECE


@jit
def _draw(st: np.ndarray, rng: np.ndarray, slot: int) -> int:
    """BW-3: the top card; an empty deck first becomes the shuffled discard pile."""
    size = st[DECK_LEN]
    if size == 0:
        for kind in range(NUM_CARD_KINDS):
            for _ in range(st[CARDS + NUM_CARD_KINDS + kind]):
                st[DECK + size] = kind
                size += 1
            st[CARDS + kind] = st[CARDS + NUM_CARD_KINDS + kind]
            st[CARDS + NUM_CARD_KINDS + kind] = 0
        rng_shuffle(rng, slot, st[DECK : DECK + size], size)
    card = st[DECK + size - 1]
    st[DECK_LEN] = size - 1
    st[CARDS + card] -= 1
    return card


@jit
def _number(st: np.ndarray, numbers: np.ndarray, piece: int, card: int) -> int:
    colour = card // _TYPES
    kind = card % _TYPES
    if kind == _MUTATE:
        st[FACES + piece] = 1 - st[FACES + piece]
    return numbers[piece, st[FACES + piece], colour] + _BONUS[kind]


@jit
def _battle(
    st: np.ndarray, rng: np.ndarray, slot: int, numbers: np.ndarray, cell: int, direction: int
) -> None:
    target = _NEIGH[cell, direction]
    attacker = st[BOARD + cell]
    defender = st[BOARD + target]
    attacker_card = _draw(st, rng, slot)
    defender_card = _draw(st, rng, slot)
    attack = _number(st, numbers, attacker, attacker_card)
    defence = _number(st, numbers, defender, defender_card)
    st[CARDS + NUM_CARD_KINDS + attacker_card] += 1
    st[CARDS + NUM_CARD_KINDS + defender_card] += 1
    pushed = OFF_BOARD
    if attack == defence:
        winner = NO_PLAYER
        outcome = _CALLED_OFF
    else:
        if attack > defence:
            winner, winner_cell, loser_cell, away = 0, cell, target, direction
        else:
            winner, winner_cell, loser_cell = 1, target, cell
            away = _OPPOSITE[direction]
        behind = _NEIGH[loser_cell, away]
        if behind == _SENTINEL:
            outcome = _FALL
            _remove(st, loser_cell)
        elif st[OWNER + behind] != -1:
            outcome = _CAPTURE
            _remove(st, loser_cell)
        else:
            outcome = _PUSH
            _move(st, loser_cell, behind)
            pushed = behind
        _move(st, winner_cell, loser_cell)
    st[HAS_BATTLE] = 1
    st[B_SEAT] = st[TO_ACT]
    st[B_CELLS] = cell
    st[B_CELLS + 1] = target
    st[B_PIECES] = attacker
    st[B_PIECES + 1] = defender
    st[B_CARDS] = attacker_card
    st[B_CARDS + 1] = defender_card
    st[B_NUMBERS] = attack
    st[B_NUMBERS + 1] = defence
    st[B_WINNER] = winner
    st[B_OUTCOME] = outcome
    st[B_PUSHED] = pushed
    st[B_TURN] = st[TURN] + 1


@jit
def _end_turn(st: np.ndarray, seat: int, max_turns: int) -> None:
    """BW-8 after every action: elimination, a full board, then the cap."""
    enemy = 1 - seat
    own_left = st[BOARD_COUNTS + seat] + st[RESERVE_COUNTS + seat]
    enemy_left = st[BOARD_COUNTS + enemy] + st[RESERVE_COUNTS + enemy]
    if enemy_left == 0:
        winner = seat
    elif own_left == 0:
        winner = enemy
    elif st[BOARD_COUNTS + seat] == NUM_CELLS:
        winner = seat
    elif st[TURN] >= max_turns:
        left0 = st[BOARD_COUNTS] + st[RESERVE_COUNTS]
        left1 = st[BOARD_COUNTS + 1] + st[RESERVE_COUNTS + 1]
        winner = DRAW if left0 == left1 else (1 if left1 > left0 else 0)
    else:
        st[TO_ACT] = enemy
        return
    st[PHASE] = OVER
    st[TO_ACT] = NO_PLAYER
    st[WINNER] = winner


@jit
def _report(
    st: np.ndarray,
    slot: int,
    current_player: np.ndarray,
    terminated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    over = st[PHASE] == OVER
    current_player[slot] = st[TO_ACT]
    terminated[slot] = over
    rewards[slot, 0] = 0.0
    rewards[slot, 1] = 0.0
    if over and st[WINNER] != DRAW:
        rewards[slot, st[WINNER]] = 1.0
        rewards[slot, 1 - st[WINNER]] = -1.0


@jit
def _reset_kernel(
    state: np.ndarray,
    rng: np.ndarray,
    which: np.ndarray,
    config: np.ndarray,
    current_player: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """New games (draws as in ``new_initial_state``: first player, deck, random teams)."""
    team_size = config[C_TEAM_SIZE]
    for i in range(state.shape[0]):
        if not which[i]:
            continue
        st = state[i]
        st[:] = 0
        first = config[C_FIRST]
        if first < 0:
            first = rng_below(rng, i, 2)
        st[FIRST] = first
        st[WINNER] = NO_PLAYER
        for k in range(DECK_SIZE):
            card = _DEFAULT_DECK[k]
            st[DECK + k] = card
            st[CARDS + card] += 1
        rng_shuffle(rng, i, st[DECK : DECK + DECK_SIZE], DECK_SIZE)
        st[DECK_LEN] = DECK_SIZE
        for cell in range(NUM_CELLS):
            st[OWNER + cell] = -1
            st[BOARD + cell] = NO_PIECE
        st[OWNER + NUM_CELLS] = 2
        st[FACES + NO_PIECE] = NO_FACE
        for seat in range(2):
            size = config[C_SIZES + seat]
            for member in range(MAX_FACTION):
                st[LOCATION + seat * MAX_FACTION + member] = (
                    NOT_IN_TEAM if member < size else ABSENT
                )
        if config[C_RANDOM_TEAMS]:
            for seat in range(2):
                size = config[C_SIZES + seat]
                order = st[TEAMS + seat * MAX_FACTION : TEAMS + seat * MAX_FACTION + size]
                for member in range(size):
                    order[member] = member
                rng_shuffle(rng, i, order, size)
                for member in range(team_size, size):
                    order[member] = 0
                for k in range(team_size):
                    st[LOCATION + seat * MAX_FACTION + order[k]] = RESERVE
                st[TEAM_LEN + seat] = team_size
                st[RESERVE_COUNTS + seat] = team_size
                for k in range(3):
                    _place(st, seat, order[k])
            st[PHASE] = PLAY
            st[TO_ACT] = first
        else:
            for seat in range(2):
                if config[C_SIZES + seat] == team_size:
                    for member in range(team_size):
                        _pick(st, seat, member)
            st[PHASE] = SELECT
            st[TO_ACT] = 0
            _next_setup_decision(st, team_size)
        _report(st, i, current_player, terminated, rewards)
        truncated[i] = False


@jit
def _step_kernel(
    state: np.ndarray,
    rng: np.ndarray,
    actions: np.ndarray,
    which: np.ndarray,
    config: np.ndarray,
    numbers: np.ndarray,
    current_player: np.ndarray,
    terminated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """One decision per selected game (``apply_legal_action``)."""
    team_size = config[C_TEAM_SIZE]
    max_turns = config[C_MAX_TURNS]
    for i in range(state.shape[0]):
        if not which[i]:
            continue
        st = state[i]
        action = actions[i]
        seat = st[TO_ACT]
        phase = st[PHASE]
        if phase == SELECT:
            _pick(st, seat, action - _PICK_BASE)
            _next_setup_decision(st, team_size)
        elif phase == PLACE:
            _place(st, seat, action - _PICK_BASE)
            _next_setup_decision(st, team_size)
        else:
            if action < _MOVE_END:
                cell = action >> 2
                _move(st, cell, _NEIGH[cell, action & 3])
            elif action < _ATTACK_END:
                code = action - _ATTACK_BASE
                _battle(st, rng, i, numbers, code >> 2, code & 3)
            elif action < _PICK_BASE:
                code = action - _REINFORCE_BASE
                _enter(st, seat * MAX_FACTION + code % MAX_FACTION, code // MAX_FACTION)
                st[RESERVE_COUNTS + seat] -= 1
            st[TURN] += 1
            _end_turn(st, seat, max_turns)
        _report(st, i, current_player, terminated, rewards)


@jit
def _mask_kernel(state: np.ndarray, out: np.ndarray) -> None:
    """``legal_action_mask`` of each game's player to act (written with few branches: the
    positions of random games defeat branch prediction)."""
    for i in range(state.shape[0]):
        st = state[i]
        mask = out[i]
        mask[:] = False
        phase = st[PHASE]
        seat = st[TO_ACT]
        if phase == PLAY:
            enemy = 1 - seat
            found = False
            for cell in range(NUM_CELLS):
                own = st[OWNER + cell] == seat
                for direction in range(4):
                    owner = st[OWNER + _NEIGH[cell, direction]]
                    move = own & (owner == -1)
                    attack = own & (owner == enemy)
                    mask[cell * 4 + direction] = move
                    mask[_ATTACK_BASE + cell * 4 + direction] = attack
                    found = found | move | attack
            if st[RESERVE_COUNTS + seat] > 0:
                row = _FIRST_ROWS[seat, 0]
                anywhere = (
                    st[OWNER + row] == enemy
                    and st[OWNER + row + 1] == enemy
                    and st[OWNER + row + 2] == enemy
                )
                first = 0 if anywhere else row
                last = NUM_CELLS if anywhere else row + 3
                base = LOCATION + seat * MAX_FACTION
                for cell in range(first, last):
                    empty = st[OWNER + cell] == -1
                    found = found | empty
                    action = _REINFORCE_BASE + cell * MAX_FACTION
                    for member in range(MAX_FACTION):
                        mask[action + member] = empty & (st[base + member] == RESERVE)
            mask[_PASS] = not found
        elif phase < PLAY:  # select or place
            wanted = NOT_IN_TEAM if phase == SELECT else RESERVE
            base = LOCATION + seat * MAX_FACTION
            for member in range(MAX_FACTION):
                mask[_PICK_BASE + member] = st[base + member] == wanted


@jit
def _observation_kernel(
    state: np.ndarray, seats: np.ndarray, numbers: np.ndarray, out: np.ndarray
) -> None:
    """``raw_env.encode`` of seat ``seats[i]`` for each game (rows with a negative seat kept):
    one vectorised clear of the row, then branch-free writes (``numbers`` has a zero face
    ``NO_FACE``, which empty and hidden cells read)."""
    for i in range(state.shape[0]):
        seat = seats[i]
        if seat < 0:
            continue
        st = state[i]
        obs = out[i]
        obs[:] = 0.0
        phase = st[PHASE]
        hide = 1 - seat if phase < PLAY else -2
        for cell in range(NUM_CELLS):
            owner = st[OWNER + cell]
            hidden = owner == hide
            present = (owner != -1) & (not hidden)
            piece = NO_PIECE if hidden else st[BOARD + cell]
            face = st[FACES + piece]
            obs[O_OWNER + cell * 3 + (present * (1 + (owner != seat)))] = 1.0
            obs[O_CHARACTER + cell * MAX_FACTION + _MEMBER[piece]] = present
            obs[O_FACE + cell * 2 + (face & 1)] = present
            at = O_NUMBERS + cell * 4
            for colour in range(4):
                obs[at + colour] = numbers[piece, face, colour]
        obs[O_SIDE + seat] = 1.0
        obs[O_FIRST + (st[FIRST] != seat)] = 1.0
        shown = MAX_FACTION if phase < PLAY else NUM_PIECES
        for k in range(shown):
            location = st[LOCATION + _SIDE_ORDER[seat, k]]
            obs[O_RESERVE + k] = location == RESERVE
            obs[O_REMOVED + k] = location == REMOVED
        for k in range(2 * NUM_CARD_KINDS):
            obs[O_CARDS + k] = st[CARDS + k]
        if st[HAS_BATTLE]:
            obs[O_AGE] = st[TURN] - st[B_TURN]
            obs[O_ATTACKER + (st[B_SEAT] != seat)] = 1.0
            obs[O_CELLS + st[B_CELLS]] = 1.0
            obs[O_CELLS + NUM_CELLS + st[B_CELLS + 1]] = 1.0
            obs[O_CHARACTERS + _MEMBER[st[B_PIECES]]] = 1.0
            obs[O_CHARACTERS + MAX_FACTION + _MEMBER[st[B_PIECES + 1]]] = 1.0
            obs[O_BATTLE_CARDS + st[B_CARDS]] = 1.0
            obs[O_BATTLE_CARDS + NUM_CARD_KINDS + st[B_CARDS + 1]] = 1.0
            obs[O_BATTLE_NUMBERS] = st[B_NUMBERS]
            obs[O_BATTLE_NUMBERS + 1] = st[B_NUMBERS + 1]
            winner = st[B_WINNER]
            obs[O_WINNER + (winner & 1)] = winner >= 0
            obs[O_OUTCOME + st[B_OUTCOME]] = 1.0
        obs[O_TURN] = st[TURN]
        obs[O_PHASE + (phase % 3)] = phase != OVER


# --- the VectorRules subclass ----------------------------------------------------------------
class VectorBeastWars(VectorRules):
    """``num_envs`` Beast Wars games of one config (any team size, selection, characters
    table, first player and cap), state in one int32 matrix ``state [N, STATE_SIZE]``."""

    env_name = "beast_wars_v0"

    def __init__(self, game: BeastWarsGame, num_envs: int, observation_size: int) -> None:
        super().__init__(game, num_envs, observation_size)
        layout = observation_layout(game)
        offsets = {name: layout[name].start for name in _EXPECTED_OFFSETS}
        sizes = {layout.size, int(observation_size)}
        if offsets != _EXPECTED_OFFSETS or sizes != {OBSERVATION_SIZE}:
            raise AssertionError(f"beast_wars observation layout changed: {offsets}")
        characters = game.characters
        self.config = np.zeros(CONFIG_SIZE, np.int64)
        self.config[C_TEAM_SIZE] = game.team_size
        self.config[C_MAX_TURNS] = game.max_turns
        self.config[C_FIRST] = -1 if game.first_player is None else game.first_player
        self.config[C_RANDOM_TEAMS] = game.team_selection == "random"
        self.config[C_SIZES : C_SIZES + 2] = characters.sizes
        #: ``numbers[piece, face, colour]``, the characters table; row ``NO_PIECE`` and face
        #: ``NO_FACE`` are zeros.
        self.numbers = np.zeros((NUM_PIECES + 1, NO_FACE + 1, 4), np.int64)
        self.numbers[:, :NO_FACE] = characters.numbers
        self.state = np.zeros((self.num_envs, STATE_SIZE), np.int32)

    # --- the hot path ----------------------------------------------------------------------
    def reset_games(self, which: np.ndarray) -> None:
        _reset_kernel(
            self.state,
            self.rng,
            which,
            self.config,
            self.current_player,
            self.terminated,
            self.truncated,
            self.rewards,
        )

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        _step_kernel(
            self.state,
            self.rng,
            actions,
            which,
            self.config,
            self.numbers,
            self.current_player,
            self.terminated,
            self.rewards,
        )

    def legal_masks(self, out: np.ndarray) -> None:
        _mask_kernel(self.state, out)

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        _observation_kernel(self.state, seats, self.numbers, out)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedBeastWars": "VectorBeastWars"})
