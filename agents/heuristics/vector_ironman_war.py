"""The Iron Man 2 heuristic (``ironman_war.IronManStrategy``) for many observations at once.

The same decisions, row by row in one ``jit`` loop: every score is computed with the same
float64 operations in the same order, so each row's action is the scalar strategy's, up to
how ties are broken (uniformly among the same tied actions, with uniforms drawn from the
caller's generator) and which battle a round's cheap card is sacrificed to (uniform, as the
scalar's).

The scalar strategy remembers one thing across decisions: the commit plan it makes at a
round's first commit (battle 1) and follows for battles 2 and 3. Here that plan is kept per
game slot and seat (``slots`` argument of ``act``); ``new_games(slots)`` forgets the plans of
games that start anew, as ``start_game`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardarena.envs.core.kernels import jit
from cardarena.envs.core.moved import deprecate
from cardarena.envs.ironman_war.rules import CONCEDE, NUM_ACTIONS, NUM_BATTLES, SHIELD_BASE

from ..base import EnvSpec
from .common import EnvData, check_rows_have_actions
from .ironman_war import STRIKE, WORTH, battle_worth

COMMIT, PLAY_OR_CONCEDE, STANDOFF_PLAY, SHIELD_TARGET = range(4)
_K = 8
_UPGRADE, _SHIELD, _FINAL = 5, 6, 7
_VALUES = np.array([1, 2, 3, 4, 5, 0, 0, 6], np.int64)
#: Kinds in the order the scalar's commit sorts a hand: attack cards strongest first (FINAL
#: ATTACK, 5, 4, 3, 2, 1), then the specials kept back (shield, then upgrade).
_STRONG_ORDER = np.array([7, 4, 3, 2, 1, 0, 6, 5], np.int64)
#: Parameters (float64): budget, budget per card, sacrifice battle (-1: random), victory cards.
P_BUDGET, P_PER_CARD, P_SACRIFICE, P_VICTORY = range(4)


@jit
def _total(cards: np.ndarray) -> int:
    value = 0
    for k in range(_K):
        value += _VALUES[k] * cards[k]
    return 2 * value if cards[_UPGRADE] > 0 else value


@jit
def _count(cards: np.ndarray) -> int:
    n = 0
    for k in range(_K):
        n += cards[k]
    return n


@jit
def _shield_target(mine: np.ndarray, theirs: np.ndarray) -> int:
    """The opposing kind whose removal leaves the opponent weakest (-1: none)."""
    best, b0, b1 = -1, 0, 0
    for k in range(_K):
        if theirs[k] > 0:
            theirs[k] -= 1
            d0 = _total(mine) - _total(theirs)
            d1 = _count(mine) - _count(theirs)
            theirs[k] += 1
            if best < 0 or d0 > b0 or (d0 == b0 and d1 > b1):  # tuples compared
                best, b0, b1 = k, d0, d1
    return best


@jit
def _play(
    mine: np.ndarray, theirs: np.ndarray, kind: int, out_mine: np.ndarray, out_theirs: np.ndarray
) -> None:
    """Both sides after ``kind`` is played face up (a shield hits its best target)."""
    for k in range(_K):
        out_mine[k] = mine[k]
        out_theirs[k] = theirs[k]
    out_mine[kind] += 1
    if kind == _SHIELD:
        target = _shield_target(out_mine, out_theirs)
        if target >= 0:
            out_theirs[target] -= 1


@jit
def _key(mine: np.ndarray, theirs: np.ndarray) -> float:
    return (_total(mine) - _total(theirs)) + 0.01 * (_count(mine) - _count(theirs))


@jit
def _leads(mine: np.ndarray, theirs: np.ndarray) -> bool:
    """standing(mine, theirs) > (0, 0)."""
    d0 = _total(mine) - _total(theirs)
    return d0 > 0 or (d0 == 0 and _count(mine) > _count(theirs))


@jit
def _choose(scores: np.ndarray, allowed: np.ndarray, u: float) -> int:
    """``common.choose``: the best score among ``allowed``, ties (1e-9) uniform by ``u``."""
    best = -np.inf
    for a in range(scores.size):
        if allowed[a] and scores[a] > best:
            best = scores[a]
    ties = 0
    for a in range(scores.size):
        if allowed[a] and scores[a] >= best - 1e-9:
            ties += 1
    pick = int(u * ties)
    for a in range(scores.size):
        if allowed[a] and scores[a] >= best - 1e-9:
            if pick == 0:
                return a
            pick -= 1
    return -1


@jit
def _plan_commit(hand: np.ndarray, sacrifice: int, plan: np.ndarray) -> int:
    """The scalar's ``_plan_commit`` into ``plan``; returns its length."""
    n = _count(hand)
    first = plan.copy()  # the three strongest cards (as many as there are)
    cheap, cheap_worth = -1, np.inf  # the first cheapest card after the two strongest
    position = 0
    for j in range(_K):
        kind = _STRONG_ORDER[j]
        for _ in range(hand[kind]):
            if position < 3:
                first[position] = kind
            if position >= 2 and WORTH[kind] < cheap_worth:
                cheap, cheap_worth = kind, WORTH[kind]
            position += 1
    if n <= 2:
        for j in range(n):
            plan[j] = first[j]
        return n
    if hand[3] + hand[4] + hand[_FINAL] >= 3 and n >= 6:
        for j in range(3):
            plan[j] = first[j]
        return 3
    position = 0
    for battle in range(NUM_BATTLES):
        if battle == sacrifice:
            plan[battle] = cheap
        else:
            plan[battle] = first[position]
            position += 1
    return 3


