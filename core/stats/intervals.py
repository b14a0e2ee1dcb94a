"""Interval methods chosen for their simulated coverage (docs/statistics.md, "Intervals").

A seeded simulation of binary criteria (tests/agreement/test_interval_coverage.py) measured how
often each method's 95% interval covers the true coefficient at 20-30 units, 2-3 raters and
prevalence 0.5 to 0.95. What it chose:

* **Krippendorff's alpha of a binary criterion: profile likelihood**
  (:mod:`core.stats.alpha_likelihood`), withheld below :data:`ALPHA_MINIMUM_CLUSTERS`
  responses: the bootstrap covered a true alpha of 0.8 only 0.83-0.87 at 20 units (samples
  without disagreement give [1, 1]); the likelihood interval covered 0.92-1.00 in 48 settings,
  pass rates 0.5 to 0.95 included.
* **Alpha of other groups: BCa bootstrap** (bias-corrected and accelerated; Efron 1987, JASA
  82: 171-185; Efron & Tibshirani 1993, ch. 14), acceleration from the delete-one-cluster
  jackknife. At prevalence 0.5 it covers 0.93-0.96; at 0.9 and beyond no bootstrap (percentile
  or BCa) reaches 0.80, so the interval is withheld and flagged unreliable when the rarer value
  is under :data:`ALPHA_MINORITY_SHARE` of the pairable ratings, or when fewer than
  :data:`ALPHA_MINIMUM_CLUSTERS` responses carry the units.
* **Gwet's AC1: a Wilson-type interval on the agreement scale.** AC1 is ``(p_a - p_e) /
  (1 - p_e)``; Gwet's linearised variance (Gwet 2008, BJMSP 61, section 4; ``irrCAC``'s
  ``gwet.ac1.raw``), taken over clusters, sets an effective sample size
  ``n_eff = p_a (1 - p_a) / Var(p_a)``, a Wilson interval (Wilson 1927) of ``p_a`` at ``n_eff``
  is mapped back through ``(p - p_e) / (1 - p_e)``. Gwet's own symmetric t interval collapses
  to ``[1, 1]`` when every sampled pair agrees (55% coverage at prevalence 0.95); this one
  does not, and covers >= 0.93 in every simulated scenario.
* **Proportions** (percent agreement, accuracy): the Wilson score interval, at the effective
  sample size of the clusters (Kish's design effect) when units are clustered.
* **Means of scores in [0, 1]** (a model's L2-Bench score on the leaderboard): the same
  Wilson-type interval, at ``n_eff = m (1 - m) / Var(m)`` (:func:`mean_bounds`). A percentile
  bootstrap covered 0.84-0.87 at 15-20 responses when nearly every criterion is met; this
  covers >= 0.90 from 15 responses, below which the interval is withheld
  (:data:`MINIMUM_RESPONSES`).
* **Leniency** (judge pass rate minus the experts', paired on the same units): Newcombe's
  hybrid score interval for a paired difference (Newcombe 1998, Stat Med 17: 2635-2650,
  method 10), each rate's Wilson interval at its effective n and their correlation over
  clusters with Newcombe's continuity correction (:func:`paired_difference_bounds`). A
  percentile bootstrap covered 0.29-0.70 when the judge is lenient at prevalence 0.9 and
  beyond (all sampled units concordant give ``[0, 0]``); this covers >= 0.93 in every
  simulated scenario from 15 responses.

Everything here is vectorised over a leading axis (groups of a study, or simulated studies).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from core.messages import Text, gettext_noop

from .counts import FloatArray

__all__ = [
    "ALPHA_MINIMUM_CLUSTERS",
    "ALPHA_MINORITY_SHARE",
    "MINIMUM_RESPONSES",
    "ac_wilson_bounds",
    "alpha_unreliable_reason",
    "bca_bounds",
    "cluster_variance",
    "mean_bounds",
    "paired_difference_bounds",
    "too_few_responses",
    "wilson_bounds",
]

#: Below this share of the pairable ratings for the rarer of two values, alpha's interval is
#: withheld: at prevalence 0.9 no bootstrap covered the true alpha in 90% of simulated studies.
ALPHA_MINORITY_SHARE = 0.2
#: Below this many clusters (responses) alpha's interval is withheld: coverage was checked
#: from 20 units up only.
ALPHA_MINIMUM_CLUSTERS = 20
#: Below this many responses the leaderboard's and leniency's intervals are withheld: their
#: coverage was simulated from 15 responses up (at 10, a score's covered 0.87).
MINIMUM_RESPONSES = 15

_NORMAL = NormalDist()
_ROWS = 256
_cdf = np.vectorize(_NORMAL.cdf, otypes=[np.float64])
_inv_cdf = np.vectorize(_NORMAL.inv_cdf, otypes=[np.float64])


def _row_quantiles(values: FloatArray, levels: FloatArray) -> FloatArray:
    """Linear-interpolated quantiles (NumPy's default method) of each row of ``values``,
    ignoring NaN, at per-row ``levels`` of shape ``(rows, k)``."""
    ordered = np.sort(values, axis=1)  # NaN sorts last
    count = (~np.isnan(values)).sum(axis=1)
    position = levels * np.maximum(count - 1, 0)[:, None]
    below = np.floor(position).astype(np.int64)
    above = np.minimum(below + 1, np.maximum(count - 1, 0)[:, None])
    rows = np.arange(values.shape[0])[:, None]
    low, high = ordered[rows, below], ordered[rows, above]
    result: FloatArray = low + (position - below) * (high - low)
    return result


def bca_bounds(
    estimate: npt.ArrayLike,
    replicates: npt.ArrayLike,
    jackknife: npt.ArrayLike,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    """BCa bootstrap bounds for each row (Efron & Tibshirani 1993, eq. 14.9-14.15).

    Args:
        estimate: ``(rows,)`` coefficient on the full data (NaN: undefined).
        replicates: ``(rows, B)`` bootstrap values, NaN where undefined (left out).
        jackknife: ``(rows, J)`` leave-one-cluster-out values, NaN where absent (a row may
            have fewer clusters than ``J``).
        confidence: Nominal coverage.

    Returns:
        ``(low, high)``, each ``(rows,)``; NaN where the estimate is undefined or fewer than
        two replicates are defined. Ties with the estimate count half below (discrete
        coefficients often repeat it), and the bias correction is bounded at ``1 / (2B)``.
    """
    est = np.asarray(estimate, dtype=np.float64).reshape(-1)
    boot = np.asarray(replicates, dtype=np.float64).reshape(est.size, -1)
    jack = np.asarray(jackknife, dtype=np.float64).reshape(est.size, -1)
    if est.size > _ROWS:  # bounded temporaries: a few blocks of rows at a time
        parts = [
            _bca(est[i : i + _ROWS], boot[i : i + _ROWS], jack[i : i + _ROWS], confidence)
            for i in range(0, est.size, _ROWS)
        ]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return _bca(est, boot, jack, confidence)


def _bca(
    est: FloatArray, boot: FloatArray, jack: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray]:
    valid = ~np.isnan(boot)
    count = valid.sum(axis=1)
    usable = ~np.isnan(est) & (count >= 2)
    safe = np.maximum(count, 1)
    below = (boot < est[:, None]).sum(axis=1)
    equal = (boot == est[:, None]).sum(axis=1)
    share = np.clip((below + 0.5 * equal) / safe, 0.5 / safe, 1.0 - 0.5 / safe)
    z0 = _inv_cdf(np.where(usable, share, 0.5))
    present = ~np.isnan(jack)
    n_jack = present.sum(axis=1)
    mean = np.where(present, jack, 0.0).sum(axis=1) / np.maximum(n_jack, 1)
    d = np.where(present, mean[:, None] - jack, 0.0)
    spread = (d**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = np.where(spread > 0, (d**3).sum(axis=1) / (6.0 * spread**1.5), 0.0)
    tail = (1.0 - confidence) / 2.0
    z = np.array([_NORMAL.inv_cdf(tail), _NORMAL.inv_cdf(1.0 - tail)])
    shifted = z0[:, None] + z[None, :]
    denominator = 1.0 - accel[:, None] * shifted
    with np.errstate(divide="ignore", invalid="ignore"):
        adjusted = np.where(denominator > 0, z0[:, None] + shifted / denominator, np.inf * z)
    levels = np.clip(_cdf(adjusted), 0.0, 1.0)
    bounds = _row_quantiles(boot, levels)
    bounds[~usable] = np.nan
    return bounds[:, 0], bounds[:, 1]


def wilson_bounds(
    p: npt.ArrayLike, n: npt.ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Wilson score bounds of proportions ``p`` at (effective) sample sizes ``n`` (Wilson
    1927; Newcombe 1998, method 3); NaN where ``n <= 0`` or ``p`` is NaN."""
    prop = np.asarray(p, dtype=np.float64)
    size = np.asarray(n, dtype=np.float64)
    z = _NORMAL.inv_cdf(0.5 + confidence / 2.0)
    ok = (size > 0) & ~np.isnan(prop)
    m = np.where(ok, size, 1.0)
    q = np.clip(np.where(ok, prop, 0.5), 0.0, 1.0)
    # The textbook form multiplied through by m: the same bounds, and no 1 / m**2 to overflow
    # at the tiny effective sample sizes a degenerate variance gives.
    centre = (q * m + z * z / 2) / (m + z * z)
    half = z * np.sqrt(q * (1 - q) * m + z * z / 4) / (m + z * z)
    low = np.where(q <= 0.0, 0.0, np.maximum(0.0, centre - half))
    high = np.where(q >= 1.0, 1.0, np.minimum(1.0, centre + half))
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def cluster_variance(scores: npt.ArrayLike, n_clusters: npt.ArrayLike) -> FloatArray:
    """Cluster-robust variance of an estimator from its per-cluster linearised scores.

    ``scores`` is ``(rows, C)`` (each cluster's summed influence, already divided by the
    sample size, zero for a cluster absent from the row); ``n_clusters`` the clusters present
    per row. Returns ``C / (C - 1) * sum_c (Z_c - mean Z)^2`` (NaN with fewer than two).
    """
    z = np.asarray(scores, dtype=np.float64)
    c = np.asarray(n_clusters, dtype=np.float64)
    mean = z.sum(axis=-1) / np.maximum(c, 1.0)
    # Absent clusters are zero in `z` and must not enter the sum of squares.
    squares = (z**2).sum(axis=-1) - c * mean**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c >= 2, c / (c - 1.0) * np.maximum(squares, 0.0), np.nan)


