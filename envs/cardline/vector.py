"""Vector Cardline (``cardline_v0``): thousands of games per call, exact to ``rules.py``.

State lives in a few struct-of-arrays blocks (one row per game slot): ``scal`` (int32, the
game's scalars, columns ``CHAR`` .. ``TRUNCATED``), ``seat`` (int32 ``[N, n, 7]``, per-seat
fields ``HAND_LEN`` .. ``FINISHER``; ``ORDER`` and ``FINISHER`` hold the round's turn order
and finishers as lists indexed by position), ``hands`` (int16 ``[N, n, hand_size]``, each
sorted), ``piles`` (int16 ``[N, 5, D']``: the line left to right, the draw pile with its top
at the end as in the rules, the box, the cards out of the game, and ``CHANGED``) and
``cards`` (int8 ``[N, 2, D']``: ``where`` code and ``revealed`` per card id); ``D'`` is the
deck size padded to 16. The loops are ``kernels.jit`` functions, the same code compiled or as
plain Python.

The observation is wide (1,680 floats for two players, 3,048 for eight) and changes little
per step, so ``observations`` writes only what changed. Each slot remembers what its row of
``out`` shows (``osh``: the characteristic, line length, pile top and the positions of its
seat-relative ones) and the turns note what changed since (``piles[:, CHANGED]``: from which
line position, which cards); a call with the same ``out`` array as the last call rewrites
the seat-relative ones and a few dozen per-seat values, and only the changed part of the rest.
Another array (or the first call) makes every row it writes be written whole, so the rows
stay exact for any caller; ``legal_masks`` does the same with the rectangle of legal actions.
The price: nobody else may write into the front's buffers between steps (the ``Batch``
docstring: they are the engine's own, overwritten by the next step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..core.game import NO_PLAYER
from ..core.kernels import jit, rng_below, rng_shuffle
from ..core.moved import deprecate
from ..vector.rules import VectorRules
from .env import observation_layout
from .rules import (
    IN_BOX,
    IN_HAND,
    IN_LINE,
    IN_PILE,
    OPEN_HIGH,
    OPEN_LOW,
    CardlineGame,
)

# --- columns of ``scal`` [N, S] ----------------------------------------------------------------
CHAR, FIRST, TO_ACT, LAST_MOVER, TURNS, ROUNDS, TURN_INDEX = 0, 1, 2, 3, 4, 5, 6
ORDER_LEN, FIN_LEN, LINE_LEN, PILE_LEN, BOX_LEN, OUT_LEN = 7, 8, 9, 10, 11, 12
TERMINAL, TRUNCATED = 13, 14
SCALARS = 15
# --- columns of ``seat`` [N, n, K] -------------------------------------------------------------
HAND_LEN, ELIM, LAST_CARD, LAST_RIGHT, CORRECT, ORDER, FINISHER = 0, 1, 2, 3, 4, 5, 6
SEAT_FIELDS = 7
# --- rows of ``piles`` [N, 5, D'] and ``cards`` [N, 2, D'] (D' = D padded to 16) -------------
LINE, PILE, BOX, OUT, CHANGED = 0, 1, 2, 3, 4
WHERE, REVEALED = 0, 1
#: ``piles[i, CHANGED]``: what changed since ``observations`` last wrote row ``i`` (of the
#: array it follows): ``[CH_LINE]`` the first line position that changed, ``[CH_COUNT]`` how
#: many cards changed their public place (line, box, other) or revealed flag, listed from
#: ``CH_CARDS`` on; ``ALL`` (-1) when too many did (every card is rewritten).
CH_LINE, CH_COUNT, CH_CARDS = 0, 1, 2
ALL = -1
LINE_SAME = 32767
# --- the config table ``cfg`` (int64) ----------------------------------------------------------
C_PLAYERS, C_HAND, C_DECK, C_CHARS, C_FIXED_CHAR, C_FIXED_FIRST, C_MAX_TURNS = range(7)
# --- observation offsets ``offs`` (int64): piece starts in the layout --------------------------
(
    O_CHAR,
    O_HAND,
    O_HAND_KNOWN,
    O_GAP_OPEN,
    O_GAP_LOWER,
    O_GAP_UPPER,
    O_HANDS,
    O_LAST_CARD,
    O_LAST_RESULT,
    O_SEAT_VALUES,
    O_PILE_TOP,
    O_IN_LINE,
    O_IN_BOX,
    O_KNOWN,
    O_COUNTS,
) = range(15)
OFFSETS = 15
# --- observation shadow ``osh`` [N, W] (int32): what the row shows -----------------------------
#: The characteristic, line length and pile top the row shows (``OS_CHAR == UNKNOWN``: the
#: row's content is unknown, zero it and write it whole), then the count and positions of
#: its seat-relative ones (``hand``, ``hands``, ``last_card``, ``last_result``: at most
#: ``h + n * h + 2 * n``).
OS_CHAR, OS_LINE_LEN, OS_PILE_TOP, OS_ONES_LEN, OS_ONES = 0, 1, 2, 3, 4
UNKNOWN = -2


def _blank_mask_shadow(num_envs: int) -> np.ndarray:
    shadow = np.zeros((num_envs, 2), np.int32)
    shadow[:, 0] = UNKNOWN
    return shadow


# --- rules kernels -----------------------------------------------------------------------------
# A numba call that passes arrays costs tens of nanoseconds (the callee counts references to
# each), as much as a whole turn, so the turn is one flat loop body; only the rare box
# reshuffle is a call. The penalty draw and the finishers' draws are the same few lines.
@jit
def _refill(rng: np.ndarray, i: int, scal: np.ndarray, piles: np.ndarray, cards: np.ndarray) -> int:
    """CL-6: the empty pile is refilled by shuffling the box (not empty); returns its size."""
    size = scal[i, BOX_LEN]
    for k in range(size):
        card = piles[i, BOX, k]
        piles[i, PILE, k] = card
        cards[i, WHERE, card] = IN_PILE
    rng_shuffle(rng, i, piles[i, PILE], size)
    scal[i, BOX_LEN] = 0
    scal[i, PILE_LEN] = size
    piles[i, CHANGED, CH_COUNT] = ALL
    return size


@jit
def _reset(
    which: np.ndarray,
    rng: np.ndarray,
    cfg: np.ndarray,
    scal: np.ndarray,
    seat: np.ndarray,
    hands: np.ndarray,
    piles: np.ndarray,
    cards: np.ndarray,
    status: np.ndarray,
    current: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """CL-2 for every slot in ``which``: characteristic, first player, a shuffled deck, hands
    of ``hand_size`` in seat order, the next card starts the line, the rest is the pile."""
    n, h, deck = cfg[C_PLAYERS], cfg[C_HAND], cfg[C_DECK]
    for i in range(which.shape[0]):
        if not which[i]:
            continue
        scal[i, :] = 0
        seat[i, :, :] = 0
        cards[i, :, :] = 0
        rewards[i, :] = 0.0
        scal[i, CHAR] = cfg[C_FIXED_CHAR]
        if cfg[C_FIXED_CHAR] < 0:
            scal[i, CHAR] = rng_below(rng, i, cfg[C_CHARS])
        first = cfg[C_FIXED_FIRST]
        if first < 0:
            first = rng_below(rng, i, n)
        scal[i, FIRST] = first
        for k in range(deck):
            piles[i, PILE, k] = k
        rng_shuffle(rng, i, piles[i, PILE], deck)
        for s in range(n):
            for k in range(h):
                card = piles[i, PILE, s * h + k]
                j = k
                while j > 0 and hands[i, s, j - 1] > card:
                    hands[i, s, j] = hands[i, s, j - 1]
                    j -= 1
                hands[i, s, j] = card
                cards[i, WHERE, card] = IN_HAND + s
            seat[i, s, HAND_LEN] = h
            seat[i, s, LAST_CARD] = -1
            seat[i, s, ORDER] = (first + s) % n
        initial = piles[i, PILE, n * h]
        piles[i, LINE, 0] = initial
        cards[i, WHERE, initial] = IN_LINE
        cards[i, REVEALED, initial] = 1
        scal[i, LINE_LEN] = 1
        rest = deck - n * h - 1
        for k in range(rest):
            piles[i, PILE, k] = piles[i, PILE, k + n * h + 1]
        scal[i, PILE_LEN] = rest
        scal[i, LAST_MOVER] = NO_PLAYER
        scal[i, ORDER_LEN] = n
        scal[i, ROUNDS] = 1
        scal[i, TO_ACT] = first
        piles[i, CHANGED, CH_LINE] = 0
        piles[i, CHANGED, CH_COUNT] = ALL
        current[i] = first
        status[0, i] = False
        status[1, i] = False


@jit
def _step(
    actions: np.ndarray,
    which: np.ndarray,
    rng: np.ndarray,
    cfg: np.ndarray,
    values: np.ndarray,
    scal: np.ndarray,
    seat: np.ndarray,
    hands: np.ndarray,
    piles: np.ndarray,
    cards: np.ndarray,
    status: np.ndarray,
    current: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """One turn in every slot in ``which`` (``rules.py``'s ``apply_legal_action``): CL-4
    place hand slot ``action // (D + 1)`` into gap ``action % (D + 1)``, right it stays,
    wrong it goes to the box and a penalty card is drawn; then CL-5..CL-7 at a round's end."""
    n, gaps, max_turns = cfg[C_PLAYERS], cfg[C_DECK] + 1, cfg[C_MAX_TURNS]
    for i in range(which.shape[0]):
        if not which[i]:
            continue
        for s in range(n):
            rewards[i, s] = 0.0
        s = scal[i, TO_ACT]
        slot = actions[i] // gaps
        gap = actions[i] - slot * gaps
        length = seat[i, s, HAND_LEN] - 1
        card = hands[i, s, slot]
        for k in range(slot, length):
            hands[i, s, k] = hands[i, s, k + 1]
        seat[i, s, HAND_LEN] = length
        c = scal[i, CHAR]
        size = scal[i, LINE_LEN]
        right = (gap == 0 or values[c, piles[i, LINE, gap - 1]] <= values[c, card]) and (
            gap == size or values[c, card] <= values[c, piles[i, LINE, gap]]
        )
        cards[i, REVEALED, card] = 1
        changed = piles[i, CHANGED, CH_COUNT]  # the card's place and flag, for observations
        if changed != ALL and CH_CARDS + changed < piles.shape[2]:
            piles[i, CHANGED, CH_CARDS + changed] = card
            piles[i, CHANGED, CH_COUNT] = changed + 1
        else:
            piles[i, CHANGED, CH_COUNT] = ALL
        seat[i, s, LAST_CARD] = card
        seat[i, s, LAST_RIGHT] = 1 if right else 0
        scal[i, LAST_MOVER] = s
        scal[i, TURNS] += 1
        if right:
            for k in range(size, gap, -1):
                piles[i, LINE, k] = piles[i, LINE, k - 1]
            piles[i, LINE, gap] = card
            scal[i, LINE_LEN] = size + 1
            if gap < piles[i, CHANGED, CH_LINE]:
                piles[i, CHANGED, CH_LINE] = gap
            cards[i, WHERE, card] = IN_LINE
            seat[i, s, CORRECT] += 1
            if length == 0:
                seat[i, scal[i, FIN_LEN], FINISHER] = s
                scal[i, FIN_LEN] += 1
        else:
            piles[i, BOX, scal[i, BOX_LEN]] = card
            scal[i, BOX_LEN] += 1
            cards[i, WHERE, card] = IN_BOX
            # CL-6 penalty draw: the pile's top card into the hand, kept sorted.
            size = scal[i, PILE_LEN]
            if size == 0:
                size = _refill(rng, i, scal, piles, cards)
            card = piles[i, PILE, size - 1]
            scal[i, PILE_LEN] = size - 1
            k = length
            while k > 0 and hands[i, s, k - 1] > card:
                hands[i, s, k] = hands[i, s, k - 1]
                k -= 1
            hands[i, s, k] = card
            seat[i, s, HAND_LEN] = length + 1
            cards[i, WHERE, card] = IN_HAND + s
        scal[i, TURN_INDEX] += 1
        if scal[i, TURN_INDEX] < scal[i, ORDER_LEN]:
            if scal[i, TURNS] >= max_turns:
                scal[i, TRUNCATED] = 1
                scal[i, TO_ACT] = NO_PLAYER
            else:
                scal[i, TO_ACT] = seat[i, scal[i, TURN_INDEX], ORDER]
        else:
            # CL-5/CL-6 round end: one finisher wins; several play on alone (the others are
            # eliminated, their hands to the box) and draw a card each in turn order, or
            # share the win when the pile and the box cannot deal them.
            finishers = scal[i, FIN_LEN]
            finished = finishers == 1
            if finishers > 1:
                for k in range(scal[i, ORDER_LEN]):
                    t = seat[i, k, ORDER]
                    finisher = False
                    for f in range(finishers):
                        finisher = finisher or seat[i, f, FINISHER] == t
                    if finisher:
                        continue
                    seat[i, t, ELIM] = 1
                    box = scal[i, BOX_LEN]
                    for slot in range(seat[i, t, HAND_LEN]):
                        card = hands[i, t, slot]
                        piles[i, BOX, box + slot] = card
                        cards[i, WHERE, card] = IN_BOX
                    scal[i, BOX_LEN] = box + seat[i, t, HAND_LEN]
                    seat[i, t, HAND_LEN] = 0
                    piles[i, CHANGED, CH_COUNT] = ALL
                finished = scal[i, PILE_LEN] + scal[i, BOX_LEN] < finishers
                for f in range(0 if finished else finishers):
                    t = seat[i, f, FINISHER]
                    size = scal[i, PILE_LEN]
                    if size == 0:
                        size = _refill(rng, i, scal, piles, cards)
                    card = piles[i, PILE, size - 1]
                    scal[i, PILE_LEN] = size - 1
                    hands[i, t, 0] = card
                    seat[i, t, HAND_LEN] = 1
                    cards[i, WHERE, card] = IN_HAND + t
            if finished:
                # CL-7: every finisher +1 (a shared win too), everyone else -1.
                scal[i, TERMINAL] = 1
                scal[i, TO_ACT] = NO_PLAYER
                for t in range(n):
                    rewards[i, t] = -1.0
                for f in range(finishers):
                    rewards[i, seat[i, f, FINISHER]] = 1.0
            else:
                # CL-5: a new round, one turn per player still in, from the first player.
                order = 0
                t = scal[i, FIRST]
                for _ in range(n):
                    if seat[i, t, ELIM] == 0:
                        seat[i, order, ORDER] = t
                        order += 1
                    t = t + 1 if t + 1 < n else 0
                scal[i, ORDER_LEN] = order
                scal[i, TURN_INDEX] = 0
                scal[i, FIN_LEN] = 0
                scal[i, ROUNDS] += 1
                if scal[i, TURNS] >= max_turns:
                    scal[i, TRUNCATED] = 1
                    scal[i, TO_ACT] = NO_PLAYER
                else:
                    scal[i, TO_ACT] = seat[i, 0, ORDER]
        current[i] = scal[i, TO_ACT]
        status[0, i] = scal[i, TERMINAL] != 0
        status[1, i] = scal[i, TRUNCATED] != 0


# --- what the front reads ----------------------------------------------------------------------
@jit
def _masks(
    out: np.ndarray, shadow: np.ndarray, scal: np.ndarray, seat: np.ndarray, gaps: int
) -> None:
    """Legal actions: slots below the hand length of the seat to act, gaps up to the line's
    length. Only the difference to the rectangle the row shows (``shadow``) is written."""
    for i in range(out.shape[0]):
        old_hand, old_line = shadow[i, 0], shadow[i, 1]
        if old_hand == UNKNOWN:
            for k in range(out.shape[1]):
                out[i, k] = False
            old_hand, old_line = 0, 0
            shadow[i, 0], shadow[i, 1] = 0, 0
        s = scal[i, TO_ACT]
        new_hand, new_line = 0, 0
        if s >= 0:
            new_hand, new_line = seat[i, s, HAND_LEN], scal[i, LINE_LEN]
        if new_hand == old_hand and new_line == old_line:
            continue
        for slot in range(max(old_hand, new_hand)):
            base = slot * gaps
            if slot < old_hand and slot < new_hand:
                for gap in range(min(old_line, new_line) + 1, max(old_line, new_line) + 1):
                    out[i, base + gap] = gap <= new_line
            elif slot < old_hand:
                for gap in range(old_line + 1):
                    out[i, base + gap] = False
            else:
                for gap in range(new_line + 1):
                    out[i, base + gap] = True
        shadow[i, 0], shadow[i, 1] = new_hand, new_line


@jit
def _observe(
    seats: np.ndarray,
    out: np.ndarray,
    offs: np.ndarray,
    scaled: np.ndarray,
    scal: np.ndarray,
    seat: np.ndarray,
    hands: np.ndarray,
    piles: np.ndarray,
    cards: np.ndarray,
    osh: np.ndarray,
) -> None:
    """``env.encode`` of seat ``seats[i]`` into row ``i`` (``seats[i] < 0``: untouched), by
    difference to what the row shows (``osh``) and what changed since (``CHANGED``)."""
    n, h, deck = hands.shape[1], hands.shape[2], scaled.shape[1]
    for i in range(out.shape[0]):
        viewer = seats[i]
        if viewer < 0:
            continue
        if osh[i, OS_CHAR] == UNKNOWN:
            for k in range(out.shape[1]):
                out[i, k] = 0.0
            osh[i, OS_LINE_LEN] = -1
            osh[i, OS_PILE_TOP] = -1
            osh[i, OS_ONES_LEN] = 0
        c = scal[i, CHAR]
        new_char = osh[i, OS_CHAR] != c
        if new_char:
            if osh[i, OS_CHAR] >= 0:
                out[i, offs[O_CHAR] + osh[i, OS_CHAR]] = 0.0
            out[i, offs[O_CHAR] + c] = 1.0
            osh[i, OS_CHAR] = c
        top = -1 if scal[i, PILE_LEN] == 0 else piles[i, PILE, scal[i, PILE_LEN] - 1]
        if top != osh[i, OS_PILE_TOP]:
            if osh[i, OS_PILE_TOP] >= 0:
                out[i, offs[O_PILE_TOP] + osh[i, OS_PILE_TOP]] = 0.0
            if top >= 0:
                out[i, offs[O_PILE_TOP] + top] = 1.0
            osh[i, OS_PILE_TOP] = top
        # Seat-relative one-hot pieces (hands, last placements): clear, rewrite.
        for k in range(osh[i, OS_ONES_LEN]):
            out[i, osh[i, OS_ONES + k]] = 0.0
        ones = OS_ONES
        for slot in range(seat[i, viewer, HAND_LEN]):
            position = offs[O_HAND] + slot * deck + hands[i, viewer, slot]
            out[i, position] = 1.0
            osh[i, ones] = position
            ones += 1
        t = viewer
        for r in range(n):
            for slot in range(seat[i, t, HAND_LEN]):
                position = offs[O_HANDS] + r * deck + hands[i, t, slot]
                out[i, position] = 1.0
                osh[i, ones] = position
                ones += 1
            card = seat[i, t, LAST_CARD]
            if card >= 0:
                position = offs[O_LAST_CARD] + r * deck + card
                out[i, position] = 1.0
                osh[i, ones] = position
                position = offs[O_LAST_RESULT] + 2 * r + 1 - seat[i, t, LAST_RIGHT]
                out[i, position] = 1.0
                osh[i, ones + 1] = position
                ones += 2
            t = t + 1 if t + 1 < n else 0
        osh[i, OS_ONES_LEN] = ones - OS_ONES
        # Dense per-slot and per-seat values: always written (a few dozen floats).
        base = offs[O_HAND_KNOWN]
        held = seat[i, viewer, HAND_LEN]
        for slot in range(h):
            known = OPEN_LOW
            if slot < held:
                card = hands[i, viewer, slot]
                if cards[i, REVEALED, card]:
                    known = scaled[c, card]
            out[i, base + slot] = known
        base = offs[O_SEAT_VALUES]
        t = viewer
        for r in range(n):
            out[i, base + r] = seat[i, t, HAND_LEN]
            out[i, base + n + r] = seat[i, t, ELIM]
            finished = 0.0
            for f in range(scal[i, FIN_LEN]):
                if seat[i, f, FINISHER] == t:
                    finished = 1.0
            out[i, base + 2 * n + r] = finished
            out[i, base + 3 * n + r] = 1.0 if t == scal[i, TO_ACT] else 0.0
            out[i, base + 4 * n + r] = 1.0 if t == scal[i, FIRST] else 0.0
            card = seat[i, t, LAST_CARD]
            out[i, base + 5 * n + r] = scaled[c, card] if card >= 0 else OPEN_LOW
            t = t + 1 if t + 1 < n else 0
        base = offs[O_COUNTS]
        out[i, base] = scal[i, PILE_LEN]
        out[i, base + 1] = scal[i, BOX_LEN]
        out[i, base + 2] = scal[i, LINE_LEN]
        out[i, base + 3] = scal[i, TURNS]
        # The line from the first position that changed: gap_lower, gap_upper, gap_open.
        size, old_size = scal[i, LINE_LEN], osh[i, OS_LINE_LEN]
        same = 0 if new_char else min(piles[i, CHANGED, CH_LINE], size, old_size)
        piles[i, CHANGED, CH_LINE] = LINE_SAME
        lower, upper = offs[O_GAP_LOWER], offs[O_GAP_UPPER]
        for g in range(min(size, old_size) + 1, max(size, old_size) + 1):
            out[i, offs[O_GAP_OPEN] + g] = 1.0 if g <= size else 0.0
        out[i, lower] = OPEN_LOW
        for k in range(same, size):
            out[i, lower + k + 1] = scaled[c, piles[i, LINE, k]]
            out[i, upper + k] = scaled[c, piles[i, LINE, k]]
        for k in range(max(size, same), old_size):
            out[i, lower + k + 1] = 0.0
            out[i, upper + k] = 0.0
        if old_size > size:
            out[i, upper + old_size] = 0.0
        out[i, upper + size] = OPEN_HIGH
        osh[i, OS_LINE_LEN] = size
        # Per card that changed: in_line, in_box and known_value.
        count = piles[i, CHANGED, CH_COUNT]
        piles[i, CHANGED, CH_COUNT] = 0
        every = new_char or count == ALL
        for k in range(deck if every else count):
            card = k if every else piles[i, CHANGED, CH_CARDS + k]
            where = cards[i, WHERE, card]
            out[i, offs[O_IN_LINE] + card] = 1.0 if where == IN_LINE else 0.0
            out[i, offs[O_IN_BOX] + card] = 1.0 if where == IN_BOX else 0.0
            known = scaled[c, card] if cards[i, REVEALED, card] else OPEN_LOW
            out[i, offs[O_KNOWN] + card] = known


# --- the engine --------------------------------------------------------------------------------
class VectorCardline(VectorRules):
    """``num_envs`` Cardline games of one validated ``CardlineGame`` (any deck, 2-8 players)."""

    env_name: ClassVar[str] = "cardline_v0"

    def __init__(self, game: CardlineGame, num_envs: int, observation_size: int) -> None:
        super().__init__(game, num_envs, observation_size)
        n, h, deck = game.num_players, game.hand_size, game.deck_size
        chars = len(game.characteristics)
        fixed_char = (
            -1 if game.characteristic is None else game.characteristics.index(game.characteristic)
        )
        fixed_first = -1 if game.first_player is None else int(game.first_player)
        self.cfg = np.array([n, h, deck, chars, fixed_char, fixed_first, game.max_turns], np.int64)
        self.values = np.ascontiguousarray(np.stack(game.values), np.float64)
        self.scaled = np.ascontiguousarray(np.stack(game.scaled), np.float32)
        layout = observation_layout(game)
        if layout.size != self.observation_size:
            raise ValueError(f"observation size {observation_size} != layout's {layout.size}")
        pieces = [
            "characteristic", "hand", "hand_known_value", "gap_open", "gap_lower", "gap_upper",
            "hands", "last_card", "last_result", "hand_sizes", "pile_top", "in_line", "in_box",
            "known_value", "pile_size",
        ]  # fmt: skip
        self.offs = np.array([layout[name].start for name in pieces], np.int64)
        N = self.num_envs
        self.scal = np.zeros((N, SCALARS), np.int32)
        self.seat = np.zeros((N, n, SEAT_FIELDS), np.int32)
        self.hands = np.zeros((N, n, h), np.int16)
        padded = -(-deck // 16) * 16  # card rows padded for comparisons by sixteen
        self.piles = np.zeros((N, 5, padded), np.int16)
        self.cards = np.zeros((N, 2, padded), np.int8)
        self.status = np.zeros((2, N), np.bool_)
        self.terminated, self.truncated = self.status[0], self.status[1]
        ones = h + n * h + 2 * n
        self._osh = np.zeros((N, OS_ONES + ones), np.int32)
        self._osh[:, OS_CHAR] = UNKNOWN
        self._obs_out: np.ndarray | None = None
        self._msh = _blank_mask_shadow(N)
        self._mask_out: np.ndarray | None = None

    # --- rules -------------------------------------------------------------------------------
    def reset_games(self, which: np.ndarray) -> None:
        _reset(
            np.asarray(which, np.bool_), self.rng, self.cfg, self.scal, self.seat, self.hands,
            self.piles, self.cards, self.status, self.current_player, self.rewards,
        )  # fmt: skip

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        _step(
            np.asarray(actions, np.int64), np.asarray(which, np.bool_), self.rng, self.cfg,
            self.values, self.scal, self.seat, self.hands, self.piles, self.cards, self.status,
            self.current_player, self.rewards,
        )  # fmt: skip

    # --- what the front reads ----------------------------------------------------------------
    def legal_masks(self, out: np.ndarray) -> None:
        if out is not self._mask_out:  # another array: every row is written whole
            self._mask_out = out
            self._msh[:, 0] = UNKNOWN
        _masks(out, self._msh, self.scal, self.seat, int(self.cfg[C_DECK]) + 1)

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        if out is not self._obs_out:  # another array: every row is written whole
            self._obs_out = out
            self._osh[:, OS_CHAR] = UNKNOWN
        _observe(
            np.asarray(seats, np.int64), out, self.offs, self.scaled, self.scal, self.seat,
            self.hands, self.piles, self.cards, self._osh,
        )  # fmt: skip


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedCardline": "VectorCardline"})

__all__ = ["VectorCardline"]
