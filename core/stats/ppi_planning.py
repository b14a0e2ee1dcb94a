"""Planning prediction-powered scores: how many expert grades, and which responses.

* **How many** (:func:`expert_grades_needed`). With ``M`` responses graded by the judge, of
  which ``n`` go to the experts, PPI++ with its best ``lam`` has the variance of the experts'
  mean at an *effective* sample size ``n_eff = n M / (n + (1 - rho^2)(M - n))``, ``rho`` the
  correlation of the judge's values with the experts' (Angelopoulos, Duchi & Zrnic 2023,
  PPI++; Broska, Howes & van Loon 2024, the "PPI correlation" of ``ppi-python``'s power
  analysis). A half-width ``w`` needs ``n_0 = (z sigma / w)^2`` experts' grades without the
  judge (``sigma^2`` the labels' variance), and with it::

      n = n_0 (1 - rho^2) M / (M - rho^2 n_0)

  the same ``n`` as ``ppi_py.ppi_power(rho, cost_X=0, cost_Y=1, cost_Yhat=~0,
  effective_n=n_0, n_max=M)`` before its rounding (``tests/agreement/test_ppi_planning.py``),
  with ``rho`` taken as 0 when negative (PPI++ clips ``lam`` at 0; that package squares it).
  Active sampling (Zrnic & Candes 2024) has, at ``lam = 1``, the variance
  ``(sigma^2 + mean_i e_i (1 / pi_i - 1)) / M``, ``e_i`` the judge's expected squared error on
  response ``i`` (its uncertainty squared, scaled to the judge's mean squared error); the
  smallest budget whose probabilities reach the half-width is found by bisection.
* **Which** (:func:`sampling_probabilities`, :func:`draw_for_experts`). Zrnic & Candes's
  optimal rule draws a response with probability proportional to the judge's expected error
  on it, ``sqrt(E[(Y - f)^2])``; here ``pi_i = clip(c u_i, floor, 1)`` with ``c`` set so the
  probabilities add up to the budget, and a floor (a share of the uniform rate ``budget / M``)
  so that no response's weight ``1 / pi_i`` explodes when the judge was sure and wrong. Each
  response is drawn independently (Poisson sampling): the number drawn varies around the
  budget, and :func:`core.stats.ppi.active_ppi_mean` weighs the drawn ones by ``1 / pi``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from .bootstrap import Seed, rng_from_seed
from .counts import FloatArray, IntArray

__all__ = [
    "DEFAULT_FLOOR_SHARE",
    "ActiveDraw",
    "ExpertGradesNeeded",
    "JudgeAgreement",
    "assumed_judge_agreement",
    "draw_for_experts",
    "expert_grades_needed",
    "measured_judge_agreement",
    "response_uncertainty",
    "sampling_probabilities",
    "uncertainty_from_epochs",
    "uncertainty_from_pass_probability",
]

#: No response is drawn with a probability under this share of the uniform rate
#: ``budget / M``: its weight is then at most five times a uniform draw's.
DEFAULT_FLOOR_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class JudgeAgreement:
    """What sample sizes depend on: the labels' variance and the judge's agreement with them.

    Attributes:
        correlation: Correlation ``rho`` of the judge's values with the experts' (``ppi-python``'s
            "PPI correlation", capped at ``1 - 1/n`` when measured).
        label_variance: Variance ``sigma^2`` of the experts' values (``p (1 - p)`` for verdicts).
        mean_squared_error: The judge's mean of ``(Y - f)^2`` (``1 - accuracy`` for verdicts).
        n: Responses it was measured on (0 when assumed).
    """

    correlation: float
    label_variance: float
    mean_squared_error: float
    n: int = 0


def measured_judge_agreement(labels: npt.ArrayLike, judge: npt.ArrayLike) -> JudgeAgreement:
    """The judge's agreement measured on responses graded by both (at least two)."""
    y = np.asarray(labels, dtype=np.float64).reshape(-1)
    f = np.asarray(judge, dtype=np.float64).reshape(-1)
    if y.shape != f.shape or y.size < 2:
        raise ValueError("need the experts' and the judge's values of the same two responses")
    n = y.size
    dy, df = y - y.mean(), f - f.mean()
    var_y, var_f = float((dy**2).mean()), float((df**2).mean())
    covariance = float((dy * df).mean())
    rho = covariance / math.sqrt(var_y * var_f) if var_y > 0 and var_f > 0 else 0.0
    return JudgeAgreement(
        correlation=min(rho, 1.0 - 1.0 / n),
        label_variance=var_y,
        mean_squared_error=float(((y - f) ** 2).mean()),
        n=n,
    )