def ac_wilson_bounds(
    p_a: npt.ArrayLike,
    p_e: npt.ArrayLike,
    variance_p_a: npt.ArrayLike,
    fallback_n: npt.ArrayLike,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Wilson-type bounds of a chance-corrected ``(p_a - p_e) / (1 - p_e)`` (AC1 or percent
    agreement with ``p_e = 0``): Wilson on ``p_a`` at ``n_eff = p_a (1 - p_a) / Var(p_a)``
    (``fallback_n`` when that is 0/0: every pair agreed, or disagreed), mapped back.

    Returns ``(low, high, n_eff)``.
    """
    pa = np.asarray(p_a, dtype=np.float64)
    pe = np.asarray(p_e, dtype=np.float64)
    var = np.asarray(variance_p_a, dtype=np.float64)
    fallback = np.asarray(fallback_n, dtype=np.float64)
    spread = pa * (1.0 - pa)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where((var > 0) & (spread > 0), spread / var, fallback)
    low, high = wilson_bounds(pa, n_eff, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (low - pe) / (1.0 - pe), (high - pe) / (1.0 - pe), n_eff


def alpha_unreliable_reason(
    value_totals: npt.ArrayLike, n_clusters: int, *, binary: bool = True
) -> str | None:
    """Why alpha's interval must not be shown, from the pairable ratings per value and the
    number of clusters (``None`` when the simulated coverage supports it)."""
    if n_clusters < ALPHA_MINIMUM_CLUSTERS:
        return too_few_responses(n_clusters, ALPHA_MINIMUM_CLUSTERS)
    totals = np.asarray(value_totals, dtype=np.float64)
    total = float(totals.sum())
    if not binary or total <= 0:
        return None
    rarer = float(totals.min())
    if rarer / total < ALPHA_MINORITY_SHARE:
        return gettext_noop(
            "interval unreliable: the rarer value is %(rarer)s of %(total)s ratings (under "
            "%(share)s, where no interval covers alpha %(coverage)s of the time)",
            rarer=math.floor(rarer),
            total=math.floor(total),
            share=f"{ALPHA_MINORITY_SHARE:.0%}",
            coverage="90%",
        )
    return None


def too_few_responses(n_clusters: int, minimum: int = MINIMUM_RESPONSES) -> str | None:
    """The "interval unreliable" reason of an interval resting on ``n_clusters`` responses,
    ``None`` from ``minimum`` up (where its coverage was simulated)."""
    if n_clusters >= minimum:
        return None
    return Text.ngettext(
        "interval unreliable: %(n)s response (coverage checked from %(minimum)s)",
        "interval unreliable: %(n)s responses (coverage checked from %(minimum)s)",
        "n",
        n=n_clusters,
        minimum=minimum,
    )


def _cluster_sums(values: FloatArray, clusters: npt.ArrayLike | None) -> tuple[FloatArray, int]:
    """Per-cluster sums of each row of ``values`` (rows x items) and the number of clusters."""
    if clusters is None:
        return values, values.shape[-1]
    _, labels = np.unique(np.asarray(clusters), return_inverse=True)
    labels = labels.reshape(-1)
    size = int(labels.max()) + 1 if labels.size else 0
    sums = np.stack([np.bincount(labels, weights=row, minlength=size) for row in values])
    return sums, size


def mean_bounds(
    values: npt.ArrayLike, clusters: npt.ArrayLike | None = None, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Wilson-type bounds of the mean of ``values`` in [0, 1] (a model's scores): Wilson's
    interval of the mean at ``n_eff = m (1 - m) / Var(m)``, ``Var(m)`` over clusters (the
    items themselves when ``clusters`` is None), the number of clusters when that is 0/0
    (every value the same, or all 0 or all 1). ``(mean, low, high)``; NaN bounds below two
    clusters."""
    data = np.asarray(values, dtype=np.float64).reshape(1, -1)
    n = data.shape[1]
    if n == 0:
        return np.nan, np.nan, np.nan
    mean = float(data.mean())
    ones = np.ones_like(data)
    sums, n_clusters = _cluster_sums(np.vstack([data, ones]), clusters)
    if n_clusters < 2:
        return mean, np.nan, np.nan
    variance = cluster_variance(((sums[0] - mean * sums[1]) / n)[None, :], n_clusters)
    low, high, _ = ac_wilson_bounds(mean, 0.0, variance[0], n_clusters, confidence)
    return mean, float(low), float(high)


def paired_difference_bounds(
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    clusters: npt.ArrayLike | None = None,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """Newcombe's hybrid score interval of ``mean(first) - mean(second)``, two rates in [0, 1]
    measured on the same items (Newcombe 1998, Stat Med 17: 2635-2650, method 10; the
    "MOVER" of Zou & Donner 2008 with Wilson limits).

    Each rate has its Wilson interval at its effective n (variance over clusters, as
    :func:`mean_bounds`); with ``d = p1 - p2``, ``l_i, u_i`` those limits and ``r`` the
    correlation of the two rates over clusters::

        low  = d - sqrt((p1 - l1)^2 - 2 r (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = d + sqrt((u1 - p1)^2 - 2 r (u1 - p1)(p2 - l2) + (p2 - l2)^2)

    A positive covariance is first reduced by Newcombe's continuity correction (N/2 on
    ``AD - BC``, here ``1 / (2 n^2)`` on the covariance of the two means), and ``r`` is 0
    when either rate does not vary. ``(difference, low, high)``; NaN bounds below two
    clusters.
    """
    x = np.asarray(first, dtype=np.float64).reshape(-1)
    y = np.asarray(second, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0:
        return np.nan, np.nan, np.nan
    p1, p2 = float(x.mean()), float(y.mean())
    sums, n_clusters = _cluster_sums(np.vstack([x, y, np.ones(n)]), clusters)
    if n_clusters < 2:
        return p1 - p2, np.nan, np.nan
    z1 = (sums[0] - p1 * sums[2]) / n
    z2 = (sums[1] - p2 * sums[2]) / n
    scale = n_clusters / (n_clusters - 1.0)
    v1 = scale * float((z1**2).sum())
    v2 = scale * float((z2**2).sum())
    covariance = scale * float((z1 * z2).sum())
    correction = scale / (2.0 * n * n)
    if covariance > correction:
        covariance -= correction
    elif covariance > 0:
        covariance = 0.0
    r = covariance / math.sqrt(v1 * v2) if v1 > 0 and v2 > 0 else 0.0
    l1, u1, _ = ac_wilson_bounds(p1, 0.0, v1, n_clusters, confidence)
    l2, u2, _ = ac_wilson_bounds(p2, 0.0, v2, n_clusters, confidence)
    d1, e1 = p1 - float(l1), float(u1) - p1
    d2, e2 = p2 - float(l2), float(u2) - p2
    d = p1 - p2
    low = d - math.sqrt(max(d1 * d1 - 2.0 * r * d1 * e2 + e2 * e2, 0.0))
    high = d + math.sqrt(max(e1 * e1 - 2.0 * r * e1 * d2 + d2 * d2, 0.0))
    return d, max(low, -1.0), min(high, 1.0)
