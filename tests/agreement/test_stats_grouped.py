"""The study-wide bootstrap: every group's resamples are its own cluster bootstrap, replayable
from the documented stream; AC1's variance is Gwet's; point estimates are the core's."""

from __future__ import annotations

import numpy as np
import pytest

from core.stats import (
    alpha_from_counts,
    bootstrap_alpha,
    brennan_prediger,
    counts_from_pairs,
    gwet_ac,
    percent_agreement,
    scott_pi,
)
from core.stats.alpha_likelihood import alpha_profile_bounds, binary_patterns
from core.stats.distributions import student_t_quantile
from core.stats.grouped import grouped_intervals
from core.stats.gwet import nominal_family
from core.stats.intervals import bca_bounds


def study(items: int = 40, criteria: int = 3, raters: int = 3, seed: int = 5):
    """Binary counts of ``items x criteria`` units (unit = item * criteria + criterion)."""
    rng = np.random.default_rng(seed)
    n = items * criteria
    truth = rng.random(n) < 0.6
    values = np.where(rng.random((n, raters)) < 0.8, truth[:, None], rng.random((n, raters)) < 0.6)
    units = np.repeat(np.arange(n), raters)
    counts = counts_from_pairs(units, values.reshape(-1).astype(np.int64), n_values=2, n_units=n)
    return counts, np.arange(n) // criteria


def replay(counts, item, groups, seed, resamples):
    """Alpha of each replicate of each group, one resample at a time, from the documented
    stream: row r of U = rng.random((B, widest)); the group's clusters floor(U[r, :C] * C)."""
    sizes = [np.unique(item[g]).size for g in groups]
    uniforms = np.random.default_rng(seed).random((resamples, max(sizes)))
    out = []
    for g, size in zip(groups, sizes, strict=True):
        clusters = np.unique(item[g])
        values = []
        for row in uniforms:
            drawn = clusters[np.minimum((row[:size] * size).astype(int), size - 1)]
            units = np.concatenate([g[item[g] == c] for c in drawn])
            values.append(alpha_from_counts(counts[units]).value)
        out.append(np.array(values, dtype=np.float64))
    return out


def test_each_group_is_its_own_cluster_bootstrap_replayed_one_resample_at_a_time():
    counts, item = study()
    # Groups whose responses carry several units (a criterion alone takes the likelihood
    # interval: test_a_criterion_takes_the_profile_likelihood_interval).
    groups = [np.arange(counts.shape[0]), np.flatnonzero(item < 25), np.flatnonzero(item % 2)]
    found = grouped_intervals(counts, item, groups, n_resamples=200, seed=11)
    for g, values, result in zip(groups, replay(counts, item, groups, 11, 200), found, strict=True):
        clusters = np.unique(item[g])
        jack = [alpha_from_counts(counts[g[item[g] != c]]).value for c in clusters]
        estimate = alpha_from_counts(counts[g]).value
        low, high = bca_bounds([estimate], values[None, :], np.array(jack)[None, :])
        assert result.alpha.estimate == alpha_from_counts(counts[g])
        assert result.alpha.standard_error == pytest.approx(values.std(ddof=1), abs=1e-12)
        assert result.alpha.low == pytest.approx(low[0], abs=1e-12)
        assert result.alpha.high == pytest.approx(high[0], abs=1e-12)


def test_a_criterion_takes_the_profile_likelihood_interval():
    counts, item = study()
    criterion = np.arange(0, 120, 3)  # one unit per response
    (found,) = grouped_intervals(counts, item, [criterion], n_resamples=200, seed=11)
    patterns, weights = binary_patterns([counts[criterion]])
    low, high = alpha_profile_bounds(patterns, weights)
    estimate = alpha_from_counts(counts[criterion]).value
    assert found.alpha.method == "profile likelihood (units)"
    assert found.alpha.low == pytest.approx(min(low[0], estimate), abs=1e-12)
    assert found.alpha.high == pytest.approx(max(high[0], estimate), abs=1e-12)
    assert found.alpha.standard_error is not None  # the bootstrap's, still given