@jit
def _catch_up(hand: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> tuple[int, float]:
    """The scalar's greedy ``_catch_up``: (first card, worth spent) or (-1, inf)."""
    hand = hand.copy()
    mine = mine.copy()
    theirs = theirs.copy()
    after_mine = np.empty(_K, np.int64)
    after_theirs = np.empty(_K, np.int64)
    first = -1
    spent = 0.0
    while _count(hand) > 0:
        before = _key(mine, theirs)
        best, best_ratio = hand[0] * 0 - 1, -np.inf  # an int64, not a literal: one _play
        for option in range(_K):
            if hand[option] > 0:
                _play(mine, theirs, option, after_mine, after_theirs)
                ratio = (_key(after_mine, after_theirs) - before) / WORTH[option]
                if best < 0 or ratio > best_ratio:
                    best, best_ratio = option, ratio
        # (``after`` is kept from the last option tried; replay the best one)
        _play(mine, theirs, best, after_mine, after_theirs)
        for k in range(_K):
            mine[k] = after_mine[k]
            theirs[k] = after_theirs[k]
        hand[best] -= 1
        spent += WORTH[best]
        if first < 0:
            first = best
        if _leads(mine, theirs):
            return first, spent
    return -1, np.inf


@jit
def _act_kernel(
    obs: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    slots: np.ndarray,
    plans: np.ndarray,
    plan_sizes: np.ndarray,
    uniforms: np.ndarray,
    worths: np.ndarray,
    params: np.ndarray,
    offsets: np.ndarray,
    out: np.ndarray,
) -> None:
    hand = np.empty(_K, np.int64)
    mine = np.empty(_K, np.int64)
    theirs = np.empty(_K, np.int64)
    after_mine = np.empty(_K, np.int64)
    after_theirs = np.empty(_K, np.int64)
    scores = np.zeros(NUM_ACTIONS)
    allowed = np.zeros(NUM_ACTIONS, np.bool_)
    o_hand, o_bc, o_battle, o_won = offsets[0], offsets[1], offsets[2], offsets[3]
    o_pawns, o_decision, o_slot = offsets[4], offsets[5], offsets[6]
    for r in range(obs.shape[0]):
        row = obs[r]
        u = uniforms[r, 0]
        for a in range(NUM_ACTIONS):
            allowed[a] = masks[r, a]
        decision = 0
        for d in range(4):
            if row[o_decision + d] > row[o_decision + decision]:
                decision = d
        for k in range(_K):
            hand[k] = int(row[o_hand + k])
            mine[k] = int(row[o_bc + k])
            theirs[k] = int(row[o_bc + _K + k])
        if decision == COMMIT:
            slot = 0
            for b in range(1, NUM_BATTLES):
                if row[o_slot + b] > row[o_slot + slot]:
                    slot = b
            game, seat = slots[r], seats[r]
            plan = plans[game, seat]
            if slot == 0 or plan_sizes[game, seat] == 0:
                sacrifice = int(params[P_SACRIFICE])
                if sacrifice < 0:
                    sacrifice = int(uniforms[r, 1] * NUM_BATTLES)
                plan_sizes[game, seat] = _plan_commit(hand, sacrifice, plan)
            planned = plan[slot] if slot < plan_sizes[game, seat] else -1
            if planned >= 0 and hand[planned] > 0:
                out[r] = planned
            else:  # the plan no longer fits: play strong
                for k in range(_K):
                    scores[k] = STRIKE[k]
                out[r] = _choose(scores[:_K], allowed[:_K], u)
            continue
        if decision == SHIELD_TARGET:
            for k in range(_K):
                if allowed[SHIELD_BASE + k]:
                    theirs[k] -= 1
                    scores[SHIELD_BASE + k] = _key(mine, theirs)
                    theirs[k] += 1
            out[r] = SHIELD_BASE + _choose(scores[SHIELD_BASE:], allowed[SHIELD_BASE:], u)
            continue
        battle = 0
        for b in range(1, NUM_BATTLES):
            if row[o_battle + b] > row[o_battle + battle]:
                battle = b
        worth = worths[battle, int(row[o_won]), int(row[o_won + 1])]
        if max(row[o_pawns], row[o_pawns + 1]) >= params[P_VICTORY] - 1:
            worth *= 1.5
        if decision == STANDOFF_PLAY:
            for k in range(_K):
                scores[k] = STRIKE[k] if worth >= 0.5 else -WORTH[k]
            out[r] = _choose(scores[:_K], allowed[:_K], u)
            continue
        # PLAY_OR_CONCEDE
        budget = worth * (params[P_BUDGET] + params[P_PER_CARD] * _count(hand))
        leading = False
        cheapest = np.inf
        for k in range(_K):
            allowed[k] = False
            if masks[r, k]:
                _play(mine, theirs, k, after_mine, after_theirs)
                if _leads(after_mine, after_theirs):
                    allowed[k] = True
                    leading = True
                    scores[k] = -WORTH[k]
                    cheapest = min(cheapest, WORTH[k])
        out[r] = CONCEDE
        if leading:
            if cheapest <= budget:
                out[r] = _choose(scores[:_K], allowed[:_K], u)
        else:
            first, cost = _catch_up(hand, mine, theirs)
            if first >= 0 and cost <= budget:
                out[r] = first


class VectorIronManWarHeuristic:
    """``IronManStrategy`` (same parameters) for ``M`` rows at once: ``act`` returns each
    row's action. Commit plans are remembered per (game slot, seat)."""

    def __init__(
        self,
        env_spec: EnvSpec,
        budget: float = 3.0,
        budget_per_card: float = 0.6,
        sacrifice_battle: int | None = None,
    ) -> None:
        self.data = EnvData(env_spec)
        layout = self.data.layout
        self.params = np.array(
            [
                budget,
                budget_per_card,
                -1 if sacrifice_battle is None else sacrifice_battle,
                self.data.game.victory_cards,
            ],
            np.float64,
        )
        names = ("hand", "battle_cards", "battle", "battles_won", "pawns", "decision")
        self.offsets = np.array([layout[name].start for name in (*names, "commit_slot")], np.int64)
        self.worths = np.array(
            [
                [[battle_worth(b, won, lost) for lost in range(4)] for won in range(4)]
                for b in range(NUM_BATTLES)
            ]
        )
        self.plans = np.full((0, 2, NUM_BATTLES), -1, np.int64)
        self.plan_sizes = np.zeros((0, 2), np.int64)

    def new_games(self, slots: np.ndarray) -> None:
        """Forget the commit plans of the games in ``slots`` (they start anew)."""
        slots = np.asarray(slots, np.int64)
        slots = slots[slots < self.plan_sizes.shape[0]]
        self.plan_sizes[slots] = 0

    def _ensure(self, size: int) -> None:
        if size > self.plan_sizes.shape[0]:
            grow = max(size, 2 * self.plan_sizes.shape[0])
            plans = np.full((grow, 2, NUM_BATTLES), -1, np.int64)
            sizes = np.zeros((grow, 2), np.int64)
            plans[: self.plans.shape[0]] = self.plans
            sizes[: self.plan_sizes.shape[0]] = self.plan_sizes
            self.plans, self.plan_sizes = plans, sizes

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator,
        slots: np.ndarray | None = None,
    ) -> np.ndarray:
        """One action per row: ``observations`` float32 ``[M, D]`` raw (unscaled), ``masks``
        bool ``[M, A]``, ``seats`` the seat each row is for, ``slots`` the game each row is
        from (default: row ``i`` is game ``i``), for the commit plans."""
        observations = np.ascontiguousarray(observations, np.float32)
        masks = np.ascontiguousarray(masks, np.bool_)
        rows = observations.shape[0]
        seats = np.asarray(seats, np.int64)
        slots = np.arange(rows, dtype=np.int64) if slots is None else np.asarray(slots, np.int64)
        check_rows_have_actions(masks)
        self._ensure(int(slots.max()) + 1 if rows else 0)
        out = np.zeros(rows, np.int64)
        _act_kernel(
            observations,
            masks,
            seats,
            slots,
            self.plans,
            self.plan_sizes,
            rng.random((rows, 2)),
            self.worths,
            self.params,
            self.offsets,
            out,
        )
        return out


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__, names={"BatchedIronManWarHeuristic": "VectorIronManWarHeuristic"}
    )
