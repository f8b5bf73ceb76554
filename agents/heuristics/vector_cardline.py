"""The Cardline ``heuristic`` (``cardline.CardlineStrategy`` at knowledge ``"observed"``) on many
observation rows at once.

Per row, as the scalar strategy: a card whose value was revealed earlier (``hand_known_value``)
is right in a gap iff ``lower <= value <= upper``; any other card's chance in a gap is the
share of the values seen this game (``known_value``) inside the gap, smoothed towards uniform
ranks: ``(seen inside + PRIOR_WEIGHT * width) / (seen + PRIOR_WEIGHT)``. That chance depends on
the gap alone, so it is computed once per row (each seen value lies in a run of gaps, found
by bisection since the line's gap bounds ascend), with the same float64 operations in the
same order as the scalar, so the scores are bit for bit the scalar's. The best legal action
wins; ties (within ``choose``'s tolerance) are broken uniformly with one uniform per row from
``rng``.

The ``heuristic`` level remembers nothing across turns (``start_game`` draws nothing for it),
so no per-slot state is needed. The ``oracle``, ``noisy`` and ``memory`` agents have no twin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardarena.envs.core.kernels import jit
from cardarena.envs.core.moved import deprecate

from ..base import EnvSpec
from .cardline import PRIOR_WEIGHT
from .common import EnvData, check_rows_have_actions

#: ``choose``'s default tolerance: scores this close to the best are ties.
TOLERANCE = 1e-9


@jit
def _act(
    observations: np.ndarray,
    masks: np.ndarray,
    uniforms: np.ndarray,
    offsets: np.ndarray,
    held: np.ndarray,
    gaps: int,
    inside: np.ndarray,
    chances: np.ndarray,
    scores: np.ndarray,
    out: np.ndarray,
) -> None:
    """The heuristic's action per row (module docstring); ``inside``, ``chances`` and
    ``scores`` are scratch rows."""
    known_at, known_len, hand_known, lower_at, upper_at, line_at = offsets
    for m in range(observations.shape[0]):
        open_gaps = int(observations[m, line_at]) + 1
        # How many seen values lie in each open gap: each value lies in the gaps from the
        # first whose upper bound reaches it to the last whose lower bound does (both bounds
        # ascend with the gap), added up as differences in ``inside``.
        inside[:open_gaps] = 0  # (the end mark at open_gaps is never read in this row)
        count = 0
        for card in range(known_len):
            value = np.float64(observations[m, known_at + card])
            if value < 0:
                continue
            count += 1
            first, stop = 0, open_gaps  # first gap with upper >= value
            while first < stop:
                middle = (first + stop) // 2
                if np.float64(observations[m, upper_at + middle]) >= value:
                    stop = middle
                else:
                    first = middle + 1
            last, stop = -1, open_gaps - 1  # last gap with lower <= value
            while last < stop:
                middle = (last + stop + 1) // 2
                if np.float64(observations[m, lower_at + middle]) <= value:
                    last = middle
                else:
                    stop = middle - 1
            if first <= last:
                inside[first] += 1
                inside[last + 1] -= 1
        # A card never revealed: its chance per open gap.
        running = 0
        for gap in range(open_gaps):
            running += inside[gap]
            lower = np.float64(observations[m, lower_at + gap])
            upper = np.float64(observations[m, upper_at + gap])
            width = min(max(min(upper, 1.0) - max(lower, 0.0), 0.0), 1.0)
            if count == 0:
                chances[gap] = width
            else:
                chances[gap] = (running + PRIOR_WEIGHT * width) / (count + PRIOR_WEIGHT)
        # Scores of the legal actions (slot, gap): a card held, an open gap (``act`` checked
        # that the mask has no other).
        for slot in range(held[m]):
            known = np.float64(observations[m, hand_known + slot])
            for gap in range(open_gaps):
                action = slot * gaps + gap
                if not masks[m, action]:
                    continue
                score = chances[gap]
                if known >= 0:
                    lower = np.float64(observations[m, lower_at + gap])
                    upper = np.float64(observations[m, upper_at + gap])
                    score = 1.0 if lower <= known and known <= upper else 0.0
                scores[action] = score
        out[m] = _nth_best(scores, masks[m], uniforms[m])


@jit
def _nth_best(scores: np.ndarray, legal: np.ndarray, u: float) -> int:
    """``choose``: the legal actions scoring within ``TOLERANCE`` of the best are tied, and
    the k-th of them (in action order) is taken, k = floor(u * ties) (< ties: u < 1)."""
    best = -np.inf
    for action in range(scores.size):
        if legal[action]:
            best = max(best, scores[action])
    ties = 0
    for action in range(scores.size):
        if legal[action] and scores[action] >= best - TOLERANCE:
            ties += 1
    pick = int(u * ties)
    for action in range(scores.size):
        if legal[action] and scores[action] >= best - TOLERANCE:
            if pick == 0:
                return action
            pick -= 1
    return -1  # unreachable: ``act`` refuses a row without a legal action


class VectorCardlineHeuristic:
    """``CardlineStrategy`` (``heuristic``) for ``M`` rows: ``act(observations, masks, seats,
    rng)``."""

    def __init__(self, env_spec: EnvSpec) -> None:
        self.data = EnvData(env_spec)
        layout = self.data.layout
        game = self.data.game
        self.gaps: int = game.num_gaps
        self.hand_size: int = game.hand_size
        self._sizes_at: int = layout["hand_sizes"].start
        self._line_at: int = layout["line_length"].start
        actions = np.arange(self.hand_size * self.gaps)
        self._slot_of, self._gap_of = actions // self.gaps, actions % self.gaps
        known = layout["known_value"]
        self._offsets = np.array(
            [
                known.start,
                known.stop - known.start,
                layout["hand_known_value"].start,
                layout["gap_lower"].start,
                layout["gap_upper"].start,
                layout["line_length"].start,
            ],
            np.int64,
        )

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """One action per row: the raw (unscaled) observation and legal mask of seat
        ``seats[m]``, the player to act in that row (the observation is already that
        seat's view, so ``seats`` plays no part)."""
        observations = np.ascontiguousarray(observations, np.float32)
        masks = np.ascontiguousarray(masks, np.bool_)
        rows = observations.shape[0]
        check_rows_have_actions(masks)
        held = self._playable(observations, masks)
        if rng is None:
            rng = np.random.default_rng()
        uniforms = rng.random(rows)
        out = np.zeros(rows, np.int64)
        _act(
            observations, masks, uniforms, self._offsets, held, self.gaps,
            np.zeros(self.gaps + 1, np.int64), np.zeros(self.gaps), np.zeros(masks.shape[1]), out,
        )  # fmt: skip
        return out

    def _playable(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The cards held per row, after checking that every legal action places a held card
        in an open gap, as Cardline's masks do (the kernel looks nowhere else)."""
        if masks.shape[1] != self._slot_of.size:
            raise ValueError(
                f"masks have {masks.shape[1]} actions; this config has {self._slot_of.size}"
            )
        held = observations[:, self._sizes_at].astype(np.int64)
        open_gaps = observations[:, self._line_at].astype(np.int64) + 1
        beyond = np.flatnonzero((held > self.hand_size) | (open_gaps > self.gaps))
        if beyond.size:
            row = int(beyond[0])
            raise ValueError(
                f"row {row} is not an observation of this config: {held[row]} cards held and "
                f"{open_gaps[row]} open gaps, at most {self.hand_size} and {self.gaps}"
            )
        playable = (self._slot_of < held[:, None]) & (self._gap_of < open_gaps[:, None])
        outside = masks & ~playable
        if outside.any():
            row, action = (int(i) for i in np.argwhere(outside)[0])
            raise ValueError(
                f"row {row}: legal action {action} (card slot {self._slot_of[action]}, gap "
                f"{self._gap_of[action]}) is outside the {held[row]} cards held and "
                f"{open_gaps[row]} open gaps; Cardline's masks never hold one"
            )
        return held

    def __repr__(self) -> str:
        return "VectorCardlineHeuristic()"


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, names={"BatchedCardlineHeuristic": "VectorCardlineHeuristic"})

__all__ = ["VectorCardlineHeuristic"]