def test_the_same_seed_gives_the_same_intervals_and_another_seed_others():
    counts, item = study()
    groups = [np.arange(counts.shape[0])]
    first = grouped_intervals(counts, item, groups, n_resamples=100, seed=3)
    assert first == grouped_intervals(counts, item, groups, n_resamples=100, seed=3)
    assert first != grouped_intervals(counts, item, groups, n_resamples=100, seed=4)


def test_resamples_spread_like_the_per_group_cluster_bootstrap():
    """Same distribution as bootstrap_alpha over the group's clusters (other random numbers)."""
    counts, item = study(items=60)
    (found,) = grouped_intervals(
        counts, item, [np.arange(counts.shape[0])], n_resamples=3000, seed=1
    )
    alone = bootstrap_alpha(counts, n_resamples=3000, seed=2, clusters=item)
    assert found.alpha.standard_error == pytest.approx(alone.standard_error, rel=0.1)


def test_point_estimates_are_the_cores_exactly():
    counts, item = study()
    mask = item % 2 == 0
    (found,) = grouped_intervals(counts, item, [mask], n_resamples=50, seed=0)
    assert found.alpha.estimate == alpha_from_counts(counts[mask])
    assert found.ac1.estimate == gwet_ac(counts[mask])
    assert found.percent_agreement.estimate == percent_agreement(counts[mask])
    assert nominal_family(counts[mask]) == (
        percent_agreement(counts[mask]),
        gwet_ac(counts[mask]),
        brennan_prediger(counts[mask]),
        scott_pi(counts[mask]),
    )


def irrcac_ac1_standard_error(counts: np.ndarray) -> float:
    """Gwet's variance as irrCAC's gwet.ac1.raw computes it (every unit rated, f = 0)."""
    c = counts.astype(float)
    n, q = c.shape
    r = c.sum(axis=1)
    pa_i = (c * (c - 1)).sum(axis=1) / (r * (r - 1))
    pi = (c / r[:, None]).mean(axis=0)
    pe = (pi * (1 - pi)).sum() / (q - 1)
    ac1 = (pa_i.mean() - pe) / (1 - pe)
    ac1_i = (pa_i - pe) / (1 - pe)
    pe_i = (c @ (1 - pi)) / r / (q - 1)
    ac1_x = ac1_i - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(((ac1_x - ac1) ** 2).sum() / (n * (n - 1))))


def test_ac1_standard_error_is_gwets_when_every_unit_is_its_own_response():
    counts, _ = study(items=50, criteria=1)
    (found,) = grouped_intervals(counts, np.arange(50), [np.arange(50)], n_resamples=10, seed=0)
    assert found.ac1.standard_error == pytest.approx(irrcac_ac1_standard_error(counts), rel=1e-12)
    assert found.ac1.low is not None and found.ac1.high is not None
    assert found.ac1.low < found.ac1.estimate.value < found.ac1.high <= 1.0
    # Wider than nothing, and of the order of Gwet's own t interval.
    t = student_t_quantile(0.975, 49) * found.ac1.standard_error
    assert 0.5 * t < (found.ac1.high - found.ac1.low) / 2 < 2 * t


def test_ac1_interval_stays_open_when_every_pair_agrees():
    counts = np.array([[0, 2]] * 25 + [[2, 0]] * 5)
    (found,) = grouped_intervals(counts, np.arange(30), [np.arange(30)], n_resamples=50, seed=0)
    assert found.ac1.estimate.value == 1.0
    assert found.ac1.high == 1.0 and found.ac1.low is not None and found.ac1.low < 0.95
    assert found.percent_agreement.low is not None and found.percent_agreement.low < 0.9


def test_an_empty_or_unpaired_group_has_no_interval_and_says_why():
    counts, item = study()
    empty, single = np.array([], dtype=np.int64), np.array([0])
    found = grouped_intervals(counts, item, [empty, single], n_resamples=20, seed=0)
    for result in found:
        for interval in (result.alpha, result.ac1, result.percent_agreement):
            assert interval.low is None and interval.high is None
            assert interval.undefined_reason or interval.unreliable_reason
