"""The Beast Wars heuristic (``beast_wars.py``) for many observation rows at once.

Same decisions as ``BeastWarsStrategy.act`` row by row: a compiled loop (``kernels.jit``)
scores every legal action of each row the way the scalar strategy scores the set it chooses
from (draft strength in setup; in play the attacks if one is clearly good, else the
reinforcements, else the moves, else the attacks), with ``-inf`` for every other action; the
row's action is then drawn uniformly among the scores within ``choose``'s tolerance of the
best, as ``choose`` breaks ties. The scalar strategy keeps no memory across a game beyond its
seat, which ``act`` takes per row, so there is no per-slot state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardarena.envs.beast_wars.rules import (
    CARD_BONUS,
    FIRST_ROWS,
    MAX_FACTION,
    NEIGHBOURS,
    NUM_ACTIONS,
    NUM_CARD_KINDS,
    NUM_CELLS,
    OPPOSITE,
)
from cardarena.envs.beast_wars.vector import (
    O_CARDS,
    O_CHARACTER,
    O_FACE,
    O_OWNER,
    O_PHASE,
    OBSERVATION_SIZE,
)
from cardarena.envs.core.kernels import best_actions, jit
from cardarena.envs.core.moved import deprecate

from ..base import EnvSpec
from .beast_wars import BeastWarsStrategy
from .common import check_rows_have_actions

#: ``choose``'s default tolerance: scores this close to the best are ties.
TOLERANCE = 1e-9
_EMPTY, _MINE, _ENEMY = 0, 1, 2
_NEIGH = NEIGHBOURS.astype(np.int64)
_OPPOSITE = np.array(OPPOSITE, np.int64)
_FIRST_ROWS = np.array(FIRST_ROWS, np.int64)
_BONUS = np.array(CARD_BONUS, np.float64)
_SELECT, _PLAY = 0, 2
_ATTACK, _REINFORCE, _PICK, _PASS = 48, 96, 240, 252
_KEYS = (2 * MAX_FACTION) * 2  # (piece, face) pairs of the odds memo


@jit
def _pairwise_sum(values: np.ndarray, count: int) -> float:
    """numpy's float64 ``sum`` of ``values[:count]`` (``count`` <= 256) bit for bit, which
    the scalar strategy's ``weights[mask].sum()`` computes (a gain exactly at the attack
    margin must fall on the same side): pairwise halves (split at a multiple of 8) down to
    leaves of at most 128, each summed with eight accumulators. Here at most three leaves, in
    one loop (no recursion: numba's cache mishandles it)."""
    first, second, third = count, 0, 0
    if count > 128:
        first = count // 2 - (count // 2) % 8
        second = count - first
        if second > 128:
            rest = second
            second = rest // 2 - (rest // 2) % 8
            third = rest - second
    sums = np.zeros(3)
    for leaf in range(3):
        start = 0 if leaf == 0 else (first if leaf == 1 else first + second)
        size = first if leaf == 0 else (second if leaf == 1 else third)
        if size < 8:
            total = 0.0
            for i in range(size):
                total += values[start + i]
        else:
            r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
            r4, r5 = values[start + 4], values[start + 5]
            r6, r7 = values[start + 6], values[start + 7]
            i = 8
            while i < size - size % 8:
                at = start + i
                r0 += values[at]
                r1 += values[at + 1]
                r2 += values[at + 2]
                r3 += values[at + 3]
                r4 += values[at + 4]
                r5 += values[at + 5]
                r6 += values[at + 6]
                r7 += values[at + 7]
                i += 8
            total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
            while i < size:
                total += values[start + i]
                i += 1
        sums[leaf] = total
    if third:
        return sums[0] + (sums[1] + sums[2])
    if second:
        return sums[0] + sums[1]
    return sums[0]


@jit
def _gain(owner: np.ndarray, piece: np.ndarray, face: np.ndarray, code: int,
          numbers: np.ndarray, draw: np.ndarray, worth: np.ndarray, push: float,
          memo: np.ndarray, row: int) -> float:  # fmt: skip
    """``BeastWarsStrategy.attack_gain`` of the attack ``code`` = ``cell * 4 + dir`` (the
    attacker is whoever stands on the cell); ``Odds.chances`` memoised per row in ``memo``
    ``[(piece, face), (piece, face)] -> (row it was computed for, win, lose)``."""
    cell, direction = code // 4, code % 4
    target = _NEIGH[cell, direction]
    attacker, defender = piece[cell], piece[target]
    a, d = attacker * 2 + face[cell], defender * 2 + face[target]
    if memo[a, d, 0] != row:
        mine = np.empty(NUM_CARD_KINDS)
        theirs = np.empty(NUM_CARD_KINDS)
        for card in range(NUM_CARD_KINDS):
            colour, kind = card // 4, card % 4
            flip = 1 if kind == 1 else 0  # a Mutate flips the face first
            mine[card] = numbers[attacker, abs(flip - face[cell]), colour] + _BONUS[kind]
            theirs[card] = numbers[defender, abs(flip - face[target]), colour] + _BONUS[kind]
        wins = np.empty(NUM_CARD_KINDS**2)
        losses = np.empty(NUM_CARD_KINDS**2)
        won = lost = 0
        for i in range(NUM_CARD_KINDS):
            for j in range(NUM_CARD_KINDS):
                if mine[i] > theirs[j]:
                    wins[won] = draw[i, j]
                    won += 1
                elif mine[i] < theirs[j]:
                    losses[lost] = draw[i, j]
                    lost += 1
        memo[a, d, 0] = row
        memo[a, d, 1] = _pairwise_sum(wins, won)
        memo[a, d, 2] = _pairwise_sum(losses, lost)
    behind = _NEIGH[target, direction]
    gain = worth[defender] if behind < 0 or owner[behind] != _EMPTY else push
    back = _NEIGH[cell, _OPPOSITE[direction]]
    loss = worth[attacker] if back < 0 or owner[back] != _EMPTY else push
    return memo[a, d, 1] * gain - memo[a, d, 2] * loss


@jit
def _dangers(owner: np.ndarray, piece: np.ndarray, face: np.ndarray, numbers: np.ndarray,
             draw: np.ndarray, worth: np.ndarray, push: float, memo: np.ndarray, row: int,
             out: np.ndarray) -> None:  # fmt: skip
    """``BeastWarsStrategy.danger`` of each of my cells (the best expected gain of an enemy
    attack on it) into ``out`` (0 elsewhere)."""
    for cell in range(NUM_CELLS):
        worst = 0.0
        if owner[cell] == _MINE:
            for direction in range(4):
                source = _NEIGH[cell, direction]
                if source >= 0 and owner[source] == _ENEMY:
                    code = source * 4 + _OPPOSITE[direction]
                    gain = _gain(owner, piece, face, code, numbers, draw, worth, push, memo, row)
                    worst = max(worst, gain)
        out[cell] = worst


@jit
def _score_rows(observations: np.ndarray, masks: np.ndarray, seats: np.ndarray,
                numbers: np.ndarray, strength: np.ndarray, worth: np.ndarray,
                params: np.ndarray, scores: np.ndarray) -> None:  # fmt: skip
    """Per row, the scores of the actions the scalar strategy chooses from; ``-inf`` else."""
    margin, push, caution = params[0], params[1], params[2]
    memo = np.full((_KEYS, _KEYS, 3), -1.0)
    draw = np.empty((NUM_CARD_KINDS, NUM_CARD_KINDS))
    deck = np.empty(NUM_CARD_KINDS)
    rest = np.empty(NUM_CARD_KINDS)
    legal = np.zeros(NUM_ACTIONS, np.int64)  # zeros: entries past a row's count read as 0
    values = np.empty(NUM_ACTIONS)
    owner = np.empty(NUM_CELLS, np.int64)
    piece = np.empty(NUM_CELLS, np.int64)
    face = np.empty(NUM_CELLS, np.int64)
    after_owner = np.empty(NUM_CELLS, np.int64)
    after_piece = np.empty(NUM_CELLS, np.int64)
    after_face = np.empty(NUM_CELLS, np.int64)
    before = np.empty(NUM_CELLS)
    after = np.empty(NUM_CELLS)
    for row in range(observations.shape[0]):
        obs = observations[row]
        out = scores[row]
        for action in range(NUM_ACTIONS):
            out[action] = -np.inf
        side = seats[row]
        count = 0
        for action in range(NUM_ACTIONS):
            if masks[row, action]:
                legal[count] = action
                count += 1
        if count == 0:
            continue
        phase = 0
        for k in range(1, 3):
            if obs[O_PHASE + k] > obs[O_PHASE + phase]:
                phase = k
        base = side * MAX_FACTION
        if legal[0] >= _PICK and legal[count - 1] < _PASS:  # setup: draft strength
            for k in range(count):
                values[k] = strength[base + legal[k] - _PICK]
            if phase != _SELECT:
                placed = 0
                for column in range(3):
                    placed += obs[O_OWNER + _FIRST_ROWS[side, column] * 3 + _MINE] > 0
                if placed == 0 and count > 1:  # the middle column gets the strongest
                    top = 0  # the second value of the sorted strengths (numba's sort
                    for k in range(1, count):  # takes seconds to compile)
                        if values[k] > values[top]:
                            top = k
                    second = -np.inf
                    for k in range(count):
                        if k != top:
                            second = max(second, values[k])
                    for k in range(count):
                        values[k] = -abs(values[k] - second)
            for k in range(count):
                out[legal[k]] = values[k]
            continue
        if phase != _PLAY or (count == 1 and legal[0] == _PASS):
            for k in range(count):
                out[legal[k]] = 0.0
            continue
        # ``Board.from_view``: owner, piece id (-1 empty) and face per cell.
        for cell in range(NUM_CELLS):
            o = 0
            for k in range(1, 3):
                if obs[O_OWNER + cell * 3 + k] > obs[O_OWNER + cell * 3 + o]:
                    o = k
            member = 0
            at = O_CHARACTER + cell * MAX_FACTION
            for k in range(1, MAX_FACTION):
                if obs[at + k] > obs[at + member]:
                    member = k
            owner[cell] = o
            faction = side if o == _MINE else 1 - side
            piece[cell] = -1 if o == _EMPTY else faction * MAX_FACTION + member
            face[cell] = 1 if obs[O_FACE + cell * 2 + 1] > obs[O_FACE + cell * 2] else 0
        # ``draw_chances``: the attacker's and the defender's card kinds.
        total = discards = 0.0
        for k in range(NUM_CARD_KINDS):
            deck[k] = obs[O_CARDS + k]
            rest[k] = obs[O_CARDS + NUM_CARD_KINDS + k]
            total += deck[k]
            discards += rest[k]
        if total == 0:  # the defender, too, draws from the reshuffled discards
            for k in range(NUM_CARD_KINDS):
                deck[k], rest[k] = rest[k], 0.0
            total, discards = discards, 0.0
        for i in range(NUM_CARD_KINDS):
            for j in range(NUM_CARD_KINDS):
                if total >= 2:
                    same = deck[i] if i == j else 0.0
                    draw[i, j] = (deck[i] * deck[j] - same) / (total * (total - 1))
                elif total == 1 and discards > 0:
                    draw[i, j] = deck[i] * rest[j] / discards
                else:
                    draw[i, j] = 1.0 / NUM_CARD_KINDS**2
        attacks = moves = reinforcements = 0
        best_gain = -np.inf
        for k in range(count):
            action = legal[k]
            if _ATTACK <= action < _REINFORCE:
                code = action - _ATTACK
                values[k] = _gain(owner, piece, face, code, numbers, draw, worth, push, memo, row)
                best_gain = max(best_gain, values[k])
                attacks += 1
            elif action < _ATTACK:
                moves += 1
            elif action < _PICK:
                reinforcements += 1
        if attacks and (best_gain > margin or not (reinforcements or moves)):
            for k in range(count):
                if _ATTACK <= legal[k] < _REINFORCE:
                    out[legal[k]] = values[k]
            continue
        _dangers(owner, piece, face, numbers, draw, worth, push, memo, row, before)
        for k in range(count):
            action = legal[k]
            if reinforcements:
                if not _REINFORCE <= action < _PICK:
                    continue
                cell = target = (action - _REINFORCE) // MAX_FACTION
                member = base + (action - _REINFORCE) % MAX_FACTION
            elif moves:
                if action >= _ATTACK:
                    continue
                cell, target = action // 4, _NEIGH[action // 4, action % 4]
            else:  # nothing but pass
                out[action] = 0.0
                continue
            for other in range(NUM_CELLS):
                after_owner[other], after_piece[other] = owner[other], piece[other]
                after_face[other] = face[other]
            if reinforcements:
                after_owner[cell], after_piece[cell], after_face[cell] = _MINE, member, 0
            else:
                after_owner[target], after_piece[target] = owner[cell], piece[cell]
                after_face[target] = face[cell]
                after_owner[cell], after_piece[cell], after_face[cell] = _EMPTY, -1, 0
            _dangers(after_owner, after_piece, after_face, numbers, draw, worth, push, memo,
                     row, after)  # fmt: skip
            if reinforcements:
                out[action] = strength[member] - 2.0 * caution * after[cell]
                continue
            # ``move_score``: danger where it goes, exposure of the others, closing in, and
            # the best attack from there.
            exposure = 0.0
            near_before = near_after = 1 << 30
            for other in range(NUM_CELLS):
                if owner[other] == _MINE and other != cell:
                    exposure += after[other] - before[other]
                elif owner[other] == _ENEMY:
                    line, column = other // 3, other % 3
                    near_before = min(near_before, abs(cell // 3 - line) + abs(cell % 3 - column))
                    near_after = min(near_after, abs(target // 3 - line) + abs(target % 3 - column))
            advance = 0.0 if near_before == 1 << 30 else float(near_before - near_after)
            chances = 0.0
            for direction in range(4):
                victim = _NEIGH[target, direction]
                if victim >= 0 and after_owner[victim] == _ENEMY:
                    gain = _gain(
                        after_owner, after_piece, after_face, target * 4 + direction, numbers,
                        draw, worth, push, memo, row,
                    )  # fmt: skip
                    chances = max(chances, gain)
            change = after[target] - before[cell] + exposure
            out[action] = 0.3 * advance + 0.5 * chances - caution * change


class VectorBeastWarsHeuristic:
    """``BeastWarsStrategy`` (same parameters) for rows of raw observations."""

    def __init__(
        self,
        env_spec: EnvSpec,
        attack_margin: float = 0.05,
        push: float = 0.1,
        caution: float = 1.0,
    ) -> None:
        #: The scalar strategy gives the tables (numbers, strength, worth) bit for bit.
        self.strategy = BeastWarsStrategy(env_spec, attack_margin, push, caution)
        layout = self.strategy.layout
        if layout.size != OBSERVATION_SIZE or layout["phase"].start != O_PHASE:
            raise AssertionError("beast_wars observation layout changed")
        self.numbers = np.ascontiguousarray(self.strategy.numbers, np.float64)
        self.strength = np.ascontiguousarray(self.strategy.strength, np.float64)
        self.worth = np.ascontiguousarray(self.strategy.worth, np.float64)
        self.params = np.array([attack_margin, push, caution], np.float64)

    def scores(self, observations: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float64 ``[M, A]``: each row's candidate scores, ``-inf`` for the other actions."""
        observations = np.ascontiguousarray(observations, np.float32)
        masks = np.ascontiguousarray(masks, np.bool_)
        seats = np.ascontiguousarray(seats, np.int64)
        scores = np.empty(masks.shape, np.float64)
        _score_rows(
            observations, masks, seats, self.numbers, self.strength, self.worth, self.params,
            scores,
        )  # fmt: skip
        return scores

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """int64 ``[M]``: one action per row (``seats[i]`` to act), ties broken with ``rng``."""
        check_rows_have_actions(masks)
        scores = self.scores(observations, masks, seats)
        return best_actions(scores, rng.random(scores.shape[0]), TOLERANCE)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__, names={"BatchedBeastWarsHeuristic": "VectorBeastWarsHeuristic"}
    )
