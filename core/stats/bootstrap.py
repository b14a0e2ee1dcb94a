"""Confidence intervals by resampling units (or clusters of units), vectorised.

Method: nonparametric bootstrap over *units* (an item x criterion together with all of
its ratings), percentile intervals (Efron & Tibshirani 1993, *An Introduction to the
Bootstrap*, ch. 13). Units are drawn with replacement; a resample is represented by its
multiplicity vector ``w`` (how often each unit was drawn), so a block of resamples is a
``(n_resamples, n_units)`` weight matrix ``W``. Every coefficient here is a function of
sums over units of per-unit terms, hence ``W @ per_unit_terms`` yields the sums of all
resamples at once:

* alpha: per-unit ordered-pair counts ``n_uc n_uk - [c=k] n_uc`` (integers) grouped by the
  unit's number of ratings ``m_u``; ``W @ P_m / (m - 1)`` summed over ``m`` is the stack of
  resampled coincidence matrices. Integer sums are exact in float64, so the result is
  bit-identical to computing alpha on ``counts[indices]`` one resample at a time;
* Gwet's AC1/AC2: the per-unit rows of :func:`core.stats.gwet.ac_unit_features`.

The *cluster* variant resamples clusters (e.g. tutor responses) and carries every unit of
a drawn cluster (all its criteria), which respects the dependence between criteria graded
on the same response.

This is deliberately **not** the Hayes & Krippendorff (2007) bootstrap, which resamples
pairs of values from the coincidence matrix while holding the units fixed; it ignores the
clustering of pairs within units and yields intervals that are too narrow.

A delete-one-unit jackknife (Quenouille-Tukey; Efron & Tibshirani 1993, ch. 11) is offered
as a cheap alternative with a normal-approximation interval.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .alpha import Level, alpha_from_coincidences, alpha_from_counts
from .counts import FloatArray, IntArray, ratings_per_unit, unit_pair_products
from .gwet import GwetWeights, ac_from_sums, ac_unit_features, gwet_ac, gwet_weights
from .results import Coefficient

__all__ = [
    "DEFAULT_RESAMPLES",
    "Interval",
    "Seed",
    "alpha_resample_stack",
    "bootstrap_ac",
    "bootstrap_alpha",
    "cluster_weights",
    "jackknife_alpha",
    "resample_index_blocks",
    "rng_from_seed",
    "weights_from_indices",
]

DEFAULT_RESAMPLES = 1000
#: Upper bound on ``block x n_units`` entries materialised at once (memory ~ 8 bytes each).
_BLOCK_ELEMENTS = 2_000_000
#: Up to this many items, resample multiplicities come from one bincount (weights_from_indices).
_FEW_ITEMS = 256

type Seed = int | np.random.Generator | None


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with a confidence interval.

    Attributes:
        estimate: The coefficient on the full data.
        low, high: Interval bounds (same unit as the coefficient), ``None`` if undefined.
        confidence: Nominal coverage, e.g. 0.95.
        method: ``"percentile bootstrap (units)"``, ``"percentile bootstrap (clusters)"`` or
            ``"jackknife (units), normal interval"``.
        n_resamples: Bootstrap resamples drawn (jackknife: number of leave-one-out fits).
        n_undefined: Resamples on which the coefficient was undefined (e.g. a resample
            with a single value); they are left out of the percentiles.
        undefined_reason: Why there is no interval, else ``None``.
        standard_error: Bootstrap/jackknife standard error of the coefficient.
        unreliable_reason: Set when the interval was computed but is withheld (``low`` and
            ``high`` are ``None``) because no method reached 90% simulated coverage for data
            like these (docs/statistics.md, "Intervals"); says why.
    """

    estimate: Coefficient
    low: float | None
    high: float | None
    confidence: float
    method: str
    n_resamples: int
    n_undefined: int
    undefined_reason: str | None = None
    standard_error: float | None = None
    unreliable_reason: str | None = None

    @property
    def interval_unreliable(self) -> bool:
        """True when the interval is withheld as unreliable (see ``unreliable_reason``)."""
        return self.unreliable_reason is not None


