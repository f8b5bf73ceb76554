"""The Promise War heuristic (``promise_war.PromiseWarStrategy``) on many observation rows at once.

Same card counting, same float64 operations in the same order (the opponent products run seat
by seat, a seat out of the contest multiplying by an exact 1.0), so every row gets the scalar
strategy's action. The scalar's only memory across a game is its seat, given here per row, so
no per-slot state is needed. Its ``choose`` never meets a tie: every score is minus or plus
the power itself, distinct for distinct actions, so ``rng`` is not drawn from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardarena.envs.core.moved import deprecate
from cardarena.envs.promise_war.rules import TIEBREAK

from ..base import EnvSpec
from .common import EnvData, check_rows_have_actions


class VectorPromiseWarHeuristic:
    """``PromiseWarStrategy`` for ``M`` rows: ``act(observations, masks, seats, rng)``."""

    def __init__(self, env_spec: EnvSpec, threshold: float | None = None) -> None:
        self.data = EnvData(env_spec)
        layout = self.data.layout
        game = self.data.game
        self.num_players: int = game.num_players
        self.powers: int = game.max_power + 1
        self.threshold = threshold
        #: Every seat's full deck, counts per power (absolute seats).
        self.decks = np.array(
            [np.bincount(deck, minlength=self.powers) for deck in game.decks], dtype=np.float64
        )
        self._phase = layout["phase"]
        self._contest = layout["in_contest"]
        self._revealed = layout["revealed"]

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """One action per row: the raw (unscaled) observation and legal mask of seat
        ``seats[m]``, the player to act in that row."""
        n, powers = self.num_players, self.powers
        rows = observations.shape[0]
        masks = np.asarray(masks, np.bool_)
        if rows == 0:
            return np.zeros(0, np.int64)
        check_rows_have_actions(masks)
        seats = np.asarray(seats, np.int64)
        phase = observations[:, self._phase]
        tiebreak = np.argmax(phase, axis=1) == TIEBREAK
        contest = observations[:, self._contest]
        revealed = observations[:, self._revealed].reshape(rows, n, powers)
        order = (seats[:, None] + np.arange(n)[None, :]) % n
        unseen = np.clip(self.decks[order] - revealed, 0.0, None)  # [M, n, P], float64
        size = unseen.sum(axis=2)
        cumulative = np.zeros((rows, n, powers + 1))
        np.cumsum(unseen, axis=2, out=cumulative[:, :, 1:])
        counted = (contest != 0) & (size > 0)
        cumulative /= np.where(counted, size, 1.0)[:, :, None]
        below = np.ones((rows, powers))
        at_most = np.ones((rows, powers))
        for rel in range(1, n):
            use = counted[:, rel, None]
            below *= np.where(use, cumulative[:, rel, :powers], 1.0)  # P(card < p)
            at_most *= np.where(use, cumulative[:, rel, 1:], 1.0)  # P(card <= p)
        win, tie = below, at_most - below
        opponents = np.maximum(contest[:, 1:].sum(axis=1).astype(np.int64), 1)
        threshold = 1.0 / opponents if self.threshold is None else np.full(rows, self.threshold)
        likely = (win + 0.5 * tie >= (threshold - 1e-9)[:, None]) & masks
        lowest = np.argmax(masks, axis=1)
        lowest_likely = np.argmax(likely, axis=1)
        highest = powers - 1 - np.argmax(masks[:, ::-1], axis=1)
        trick = np.where(likely.any(axis=1), lowest_likely, lowest)
        return np.where(tiebreak, highest, trick).astype(np.int64)


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__, names={"BatchedPromiseWarHeuristic": "VectorPromiseWarHeuristic"}
    )
