"""Small exact/special-function helpers (standard library only, no SciPy).

* :func:`regularized_incomplete_beta` -- ``I_x(a, b)`` by the continued fraction of
  Numerical Recipes (Press et al. 2007, 3rd ed., section 6.4, ``betai``/``betacf``,
  modified Lentz evaluation);
* :func:`student_t_cdf` -- ``P(T_nu <= t)`` via ``I_{nu/(nu+t^2)}(nu/2, 1/2)`` in the
  tails and ``I_{t^2/(nu+t^2)}(1/2, nu/2)`` near the centre (Press et al. 2007, eq. 6.14.11
  and the symmetry of I);
* :func:`student_t_quantile` -- the inverse of :func:`student_t_cdf`, by bisection;
* :func:`mcnemar_exact` -- exact two-sided McNemar test (binomial test on the discordant
  pairs with p = 1/2; McNemar 1947, exact form in Agresti 2013, section 11.1.4);
* :func:`benjamini_yekutieli` -- FDR control under arbitrary dependence (Benjamini &
  Yekutieli 2001, Theorem 1.3), as used by the alternative annotator test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

__all__ = [
    "benjamini_yekutieli",
    "holm",
    "mcnemar_exact",
    "regularized_incomplete_beta",
    "student_t_cdf",
    "student_t_quantile",
]

_MAX_ITER = 10_000
_EPS = 1e-15
_FPMIN = 1e-300


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction for I_x(a, b) (Numerical Recipes ``betacf``, modified Lentz)."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _FPMIN:
        d = _FPMIN
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_ITER + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _FPMIN:
            d = _FPMIN
        c = 1.0 + aa / c
        if abs(c) < _FPMIN:
            c = _FPMIN
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _FPMIN:
            d = _FPMIN
        c = 1.0 + aa / c
        if abs(c) < _FPMIN:
            c = _FPMIN
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta continued fraction did not converge (a={a}, b={b})")


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b) = B(x; a, b) / B(a, b)`` for ``a, b > 0`` and ``0 <= x <= 1``.

    Absolute error below ~1e-10 for ``a, b <= 1e4``: the prefactor uses ``math.lgamma``
    differences, whose cancellation error grows like ``a log a * 1e-16``. Uses the
    symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)`` to evaluate the continued fraction where it
    converges fast.
    """
    if a <= 0 or b <= 0:
        raise ValueError("a and b must be positive")
    if not 0.0 <= x <= 1.0:
        raise ValueError("x must lie in [0, 1]")
    if x == 0.0:
        return 0.0
    if x == 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: float) -> float:
    """Cumulative distribution function of Student's t with ``df > 0`` degrees of freedom.

    ``P(T <= t)``; ``+-inf`` give 1 and 0. Two-sided tail: ``2 * student_t_cdf(-|t|, df)``.
    """
    if df <= 0:
        raise ValueError("df must be positive")
    if math.isnan(t):
        raise ValueError("t is NaN")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    t2 = t * t
    if t2 < df:
        # Near the centre use P(|T| < |t|) = I_{t^2/(df+t^2)}(1/2, df/2): the argument is
        # computed without cancellation, so tiny |t| keeps full precision.
        centre = 0.5 * regularized_incomplete_beta(0.5, df / 2.0, t2 / (df + t2))
        return 0.5 + centre if t > 0 else 0.5 - centre
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t2))  # P(T > |t|)
    return 1.0 - tail if t > 0 else tail


@cache
def student_t_quantile(p: float, df: float) -> float:
    """The ``t`` with ``P(T_df <= t) = p`` for ``0 < p < 1`` (e.g. ``p = 0.975`` for a 95%
    two-sided interval: 2.262 at 9 degrees of freedom, 1.960 as ``df`` grows).

    Bisection on :func:`student_t_cdf` to an absolute error below 1e-10: the cdf is monotone,
    so this always converges. Each costs a few dozen incomplete betas, and the callers ask for
    the same few again and again (a stratified score asks once per stratum, a simulation once
    per study): remembered.
    """
    if not 0.0 < p < 1.0:
        raise ValueError("p must lie strictly between 0 and 1")
    if df <= 0:
        raise ValueError("df must be positive")
    low, high = -1.0, 1.0
    while student_t_cdf(low, df) > p:
        low *= 2.0
    while student_t_cdf(high, df) < p:
        high *= 2.0
    while high - low > 1e-11 * max(1.0, abs(low)):
        middle = 0.5 * (low + high)
        if student_t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for discordant counts ``b`` and ``c``.

    ``p = min(1, 2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c))``, computed with exact
    integers (``math.comb``). Returns 1.0 when there is no discordant pair.
    """
    if b < 0 or c < 0:
        raise ValueError("counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (Holm 1979), in input order.

    Sort ``p_(1) <= ... <= p_(m)``; the adjusted ``p~_(k) = max_{j <= k} min(1, (m - j + 1)
    p_(j))``. Rejecting every hypothesis whose adjusted p-value is below ``alpha`` controls the
    family-wise error rate at ``alpha`` under any dependence between the tests, and never
    rejects less than Bonferroni. Equal to statsmodels' ``multipletests(p, method="holm")[1]``.

    Raises:
        ValueError: on a p-value outside [0, 1] (NaN included).
    """
    m = len(p_values)
    if any(not 0.0 <= p <= 1.0 for p in p_values):
        raise ValueError("p-values lie in [0, 1]")
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[idx]))
        adjusted[idx] = running
    return adjusted


def benjamini_yekutieli(p_values: Sequence[float], q: float = 0.05) -> list[bool]:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects at FDR ``q``.

    Sort ``p_(1) <= ... <= p_(m)``; find the largest ``k`` with
    ``p_(k) <= k q / (m * H_m)``, ``H_m = sum_{i<=m} 1/i``; reject hypotheses ``1..k``.
    Returns one boolean per input p-value, in input order.
    """
    m = len(p_values)
    if m == 0:
        return []
    harmonic = sum(1.0 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p_values[i])
    cutoff = 0
    for rank, idx in enumerate(order, start=1):
        if p_values[idx] <= rank * q / (m * harmonic):
            cutoff = rank
    rejected = [False] * m
    for idx in order[:cutoff]:
        rejected[idx] = True
    return rejected
