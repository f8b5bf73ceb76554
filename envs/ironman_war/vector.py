"""Vector Iron Man 2 Game of War (``ironman_war_v0``): many games per call, in ``jit`` loops.

The state of game ``i`` lives in two arrays (struct of arrays, one row per game):

- ``S`` int32 ``[N, WIDTH]``: every field of the reference ``IronManWarState`` at the column
  offsets below; per-seat tables are seat-major (``HANDS + 8 * seat + kind``,
  ``COMMITTED + 3 * seat + battle``), ``NO_CARD`` / ``UNDECIDED`` are -1 as in the rules;
- ``piles`` int8 ``[N, 2, deck_size]``: each draw pile as the reference keeps it, top card at
  ``deck_sizes[seat] - 1``.

The reference rules recurse (a battle's end starts the next battle, a round's end deals the
next round); numba compiles no mutual recursion, so ``_advance`` runs the same chain as a
loop over events (``EV_*``) until someone is asked something or the game is over.
Reshuffles (IM-2 / D-1) draw from the slot's own generator; the reference reshuffles a pile
only when drawing at a round start empties it, so ``state_difference`` compares exactly
except those piles (and the hands drawn from them), whose cards it compares as multisets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.game import NO_PLAYER
from ..core.kernels import jit, rng_shuffle
from ..core.moved import deprecate
from ..core.observation import ObservationLayout
from ..vector.rules import VectorRules
from .env import observation_layout
from .rules import (
    CARD_VALUES,
    COMMIT,
    CONCEDE,
    DRAW,
    ENERGY_SHIELD,
    FIRST_SPECIAL,
    GAME_OVER,
    HAND_DRAW,
    NO_CARD,
    NUM_ACTIONS,
    NUM_BATTLES,
    NUM_KINDS,
    PLAY_OR_CONCEDE,
    SHIELD_BASE,
    SHIELD_TARGET,
    STANDOFF_PLAY,
    UNDECIDED,
    UPGRADE,
    IronManWarGame,
    make_game,
)

# --- columns of S (per-seat blocks seat-major) ---------------------------------------------------
K = NUM_KINDS
B = NUM_BATTLES
HANDS = 0  # 2 x 8
DECKC = HANDS + 2 * K  # deck_counts
DISC = DECKC + 2 * K  # discards
TABLE = DISC + 2 * K
BC = TABLE + 2 * K  # battle_cards
COMMITTED = BC + 2 * K  # 2 x 3
FACE_DOWN = COMMITTED + 2 * B
FLIPPED = FACE_DOWN + 2 * B
PREV_FLIPPED = FLIPPED + 2 * B
PENDING = PREV_FLIPPED + 2 * B  # 2
HAS_PENDING = PENDING + 2
LAST_REVEAL = HAS_PENDING + 2
RESULTS = LAST_REVEAL + 2  # 3
PREV_RESULTS = RESULTS + B
TOTALS = PREV_RESULTS + B  # 2
COUNTS = TOTALS + 2  # battle_card_counts
WON = COUNTS + 2  # battles_won
HSIZE = WON + 2  # hand_sizes
DSIZE = HSIZE + 2  # deck_sizes (= the pile's length)
PAWNS = DSIZE + 2
ROUND = PAWNS + 2
BATTLE = ROUND + 1
SLOT = BATTLE + 1  # commit_slot
DECISION = SLOT + 1
SEAT = DECISION + 1  # current_seat
WINNER = SEAT + 1
TERMINAL = WINNER + 1
TRUNCATED = TERMINAL + 1
TO_PICK = TRUNCATED + 1  # the reference's _to_pick list: 2 entries, -1 past its length
NUM_TO_PICK = TO_PICK + 2
WIDTH = NUM_TO_PICK + 1

# --- the per-config table ``conf`` (int64) -------------------------------------------------------
C_BEGINNER, C_VICTORY, C_MAX_ROUNDS, C_DECK = 0, 1, 2, 3
CONF_SIZE = C_DECK + K

# --- events of the rules' chain (``_advance``) ---------------------------------------------------
EV_DONE, EV_SETTLE, EV_END_BATTLE, EV_START_BATTLE, EV_REVEAL = 0, 1, 2, 3, 4
EV_END_ROUND, EV_START_ROUND, EV_ASK_COMMIT = 5, 6, 7

_VALUES = np.asarray(CARD_VALUES, np.int64)

# --- observation offsets (the layout's pieces do not depend on the config) -----------------------
_LAYOUT = observation_layout(make_game())
O_HAND = _LAYOUT["hand"].start
O_OWN_DECK = _LAYOUT["own_deck"].start
O_BC = _LAYOUT["battle_cards"].start
O_TABLE = _LAYOUT["table"].start
O_DISC = _LAYOUT["discards"].start
O_OWN_COMMITTED = _LAYOUT["own_committed"].start
O_FLIPPED = _LAYOUT["flipped"].start
O_PREV_FLIPPED = _LAYOUT["previous_flipped"].start
O_LAST = _LAYOUT["last_reveal"].start
O_RESULTS = _LAYOUT["battle_results"].start
O_PREV_RESULTS = _LAYOUT["previous_results"].start
O_FACE_DOWN = _LAYOUT["face_down"].start
O_HAS_PENDING = _LAYOUT["has_pending"].start
O_TOTALS = _LAYOUT["battle_totals"].start
O_COUNTS = _LAYOUT["battle_card_counts"].start
O_WON = _LAYOUT["battles_won"].start
O_HSIZE = _LAYOUT["hand_sizes"].start
O_DSIZE = _LAYOUT["deck_sizes"].start
O_DISC_SIZE = _LAYOUT["discard_sizes"].start
O_PAWNS = _LAYOUT["pawns"].start
O_ROUND = _LAYOUT["round"].start
O_OWN_PENDING = _LAYOUT["own_pending"].start
O_BATTLE = _LAYOUT["battle"].start
O_DECISION = _LAYOUT["decision"].start
O_SLOT = _LAYOUT["commit_slot"].start
OBSERVATION_SIZE = _LAYOUT.size


def _check_results_adjacent(layout: ObservationLayout) -> None:
    """``_observe_kernel`` writes this round's and the last round's battle results in one loop
    over 2 x 3 battles: adjacent in ``S`` by construction (``PREV_RESULTS``), they must be
    adjacent in the observation too."""
    if layout["previous_results"].start != layout["battle_results"].start + 3 * B:
        raise ImportError("battle_results and previous_results must be adjacent (_observe_kernel)")


_check_results_adjacent(_LAYOUT)


# --- kernels -------------------------------------------------------------------------------------
@jit
def _reshuffle(s: np.ndarray, pile: np.ndarray, rng: np.ndarray, i: int, seat: int) -> bool:
    """IM-2 / D-1: the discard pile, shuffled, becomes the (empty) deck; False if none."""
    disc = DISC + K * seat
    count = 0
    for k in range(K):
        n = s[disc + k]
        for _ in range(n):
            pile[seat, count] = k
            count += 1
    if count == 0:
        return False
    rng_shuffle(rng, i, pile[seat], count)
    for k in range(K):
        s[DECKC + K * seat + k] += s[disc + k]
        s[disc + k] = 0
    s[DSIZE + seat] = count
    return True


@jit
def _draw(s: np.ndarray, pile: np.ndarray, rng: np.ndarray, i: int, seat: int) -> None:
    """IM-2: draw HAND_DRAW cards from the top, reshuffling at once when the deck empties."""
    size = s[DSIZE + seat]
    drawn = 0
    while drawn < HAND_DRAW:
        if size == 0:
            if not _reshuffle(s, pile, rng, i, seat):
                break
            size = s[DSIZE + seat]
        size -= 1
        kind = pile[seat, size]
        s[HANDS + K * seat + kind] += 1
        s[DECKC + K * seat + kind] -= 1
        drawn += 1
        if size == 0:
            s[DSIZE + seat] = 0
            _reshuffle(s, pile, rng, i, seat)
            size = s[DSIZE + seat]
    s[HSIZE + seat] += drawn
    s[DSIZE + seat] = size


@jit
def _refresh(s: np.ndarray) -> None:
    """IM-5: each seat's battle total (doubled with an UPGRADE) and card count."""
    for seat in range(2):
        base = BC + K * seat
        total = 0
        count = 0
        for k in range(K):
            n = s[base + k]
            total += _VALUES[k] * n
            count += n
        if s[base + UPGRADE] > 0:
            total *= 2
        s[TOTALS + seat] = total
        s[COUNTS + seat] = count