def rng_from_seed(seed: Seed) -> np.random.Generator:
    """A Generator from an int seed, ``None`` (fresh entropy) or an existing Generator."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def resample_index_blocks(
    n_items: int, n_resamples: int, rng: np.random.Generator
) -> Iterator[npt.NDArray[np.int32]]:
    """Yield blocks of bootstrap index arrays, each of shape ``(block, n_items)``.

    Resample ``r`` draws ``n_items`` indices uniformly with replacement. Blocks are drawn
    in order from ``rng``; the bootstrap functions consume exactly this stream, so tests
    can replay the same resamples with a generator seeded identically.
    """
    if n_items < 1:
        raise ValueError("need at least one item to resample")
    block = max(1, min(n_resamples, _BLOCK_ELEMENTS // n_items))
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        yield rng.integers(0, n_items, size=(size, n_items), dtype=np.int32)
        done += size


def weights_from_indices(indices: npt.ArrayLike, n_items: int) -> FloatArray:
    """Multiplicity matrix ``(n_resamples, n_items)`` of a block of resample indices.

    Many items: one :func:`numpy.bincount` per resample row, each call staying in cache,
    which measured ~2.5x faster than a single bincount over row-offset indices. A few
    hundred items or fewer (a criterion's responses, a study's units): that single
    bincount, 3-10x faster than the loop, whose per-row overhead is then most of the time.
    No statistic is computed per row; the coefficients are evaluated once for the whole
    block by matrix products.
    """
    idx = np.asarray(indices)
    if n_items <= _FEW_ITEMS:
        rows = idx.shape[0]
        offsets = (idx + n_items * np.arange(rows)[:, None]).ravel()
        counts = np.bincount(offsets, minlength=rows * n_items)
        return counts.reshape(rows, n_items).astype(np.float64)
    out = np.empty((idx.shape[0], n_items), dtype=np.float64)
    for row, drawn in enumerate(idx):
        out[row] = np.bincount(drawn, minlength=n_items)
    return out


def cluster_weights(
    cluster_indices: npt.ArrayLike, n_clusters: int, unit_cluster: npt.ArrayLike
) -> FloatArray:
    """Unit multiplicities for resampled clusters: each unit inherits its cluster's count."""
    per_cluster = weights_from_indices(cluster_indices, n_clusters)
    return per_cluster[:, np.asarray(unit_cluster, dtype=np.int64)]


class _AlphaBlocks:
    """Integer pair-count rows of the pairable units, grouped by ratings per unit."""

    def __init__(self, counts: npt.ArrayLike) -> None:
        c = np.asarray(counts, dtype=np.int64)
        self.n_values = c.shape[1]
        m = ratings_per_unit(c)
        # (m, unit indices or None when the group is every unit, pair-count rows)
        self.groups: list[tuple[int, IntArray | None, FloatArray]] = []
        for size in np.unique(m[m >= 2]):
            mask = np.flatnonzero(m == size)
            products = unit_pair_products(c[mask]).reshape(mask.size, -1).astype(np.float64)
            self.groups.append((int(size), None if mask.size == m.size else mask, products))

    def coincidences(self, weights: FloatArray) -> FloatArray:
        v = self.n_values
        out = np.zeros((weights.shape[0], v * v), dtype=np.float64)
        for size, mask, products in self.groups:
            block = weights if mask is None else weights[:, mask]
            out += (block @ products) / float(size - 1)
        return out.reshape(-1, v, v)


def alpha_resample_stack(
    counts: npt.ArrayLike,
    weights: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
) -> FloatArray:
    """Alpha for each row of a unit-multiplicity matrix ``(n_resamples, n_units)``.

    Row ``r`` of ``weights`` says how many times each unit occurs in resample ``r``.
    Returns ``(n_resamples,)`` values, NaN where alpha is undefined for that resample.
    """
    return alpha_from_coincidences(
        _AlphaBlocks(counts).coincidences(np.asarray(weights, dtype=np.float64)),
        level,
        value_domain,
    )


def _percentile_interval(
    estimate: Coefficient,
    values: FloatArray,
    confidence: float,
    method: str,
) -> Interval:
    n = int(values.size)
    ok = values[~np.isnan(values)]
    n_undefined = n - int(ok.size)
    if not estimate.is_defined:
        return Interval(
            estimate, None, None, confidence, method, n, n_undefined, estimate.undefined_reason
        )
    if ok.size < 2:
        return Interval(
            estimate,
            None,
            None,
            confidence,
            method,
            n,
            n_undefined,
            gettext_noop("fewer than two resamples with a defined coefficient"),
        )
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(ok, [tail, 1.0 - tail])
    return Interval(
        estimate,
        float(low),
        float(high),
        confidence,
        method,
        n,
        n_undefined,
        None,
        float(ok.std(ddof=1)),
    )


def _bootstrap_values(
    n_units: int,
    stack: Callable[[FloatArray], FloatArray],
    *,
    n_resamples: int,
    seed: Seed,
    clusters: npt.ArrayLike | None,
) -> tuple[FloatArray, str]:
    if n_units == 0:
        # Nothing to resample; the estimate is undefined and carries the reason.
        method = (
            gettext_noop("percentile bootstrap (units)")
            if clusters is None
            else gettext_noop("percentile bootstrap (clusters)")
        )
        return np.empty(0, dtype=np.float64), method
    rng = rng_from_seed(seed)
    chunks: list[FloatArray] = []
    if clusters is None:
        for idx in resample_index_blocks(n_units, n_resamples, rng):
            chunks.append(stack(weights_from_indices(idx, n_units)))
        return np.concatenate(chunks), gettext_noop("percentile bootstrap (units)")
    labels = np.asarray(clusters)
    if labels.shape != (n_units,):
        raise ValueError("clusters must give one cluster label per unit")
    _, unit_cluster = np.unique(labels, return_inverse=True)
    n_clusters = int(unit_cluster.max()) + 1
    for idx in resample_index_blocks(n_clusters, n_resamples, rng):
        chunks.append(stack(cluster_weights(idx, n_clusters, unit_cluster)))
    return np.concatenate(chunks), gettext_noop("percentile bootstrap (clusters)")


