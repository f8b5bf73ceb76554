"""Vector War! for Promise TCG decks (``promise_war_v0``): many games per call, in ``jit`` loops.

The state of game ``i`` lives in four arrays (struct of arrays, one row per game):

- ``S`` int32 ``[N, WIDTH]``: scalars and per-seat values at the column offsets below (seat
  ``s`` of a per-seat block at ``BLOCK + s``; blocks are ``MAX_PLAYERS`` wide whatever ``n``);
- ``C`` int32 ``[N, 4n + 2 + n(n + 1), P]``: per-power counts, rows ``hands`` (``0..n-1``),
  ``deck_counts`` (``n..2n-1``), ``victory`` (``2n..3n-1``), ``revealed`` (``3n..4n-1``),
  ``discarded`` (``4n``), ``pot_face_up`` (``4n + 1``) and ``buried[owner, pile]`` (from
  ``4n + 2``, row ``owner * (n + 1) + pile``);
- ``piles`` int8 ``[N, n, largest deck]``: each draw pile as the reference keeps it, top card at
  ``deck_size - 1``;
- ``pot_down`` int16 ``[N, total cards]``: the face-down pot cards in the reference's list order,
  each ``power + (owner << 8)``.

Contenders are always in seat order (the reference filters seats in order), kept as a list in
``S``. The reference never shuffles after the deal, so every step is compared field by field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.game import NO_PLAYER
from ..core.kernels import jit, rng_shuffle
from ..core.moved import deprecate
from ..vector.rules import VectorRules
from .env import observation_layout
from .rules import HAND_SIZE, MAX_PLAYERS, TIEBREAK, TRICK, PromiseWarGame

# --- columns of S -----------------------------------------------------------------------------
PHASE, TRICKS, PICK_INDEX, NCONT, TERMINAL, TRUNCATED, DOWN_LEN = range(7)
_M = MAX_PLAYERS
HSIZE = 8  # hand_sizes
DSIZE = HSIZE + _M  # deck_sizes
VSIZE = DSIZE + _M  # victory_sizes
DOWN_BY = VSIZE + _M  # pot_face_down_by_player
PICK = DOWN_BY + _M  # picks (-1: none)
PICKED = PICK + _M  # has_picked
LAST = PICKED + _M  # last_revealed (-1: none)
OUT = LAST + _M  # sitting_out
CONT = OUT + _M  # contenders, NCONT of them
RET = CONT + _M  # returns (-1, 0, +1)
WIDTH = RET + _M

# --- observation offsets (indices into the ``offsets`` table) ------------------------------------
(
    O_HAND,
    O_PICK,
    O_DECK,
    O_HSIZE,
    O_DSIZE,
    O_VSIZE,
    O_OUT,
    O_PICKED,
    O_DOWN,
    O_CONTEST,
    O_LAST,
    O_REVEALED,
    O_POT,
    O_PHASE,
    O_YOU_TIED,
    O_TRICKS,
) = range(16)
_PIECES = (
    "hand",
    "own_pick",
    "own_deck",
    "hand_sizes",
    "deck_sizes",
    "victory_sizes",
    "sitting_out",
    "has_picked",
    "pot_face_down",
    "in_contest",
    "last_revealed",
    "revealed",
    "pot_face_up",
    "phase",
    "you_in_tiebreak",
    "tricks_played",
)


# --- transitions (the reference's private methods, one each) -------------------------------------
@jit
def _draw_up(S: np.ndarray, C: np.ndarray, piles: np.ndarray, i: int, seat: int, n: int) -> None:
    size = S[i, DSIZE + seat]
    hand = S[i, HSIZE + seat]
    while hand < HAND_SIZE and size > 0:
        size -= 1
        card = piles[i, seat, size]
        C[i, seat, card] += 1
        C[i, n + seat, card] -= 1
        hand += 1
    S[i, DSIZE + seat] = size
    S[i, HSIZE + seat] = hand


@jit
def _finish(S: np.ndarray, i: int, n: int) -> None:
    """PW-6: sole top scorer +1, players tied for top 0, everyone else -1."""
    S[i, TERMINAL] = 1
    S[i, NCONT] = 0
    top = S[i, VSIZE]
    for seat in range(1, n):
        top = max(top, S[i, VSIZE + seat])
    winners = 0
    for seat in range(n):
        if S[i, VSIZE + seat] == top:
            winners += 1
    for seat in range(n):
        if S[i, VSIZE + seat] == top:
            S[i, RET + seat] = 1 if winners == 1 else 0
        else:
            S[i, RET + seat] = -1


@jit
def _start_trick(S: np.ndarray, i: int, n: int, max_tricks: int) -> None:
    able = 0
    for seat in range(n):
        if S[i, HSIZE + seat] == 0:
            S[i, OUT + seat] = 1
        if S[i, OUT + seat] == 0:
            able += 1
    if able < 2:
        _finish(S, i, n)
        return
    if S[i, TRICKS] >= max_tricks:
        S[i, TRUNCATED] = 1  # contenders and pick_index stay as they were, as in the reference
        return
    S[i, PHASE] = TRICK
    k = 0
    for seat in range(n):
        if S[i, OUT + seat] == 0:
            S[i, CONT + k] = seat
            k += 1
    S[i, NCONT] = k
    S[i, PICK_INDEX] = 0


@jit
def _end_trick(
    S: np.ndarray, C: np.ndarray, piles: np.ndarray, i: int, n: int, max_tricks: int
) -> None:
    """PW-5: clear the pot, everyone draws back up to 3, then the next trick starts."""
    S[i, PHASE] = TRICK
    for power in range(C.shape[2]):  # a loop, not a slice: views cost reference counting
        C[i, 4 * n + 1, power] = 0
    S[i, DOWN_LEN] = 0
    for seat in range(n):
        S[i, DOWN_BY + seat] = 0
    S[i, TRICKS] += 1
    for seat in range(n):
        _draw_up(S, C, piles, i, seat, n)
    _start_trick(S, i, n, max_tricks)


@jit
def _take_pot(S: np.ndarray, C: np.ndarray, down: np.ndarray, i: int, row: int, n: int) -> int:
    """Add every pot card to count row ``row`` of ``C``; returns how many."""
    pot = 4 * n + 1
    total = 0
    for power in range(C.shape[2]):
        count = C[i, pot, power]
        C[i, row, power] += count
        total += count
    length = S[i, DOWN_LEN]
    for k in range(length):
        code = down[i, k]
        power = code & 255
        C[i, row, power] += 1
        pile = row - 2 * n if row < 3 * n else n  # a victory pile's seat, or the discard
        C[i, 4 * n + 2 + (code >> 8) * (n + 1) + pile, power] += 1
    return total + length


@jit
def _award(
    S: np.ndarray,
    C: np.ndarray,
    piles: np.ndarray,
    down: np.ndarray,
    i: int,
    winner: int,
    n: int,
    max_tricks: int,
) -> None:
    S[i, VSIZE + winner] += _take_pot(S, C, down, i, 2 * n + winner, n)
    _end_trick(S, C, piles, i, n, max_tricks)


@jit
def _reveal(
    S: np.ndarray, C: np.ndarray, piles: np.ndarray, down: np.ndarray, i: int, n: int, mt: int
) -> None:
    """All contenders have picked: reveal together, then award or break the tie (PW-3/4)."""
    tiebreak = S[i, PHASE] == TIEBREAK
    powers = C.shape[2]
    for seat in range(n):
        S[i, LAST + seat] = -1
    best = -1
    for k in range(S[i, NCONT]):
        seat = S[i, CONT + k]
        card = S[i, PICK + seat]
        C[i, 4 * n + 1, card] += 1
        C[i, 3 * n + seat, card] += 1
        S[i, LAST + seat] = card
        S[i, PICK + seat] = -1
        S[i, PICKED + seat] = 0
        if tiebreak:  # the rest of the hand goes face down, ascending powers
            length = S[i, DOWN_LEN]
            for power in range(powers):
                for _ in range(C[i, seat, power]):
                    down[i, length] = power + (seat << 8)
                    length += 1
                C[i, seat, power] = 0
            S[i, DOWN_LEN] = length
            S[i, DOWN_BY + seat] += S[i, HSIZE + seat]
            S[i, HSIZE + seat] = 0
        best = max(best, card)
    tied = 0
    count = 0
    last = -1
    for k in range(S[i, NCONT]):
        seat = S[i, CONT + k]
        if S[i, LAST + seat] == best:
            tied |= 1 << seat
            count += 1
            last = seat
    if count == 1:
        _award(S, C, piles, down, i, last, n, mt)
        return
    # PW-4: the tied players draw up to 3; those left with cards play again.
    count = 0
    for seat in range(n):
        if tied >> seat & 1:
            _draw_up(S, C, piles, i, seat, n)
            if S[i, HSIZE + seat] > 0:
                count += 1
                last = seat
    if count == 1:
        _award(S, C, piles, down, i, last, n, mt)
    elif count == 0:
        _take_pot(S, C, down, i, 4 * n, n)
        _end_trick(S, C, piles, i, n, mt)
    else:
        S[i, PHASE] = TIEBREAK
        k = 0
        for seat in range(n):
            if tied >> seat & 1 and S[i, HSIZE + seat] > 0:
                S[i, CONT + k] = seat
                k += 1
        S[i, NCONT] = k
        S[i, PICK_INDEX] = 0


@jit
def _outcome(
    S: np.ndarray,
    i: int,
    n: int,
    current: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """The front's view of game ``i``: player to act, ends and this step's rewards."""
    over = S[i, TERMINAL] != 0
    cut = S[i, TRUNCATED] != 0
    terminated[i] = over
    truncated[i] = cut
    current[i] = NO_PLAYER if over or cut else S[i, CONT + S[i, PICK_INDEX]]
    for seat in range(n):
        rewards[i, seat] = float(S[i, RET + seat]) if over else 0.0


@jit
def _reset_kernel(
    S: np.ndarray,
    C: np.ndarray,
    piles: np.ndarray,
    rng: np.ndarray,
    which: np.ndarray,
    decks: np.ndarray,
    deck_lengths: np.ndarray,
    max_tricks: int,
    current: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """PW-2: shuffle each deck into its pile and deal 3 each (the reference constructor)."""
    n = piles.shape[1]
    for i in range(S.shape[0]):
        if not which[i]:
            continue
        S[i, :] = 0
        C[i, :, :] = 0
        for seat in range(n):
            S[i, PICK + seat] = -1
            S[i, LAST + seat] = -1
            length = deck_lengths[seat]
            pile = piles[i, seat]
            pile[:length] = decks[seat, :length]
            rng_shuffle(rng, i, pile, length)
            S[i, DSIZE + seat] = length
            for k in range(length):
                C[i, n + seat, pile[k]] += 1
        for seat in range(n):
            _draw_up(S, C, piles, i, seat, n)
        _start_trick(S, i, n, max_tricks)
        _outcome(S, i, n, current, terminated, truncated, rewards)


@jit
def _step_kernel(
    S: np.ndarray,
    C: np.ndarray,
    piles: np.ndarray,
    down: np.ndarray,
    actions: np.ndarray,
    which: np.ndarray,
    max_tricks: int,
    current: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """The reference ``apply_legal_action`` in every slot of ``which``."""
    n = piles.shape[1]
    for i in range(S.shape[0]):
        if not which[i]:
            continue
        seat = S[i, CONT + S[i, PICK_INDEX]]
        action = actions[i]
        C[i, seat, action] -= 1
        S[i, HSIZE + seat] -= 1
        S[i, PICK + seat] = action
        S[i, PICKED + seat] = 1
        S[i, PICK_INDEX] += 1
        if S[i, PICK_INDEX] == S[i, NCONT]:
            _reveal(S, C, piles, down, i, n, max_tricks)
        _outcome(S, i, n, current, terminated, truncated, rewards)


@jit
def _mask_kernel(C: np.ndarray, current: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        seat = current[i]
        if seat < 0:
            out[i, :] = False
        else:
            for power in range(out.shape[1]):
                out[i, power] = C[i, seat, power] > 0


@jit
def _observe_kernel(
    S: np.ndarray, C: np.ndarray, seats: np.ndarray, offsets: np.ndarray, out: np.ndarray
) -> None:
    """``raw_env.encode`` of seat ``seats[i]`` for every slot with ``seats[i] >= 0``."""
    n = 1  # the seats, from C's 4n + 2 + n(n + 1) rows
    while 4 * n + 2 + n * (n + 1) < C.shape[1]:
        n += 1
    powers = C.shape[2]
    width = out.shape[1]
    o_hand, o_pick, o_deck = offsets[O_HAND], offsets[O_PICK], offsets[O_DECK]
    o_hsize, o_dsize, o_vsize = offsets[O_HSIZE], offsets[O_DSIZE], offsets[O_VSIZE]
    o_out, o_picked, o_down = offsets[O_OUT], offsets[O_PICKED], offsets[O_DOWN]
    o_contest, o_last, o_revealed = offsets[O_CONTEST], offsets[O_LAST], offsets[O_REVEALED]
    o_pot, o_phase, o_you = offsets[O_POT], offsets[O_PHASE], offsets[O_YOU_TIED]
    o_tricks = offsets[O_TRICKS]
    for i in range(out.shape[0]):
        seat = seats[i]
        if seat < 0:
            continue
        for k in range(width):
            out[i, k] = 0.0
        for power in range(powers):
            out[i, o_hand + power] = C[i, seat, power]
            out[i, o_deck + power] = C[i, n + seat, power]
            out[i, o_pot + power] = C[i, 4 * n + 1, power]
        pick = S[i, PICK + seat]
        if pick >= 0:
            out[i, o_pick + pick] = 1.0
        other = seat  # (seat + rel) % n
        for rel in range(n):
            out[i, o_hsize + rel] = S[i, HSIZE + other]
            out[i, o_dsize + rel] = S[i, DSIZE + other]
            out[i, o_vsize + rel] = S[i, VSIZE + other]
            out[i, o_out + rel] = S[i, OUT + other]
            out[i, o_picked + rel] = S[i, PICKED + other]
            out[i, o_down + rel] = S[i, DOWN_BY + other]
            card = S[i, LAST + other]
            if card >= 0:
                out[i, o_last + rel * powers + card] = 1.0
            base = o_revealed + rel * powers
            for power in range(powers):
                out[i, base + power] = C[i, 3 * n + other, power]
            other += 1
            if other == n:
                other = 0
        if S[i, TERMINAL] == 0 and S[i, TRUNCATED] == 0:
            for k in range(S[i, NCONT]):
                rel = S[i, CONT + k] - seat
                if rel < 0:
                    rel += n
                out[i, o_contest + rel] = 1.0
                if rel == 0 and S[i, PHASE] == TIEBREAK:
                    out[i, o_you] = 1.0
        out[i, o_phase + S[i, PHASE]] = 1.0
        out[i, o_tricks] = S[i, TRICKS]


class VectorPromiseWar(VectorRules):
    """``num_envs`` games of one Promise War config (module docstring: the state arrays)."""

    env_name = "promise_war_v0"

    def __init__(self, game: PromiseWarGame, num_envs: int, observation_size: int) -> None:
        super().__init__(game, num_envs, observation_size)
        n, powers = game.num_players, game.max_power + 1
        self.powers = powers
        self.max_tricks = int(game.max_tricks)
        largest, total = game.largest_deck, game.total_cards
        #: Each seat's configured deck (the deal shuffles a copy), padded to the longest.
        self.decks = np.zeros((n, largest), np.int8)
        self.deck_lengths = np.array([len(deck) for deck in game.decks], np.int64)
        for seat, deck in enumerate(game.decks):
            self.decks[seat, : len(deck)] = deck
        layout = observation_layout(game)
        if layout.size != self.observation_size:
            raise InvalidConfigError(
                f"observation size {self.observation_size} is not the layout's {layout.size}"
            )
        self.offsets = np.array([layout[name].start for name in _PIECES], np.int64)
        self.S = np.zeros((self.num_envs, WIDTH), np.int32)
        self.C = np.zeros((self.num_envs, 4 * n + 2 + n * (n + 1), powers), np.int32)
        self.piles = np.zeros((self.num_envs, n, largest), np.int8)
        self.pot_down = np.zeros((self.num_envs, total), np.int16)

    # --- VectorRules --------------------------------------------------------------------------
    def reset_games(self, which: np.ndarray) -> None:
        _reset_kernel(
            self.S,
            self.C,
            self.piles,
            self.rng,
            np.ascontiguousarray(which, np.bool_),
            self.decks,
            self.deck_lengths,
            self.max_tricks,
            self.current_player,
            self.terminated,
            self.truncated,
            self.rewards,
        )

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        _step_kernel(
            self.S,
            self.C,
            self.piles,
            self.pot_down,
            np.ascontiguousarray(actions, np.int64),
            np.ascontiguousarray(which, np.bool_),
            self.max_tricks,
            self.current_player,
            self.terminated,
            self.truncated,
            self.rewards,
        )

    def legal_masks(self, out: np.ndarray) -> None:
        _mask_kernel(self.C, self.current_player, out)

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(self.S, self.C, np.ascontiguousarray(seats, np.int64), self.offsets, out)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedPromiseWar": "VectorPromiseWar"})

__all__ = ["VectorPromiseWar"]
