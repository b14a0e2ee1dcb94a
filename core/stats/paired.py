"""Paired comparison of two raters (e.g. two LLM judges) on the same units (pure functions).

:func:`mcnemar` tests whether two raters are right equally often on the units both judged,
from the *discordant* units only: those one of them got right and the other wrong (McNemar
1947; Agresti 2013, *Categorical Data Analysis*, 3rd ed., section 11.1). Units both got right
or both got wrong say nothing about which is better and do not enter the test.

* Up to :data:`EXACT_BELOW` - 1 discordant units: the exact two-sided binomial test of the
  discordant counts with p = 1/2 (:func:`core.stats.distributions.mcnemar_exact`).
* From :data:`EXACT_BELOW` on: McNemar's chi-square with Edwards' continuity correction,
  ``max(|b - c| - 1, 0)^2 / (b + c)`` on 1 degree of freedom, whose p-value is
  ``erfc(sqrt(x / 2))`` (the chi-square with one degree of freedom is a squared standard
  normal). With 25 discordant units or more it is within a few thousandths of the exact p.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from .distributions import mcnemar_exact
from .results import Ratio

__all__ = ["EXACT_BELOW", "McNemar", "chi_square_1df_p", "mcnemar", "wilson_interval"]

#: Discordant counts below this use the exact binomial test (a common rule of thumb:
#: the chi-square approximation is poor for b + c < 25).
EXACT_BELOW = 25

EXACT = "exact binomial"
CHI_SQUARE = "chi-square, continuity-corrected"


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's test of two raters on paired units.

    Attributes:
        n_pairs: Units both raters judged (concordant and discordant).
        first_only: Units the first rater got right and the second wrong (``b``).
        second_only: Units the second rater got right and the first wrong (``c``).
        statistic: The continuity-corrected chi-square, ``None`` when the exact test ran.
        p_value: Two-sided p-value of H0 "both are right equally often" (1.0 with no
            discordant unit).
        method: ``"exact binomial"`` or ``"chi-square, continuity-corrected"``.
    """

    n_pairs: int
    first_only: int
    second_only: int
    statistic: float | None
    p_value: float
    method: str

    @property
    def discordant(self) -> int:
        return self.first_only + self.second_only

    def winner(self, level: float = 0.05, p_value: float | None = None) -> int:
        """+1 when the second rater is right significantly more often at ``level``, -1 when
        the first is, 0 when the test detects no difference. ``p_value`` decides instead of
        the test's own when given (a p-value corrected for multiple tests)."""
        p = self.p_value if p_value is None else p_value
        if p >= level or self.first_only == self.second_only:
            return 0
        return 1 if self.second_only > self.first_only else -1


def chi_square_1df_p(statistic: float) -> float:
    """Upper tail ``P(X >= statistic)`` of a chi-square with one degree of freedom."""
    if statistic < 0:
        raise ValueError("a chi-square statistic is not negative")
    return math.erfc(math.sqrt(statistic / 2.0))


def mcnemar(first_only: int, second_only: int, *, n_pairs: int | None = None) -> McNemar:
    """McNemar's test from the discordant counts ``b`` (first right, second wrong) and ``c``
    (second right, first wrong). ``n_pairs`` is every paired unit (defaults to ``b + c``).

    Raises:
        ValueError: on a negative count, or ``n_pairs`` smaller than ``b + c``.
    """
    b, c = int(first_only), int(second_only)
    if b < 0 or c < 0:
        raise ValueError("counts must be non-negative")
    pairs = b + c if n_pairs is None else int(n_pairs)
    if pairs < b + c:
        raise ValueError("n_pairs counts every paired unit, so it is at least b + c")
    if b + c < EXACT_BELOW:
        return McNemar(pairs, b, c, None, mcnemar_exact(b, c), EXACT)
    statistic = max(abs(b - c) - 1, 0) ** 2 / (b + c)  # b = c is no evidence at all
    return McNemar(pairs, b, c, statistic, chi_square_1df_p(statistic), CHI_SQUARE)


def wilson_interval(ratio: Ratio, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """Wilson score interval of a proportion such as a judge's accuracy (Wilson 1927;
    Newcombe 1998, method 3): good coverage for small n and near 0 or 1, where the normal
    (Wald) interval fails. ``(None, None)`` with an empty denominator."""
    n, k = ratio.denominator, ratio.numerator
    if n == 0:
        return None, None
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the ends, not 1e-17 off
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high
