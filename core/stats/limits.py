"""Bland-Altman limits of agreement between two ways of scoring the same items.

Source: Bland, J. M. & Altman, D. G. (1986). Statistical methods for assessing agreement
between two methods of clinical measurement. *Lancet* 327: 307-310: the bias (mean
difference), the limits of agreement ``bias -/+ 2 SD`` (1.96 SD here by default), and, in the
section "Precision of estimated limits of agreement", t-based intervals for the bias
(standard error ``SD / sqrt(n)``) and for each limit (approximately ``sqrt(3 SD^2 / n)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .distributions import student_t_quantile

__all__ = ["FEWER_THAN_TWO_PAIRS", "BlandAltman", "bland_altman"]

#: Reason used by :func:`bland_altman` when fewer than two items carry both scores.
FEWER_THAN_TWO_PAIRS = gettext_noop("fewer than two items with both scores")


@dataclass(frozen=True, slots=True)
class BlandAltman:
    """Bland-Altman summary of paired differences ``a - b`` (in score points).

    Attributes:
        n: Pairs (items with both values).
        mean_difference: The bias, mean of ``a - b``; ``None`` when ``n < 2``.
        sd_difference: SD of the differences (ddof = 1).
        lower_limit, upper_limit: ``bias -/+ multiplier * sd`` (multiplier 1.96 for 95%
            limits; Bland & Altman 1986 used 2).
        bias_low, bias_high: Confidence interval of the bias, ``bias -/+ t * sd / sqrt(n)``
            with Student's t at ``n - 1`` degrees of freedom.
        lower_limit_low ... upper_limit_high: Confidence intervals of the limits, each
            ``limit -/+ t * sqrt(3 sd^2 / n)`` (the paper's approximate standard error).
        undefined_reason: Why the fields are ``None``, else ``None``.

    A zero SD is a result, not an undefined one: the two differ by a constant, so the limits
    and every interval collapse onto the bias.
    """

    n: int
    mean_difference: float | None
    sd_difference: float | None
    lower_limit: float | None
    upper_limit: float | None
    bias_low: float | None = None
    bias_high: float | None = None
    lower_limit_low: float | None = None
    lower_limit_high: float | None = None
    upper_limit_low: float | None = None
    upper_limit_high: float | None = None
    confidence: float = 0.95
    multiplier: float = 1.96
    undefined_reason: str | None = None


def bland_altman(
    a: npt.ArrayLike, b: npt.ArrayLike, *, multiplier: float = 1.96, confidence: float = 0.95
) -> BlandAltman:
    """Bias, limits of agreement and their t-based intervals for ``a - b`` (NaN pairs dropped).

    Source: Bland & Altman 1986, Lancet 327: 307-310. Undefined (every figure ``None``, with
    :data:`FEWER_THAN_TWO_PAIRS`) when fewer than two pairs remain.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("a and b must be 1-D arrays of equal length")
    diff = (x - y)[~(np.isnan(x) | np.isnan(y))]
    n = int(diff.size)
    if n < 2:
        return BlandAltman(
            n, None, None, None, None, confidence=confidence, multiplier=multiplier,
            undefined_reason=FEWER_THAN_TWO_PAIRS,
        )  # fmt: skip
    bias = float(diff.mean())
    sd = float(diff.std(ddof=1))
    t = student_t_quantile(0.5 + confidence / 2.0, n - 1)
    bias_half = t * sd / math.sqrt(n)
    limit_half = t * math.sqrt(3.0 * sd * sd / n)
    lower, upper = bias - multiplier * sd, bias + multiplier * sd
    return BlandAltman(
        n=n,
        mean_difference=bias,
        sd_difference=sd,
        lower_limit=lower,
        upper_limit=upper,
        bias_low=bias - bias_half,
        bias_high=bias + bias_half,
        lower_limit_low=lower - limit_half,
        lower_limit_high=lower + limit_half,
        upper_limit_low=upper - limit_half,
        upper_limit_high=upper + limit_half,
        confidence=confidence,
        multiplier=multiplier,
    )