def assumed_judge_agreement(
    accuracy: float, pass_rate: float, judge_pass_rate: float | None = None
) -> JudgeAgreement:
    """The agreement of a judge whose verdicts match the experts' with probability
    ``accuracy``, on responses the experts pass at ``pass_rate`` (the judge at
    ``judge_pass_rate``, by default the same: errors both ways alike).

    ``P(both pass) = (p + q - (1 - accuracy)) / 2`` follows from the two pass rates and the
    disagreement; ``rho = (P(both pass) - p q) / sqrt(p (1 - p) q (1 - q))``.
    """
    p = pass_rate
    q = p if judge_pass_rate is None else judge_pass_rate
    if not (0.0 < p < 1.0 and 0.0 < q < 1.0 and 0.0 <= accuracy <= 1.0):
        raise ValueError("pass rates must be in (0, 1) and the accuracy in [0, 1]")
    both = (p + q - (1.0 - accuracy)) / 2.0
    if not max(0.0, p + q - 1.0) - 1e-12 <= both <= min(p, q) + 1e-12:
        raise ValueError(
            f"no judge has accuracy {accuracy} with pass rates {p} (experts) and {q} (judge)"
        )
    rho = (both - p * q) / math.sqrt(p * (1 - p) * q * (1 - q))
    return JudgeAgreement(
        correlation=float(np.clip(rho, -1.0, 1.0)),
        label_variance=p * (1 - p),
        mean_squared_error=1.0 - accuracy,
    )


def uncertainty_from_pass_probability(
    probability: npt.ArrayLike, judge: npt.ArrayLike | None = None
) -> FloatArray:
    """The judge's expected error on each response, ``sqrt(E[(Y - f)^2])``, when the experts
    pass it with probability ``p`` (a probability the judge stated, or a critique's hedging
    read as one, taken as calibrated) and the judge's value is ``f``:
    ``sqrt(p (1 - f)^2 + (1 - p) f^2)``. With ``judge`` omitted the judge's value is ``p``
    itself (``sqrt(p (1 - p))``); with its verdict, ``sqrt(min(p, 1 - p))`` for the likelier
    one. Zrnic and Candes's best sampling probabilities are proportional to it."""
    p = np.clip(np.asarray(probability, dtype=np.float64), 0.0, 1.0)
    f = p if judge is None else np.clip(np.asarray(judge, dtype=np.float64), 0.0, 1.0)
    result: FloatArray = np.sqrt(p * (1.0 - f) ** 2 + (1.0 - p) * f**2)
    return result


def uncertainty_from_epochs(
    passes: npt.ArrayLike, epochs: npt.ArrayLike, judge: npt.ArrayLike | None = None
) -> FloatArray:
    """Uncertainty from disagreement across epochs: ``passes`` of ``epochs`` verdicts, read
    as the pass probability ``(passes + 1/2) / (epochs + 1)`` (so unanimous epochs still
    leave some doubt; one epoch alone tells nothing and gives every response the same), for
    the judge's value ``judge`` (by default the majority verdict, a tie counting as a pass)."""
    k = np.asarray(passes, dtype=np.float64)
    m = np.asarray(epochs, dtype=np.float64)
    if np.any(m < 1) or np.any(k < 0) or np.any(k > m):
        raise ValueError("passes must be between 0 and the epochs (at least one)")
    value = (2 * k >= m).astype(np.float64) if judge is None else judge
    return uncertainty_from_pass_probability((k + 0.5) / (m + 1.0), value)