@jit
def _ask_shield(s: np.ndarray, seat: int) -> bool:
    """IM-8 / D-8: ask ``seat`` for a target if the opponent has a card in this battle."""
    base = BC + K * (1 - seat)
    for k in range(K):
        if s[base + k] > 0:
            _refresh(s)
            s[DECISION] = SHIELD_TARGET
            s[SEAT] = seat
            return True
    return False


@jit
def _advance(
    s: np.ndarray,
    pile: np.ndarray,
    rng: np.ndarray,
    i: int,
    conf: np.ndarray,
    event: int,
    a: int,
    b: int,
) -> None:
    """Run the rules' chain from ``event`` (arguments ``a``, ``b``) until a decision is asked
    or the game is over (the reference's _settle, _end_battle, _start_battle, ...)."""
    while event != EV_DONE:
        if event == EV_SETTLE:
            _refresh(s)
            t0, t1 = s[TOTALS], s[TOTALS + 1]
            n0, n1 = s[COUNTS], s[COUNTS + 1]
            if t0 != t1 or n0 != n1:
                leader = 0 if (t0 > t1 or (t0 == t1 and n0 > n1)) else 1
                loser = 1 - leader
                if s[HSIZE + loser] == 0:  # IM-6: concedes automatically
                    event, a = EV_END_BATTLE, leader
                    continue
                s[DECISION] = PLAY_OR_CONCEDE
                s[SEAT] = loser
                event = EV_DONE
                continue
            count = 0
            s[TO_PICK] = -1
            s[TO_PICK + 1] = -1
            for seat in range(2):
                if s[HSIZE + seat] > 0:
                    s[TO_PICK + count] = seat
                    count += 1
            if count == 0:
                event, a = EV_END_BATTLE, DRAW
                continue
            s[NUM_TO_PICK] = count
            s[DECISION] = STANDOFF_PLAY
            s[SEAT] = s[TO_PICK]
            event = EV_DONE
        elif event == EV_END_BATTLE:  # IM-10 / D-11
            for seat in range(2):
                dest = TABLE if seat == a else DISC
                for k in range(K):
                    s[dest + K * seat + k] += s[BC + K * seat + k]
                    s[BC + K * seat + k] = 0
                s[TOTALS + seat] = 0
                s[COUNTS + seat] = 0
            battle = s[BATTLE]
            s[RESULTS + battle] = a
            if a != DRAW:
                s[WON + a] += 1
            if battle + 1 < B:
                event, a = EV_START_BATTLE, battle + 1
            else:
                event = EV_END_ROUND
        elif event == EV_START_BATTLE:  # IM-4
            s[BATTLE] = a
            c0 = s[COMMITTED + a]
            c1 = s[COMMITTED + B + a]
            for seat in range(2):
                card = c0 if seat == 0 else c1
                s[FACE_DOWN + B * seat + a] = 0
                s[FLIPPED + B * seat + a] = card
                if card != NO_CARD:
                    s[BC + K * seat + card] += 1
            event, a, b = EV_REVEAL, c0, c1
        elif event == EV_REVEAL:  # D-6
            s[LAST_REVEAL] = a
            s[LAST_REVEAL + 1] = b
            event = EV_SETTLE
            if a >= FIRST_SPECIAL and b >= FIRST_SPECIAL:  # IM-9: both cancel
                s[BC + a] -= 1
                s[DISC + a] += 1
                s[BC + K + b] -= 1
                s[DISC + K + b] += 1
            else:
                for seat in range(2):
                    card = a if seat == 0 else b
                    if card == ENERGY_SHIELD and _ask_shield(s, seat):
                        event = EV_DONE
                        break
        elif event == EV_END_ROUND:  # IM-11 / IM-12 / D-13
            for seat in range(2):
                for k in range(K):
                    s[DISC + K * seat + k] += s[TABLE + K * seat + k]
                    s[TABLE + K * seat + k] = 0
            for j in range(B):
                s[PREV_RESULTS + j] = s[RESULTS + j]
            for j in range(2 * B):
                s[PREV_FLIPPED + j] = s[FLIPPED + j]
            last = conf[C_VICTORY]
            event = EV_START_ROUND
            for seat in range(2):
                won, lost = s[WON + seat], s[WON + 1 - seat]
                if won > lost and won >= 2:
                    pawn = s[PAWNS + seat] + (2 if won == B else 1)
                    if pawn > last:
                        pawn = last
                    s[PAWNS + seat] = pawn
                    if pawn >= last:
                        s[WINNER] = seat
                        s[TERMINAL] = 1
                        event = EV_DONE
                        break
            if event == EV_START_ROUND and s[ROUND] >= conf[C_MAX_ROUNDS]:
                s[TRUNCATED] = 1
                event = EV_DONE
            if event == EV_DONE:  # the reference's _stop
                s[DECISION] = GAME_OVER
                s[SEAT] = NO_PLAYER
                s[TO_PICK] = -1
                s[TO_PICK + 1] = -1
                s[NUM_TO_PICK] = 0
            else:
                s[ROUND] += 1
                a = 1
        elif event == EV_START_ROUND:
            if a:
                for seat in range(2):
                    _draw(s, pile, rng, i, seat)
            for j in range(2 * B):
                s[COMMITTED + j] = NO_CARD
                s[FACE_DOWN + j] = 0
                s[FLIPPED + j] = NO_CARD
            for j in range(B):
                s[RESULTS + j] = UNDECIDED
            for seat in range(2):
                s[WON + seat] = 0
                s[LAST_REVEAL + seat] = NO_CARD
            s[BATTLE] = 0
            event, a = EV_ASK_COMMIT, 0
        else:  # EV_ASK_COMMIT, IM-3 / D-3: the next seat holding cards, else the battles
            event = EV_DONE
            asked = False
            for seat in range(a, 2):
                if s[HSIZE + seat] > 0:
                    s[DECISION] = COMMIT
                    s[SEAT] = seat
                    s[SLOT] = 0
                    asked = True
                    break
            if asked:
                continue
            if conf[C_BEGINNER]:  # IM-13 / D-14: the round resolves at once
                for j in range(B):
                    c0 = s[COMMITTED + j]
                    c1 = s[COMMITTED + B + j]
                    v0 = _VALUES[c0] if c0 != NO_CARD else -1
                    v1 = _VALUES[c1] if c1 != NO_CARD else -1
                    result = DRAW if v0 == v1 else (1 if v1 > v0 else 0)
                    for seat in range(2):
                        card = c0 if seat == 0 else c1
                        s[FACE_DOWN + B * seat + j] = 0
                        s[FLIPPED + B * seat + j] = card
                        if card != NO_CARD:
                            dest = TABLE if seat == result else DISC
                            s[dest + K * seat + card] += 1
                    s[RESULTS + j] = result
                    if result != DRAW:
                        s[WON + result] += 1
                s[BATTLE] = B - 1
                event = EV_END_ROUND
            else:
                event, a = EV_START_BATTLE, 0


