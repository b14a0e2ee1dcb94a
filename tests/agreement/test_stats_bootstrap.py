"""Bootstrap and jackknife: reproducibility, coverage sanity, and equality with slow loops."""

from __future__ import annotations

from collections import Counter

import krippendorff
import numpy as np
import pytest

from core.stats import (
    alpha_from_counts,
    alpha_resample_stack,
    bootstrap_ac,
    bootstrap_alpha,
    counts_from_pairs,
    gwet_ac,
    jackknife_alpha,
    resample_index_blocks,
    weights_from_indices,
)
from core.stats.bootstrap import cluster_weights


def simulated_counts(
    n_units: int = 300, raters: int = 4, q: int = 5, missing: float = 0.2, seed: int = 7
) -> np.ndarray:
    """Ordinal ratings = latent score + rater noise, some ratings missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, n_units)
    values = np.clip(truth[None, :] + rng.integers(-1, 2, (raters, n_units)), 0, q - 1)
    keep = rng.random((raters, n_units)) >= missing
    units = np.broadcast_to(np.arange(n_units), (raters, n_units))[keep]
    return counts_from_pairs(units, values[keep], n_units=n_units, n_values=q)


@pytest.mark.parametrize("n_items", [1, 30, 256, 257, 1500])
def test_multiplicities_count_each_resample_s_draws(n_items: int) -> None:
    """Few items and many are counted two ways (weights_from_indices): both count alike."""
    indices = np.random.default_rng(n_items).integers(0, n_items, size=(40, n_items))
    expected = np.zeros((40, n_items))
    for row, drawn in enumerate(indices):
        for item, times in Counter(drawn.tolist()).items():
            expected[row, item] = times
    assert np.array_equal(weights_from_indices(indices, n_items), expected)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_vectorised_bootstrap_equals_slow_loop_exactly(level: str) -> None:
    """W @ per-unit pair counts must reproduce alpha(counts[indices]) bit for bit."""
    counts = simulated_counts()
    rng = np.random.default_rng(123)
    for indices in resample_index_blocks(counts.shape[0], 60, rng):
        fast = alpha_resample_stack(counts, weights_from_indices(indices, counts.shape[0]), level)
        slow = np.array(
            [alpha_from_counts(counts[row], level).value for row in indices],
            dtype=np.float64,
        )
        assert np.array_equal(fast, slow)
        # And the reference package agrees on every resample.
        ref = [
            krippendorff.alpha(value_counts=counts[row], level_of_measurement=level)
            for row in indices
        ]
        np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-12)


def test_bootstrap_alpha_consumes_documented_stream() -> None:
    """bootstrap_alpha's percentiles are those of alpha over the replayable index stream."""
    counts = simulated_counts()
    result = bootstrap_alpha(counts, "ordinal", n_resamples=250, seed=99)
    rng = np.random.default_rng(99)
    loop = [
        alpha_from_counts(counts[row], "ordinal").value
        for block in resample_index_blocks(counts.shape[0], 250, rng)
        for row in block
    ]
    low, high = np.quantile(np.array(loop, dtype=np.float64), [0.025, 0.975])
    assert result.low == low and result.high == high
    assert result.n_resamples == 250 and result.n_undefined == 0