def response_uncertainty(criteria: npt.ArrayLike, weights: npt.ArrayLike) -> FloatArray:
    """A response's uncertainty from its criteria's ``(M, C)``: the standard deviation of its
    weighted score ``sum_c w_c v_c / sum_{w > 0} w`` with the criteria's errors independent
    (``sqrt(sum_c (w_c u_c)^2) / sum_{w > 0} w``). NaN (a criterion not judged) counts 0."""
    u = np.nan_to_num(np.asarray(criteria, dtype=np.float64), nan=0.0)
    w = np.asarray(weights, dtype=np.float64)
    positive = float(w[w > 0].sum())
    if u.ndim != 2 or w.shape != (u.shape[1],) or positive <= 0:
        raise ValueError("need (responses, criteria) uncertainties and a positive weight")
    result: FloatArray = np.sqrt(((u * w) ** 2).sum(axis=1)) / positive
    return result


def sampling_probabilities(
    uncertainty: npt.ArrayLike, budget: float, *, floor_share: float = DEFAULT_FLOOR_SHARE
) -> FloatArray:
    """Each response's probability of being drawn for expert grading.

    ``pi_i = clip(c u_i, floor, 1)`` with ``floor = floor_share * budget / M`` and ``c`` found
    by bisection so that ``sum pi = budget`` (the expected number of expert grades). Equal
    uncertainties (or all zero) give the uniform ``budget / M``.

    Args:
        uncertainty: ``(M,)`` non-negative, e.g. :func:`uncertainty_from_pass_probability`.
        budget: Expected expert grades, ``0 < budget <= M``.
        floor_share: The floor as a share of the uniform rate, in (0, 1] (1: uniform).
    """
    u = np.asarray(uncertainty, dtype=np.float64).reshape(-1)
    m = u.size
    if m == 0 or np.any(~np.isfinite(u)) or np.any(u < 0):
        raise ValueError("need a finite, non-negative uncertainty for each response")
    if not 0.0 < budget <= m:
        raise ValueError(f"the budget must be in (0, {m}], got {budget!r}")
    if not 0.0 < floor_share <= 1.0:
        raise ValueError("floor_share must be in (0, 1]: every response needs a chance")
    floor = floor_share * budget / m
    if float(u.max()) <= 0.0 or budget >= m:
        return np.full(m, budget / m)
    # A response the judge is sure of still ranks below every other, so that a budget
    # larger than the unsure responses plus the floor is filled from the sure ones alike.
    u = np.maximum(u / float(u.max()), 1e-9)
    low, high = 0.0, 1.0
    while float(np.clip(high * u, floor, 1.0).sum()) < budget:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if float(np.clip(middle * u, floor, 1.0).sum()) < budget:
            low = middle
        else:
            high = middle
        if high - low <= 1e-15 * high:
            break
    result: FloatArray = np.clip(high * u, floor, 1.0)
    return result


@dataclass(frozen=True, slots=True)
class ActiveDraw:
    """Responses drawn for expert grading.

    Attributes:
        drawn: Indices of the drawn responses, ascending.
        probabilities: Every response's probability of being drawn (``(M,)``).
        weights: ``1 / pi`` of each drawn response (what the estimator gives its grade).
    """

    drawn: IntArray
    probabilities: FloatArray
    weights: FloatArray


def draw_for_experts(probabilities: npt.ArrayLike, seed: Seed = None) -> ActiveDraw:
    """Draw each response independently with its probability (Poisson sampling), seeded."""
    pi = np.asarray(probabilities, dtype=np.float64).reshape(-1)
    if np.any(pi <= 0) or np.any(pi > 1):
        raise ValueError("sampling probabilities must be in (0, 1]")
    drawn = np.flatnonzero(rng_from_seed(seed).random(pi.size) < pi)
    return ActiveDraw(drawn=drawn, probabilities=pi, weights=1.0 / pi[drawn])


