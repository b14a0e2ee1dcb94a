"""The profile-likelihood interval of a binary criterion's alpha (pure): the model is a
distribution, two ratings give the common correlation model, and the bounds are where a
brute-force profile (SciPy's optimiser over the pass rate at each alpha) crosses the limit."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from core.stats.alpha_likelihood import (
    _P,
    _limit,
    _log_probabilities,
    alpha_profile_bounds,
    binary_patterns,
)


def test_each_number_of_ratings_gives_a_distribution_wherever_it_is_defined():
    patterns = np.array([[m, x] for m in (2, 3, 5) for x in range(m + 1)])
    probabilities = np.exp(_log_probabilities(patterns, _P))
    for m in (2, 3, 5):
        total = probabilities[patterns[:, 0] == m].sum(axis=0)
        defined = ~np.isnan(total)
        assert defined.mean() > 0.4
        assert np.allclose(total[defined], 1.0, atol=1e-12)


def test_two_ratings_follow_the_common_correlation_model():
    patterns = np.array([[2, 0], [2, 1], [2, 2]])
    probabilities = np.exp(_log_probabilities(patterns, np.array([0.3])))[:, :, 0]
    from core.stats.alpha_likelihood import _RHO

    rho = _RHO
    defined = ~np.isnan(probabilities[0])
    expected = np.array([0.49 + rho * 0.21, 2 * 0.21 * (1 - rho), 0.09 + rho * 0.21])
    assert np.allclose(probabilities[:, defined], expected[:, defined], atol=1e-12)


def brute_force_bounds(counts: np.ndarray, tail: float = 0.025) -> tuple[float, float]:
    # Units rated alike have the same probability: each pattern (ratings, passes) is computed
    # once and counted as often as it occurs (a handful of patterns among 25 units).
    patterns = Counter((int(fails + passes), int(passes)) for fails, passes in counts)

    def log_likelihood(rho: float, p: float) -> float:
        total = 0.0
        for (m, x), units in patterns.items():
            if m < 2:
                continue
            value = math.comb(m, x)
            for i in range(x):
                value *= p * (1 - rho) + i * rho
            for j in range(m - x):
                value *= (1 - p) * (1 - rho) + j * rho
            for k in range(m):
                value /= 1 - rho + k * rho
            if value <= 0:
                return -math.inf
            total += units * math.log(value)
        return total

    def profile(rho: float) -> float:
        found = minimize_scalar(
            lambda p: -log_likelihood(rho, p),
            bounds=(1e-6, 1 - 1e-6),
            method="bounded",
            options={"xatol": 1e-9},
        )
        return -found.fun

    grid = np.linspace(-0.4, 1 - 1e-6, 1400)
    values = np.array([profile(r) for r in grid])
    paired = counts[counts.sum(axis=1) >= 2]
    split = int(((paired[:, 0] > 0) & (paired[:, 1] > 0)).sum())
    inside = grid[values.max() - values <= _limit(len(paired), split, tail)]
    return float(inside.min()), float(inside.max())


@pytest.mark.parametrize("seed", range(6))
def test_the_bounds_are_where_the_brute_force_profile_crosses_the_limit(seed):
    rng = np.random.default_rng(seed)
    raters = 2 + seed % 2
    truth = rng.random(25) < 0.65
    keep = rng.random((25, raters)) < 0.85
    passes = np.where(keep, truth[:, None], rng.random((25, raters)) < 0.65).sum(axis=1)
    counts = np.column_stack([raters - passes, passes])
    low, high = alpha_profile_bounds(*binary_patterns([counts]))
    expected = brute_force_bounds(counts)
    assert (low[0], high[0]) == pytest.approx(expected, abs=0.006)


def test_a_sample_without_disagreement_still_gets_an_interval_below_one():
    """20 units, two raters, half pass: the bound is where no disagreement in 20 units has
    probability 2.5% (Clopper-Pearson for zero events), about 0.66, not [1, 1]."""
    counts = np.array([[0, 2]] * 10 + [[2, 0]] * 10)
    low, high = alpha_profile_bounds(*binary_patterns([counts]))
    assert high[0] == pytest.approx(1.0, abs=1e-5)
    # Profile at p = 1/2: P(no split) = (1 - (1 - rho) / 2)^20 = 0.025.
    assert low[0] == pytest.approx(1 - 2 * (1 - 0.025 ** (1 / 20)), abs=0.005)


def test_every_rating_the_same_value_or_nothing_paired_gives_no_bounds():
    counts = [np.array([[0, 2]] * 25), np.array([[0, 1], [1, 0]])]
    low, high = alpha_profile_bounds(*binary_patterns(counts))
    assert np.isnan(low).all() and np.isnan(high).all()


def test_groups_evaluated_together_equal_each_alone():
    rng = np.random.default_rng(4)
    groups = [np.column_stack([3 - p, p]) for p in rng.binomial(3, 0.6, size=(5, 30))]
    together = alpha_profile_bounds(*binary_patterns(groups))
    for g, counts in enumerate(groups):
        alone = alpha_profile_bounds(*binary_patterns([counts]))
        assert (together[0][g], together[1][g]) == pytest.approx((alone[0][0], alone[1][0]))