@jit
def _take(s: np.ndarray, seat: int, kind: int) -> None:
    s[HANDS + K * seat + kind] -= 1
    s[HSIZE + seat] -= 1


@jit
def _play(s: np.ndarray, action: int) -> tuple[int, int, int]:
    """``apply_legal_action``: the decision of ``current_seat``; returns the event (and its
    arguments) of the rules' chain it starts."""
    seat = 0 + s[SEAT]  # int64 in numba (not int32): one signature per helper
    decision = s[DECISION]
    event, a, b = EV_DONE, 0, 0
    if decision == COMMIT:
        slot = s[SLOT]
        _take(s, seat, action)
        s[COMMITTED + B * seat + slot] = action
        s[FACE_DOWN + B * seat + slot] = 1
        if slot + 1 < B and s[HSIZE + seat] > 0:
            s[SLOT] = slot + 1
        else:
            event, a = EV_ASK_COMMIT, seat + 1
    elif decision == PLAY_OR_CONCEDE:
        if action == CONCEDE:
            event, a = EV_END_BATTLE, 1 - seat
        else:  # IM-6: a card face up, its effect at once
            _take(s, seat, action)
            s[BC + K * seat + action] += 1
            event = EV_SETTLE
            if action == ENERGY_SHIELD and _ask_shield(s, seat):
                event = EV_DONE
    elif decision == STANDOFF_PLAY:  # IM-7 / C-3
        _take(s, seat, action)
        s[PENDING + seat] = action
        s[HAS_PENDING + seat] = 1
        s[TO_PICK] = s[TO_PICK + 1]
        s[TO_PICK + 1] = -1
        s[NUM_TO_PICK] -= 1
        if s[NUM_TO_PICK] > 0:
            s[SEAT] = s[TO_PICK]
        else:
            a, b = s[PENDING], s[PENDING + 1]
            for player in range(2):
                card = a if player == 0 else b
                s[PENDING + player] = NO_CARD
                s[HAS_PENDING + player] = 0
                if card != NO_CARD:
                    s[BC + K * player + card] += 1
            event = EV_REVEAL
    else:  # SHIELD_TARGET
        kind = action - SHIELD_BASE
        s[BC + K * (1 - seat) + kind] -= 1
        s[DISC + K * (1 - seat) + kind] += 1
        event = EV_SETTLE
    return event, a, b


