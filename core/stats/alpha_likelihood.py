"""A profile-likelihood interval for alpha of a binary criterion, for small samples.

The bootstrap fails alpha at 20-30 units: at a true alpha of 0.8 many samples hold no
disagreement, their resamples all give alpha = 1, and the BCa interval is [1, 1] (simulated
coverage 0.77-0.88). A likelihood interval does not need disagreements to exist in the sample:
it asks which true values would make the sample plausible.

Model: the units are independent; the ``m`` ratings of a unit are exchangeable binary ratings
with pass rate ``p`` and intraclass correlation ``rho`` (the population value of alpha, and of
Fleiss' kappa, for a binary criterion). The number of passes ``x`` of ``m`` follows the
beta-binomial in Prentice's (1986) parameterisation, which extends it to ``rho < 0`` where the
probabilities stay non-negative::

    P(x | m, p, rho) = C(m, x) prod_{i<x} (p (1 - rho) + i rho)
                        prod_{j<m-x} ((1 - p)(1 - rho) + j rho) / prod_{k<m} (1 - rho + k rho)

For two ratings it is the "common correlation" model of the 2x2 table (Bloch & Kraemer 1989):
``P(both pass) = p^2 + rho p (1 - p)``. The interval is ``{rho : l(rho_hat) - l_p(rho) <=
limit}``, ``l_p`` the log-likelihood maximised over ``p`` (the profile) and ``limit`` half the
chi-square quantile calibrated for small samples (:func:`_limit`), found on a grid of ``rho``
(step :data:`RHO_STEP`, finer towards 1; the crossing interpolated) with ``p`` maximised on a
grid refined by a parabola through the best point. Many criteria are evaluated together: a
group is its weights over the distinct ``(m, x)`` patterns, and the log-likelihoods are one
matrix product.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt

from .counts import FloatArray, IntArray, ratings_per_unit
from .distributions import student_t_quantile

__all__ = ["RHO_STEP", "alpha_profile_bounds", "binary_patterns"]

#: Spacing of the grid of alpha values on which the profile is evaluated, up to 0.9; above,
#: it closes in on 1 geometrically (the likelihood falls like log(1 - alpha) there).
RHO_STEP = 0.02
_RHO = np.concatenate(
    [np.linspace(-1.0, 0.9, round(1.9 / RHO_STEP) + 1), 1.0 - np.logspace(-1.1, -6, 25)]
)
_P_POINTS = 61
#: Pass rates at which the likelihood is evaluated: even in logit p over (1e-4, 1 - 1e-4).
_P = 1.0 / (1.0 + np.exp(-np.linspace(-9.0, 9.0, _P_POINTS)))
_BATCH = 32


def binary_patterns(
    groups: list[npt.ArrayLike],
) -> tuple[IntArray, FloatArray]:
    """The distinct ``(m, x)`` patterns (ratings, passes) of units with two ratings or more
    over every group's ``(units, 2)`` [fail, pass] counts, and each group's count of each
    pattern: ``(patterns (K, 2), weights (G, K))``."""
    keys: dict[tuple[int, int], int] = {}
    rows: list[dict[int, float]] = []
    for counts in groups:
        c = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
        m = ratings_per_unit(c)
        row: dict[int, float] = {}
        pairs, found = np.unique(np.column_stack([m, c[:, 1]])[m >= 2], axis=0, return_counts=True)
        for (size, passes), count in zip(pairs.tolist(), found.tolist(), strict=True):
            column = keys.setdefault((size, passes), len(keys))
            row[column] = row.get(column, 0.0) + count
        rows.append(row)
    patterns = np.array(sorted(keys, key=keys.__getitem__), dtype=np.int64).reshape(-1, 2)
    weights = np.zeros((len(rows), len(keys)))
    for g, row in enumerate(rows):
        for column, count in row.items():
            weights[g, column] = count
    return patterns, weights


def _log_probabilities(patterns: IntArray, p: FloatArray) -> FloatArray:
    """``log P(x | m, p, rho)`` for every pattern, ``rho`` of the grid and ``p`` of ``p``:
    ``(K, R, P)``; ``-inf`` where the probability is 0, NaN where ``(p, rho)`` gives no
    distribution (a negative probability for some ``x`` of some ``m`` present)."""
    rho = _RHO[:, None]
    pr = p[None, :]
    out = np.empty((patterns.shape[0], rho.size, pr.size))
    largest = int(patterns[:, 0].max()) if patterns.size else 2
    with np.errstate(divide="ignore", invalid="ignore"):
        # Factors for i, j, k = 1..largest-1 (the i, j, k = 0 factors, p (1 - rho),
        # (1 - p)(1 - rho) and 1 - rho, are taken apart so that rho = 1 is exact).
        steps = np.arange(1, largest)[:, None, None]
        passing = pr * (1 - rho) + steps * rho
        failing = (1 - pr) * (1 - rho) + steps * rho
        total = (1 - rho) + steps * rho + 0 * pr
        valid = (
            np.all(passing >= -1e-12, axis=0)
            & np.all(failing >= -1e-12, axis=0)
            & np.all(total > 0, axis=0)
        )
        log_pass = np.log(np.maximum(passing, 0.0))
        log_fail = np.log(np.maximum(failing, 0.0))
        log_total = np.log(total)
        log_one_less = np.log(np.maximum(1.0 - rho, 0.0)) + 0 * pr
        for row, (m, x) in enumerate(patterns.tolist()):
            value = math.log(math.comb(m, x)) - log_total[: m - 1].sum(axis=0)
            value = value + (np.log(pr) if x > 0 else 0.0) + (np.log(1 - pr) if x < m else 0.0)
            value = value + ((x > 0) + (x < m) - 1) * log_one_less
            value = value + log_pass[: max(x - 1, 0)].sum(axis=0)
            value = value + log_fail[: max(m - x - 1, 0)].sum(axis=0)
            out[row] = np.where(valid, value, np.nan)
    return out


def alpha_profile_bounds(
    patterns: IntArray, weights: npt.ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Profile-likelihood bounds of binary alpha for each group.

    Args:
        patterns: ``(K, 2)`` distinct (ratings, passes) of units (:func:`binary_patterns`).
        weights: ``(G, K)`` each group's number of units of each pattern.
        confidence: Nominal coverage.

    Returns:
        ``(low, high)``, each ``(G,)``; NaN for a group without a unit of two ratings or
        with every rating the same value (alpha undefined).
    """
    w = np.asarray(weights, dtype=np.float64).reshape(-1, patterns.shape[0])
    tail = (1.0 - confidence) / 2.0
    low = np.full(w.shape[0], np.nan)
    high = np.full(w.shape[0], np.nan)
    if patterns.size == 0:
        return low, high
    p = _P
    logs = np.nan_to_num(_log_probabilities(patterns, p), nan=-1e300, neginf=-1e300)
    m, x = patterns[:, 0], patterns[:, 1]
    with_pass = w @ (x > 0).astype(np.float64)
    with_fail = w @ (x < m).astype(np.float64)
    split = w @ ((x > 0) & (x < m)).astype(np.float64)
    units = w.sum(axis=1)
    for start in range(0, w.shape[0], _BATCH):
        block = w[start : start + _BATCH]
        profile = _profile(block, logs, p)
        for offset, curve in enumerate(profile):
            g = start + offset
            if with_pass[g] == 0 or with_fail[g] == 0 or units[g] < 2:
                continue  # every rating the same value: alpha is undefined
            low[g], high[g] = _crossings(curve, _limit(units[g], split[g], tail))
    return low, high


