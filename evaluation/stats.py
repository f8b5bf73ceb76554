"""Statistics for match results: Wilson score intervals and Bradley-Terry ratings.

Both take scores in which a draw counts half a win to each side. Ratings are on the Elo scale:
a rating difference ``d`` means the stronger side is expected to score ``1 / (1 + 10**(-d/400))``
of the points between the two (+400 = 10:1 odds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

#: Elo points per logit: 400 / ln(10).
ELO_PER_LOGIT = 400.0 / math.log(10.0)

#: Virtual draws ``bradley_terry`` adds to every pair of players that met (half a win to each
#: side), the way BayesElo's prior does. Without them a player who never lost (or never won)
#: has no finite maximum-likelihood rating; with them a 10-0 sweep reads as 10.5 : 0.5 odds
#: (+529 Elo between the two), and the effect vanishes as games accumulate.
PRIOR_DRAWS = 1.0


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n`` (``z=1.96``: 95%).

    ``successes`` may be fractional (draws counted as half a win). ``n == 0`` gives
    ``(0.0, 1.0)``: nothing is known.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..n={n}, got {successes!r}")
    if not z > 0:
        raise ValueError(f"z must be positive, got {z!r}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    # At p = 0 or 1 the bound is exactly 0 or 1; rounding could put it a hair inside, so that
    # the interval missed its own estimate (a negative error bar in exploit's plot).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def bradley_terry(
    pairwise: Mapping[tuple[str, str], tuple[float, float]],
    anchor: str | None = None,
) -> dict[str, tuple[float, float]]:
    """Bradley-Terry ratings on the Elo scale, with standard errors.

    ``pairwise[(a, b)] = (wins of a over b, wins of b over a)``, draws counted half to each
    (fractional counts are fine; ``(a, b)`` and ``(b, a)`` entries add up). Returns
    ``{player: (rating, standard_error)}`` in order of first appearance: ratings average 0,
    or ``anchor`` is fixed at 0 (its error is then 0 and the others' are relative to it).

    The fit maximises the likelihood by Newton's method, after adding ``PRIOR_DRAWS`` virtual
    draws to every pair that met, so ratings stay finite for a player who never lost or never
    won. Standard errors come from the observed Fisher information at the optimum (for the
    mean-0 ratings, its pseudo-inverse). Players must form one connected group (everyone
    linked to everyone through games played), otherwise their relative strength is unknown and
    ``ValueError`` names the groups.
    """
    players: list[str] = []
    index: dict[str, int] = {}
    for pair in pairwise:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ValueError(f"pairwise keys are (player, player) tuples, got {pair!r}")
        for player in pair:
            if player not in index:
                index[player] = len(players)
                players.append(player)
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not one of the players {players}")
    k = len(players)
    if k == 0:
        return {}
    wins = np.zeros((k, k))
    for (a, b), counts in pairwise.items():
        if a == b:
            raise ValueError(f"pairwise entry ({a!r}, {b!r}) pits a player against itself")
        try:
            won, lost = (float(value) for value in counts)
        except (TypeError, ValueError):
            raise ValueError(
                f"pairwise[({a!r}, {b!r})] must be (wins of {a}, wins of {b}), got {counts!r}"
            ) from None
        if not (math.isfinite(won) and math.isfinite(lost) and won >= 0 and lost >= 0):
            raise ValueError(f"pairwise[({a!r}, {b!r})] = {counts!r}: counts must be >= 0")
        wins[index[a], index[b]] += won
        wins[index[b], index[a]] += lost
    met = (wins + wins.T) > 0
    _check_connected(players, met)
    wins = wins + (PRIOR_DRAWS / 2.0) * met
    games = wins + wins.T

    reference = index[anchor] if anchor is not None else 0
    free = np.arange(k) != reference
    theta = np.zeros(k)

    def log_likelihood(values: np.ndarray) -> float:
        diff = values[:, None] - values[None, :]
        return float(-(wins * np.logaddexp(0.0, -diff)).sum())

    def information(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        diff = values[:, None] - values[None, :]
        prob = 1.0 / (1.0 + np.exp(-diff))
        gradient = (wins - games * prob).sum(axis=1)
        weight = games * prob * (1.0 - prob)
        return gradient, np.diag(weight.sum(axis=1)) - weight

    current = log_likelihood(theta)
    for _ in range(100):
        gradient, info = information(theta)
        step = np.zeros(k)
        step[free] = np.linalg.solve(info[np.ix_(free, free)], gradient[free])
        scale = 1.0
        while True:  # the log-likelihood is concave: halve the Newton step until it improves
            candidate = theta + scale * step
            value = log_likelihood(candidate)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    _, info = information(theta)
    if anchor is None:
        theta = theta - theta.mean()
        covariance = np.linalg.pinv(info)
    else:
        theta = theta - theta[reference]
        covariance = np.zeros((k, k))
        covariance[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)])
    errors = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    return {
        player: (float(ELO_PER_LOGIT * theta[i]), float(ELO_PER_LOGIT * errors[i]))
        for i, player in enumerate(players)
    }


def _check_connected(players: list[str], met: np.ndarray) -> None:
    groups: list[list[str]] = []
    seen: set[int] = set()
    for start in range(len(players)):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(players[node])
            for other in np.flatnonzero(met[node]).tolist():
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        groups.append(group)
    if len(groups) > 1:
        raise ValueError(
            "Bradley-Terry ratings need every player linked to every other through games "
            f"played; these groups never met: {groups}"
        )


def expected_score(rating_difference: float) -> float:
    """Expected score of a side rated ``rating_difference`` Elo above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-rating_difference / 400.0))


__all__ = [
    "ELO_PER_LOGIT",
    "PRIOR_DRAWS",
    "bradley_terry",
    "expected_score",
    "wilson_interval",
]
