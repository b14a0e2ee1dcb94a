"""Prediction-powered means: a model's benchmark score from many judge grades and a few
expert grades, with an interval that stays valid however biased the judge is.

Notation: ``n`` responses graded by the experts (``labels`` ``Y``, and the judge's values on
them ``f``) and ``N`` responses graded by the judge alone (``f_u``). Labels and judge values
are verdicts (0/1) or scores in [0, 1]; the estimand is the mean label over the population
the responses were drawn from (a model's L2-Bench score).

* **PPI++** (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient prediction-powered
  inference", arXiv:2311.01453; PPI: Angelopoulos et al., Science 382, 2023)::

      theta_lam = mean_N(w_u lam f_u) + mean_n(w (Y - lam f))
      se^2      = Var_N(w_u lam f_u) / N + Var_n(w (Y - lam f)) / n      (variances /count)

  and the normal interval ``theta +/- z se``. ``lam = 1`` is plain PPI, ``lam = 0`` the
  experts' own mean. ``lam = None`` tunes it as PPI++ does: at the ``lam = 1`` estimate,
  ``lam = Cov_n(w (Y - theta), w (f - theta)) / ((1 + n/N) Var_{n+N}(w (f - theta)))`` (the
  covariance over ``n``, the variance over the pooled judge values with ``n + N - 1``), clipped
  to [0, 1]. Weights are scaled to average 1 within each set. Everything here equals the
  authors' package ``ppi-python`` 0.2.3 (``ppi_mean_pointestimate``, ``ppi_mean_ci``, with
  ``w`` and ``w_unlabeled``) to 1e-8: ``tests/agreement/test_ppi.py``. A judge that gave one
  single value everywhere makes ``lam`` 0/0 (that package may then answer NaN): it is 0 here,
  and every ``lam`` gives the same mean and interval there.
* **Stratified** (by competency or criterion; Fisch et al. 2024, "Stratified prediction-powered
  inference"): PPI++ within each stratum, its own ``lam``, combined with the strata's shares of
  the population (``(n_k + N_k) / (n + N)``): ``theta = sum_k W_k theta_k``,
  ``se^2 = sum_k W_k^2 se_k^2``; the interval adds the strata's distances to their limits in
  quadrature (MOVER), which for normal intervals is ``z se``.
* **Active** (Zrnic & Candes 2024, "Active statistical inference", ICML): every one of ``M``
  responses has a judge value and a probability ``pi_i`` of being drawn for expert grading
  (``xi_i`` = 1 when drawn). The estimate is the mean over all ``M`` of
  ``lam f_i + (Y_i - lam f_i) xi_i / pi_i`` (unbiased for any ``lam`` and any ``pi > 0``),
  its standard error the terms' standard deviation over ``sqrt(M)`` (``lam = 1`` by default;
  it can be tuned to the smallest variance of the terms, clipped to [0, 1]).

**Intervals.** ``interval="normal"`` is ``ppi-python``'s ``theta +/- z se``. It covers less
than it claims with few expert grades and a good judge: the rectifier ``Y - lam f`` is then
mostly 0, a sample with two or three disagreements underestimates its variance, and the
simulated coverage at 50 expert grades fell to 0.89-0.93 (docs/statistics.md,
"Prediction-powered scores"). ``interval="score"`` (the default, what reports show) keeps the
same estimate and builds the interval as Newcombe's hybrid score interval does for a paired
difference (Newcombe 1998, method 10; the MOVER of Zou & Donner 2008): the experts' mean and
the judge's mean on the same responses each get a Wilson interval at their effective n (at
Student's ``t`` with ``n - 1`` degrees of freedom), combined with their correlation (less
Newcombe's continuity correction when every value is a verdict 0/1) into the rectifier's
interval, and that with the judge-only mean's Wilson interval as independent parts::

    low  = theta - sqrt((m_Y - l_Y)^2 - 2 r (m_Y - l_Y) lam (u_f - m_f) + lam^2 (u_f - m_f)^2
                        + lam^2 (m_u - l_u)^2)

(``high`` likewise with the other limits), clipped to [0, 1]. It covered >= 0.93 in every
simulated setting from 50 expert grades. Below :data:`MINIMUM_LABELED` the result says so in
``unreliable_reason``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .counts import FloatArray
from .distributions import student_t_quantile
from .intervals import too_few_responses, wilson_bounds

__all__ = [
    "ACTIVE",
    "MINIMUM_LABELED",
    "NORMAL",
    "SCORE",
    "PPIMean",
    "PPIMeans",
    "StratifiedPPIMean",
    "active_ppi_mean",
    "ppi_mean",
    "ppi_mean_stack",
    "stratified_ppi_mean",
]

#: Below this many expert-graded responses a prediction-powered interval is flagged
#: unreliable: the coverage simulation (tests/agreement/test_ppi_coverage.py) starts at 50.
MINIMUM_LABELED = 50

type IntervalKind = Literal["score", "normal"]
SCORE = gettext_noop("prediction-powered, score interval")
NORMAL = gettext_noop("prediction-powered, normal interval")
ACTIVE = gettext_noop("prediction-powered (active sampling), normal interval")


@dataclass(frozen=True, slots=True)
class PPIMean:
    """A prediction-powered mean with its interval.

    Attributes:
        estimate: The mean (same unit as the labels: a score in [0, 1]).
        low, high: The interval (``method``), always computed; a report shows it only when
            ``unreliable_reason`` is ``None``.
        standard_error: Estimated standard error of ``estimate`` (the normal interval's).
        confidence: Nominal coverage, e.g. 0.95.
        lam: The power-tuning parameter used (1: PPI, 0: the experts alone).
        n_labeled: Responses graded by the experts (active: drawn and graded).
        n_unlabeled: Responses graded by the judge alone (active: not drawn).
        method: :data:`SCORE`, :data:`NORMAL` (``ppi-python``'s) or the active form's.
        unreliable_reason: Why the interval should not be shown (fewer than
            :data:`MINIMUM_LABELED` expert-graded responses), else ``None``.
    """

    estimate: float
    low: float
    high: float
    standard_error: float
    confidence: float
    lam: float
    n_labeled: int
    n_unlabeled: int
    method: str = SCORE
    unreliable_reason: str | None = None

    @property
    def half_width(self) -> float:
        """Half the interval's width (the "+/- w" of a published score)."""
        return (self.high - self.low) / 2.0


@dataclass(frozen=True, slots=True)
class PPIMeans:
    """Prediction-powered means of many independent samples at once (one per row), as
    arrays of shape ``(rows,)``: simulations and per-model leaderboards."""

    estimate: FloatArray
    low: FloatArray
    high: FloatArray
    standard_error: FloatArray
    lam: FloatArray
    confidence: float
    n_labeled: int
    n_unlabeled: int
    method: str = SCORE


@dataclass(frozen=True, slots=True)
class StratifiedPPIMean:
    """A stratified prediction-powered mean: each stratum's and their combination.

    Attributes:
        combined: The population mean; its ``lam`` is NaN (each stratum has its own),
            ``n_labeled`` / ``n_unlabeled`` are the totals.
        strata: Each stratum's label, in sorted order of the labels.
        per_stratum: Each stratum's own :class:`PPIMean`, in the order of ``strata``.
        shares: Each stratum's weight ``W_k`` (its share of the population, or the shares
            given), summing to 1.
    """

    combined: PPIMean
    strata: tuple[Hashable, ...]
    per_stratum: tuple[PPIMean, ...]
    shares: tuple[float, ...]


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _values(name: str, values: npt.ArrayLike, ndim: int) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must hold finite numbers (a verdict 0/1 or a score)")
    return array


def _weights(name: str, weights: npt.ArrayLike | None, shape: tuple[int, ...]) -> FloatArray:
    """Weights scaled to average 1 along the last axis, as ``ppi-python`` scales them."""
    if weights is None:
        return np.ones(shape, dtype=np.float64)
    w = np.broadcast_to(_values(name, weights, len(shape)), shape)
    if np.any(w < 0) or np.any(w.sum(axis=-1) <= 0):
        raise ValueError(f"{name} must be non-negative with a positive sum")
    scaled: FloatArray = w / w.sum(axis=-1, keepdims=True) * shape[-1]
    return scaled


def _population_variance(values: FloatArray) -> FloatArray:
    """Variance along the last axis with divisor the count (NumPy's ``std(ddof=0) ** 2``)."""
    centred = values - values.mean(axis=-1, keepdims=True)
    result: FloatArray = (centred**2).mean(axis=-1)
    return result


def _tuned_lam(
    y: FloatArray, f: FloatArray, f_u: FloatArray, w: FloatArray, w_u: FloatArray
) -> FloatArray:
    """PPI++'s power-tuning parameter of each row (ppi-python's ``_calc_lam_glm`` for a mean)."""
    n, big_n = y.shape[-1], f_u.shape[-1]
    theta = (w_u * f_u).mean(axis=-1) + (w * (y - f)).mean(axis=-1)
    grads = w * (y - theta[:, None])
    grads_hat = w * (f - theta[:, None])
    pooled = np.concatenate([grads_hat, w_u * (f_u - theta[:, None])], axis=-1)
    covariance = (
        (grads - grads.mean(axis=-1, keepdims=True))
        * (grads_hat - grads_hat.mean(axis=-1, keepdims=True))
    ).mean(axis=-1)
    pooled_variance = _population_variance(pooled) * (n + big_n) / (n + big_n - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = covariance / ((1.0 + n / big_n) * pooled_variance)
    return np.where(pooled_variance > 0, np.clip(lam, 0.0, 1.0), 0.0)


def ppi_mean_stack(
    labels: npt.ArrayLike,
    judge_on_labeled: npt.ArrayLike,
    judge_on_unlabeled: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    weights: npt.ArrayLike | None = None,
    unlabeled_weights: npt.ArrayLike | None = None,
    interval: IntervalKind = "score",
) -> PPIMeans:
    """:func:`ppi_mean` of each row: ``labels`` and ``judge_on_labeled`` ``(rows, n)``,
    ``judge_on_unlabeled`` ``(rows, N)``; weights of the same shapes (or broadcastable)."""
    y = _values("labels", labels, 2)
    f = _values("judge_on_labeled", judge_on_labeled, 2)
    f_u = _values("judge_on_unlabeled", judge_on_unlabeled, 2)
    if f.shape != y.shape or f_u.shape[0] != y.shape[0]:
        raise ValueError(
            "labels and judge_on_labeled must have the same shape, and judge_on_unlabeled "
            f"as many rows: got {y.shape}, {f.shape}, {f_u.shape}"
        )
    n, big_n = y.shape[1], f_u.shape[1]
    if n < 2:
        raise ValueError(f"a prediction-powered mean needs two expert-graded responses, got {n}")
    if big_n < 1:
        raise ValueError("a prediction-powered mean needs a response graded by the judge alone")
    w = _weights("weights", weights, y.shape)
    w_u = _weights("unlabeled_weights", unlabeled_weights, f_u.shape)
    if lam is None:
        lams = _tuned_lam(y, f, f_u, w, w_u)
    elif 0.0 <= lam <= 1.0:
        lams = np.full(y.shape[0], float(lam))
    else:
        raise ValueError(f"lam must be in [0, 1] or None (tuned), got {lam!r}")
    imputed = w_u * lams[:, None] * f_u
    rectifier = w * (y - lams[:, None] * f)
    estimate = imputed.mean(axis=-1) + rectifier.mean(axis=-1)
    se = np.sqrt(_population_variance(imputed) / big_n + _population_variance(rectifier) / n)
    z = _z(confidence)
    if interval == "normal":
        low, high = estimate - z * se, estimate + z * se
        return PPIMeans(estimate, low, high, se, lams, confidence, n, big_n, NORMAL)
    if interval != "score":
        raise ValueError(f"interval must be 'score' or 'normal', got {interval!r}")
    if any(np.any((v < 0) | (v > 1)) for v in (y, f, f_u)):
        raise ValueError("the score interval needs values in [0, 1] (verdicts or scores)")
    low, high = _score_bounds(y, f, f_u, w, w_u, lams, estimate, confidence)
    return PPIMeans(estimate, low, high, se, lams, confidence, n, big_n, SCORE)


def _wilson_parts(
    values: FloatArray, weights: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Each row's weighted mean, its Wilson limits at the effective n ``m (1 - m) / Var(m)``
    (the count when that is 0/0) and the per-value influence ``w (v - m) / n``."""
    count = values.shape[-1]
    mean = (weights * values).mean(axis=-1)
    influence = weights * (values - mean[:, None]) / count
    variance = count / max(count - 1.0, 1.0) * (influence**2).sum(axis=-1)
    spread = mean * (1.0 - mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where((variance > 0) & (spread > 0), spread / variance, float(count))
    low, high = wilson_bounds(np.clip(mean, 0.0, 1.0), n_eff, confidence)
    return mean, low, high, influence


def _score_bounds(
    y: FloatArray,
    f: FloatArray,
    f_u: FloatArray,
    w: FloatArray,
    w_u: FloatArray,
    lams: FloatArray,
    estimate: FloatArray,
    confidence: float,
) -> tuple[FloatArray, FloatArray]:
    """The score interval of each row (module docstring)."""
    n = y.shape[-1]
    # The labeled means at Student's t: the level whose normal quantile is t_{n-1}.
    t = student_t_quantile(0.5 + confidence / 2.0, n - 1)
    labeled_confidence = min(2.0 * NormalDist().cdf(t) - 1.0, 1.0 - 1e-15)
    m_y, l_y, u_y, i_y = _wilson_parts(y, w, labeled_confidence)
    m_f, l_f, u_f, i_f = _wilson_parts(f, w, labeled_confidence)
    m_u, l_u, u_u, _ = _wilson_parts(f_u, w_u, confidence)
    scale = n / (n - 1.0)
    v_y, v_f = scale * (i_y**2).sum(axis=-1), scale * (i_f**2).sum(axis=-1)
    covariance = scale * (i_y * i_f).sum(axis=-1)
    # Newcombe's continuity correction (N/2 on AD - BC) belongs to counts: verdicts only.
    verdicts = np.all((y == 0) | (y == 1), axis=-1) & np.all((f == 0) | (f == 1), axis=-1)
    correction = np.where(verdicts, scale / (2.0 * n * n), 0.0)
    covariance = np.where(
        covariance > correction,
        covariance - correction,
        np.where(covariance > 0, 0.0, covariance),
    )
    # The square roots apart: the product of two tiny variances underflows to 0 (r infinite),
    # and rounding can take |r| past 1.
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where((v_y > 0) & (v_f > 0), covariance / (np.sqrt(v_y) * np.sqrt(v_f)), 0.0).clip(
            -1.0, 1.0
        )
    below_y, above_y = m_y - l_y, u_y - m_y
    below_f, above_f = lams * (m_f - l_f), lams * (u_f - m_f)
    below_u, above_u = lams * (m_u - l_u), lams * (u_u - m_u)
    down = below_y**2 - 2.0 * r * below_y * above_f + above_f**2
    up = above_y**2 - 2.0 * r * above_y * below_f + below_f**2
    low = estimate - np.sqrt(np.maximum(down, 0.0) + below_u**2)
    high = estimate + np.sqrt(np.maximum(up, 0.0) + above_u**2)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def _single(found: PPIMeans) -> PPIMean:
    return PPIMean(
        estimate=float(found.estimate[0]),
        low=float(found.low[0]),
        high=float(found.high[0]),
        standard_error=float(found.standard_error[0]),
        confidence=found.confidence,
        lam=float(found.lam[0]),
        n_labeled=found.n_labeled,
        n_unlabeled=found.n_unlabeled,
        method=found.method,
        unreliable_reason=too_few_responses(found.n_labeled, MINIMUM_LABELED),
    )


def _row(values: npt.ArrayLike) -> FloatArray:
    return np.asarray(values, dtype=np.float64).reshape(1, -1)


def ppi_mean(
    labels: npt.ArrayLike,
    judge_on_labeled: npt.ArrayLike,
    judge_on_unlabeled: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    weights: npt.ArrayLike | None = None,
    unlabeled_weights: npt.ArrayLike | None = None,
    interval: IntervalKind = "score",
) -> PPIMean:
    """The prediction-powered mean of the labels (PPI++), with its interval.

    Args:
        labels: ``(n,)`` the experts' values (verdicts 0/1 or scores in [0, 1]) of the
            responses they graded, ``n >= 2``.
        judge_on_labeled: ``(n,)`` the judge's values of the same responses, in order.
        judge_on_unlabeled: ``(N,)`` the judge's values of the responses the experts did not
            grade (``N >= 1``): the population is both sets together.
        confidence: Nominal coverage of the interval.
        lam: ``None`` tunes it (PPI++); 1 is plain PPI, 0 the experts' mean alone.
        weights, unlabeled_weights: Optional sample weights of each set (scaled to average
            1, as in ``ppi-python``).
        interval: ``"score"`` (module docstring; labels and judge values in [0, 1]) or
            ``"normal"``, ``ppi-python``'s ``ppi_mean_ci``.

    Returns:
        :class:`PPIMean` (estimate, interval, the ``lam`` used, both n).

    Raises:
        ValueError: fewer than two labels, no judge-only response, lengths that differ,
            values that are not finite, ``lam`` outside [0, 1].
    """
    return _single(
        ppi_mean_stack(
            _row(labels),
            _row(judge_on_labeled),
            _row(judge_on_unlabeled),
            confidence=confidence,
            lam=lam,
            weights=None if weights is None else _row(weights),
            unlabeled_weights=None if unlabeled_weights is None else _row(unlabeled_weights),
            interval=interval,
        )
    )


def _combine(means: Sequence[PPIMean], shares: FloatArray, confidence: float) -> PPIMean:
    """The strata's weighted sum; its interval adds each stratum's distances to its limits
    in quadrature (MOVER for independent parts; for normal intervals, ``z`` times the
    combined standard error)."""
    parts = list(zip(shares, means, strict=True))
    estimate = float(sum(s * m.estimate for s, m in parts))
    se = float(np.sqrt(sum((s * m.standard_error) ** 2 for s, m in parts)))
    below = float(np.sqrt(sum((s * (m.estimate - m.low)) ** 2 for s, m in parts)))
    above = float(np.sqrt(sum((s * (m.high - m.estimate)) ** 2 for s, m in parts)))
    n = sum(m.n_labeled for m in means)
    return PPIMean(
        estimate=estimate,
        low=estimate - below,
        high=estimate + above,
        standard_error=se,
        confidence=confidence,
        lam=float("nan"),
        n_labeled=n,
        n_unlabeled=sum(m.n_unlabeled for m in means),
        method=means[0].method,
        unreliable_reason=too_few_responses(n, MINIMUM_LABELED),
    )


def stratified_ppi_mean(
    labels: npt.ArrayLike,
    judge_on_labeled: npt.ArrayLike,
    labeled_strata: Sequence[Hashable] | npt.ArrayLike,
    judge_on_unlabeled: npt.ArrayLike,
    unlabeled_strata: Sequence[Hashable] | npt.ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
    shares: dict[Hashable, float] | None = None,
    interval: IntervalKind = "score",
) -> StratifiedPPIMean:
    """Prediction-powered mean by strata (competencies, criteria), each stratum with its own
    PPI++ estimate and ``lam``, combined with the strata's shares of the population.

    Args:
        labels, judge_on_labeled: As for :func:`ppi_mean`.
        labeled_strata: ``(n,)`` the stratum of each expert-graded response.
        judge_on_unlabeled: As for :func:`ppi_mean`.
        unlabeled_strata: ``(N,)`` the stratum of each judge-only response.
        confidence, lam, interval: As for :func:`ppi_mean` (a given ``lam`` applies to
            every stratum).
        shares: Each stratum's known share of the population (normalised to sum 1); by
            default ``(n_k + N_k) / (n + N)``.

    Raises:
        ValueError: a stratum with fewer than two expert-graded responses or none graded by
            the judge alone (named, with its counts), or lengths that differ.
    """
    y = _values("labels", labels, 1)
    f = _values("judge_on_labeled", judge_on_labeled, 1)
    f_u = _values("judge_on_unlabeled", judge_on_unlabeled, 1)
    labeled_of = np.asarray(labeled_strata, dtype=object)
    unlabeled_of = np.asarray(unlabeled_strata, dtype=object)
    if not (y.shape == f.shape == labeled_of.shape and f_u.shape == unlabeled_of.shape):
        raise ValueError("each response needs its label, its judge value and its stratum")
    strata = tuple(sorted({*labeled_of.tolist(), *unlabeled_of.tolist()}, key=repr))
    per_stratum: list[PPIMean] = []
    for stratum in strata:
        here, there = labeled_of == stratum, unlabeled_of == stratum
        if here.sum() < 2 or not there.any():
            raise ValueError(
                f"stratum {stratum!r} has {int(here.sum())} expert-graded and "
                f"{int(there.sum())} judge-only responses: at least 2 and 1 are needed "
                "(merge it with another stratum)"
            )
        per_stratum.append(
            ppi_mean(
                y[here], f[here], f_u[there], confidence=confidence, lam=lam, interval=interval
            )
        )
    if shares is None:
        sizes = np.array([m.n_labeled + m.n_unlabeled for m in per_stratum], dtype=np.float64)
    else:
        missing = [s for s in strata if s not in shares]
        if missing:
            raise ValueError(f"shares must give every stratum's share; missing {missing!r}")
        sizes = np.array([float(shares[s]) for s in strata])
        if np.any(sizes < 0) or sizes.sum() <= 0:
            raise ValueError("shares must be non-negative with a positive sum")
    weights = sizes / sizes.sum()
    return StratifiedPPIMean(
        combined=_combine(per_stratum, weights, confidence),
        strata=strata,
        per_stratum=tuple(per_stratum),
        shares=tuple(float(w) for w in weights),
    )


def active_ppi_mean(
    judge: npt.ArrayLike,
    probabilities: npt.ArrayLike,
    drawn: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = 1.0,
) -> PPIMean:
    """The prediction-powered mean of actively sampled responses (Zrnic & Candes 2024),
    inverse-probability weighted.

    Args:
        judge: ``(M,)`` the judge's value of every response of the population.
        probabilities: ``(M,)`` each response's probability of being drawn for the experts
            (``core.stats.ppi_planning.sampling_probabilities``), all > 0.
        drawn: Indices (into the ``M`` responses) of those drawn, or an ``(M,)`` boolean mask.
        labels: The experts' values of the drawn responses, in the order of ``drawn``
            (the mask's order when a mask).
        confidence: Nominal coverage.
        lam: 1 (the default) is Zrnic and Candes's estimator; ``None`` tunes it to the
            smallest variance of the terms (clipped to [0, 1]), which covered about one point
            less at 50-60 drawn responses (the tuning reads the same draws); 0 is the
            inverse-probability weighted experts' mean.

    Returns:
        :class:`PPIMean`; ``n_labeled`` the drawn responses, ``n_unlabeled`` the others.
    """
    f = _values("judge", judge, 1)
    pi = _values("probabilities", probabilities, 1)
    if pi.shape != f.shape:
        raise ValueError("probabilities must give one probability per response")
    if np.any(pi <= 0) or np.any(pi > 1):
        raise ValueError("sampling probabilities must be in (0, 1]")
    chosen = np.asarray(drawn)
    if chosen.dtype == np.bool_:
        if chosen.shape != f.shape:
            raise ValueError("a mask of drawn responses must have one entry per response")
        index = np.flatnonzero(chosen)
    else:
        index = chosen.astype(np.int64).reshape(-1)
        if np.unique(index).size != index.size:
            raise ValueError("a response is drawn at most once")
        if index.size and (index.min() < 0 or index.max() >= f.size):
            raise ValueError(f"drawn responses must be indices of the {f.size} responses")
    y = _values("labels", labels, 1)
    if y.shape != index.shape:
        raise ValueError(f"{index.size} responses were drawn but {y.size} labels given")
    n = int(index.size)
    if n < 2:
        raise ValueError(f"an active prediction-powered mean needs two drawn responses, got {n}")
    inverse = np.zeros(f.shape)
    inverse[index] = 1.0 / pi[index]
    observed = np.zeros(f.shape)
    observed[index] = y * inverse[index]
    # Each response's term is A + lam B: A = xi Y / pi, B = f (1 - xi / pi).
    slope = f * (1.0 - inverse)
    if lam is None:
        variance = float(_population_variance(slope[None, :])[0])
        covariance = float(((observed - observed.mean()) * (slope - slope.mean())).mean())
        chosen_lam = float(np.clip(-covariance / variance, 0.0, 1.0)) if variance > 0 else 1.0
    elif 0.0 <= lam <= 1.0:
        chosen_lam = float(lam)
    else:
        raise ValueError(f"lam must be in [0, 1] or None (tuned), got {lam!r}")
    terms = observed + chosen_lam * slope
    estimate = float(terms.mean())
    se = float(np.sqrt(_population_variance(terms[None, :])[0] / f.size))
    z = _z(confidence)
    return PPIMean(
        estimate=estimate,
        low=estimate - z * se,
        high=estimate + z * se,
        standard_error=se,
        confidence=confidence,
        lam=chosen_lam,
        n_labeled=n,
        n_unlabeled=int(f.size - n),
        method=ACTIVE,
        unreliable_reason=too_few_responses(n, MINIMUM_LABELED),
    )