def test_bootstrap_is_seeded_and_reproducible() -> None:
    counts = simulated_counts()
    first = bootstrap_alpha(counts, "interval", seed=2024)
    second = bootstrap_alpha(counts, "interval", seed=np.random.default_rng(2024))
    other = bootstrap_alpha(counts, "interval", seed=2025)
    assert (first.low, first.high) == (second.low, second.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.n_resamples == 1000


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ci_contains_point_estimate_on_typical_data(seed: int) -> None:
    counts = simulated_counts(seed=seed)
    for result in (
        bootstrap_alpha(counts, "ordinal", seed=seed),
        bootstrap_ac(counts, seed=seed),
        jackknife_alpha(counts, "ordinal"),
    ):
        assert result.estimate.value is not None
        assert result.low is not None and result.high is not None
        assert result.low < result.estimate.value < result.high
        assert result.high - result.low < 0.5


def test_cluster_bootstrap_equals_loop_over_concatenated_clusters() -> None:
    """Resampling clusters = concatenating every drawn cluster's units, exactly."""
    counts = simulated_counts(n_units=240)
    clusters = np.repeat(np.arange(60), 4)  # e.g. 60 responses x 4 criteria
    members = [np.flatnonzero(clusters == k) for k in range(60)]
    rng = np.random.default_rng(5)
    indices = next(resample_index_blocks(60, 40, rng))
    fast = alpha_resample_stack(counts, cluster_weights(indices, 60, clusters), "nominal")
    slow = np.array(
        [
            alpha_from_counts(counts[np.concatenate([members[k] for k in row])], "nominal").value
            for row in indices
        ],
        dtype=np.float64,
    )
    assert np.array_equal(fast, slow)
    result = bootstrap_alpha(counts, "nominal", seed=5, clusters=clusters, n_resamples=40)
    assert result.method == "percentile bootstrap (clusters)"
    assert (result.low, result.high) == tuple(np.quantile(slow, [0.025, 0.975]))


def test_cluster_bootstrap_is_wider_when_units_are_correlated_within_clusters() -> None:
    """Duplicated units inside a cluster are dependent; resampling clusters must see that."""
    base = simulated_counts(n_units=200, seed=11)
    counts = np.repeat(base, 5, axis=0)  # each cluster = one unit copied 5 times
    clusters = np.repeat(np.arange(200), 5)
    by_unit = bootstrap_alpha(counts, "ordinal", seed=1)
    by_cluster = bootstrap_alpha(counts, "ordinal", seed=1, clusters=clusters)
    assert by_unit.low is not None and by_cluster.low is not None
    assert by_unit.high is not None and by_cluster.high is not None
    assert (by_cluster.high - by_cluster.low) > 1.5 * (by_unit.high - by_unit.low)


def test_bootstrap_ac_matches_loop() -> None:
    counts = simulated_counts()
    result = bootstrap_ac(counts, weights="quadratic", n_resamples=200, seed=8)
    rng = np.random.default_rng(8)
    loop = np.array(
        [
            gwet_ac(counts[row], weights="quadratic").value
            for block in resample_index_blocks(counts.shape[0], 200, rng)
            for row in block
        ],
        dtype=np.float64,
    )
    low, high = np.quantile(loop, [0.025, 0.975])
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)


def test_jackknife_matches_leave_one_out_loop() -> None:
    counts = simulated_counts(n_units=80)
    result = jackknife_alpha(counts, "interval")
    pairable = np.flatnonzero(counts.sum(axis=1) >= 2)
    loo = np.array(
        [alpha_from_counts(np.delete(counts, u, axis=0), "interval").value for u in pairable],
        dtype=np.float64,
    )
    n = loo.size
    se = np.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum())
    assert result.standard_error == pytest.approx(se, rel=1e-9)
    assert result.estimate.value is not None
    assert result.low == pytest.approx(result.estimate.value - 1.959963984540054 * se, rel=1e-9)


def test_bootstrap_undefined_cases() -> None:
    same = np.array([[0, 3], [0, 2], [0, 4]])  # everyone always "pass"
    result = bootstrap_alpha(same, seed=0, n_resamples=50)
    assert result.low is None and result.high is None
    assert result.undefined_reason == "no variation: every rating is the same value"
    single = np.array([[1, 0], [0, 1]])  # no unit has two ratings
    assert bootstrap_alpha(single, seed=0).undefined_reason == "fewer than two pairable ratings"
    assert jackknife_alpha(single).low is None


def test_bootstrap_counts_undefined_resamples() -> None:
    """One disagreeing unit among agreeing ones: resamples that miss it have no variation."""
    counts = np.array([[2, 0]] * 9 + [[1, 1]])
    result = bootstrap_alpha(counts, seed=4, n_resamples=500)
    assert 0 < result.n_undefined < 500
    assert result.estimate.value is not None
