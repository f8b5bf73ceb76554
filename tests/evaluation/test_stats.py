"""Wilson intervals and Bradley-Terry ratings against results with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardarena.evaluation.stats import (
    ELO_PER_LOGIT,
    PRIOR_DRAWS,
    bradley_terry,
    expected_score,
    wilson_interval,
)

# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Statistics in Medicine 17, Table II, method 3 (Wilson score, no continuity
# correction), 95%.
NEWCOMBE = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("successes", "n", "low", "high"), NEWCOMBE)
def test_wilson_matches_published_values(successes, n, low, high):
    got_low, got_high = wilson_interval(successes, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def test_wilson_edge_cases_and_symmetry():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(1 - wilson_interval(0, 10)[1])
    for successes in (0, 3, 4.5, 7):
        low, high = wilson_interval(successes, 10)
        mirror_low, mirror_high = wilson_interval(10 - successes, 10)
        assert low == pytest.approx(1 - mirror_high) and high == pytest.approx(1 - mirror_low)
        assert low <= successes / 10 <= high
    # fractional successes (draws as half) lie between their neighbours
    assert wilson_interval(4, 10)[0] < wilson_interval(4.5, 10)[0] < wilson_interval(5, 10)[0]
    # wider with a larger z, narrower with more trials
    assert wilson_interval(5, 10, z=2.58)[0] < wilson_interval(5, 10)[0]
    assert wilson_interval(500, 1000)[0] > wilson_interval(50, 100)[0]


@pytest.mark.parametrize(("successes", "n"), [(-1, 10), (11, 10), (1, -1), (1, 2.5)])
def test_wilson_rejects_impossible_counts(successes, n):
    with pytest.raises(ValueError):
        wilson_interval(successes, n)


def expected_counts(strengths: dict[str, float], games: int) -> dict[tuple[str, str], tuple]:
    names = list(strengths)
    pairwise = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = expected_score(strengths[a] - strengths[b])
            pairwise[(a, b)] = (p * games, (1 - p) * games)
    return pairwise


STRENGTHS = {"a": 300.0, "b": 120.0, "c": 0.0, "d": -50.0, "e": -370.0}  # mean 0


def test_bradley_terry_recovers_known_strengths_from_expected_counts():
    ratings = bradley_terry(expected_counts(STRENGTHS, 200_000))
    assert list(ratings) == list(STRENGTHS)
    for name, strength in STRENGTHS.items():
        assert ratings[name][0] == pytest.approx(strength, abs=1.0)
    assert sum(rating for rating, _ in ratings.values()) == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_recovers_known_strengths_from_sampled_games():
    rng = np.random.default_rng(7)
    names = list(STRENGTHS)
    pairwise = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            wins = int(rng.binomial(20_000, expected_score(STRENGTHS[a] - STRENGTHS[b])))
            pairwise[(a, b)] = (wins, 20_000 - wins)
    ratings = bradley_terry(pairwise)
    for name, strength in STRENGTHS.items():
        rating, error = ratings[name]
        assert 0 < error < 10
        assert abs(rating - strength) < 4 * error


def test_symmetric_results_give_equal_ratings():
    pairwise = {(a, b): (37.5, 37.5) for a, b in [("x", "y"), ("y", "z"), ("x", "z")]}
    ratings = bradley_terry(pairwise)
    assert all(rating == pytest.approx(0.0, abs=1e-9) for rating, _ in ratings.values())
    errors = [error for _, error in ratings.values()]
    assert errors == pytest.approx([errors[0]] * 3)
    # A cycle (x > y > z > x) by the same margin is symmetric too.
    cycle = {("x", "y"): (60, 40), ("y", "z"): (60, 40), ("z", "x"): (60, 40)}
    assert all(abs(r) < 1e-9 for r, _ in bradley_terry(cycle).values())


def test_standard_errors_shrink_with_more_games():
    few = bradley_terry(expected_counts(STRENGTHS, 100))
    many = bradley_terry(expected_counts(STRENGTHS, 10_000))
    for name in STRENGTHS:
        assert many[name][1] < few[name][1]
        # 100 times the games: errors about 10 times smaller (the prior barely matters here)
        assert few[name][1] / many[name][1] == pytest.approx(10.0, rel=0.05)


def test_two_player_error_matches_the_closed_form():
    # Logit difference d with n games: var(d) = 1 / (n p (1 - p)); each mean-0 rating is d / 2.
    n, wins = 400, 300
    ratings = bradley_terry({("a", "b"): (wins, n - wins)})
    total = n + PRIOR_DRAWS
    p = (wins + PRIOR_DRAWS / 2) / total
    difference = ELO_PER_LOGIT * math.log(p / (1 - p))
    assert ratings["a"][0] - ratings["b"][0] == pytest.approx(difference, rel=1e-9)
    error = ELO_PER_LOGIT / math.sqrt(total * p * (1 - p))
    assert ratings["a"][1] == pytest.approx(error / 2, rel=1e-9)
    anchored = bradley_terry({("a", "b"): (wins, n - wins)}, anchor="b")
    assert anchored["b"] == (0.0, 0.0)
    assert anchored["a"][0] == pytest.approx(difference) and anchored["a"][1] == pytest.approx(
        error
    )


def test_standard_errors_match_the_spread_of_refitted_ratings():
    rng = np.random.default_rng(3)
    strengths = {"a": 100.0, "b": 0.0, "c": -100.0}
    names = list(strengths)
    games = 300
    fits, reported = [], []
    for _ in range(300):
        pairwise = {}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                wins = int(rng.binomial(games, expected_score(strengths[a] - strengths[b])))
                pairwise[(a, b)] = (wins, games - wins)
        ratings = bradley_terry(pairwise)
        fits.append([ratings[name][0] for name in names])
        reported.append([ratings[name][1] for name in names])
    spread = np.std(fits, axis=0)
    assert np.allclose(spread, np.mean(reported, axis=0), rtol=0.15)
    assert np.allclose(np.mean(fits, axis=0), list(strengths.values()), atol=10)


def test_unbeaten_and_winless_players_get_finite_ordered_ratings():
    ratings = bradley_terry(
        {("top", "mid"): (10, 0), ("mid", "low"): (10, 0), ("top", "low"): (10, 0)}
    )
    values = [ratings[name][0] for name in ("top", "mid", "low")]
    assert all(math.isfinite(v) for v in values) and values[0] > values[1] > values[2]
    assert all(math.isfinite(error) and error > 0 for _, error in ratings.values())
    # 10-0 between two players reads as 10.5 : 0.5 odds.
    pair = bradley_terry({("a", "b"): (10, 0)})
    assert pair["a"][0] - pair["b"][0] == pytest.approx(400 * math.log10(21))


def test_draws_and_both_orientations_add_up():
    one = bradley_terry({("a", "b"): (30, 10)})
    split = bradley_terry({("a", "b"): (20, 4), ("b", "a"): (6, 10)})
    assert split["a"] == pytest.approx(one["a"]) and split["b"] == pytest.approx(one["b"])


def test_bradley_terry_rejects_what_it_cannot_rate():
    assert bradley_terry({}) == {}
    with pytest.raises(ValueError, match="never met"):
        bradley_terry({("a", "b"): (3, 2), ("c", "d"): (1, 1)})
    with pytest.raises(ValueError, match="never met"):
        bradley_terry({("a", "b"): (3, 2), ("a", "c"): (0, 0)})
    with pytest.raises(ValueError, match="itself"):
        bradley_terry({("a", "a"): (1, 1)})
    with pytest.raises(ValueError, match=">= 0"):
        bradley_terry({("a", "b"): (-1, 1)})
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry({("a", "b"): (1, 1)}, anchor="z")


def test_wilson_always_contains_its_estimate_even_at_zero_and_all():
    """At p = 1 the upper bound is exactly 1 (it once came out 0.9999999999999999 for 4,000
    games all won, a negative error bar that crashed ``cardarena exploit``'s plot)."""
    for n in (*range(1, 300), 4000, 10**6):
        for successes in (0, n, n // 3, n - 0.5):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= successes / n <= high <= 1.0, (successes, n, low, high)
        assert wilson_interval(n, n)[1] == 1.0 and wilson_interval(0, n)[0] == 0.0
