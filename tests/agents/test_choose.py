"""``agents.heuristics.common.choose``: every scalar heuristic's tie-break. A unique best
action is taken without touching the agent's generator (so one more tie elsewhere does not
shift every later draw of a seeded game), tied best actions are drawn uniformly, and "tied"
means within the tolerance, the tolerance included."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardarena.agents.heuristics.common import choose


def test_a_unique_best_is_taken_without_a_draw() -> None:
    rng = np.random.default_rng(7)
    before = rng.bit_generator.state
    assert choose([4, 9, 2], [0.5, 3.0, 1.0], rng) == 9
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("tied", [2, 3])
def test_tied_best_actions_are_drawn_uniformly(tied: int) -> None:
    """2,000 draws among ``tied`` equal scores: each within 5 standard deviations of uniform
    (a false alarm about once in 3.5 million runs; the seed is fixed anyway)."""
    rng = np.random.default_rng(2026)
    actions = [10, 11, 12, 13][: tied + 1]
    scores = [1.0] * tied + [0.0]
    counts = Counter(choose(actions, scores, rng) for _ in range(2_000))
    assert set(counts) == set(actions[:tied])
    expected = 2_000 / tied
    sd = (2_000 * (1 / tied) * (1 - 1 / tied)) ** 0.5
    assert all(abs(counts[a] - expected) < 5 * sd for a in actions[:tied])


def test_scores_within_the_tolerance_tie_and_the_bound_is_included() -> None:
    rng = np.random.default_rng(3)
    drawn = {choose([1, 2, 3], [2.0, 2.0 - 1e-10, 1.0], rng) for _ in range(200)}
    assert drawn == {1, 2}
    # exactly at the tolerance: still a tie, also with no tolerance at all
    assert {choose([1, 2], [1.0, 0.75], rng, tolerance=0.25) for _ in range(200)} == {1, 2}
    assert {choose([1, 2], [1.0, 1.0], rng, tolerance=0.0) for _ in range(200)} == {1, 2}


def test_no_action_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^choose\(\) needs at least one action$"):
        choose([], [], np.random.default_rng(0))