def _limit(units: float, split: float, tail: float) -> float:
    """How far below its maximum the profile may fall inside the interval.

    Asymptotically ``chi2_1 / 2`` (``z^2 / 2``); at 20-30 units that covered 0.87-0.89 in some
    settings, so ``t_{n-1}^2 / 2`` (``n`` the units), the usual small-sample calibration.
    Without a split unit the maximum is alpha = 1, on the edge where the chi-square law does
    not hold: the bound is then where seeing no disagreement has probability ``tail``, as
    Clopper and Pearson's bound for zero events (``-log(tail)``)."""
    if split == 0:
        return -math.log(tail)
    return _t_limit(1.0 - tail, int(units))


@cache
def _t_limit(level: float, units: int) -> float:
    return student_t_quantile(level, units - 1.0) ** 2 / 2.0


def _profile(block: FloatArray, logs: FloatArray, p: FloatArray) -> FloatArray:
    """Each group's log-likelihood maximised over ``p``, on the grid of ``rho``: ``(G, R)``.
    The maximum over the grid of ``p`` is refined by the parabola through the best point and
    its neighbours (in ``logit p``, where the grid is even)."""
    k, r, n_p = logs.shape
    # -1e300 stands for log 0 (and for no distribution at all): a pattern a group does not
    # have adds 0 x -1e300 = 0, one it has sinks the likelihood there.
    loglik = (block @ logs.reshape(k, r * n_p)).reshape(block.shape[0], r, n_p)
    loglik = np.where(loglik < -1e290, -np.inf, loglik)
    best = np.argmax(loglik, axis=2)
    inner = np.clip(best, 1, n_p - 2)
    rows = np.arange(block.shape[0])[:, None]
    cols = np.arange(r)[None, :]
    left = loglik[rows, cols, inner - 1]
    centre = loglik[rows, cols, inner]
    right = loglik[rows, cols, inner + 1]
    with np.errstate(divide="ignore", invalid="ignore"):  # -inf - -inf: no distribution there
        curvature = left - 2 * centre + right
        lift = np.where(
            np.isfinite(curvature) & (curvature < 0), -((right - left) ** 2) / (8 * curvature), 0
        )
    top = loglik[rows, cols, best]
    result: FloatArray = np.where(best == inner, centre + lift, top)
    return result


def _crossings(curve: FloatArray, limit: float) -> tuple[float, float]:
    """Where the profile falls ``limit`` below its maximum on either side of it (linear
    interpolation between grid points; the grid's end when it never does)."""
    finite = np.isfinite(curve)
    if not finite.any():
        return np.nan, np.nan
    top = int(np.nanargmax(np.where(finite, curve, -np.inf)))
    deficit = curve[top] - np.where(finite, curve, -np.inf)
    inside = deficit <= limit
    below = top
    while below > 0 and inside[below - 1]:
        below -= 1
    above = top
    while above < curve.size - 1 and inside[above + 1]:
        above += 1
    return _edge(deficit, below, below - 1, limit), _edge(deficit, above, above + 1, limit)


def _edge(deficit: FloatArray, inside: int, outside: int, limit: float) -> float:
    if outside < 0 or outside >= deficit.size or not np.isfinite(deficit[outside]):
        return float(_RHO[inside])
    share = (limit - deficit[inside]) / (deficit[outside] - deficit[inside])
    return float(_RHO[inside] + share * (_RHO[outside] - _RHO[inside]))