def bootstrap_alpha(
    counts: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: Seed = None,
    clusters: npt.ArrayLike | None = None,
) -> Interval:
    """Percentile bootstrap CI of Krippendorff's alpha, resampling units or clusters.

    Args:
        counts: ``(n_units, n_values)`` value counts.
        level, value_domain: As for :func:`core.stats.alpha.alpha_from_counts`.
        n_resamples: Number of bootstrap resamples (default 1,000).
        confidence: Interval coverage in (0, 1).
        seed: ``int`` seed or a :class:`numpy.random.Generator` (reproducible results).
        clusters: Optional cluster label per unit (e.g. the response id); when given,
            clusters are resampled and each carries all of its units.

    Returns:
        :class:`Interval`; ``estimate`` is alpha on the full data.
    """
    c = np.asarray(counts, dtype=np.int64)
    estimate = alpha_from_counts(c, level, value_domain)
    blocks = _AlphaBlocks(c)

    def stack(weights: FloatArray) -> FloatArray:
        return alpha_from_coincidences(blocks.coincidences(weights), level, value_domain)

    values, method = _bootstrap_values(
        c.shape[0], stack, n_resamples=n_resamples, seed=seed, clusters=clusters
    )
    return _percentile_interval(estimate, values, confidence, method)


def bootstrap_ac(
    counts: npt.ArrayLike,
    *,
    weights: GwetWeights = "identity",
    value_domain: npt.ArrayLike | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: Seed = None,
    clusters: npt.ArrayLike | None = None,
) -> Interval:
    """Percentile bootstrap CI of Gwet's AC1/AC2 (same resampling as :func:`bootstrap_alpha`)."""
    c = np.asarray(counts, dtype=np.int64)
    estimate = gwet_ac(c, weights=weights, value_domain=value_domain)
    w = gwet_weights(c.shape[1], weights, value_domain)
    features = ac_unit_features(c, w)

    def stack(unit_weights: FloatArray) -> FloatArray:
        return ac_from_sums(unit_weights @ features, w)

    values, method = _bootstrap_values(
        c.shape[0], stack, n_resamples=n_resamples, seed=seed, clusters=clusters
    )
    return _percentile_interval(estimate, values, confidence, method)


def jackknife_alpha(
    counts: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
    *,
    confidence: float = 0.95,
) -> Interval:
    """Delete-one-unit jackknife standard error and normal interval for alpha.

    Each pairable unit (>= 2 ratings) is left out once; units with fewer ratings do not
    change alpha and are not replicated. ``SE = sqrt((n-1)/n * sum (a_(i) - a_bar)^2)``
    (Efron & Tibshirani 1993, eq. 11.5); interval ``alpha +/- z_{(1+confidence)/2} SE``.
    Cheap (one vectorised pass) but symmetric and normal-based: prefer the bootstrap
    for reporting.
    """
    c = np.asarray(counts, dtype=np.int64)
    estimate = alpha_from_counts(c, level, value_domain)
    method = gettext_noop("jackknife (units), normal interval")
    m = ratings_per_unit(c)
    pairable = c[m >= 2]
    n = pairable.shape[0]
    if not estimate.is_defined or estimate.value is None:
        return Interval(estimate, None, None, confidence, method, n, 0, estimate.undefined_reason)
    if n < 2:
        return Interval(
            estimate,
            None,
            None,
            confidence,
            method,
            n,
            0,
            gettext_noop("fewer than two pairable units"),
        )
    per_unit = unit_pair_products(pairable).astype(np.float64)
    per_unit /= (m[m >= 2] - 1.0)[:, None, None]
    total = per_unit.sum(axis=0)
    loo = alpha_from_coincidences(total[None, :, :] - per_unit, level, value_domain)
    ok = loo[~np.isnan(loo)]
    n_undefined = n - int(ok.size)
    if ok.size < 2:
        return Interval(
            estimate,
            None,
            None,
            confidence,
            method,
            n,
            n_undefined,
            gettext_noop("fewer than two leave-one-out values are defined"),
        )
    k = ok.size
    se = float(np.sqrt((k - 1.0) / k * ((ok - ok.mean()) ** 2).sum()))
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    return Interval(
        estimate,
        estimate.value - z * se,
        estimate.value + z * se,
        confidence,
        method,
        n,
        n_undefined,
        None,
        se,
    )