@dataclass(frozen=True, slots=True)
class ExpertGradesNeeded:
    """About how many responses the experts must grade to reach ``+/- half_width`` on a
    model's score, with ``pool`` responses graded by the judge.

    Attributes:
        uniform: With responses drawn uniformly and PPI++; ``None`` when even grading the
            whole pool would not reach it.
        active: With responses drawn by the judge's uncertainty (``None`` without an
            uncertainty per response, or when unreachable).
        without_judge: The experts' mean alone, ``(z sigma / w)^2`` (it may exceed the pool).
        half_width, confidence, pool: What was asked.
        agreement: The judge's agreement it rests on.
    """

    uniform: int | None
    active: int | None
    without_judge: int
    half_width: float
    confidence: float
    pool: int
    agreement: JudgeAgreement


def _uniform_needed(n0: float, rho: float, pool: int) -> float:
    # PPI++ clips lam at 0: a judge that disagrees more than chance is not used, not reversed.
    r2 = max(rho, 0.0) ** 2
    if n0 <= 0:
        return 0.0
    if pool - r2 * n0 <= 0:
        return math.inf
    return n0 * (1.0 - r2) * pool / (pool - r2 * n0)


def _active_variance(
    budget: float, errors: FloatArray, uncertainty: FloatArray, sigma2: float, floor_share: float
) -> float:
    pi = sampling_probabilities(uncertainty, budget, floor_share=floor_share)
    return float((sigma2 + (errors * (1.0 / pi - 1.0)).mean()) / errors.size)


def expert_grades_needed(
    agreement: JudgeAgreement,
    *,
    half_width: float,
    pool: int,
    confidence: float = 0.95,
    uncertainty: npt.ArrayLike | None = None,
    floor_share: float = DEFAULT_FLOOR_SHARE,
) -> ExpertGradesNeeded:
    """How many expert grades reach ``+/- half_width`` on a score, uniform and active.

    Args:
        agreement: :func:`measured_judge_agreement` or :func:`assumed_judge_agreement`.
        half_width: Target half-width of the interval, in score units (0.03 = +/- 3 points).
        pool: Responses of the model graded by the judge (``M``).
        confidence: Nominal coverage.
        uncertainty: ``(pool,)`` the judge's uncertainty on each response, for active
            sampling; its squares are scaled so their mean is the judge's mean squared error.
        floor_share: As for :func:`sampling_probabilities`.
    """
    if half_width <= 0 or pool < 2:
        raise ValueError("need a positive half-width and a pool of at least two responses")
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    sigma2 = agreement.label_variance
    n0 = (z / half_width) ** 2 * sigma2
    uniform = _uniform_needed(n0, agreement.correlation, pool)
    active: int | None = None
    if uncertainty is not None:
        u = np.asarray(uncertainty, dtype=np.float64).reshape(-1)
        if u.size != pool:
            raise ValueError(f"need one uncertainty per response of the pool ({pool})")
        scale = float((u**2).mean())
        errors = (
            u**2 * agreement.mean_squared_error / scale
            if scale > 0
            else np.full(pool, agreement.mean_squared_error)
        )
        target = (half_width / z) ** 2
        if _active_variance(pool, errors, u, sigma2, floor_share) <= target:
            # The smallest whole budget that reaches the target (the variance falls with it).
            low, high = 1, pool
            while low < high:
                middle = (low + high) // 2
                if _active_variance(middle, errors, u, sigma2, floor_share) <= target:
                    high = middle
                else:
                    low = middle + 1
            active = max(2, high)
    return ExpertGradesNeeded(
        uniform=max(2, math.ceil(uniform)) if uniform <= pool else None,
        active=active,
        without_judge=math.ceil(n0),
        half_width=half_width,
        confidence=confidence,
        pool=pool,
        agreement=agreement,
    )