@jit
def _publish(
    s: np.ndarray,
    i: int,
    current: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    current[i] = s[SEAT]
    terminated[i] = s[TERMINAL] != 0
    truncated[i] = s[TRUNCATED] != 0
    if s[TERMINAL] != 0:
        rewards[i, 0] = 1.0 if s[WINNER] == 0 else -1.0
        rewards[i, 1] = -rewards[i, 0]
    else:
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0


@jit
def _deal(s: np.ndarray, pile: np.ndarray, rng: np.ndarray, i: int, conf: np.ndarray) -> None:
    """IM-1: a new game with both configured decks shuffled (round 1 is dealt next)."""
    for j in range(WIDTH):
        s[j] = 0
    for j in range(2 * B):
        s[PREV_FLIPPED + j] = NO_CARD
    for j in range(B):
        s[PREV_RESULTS + j] = UNDECIDED
    for seat in range(2):
        count = 0
        for k in range(K):
            n = conf[C_DECK + k]
            s[DECKC + K * seat + k] = n
            for _ in range(n):
                pile[seat, count] = k
                count += 1
        rng_shuffle(rng, i, pile[seat], count)
        s[DSIZE + seat] = count
        s[PENDING + seat] = NO_CARD
        s[PAWNS + seat] = 1
        s[TO_PICK + seat] = -1
    s[ROUND] = 1
    s[WINNER] = NO_PLAYER


@jit
def _update_kernel(
    S: np.ndarray,
    piles: np.ndarray,
    rng: np.ndarray,
    conf: np.ndarray,
    actions: np.ndarray,
    which: np.ndarray,
    deal: bool,
    current: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    rewards: np.ndarray,
) -> None:
    """Deal a new game (``deal``) or play ``actions[i]`` in every ``which`` slot. One kernel
    for both, so the rules' chain (``_advance``) is compiled once."""
    for i in range(S.shape[0]):
        if not which[i]:
            continue
        s = S[i]
        pile = piles[i]
        if deal:
            _deal(s, pile, rng, i, conf)
            event, a, b = EV_START_ROUND, 1, 0
        else:
            event, a, b = _play(s, actions[i])
        _advance(s, pile, rng, i, conf, event, a, b)
        _publish(s, i, current, terminated, truncated, rewards)


@jit
def _mask_kernel(S: np.ndarray, out: np.ndarray) -> None:
    """``legal_action_mask`` of every slot's seat to act (all False once over)."""
    for i in range(S.shape[0]):
        s = S[i]
        o = out[i]
        for j in range(NUM_ACTIONS):
            o[j] = False
        decision = s[DECISION]
        seat = s[SEAT]
        if decision == SHIELD_TARGET:
            for k in range(K):
                o[SHIELD_BASE + k] = s[BC + K * (1 - seat) + k] > 0
        elif decision != GAME_OVER:
            for k in range(K):
                o[k] = s[HANDS + K * seat + k] > 0
            if decision == PLAY_OR_CONCEDE:
                o[CONCEDE] = True


@jit
def _observe_kernel(S: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """``raw_env.encode`` of seat ``seats[i]`` in slot ``i`` (rows with a negative seat kept)."""
    for i in range(S.shape[0]):
        me = seats[i]
        if me < 0:
            continue
        s = S[i]
        o = out[i]
        for j in range(OBSERVATION_SIZE):
            o[j] = 0.0
        for k in range(K):
            o[O_HAND + k] = s[HANDS + K * me + k]
            o[O_OWN_DECK + k] = s[DECKC + K * me + k]
        for j in range(B):
            card = s[COMMITTED + B * me + j]
            if card != NO_CARD:
                o[O_OWN_COMMITTED + K * j + card] = 1.0
        for row in range(2):
            seat = me if row == 0 else 1 - me
            discarded = 0
            for k in range(K):
                o[O_BC + K * row + k] = s[BC + K * seat + k]
                o[O_TABLE + K * row + k] = s[TABLE + K * seat + k]
                n = s[DISC + K * seat + k]
                o[O_DISC + K * row + k] = n
                discarded += n
            for j in range(B):
                card = s[FLIPPED + B * seat + j]
                if card != NO_CARD:
                    o[O_FLIPPED + B * K * row + K * j + card] = 1.0
                card = s[PREV_FLIPPED + B * seat + j]
                if card != NO_CARD:
                    o[O_PREV_FLIPPED + B * K * row + K * j + card] = 1.0
                o[O_FACE_DOWN + B * row + j] = s[FACE_DOWN + B * seat + j]
            card = s[LAST_REVEAL + seat]
            if card != NO_CARD:
                o[O_LAST + K * row + card] = 1.0
            o[O_HAS_PENDING + row] = s[HAS_PENDING + seat]
            o[O_TOTALS + row] = s[TOTALS + seat]
            o[O_COUNTS + row] = s[COUNTS + seat]
            o[O_WON + row] = s[WON + seat]
            o[O_HSIZE + row] = s[HSIZE + seat]
            o[O_DSIZE + row] = s[DSIZE + seat]
            o[O_DISC_SIZE + row] = discarded
            o[O_PAWNS + row] = s[PAWNS + seat]
        for j in range(2 * B):  # battle_results then previous_results (adjacent in both)
            result = s[RESULTS + j]
            if result == me:
                o[O_RESULTS + 3 * j] = 1.0
            elif result == 1 - me:
                o[O_RESULTS + 3 * j + 1] = 1.0
            elif result == DRAW:
                o[O_RESULTS + 3 * j + 2] = 1.0
        o[O_ROUND] = s[ROUND]
        if s[HAS_PENDING + me]:
            o[O_OWN_PENDING + s[PENDING + me]] = 1.0
        o[O_BATTLE + s[BATTLE]] = 1.0
        decision = s[DECISION]
        if decision != GAME_OVER:
            o[O_DECISION + decision] = 1.0
            if decision == COMMIT:
                o[O_SLOT + s[SLOT]] = 1.0


# --- the vector rules ---------------------------------------------------------------------------
class VectorIronManWar(VectorRules):
    """``num_envs`` games of one ``IronManWarGame`` (either variant, any deck and caps)."""

    env_name = "ironman_war_v0"

    def __init__(self, game: IronManWarGame, num_envs: int, observation_size: int) -> None:
        super().__init__(game, num_envs, observation_size)
        layout = observation_layout(game)
        if layout.size != OBSERVATION_SIZE or observation_size != OBSERVATION_SIZE:
            raise InvalidConfigError(
                f"ironman_war observations are {OBSERVATION_SIZE} wide, but this config's layout "
                f"gives {layout.size} and the caller {observation_size} (if the layout changed: "
                "update envs/ironman_war/vector.py)"
            )
        self.capacity = max(int(game.deck_size), 1)
        self.S = np.zeros((self.num_envs, WIDTH), np.int32)
        self.piles = np.zeros((self.num_envs, 2, self.capacity), np.int8)
        conf = np.zeros(CONF_SIZE, np.int64)
        conf[C_BEGINNER] = int(game.beginner)
        conf[C_VICTORY] = game.victory_cards
        conf[C_MAX_ROUNDS] = game.max_rounds
        conf[C_DECK:] = game.deck
        self.conf = conf
        self._no_actions = np.zeros(self.num_envs, np.int64)
        self.S[:, DECISION] = GAME_OVER
        self.S[:, SEAT] = NO_PLAYER

    def reset_games(self, which: np.ndarray) -> None:
        _update_kernel(
            self.S,
            self.piles,
            self.rng,
            self.conf,
            self._no_actions,
            np.asarray(which, np.bool_),
            True,
            self.current_player,
            self.terminated,
            self.truncated,
            self.rewards,
        )

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        _update_kernel(
            self.S,
            self.piles,
            self.rng,
            self.conf,
            np.asarray(actions, np.int64),
            np.asarray(which, np.bool_),
            False,
            self.current_player,
            self.terminated,
            self.truncated,
            self.rewards,
        )

    def legal_masks(self, out: np.ndarray) -> None:
        _mask_kernel(self.S, out)

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(self.S, np.asarray(seats, np.int64), out)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedIronManWar": "VectorIronManWar"})
