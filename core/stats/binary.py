"""Binary (pass/fail) criteria: prevalence, specific agreement and a summary record.

Binary counts have two columns: index 0 = fail (negative), index 1 = pass (positive).

Specific agreement for many raters and missing ratings (Uebersax, "Raw agreement
indices"; Cicchetti & Feinstein 1990 for two raters) counts agreeing rater pairs within
each unit:

* positive ``PSA = sum_i r_i1 (r_i1 - 1) / sum_i r_i1 (r_i - 1)``;
* negative ``NSA = sum_i r_i0 (r_i0 - 1) / sum_i r_i0 (r_i - 1)``;

over units with ``r_i >= 2``. For two raters and a 2x2 table ``[[d, c], [b, a]]`` (a =
both pass) they reduce to ``2a / (2a + b + c)`` and ``2d / (2d + b + c)``.

Kappa-type coefficients (alpha, kappa) collapse when one category dominates even if
raters almost always agree (the "kappa paradox", Feinstein & Cicchetti 1990). The summary
therefore reports PSA/NSA and AC1 next to alpha and flags prevalence outside [0.15, 0.85]: the
textbook paradox (Feinstein & Cicchetti 1990: pass rate 0.875, 85% agreement) has alpha 0.32
against AC1 0.81.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .alpha import alpha_from_counts
from .counts import ratings_per_unit
from .gwet import nominal_family
from .results import Coefficient, Ratio

__all__ = [
    "PREVALENCE_HIGH",
    "PREVALENCE_LOW",
    "BinarySummary",
    "binary_summary",
    "pass_rate",
    "specific_agreement",
]

#: Above this pass rate (or below :data:`PREVALENCE_LOW`) alpha/kappa are flagged unstable.
#: At 0.9 the flag missed the textbook paradox (pass rate 0.875, alpha 0.32, AC1 0.81).
PREVALENCE_HIGH = 0.85
PREVALENCE_LOW = 0.15


def _binary(counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError("binary counts must have shape (n_units, 2): [fail, pass]")
    return c


def pass_rate(counts: npt.ArrayLike) -> Ratio:
    """Prevalence: pass ratings / all ratings (every rating counts, paired or not)."""
    c = _binary(counts)
    return Ratio(int(c[:, 1].sum()), int(c.sum()))


def specific_agreement(counts: npt.ArrayLike) -> tuple[Ratio, Ratio]:
    """(positive, negative) specific agreement as :class:`Ratio` of agreeing pairs.

    Numerators/denominators count ordered rater pairs within units (see module doc);
    ``value`` is ``None`` when nobody used that category on a pairable unit.
    """
    c = _binary(counts)
    m = ratings_per_unit(c)
    c = c[m >= 2]
    m = m[m >= 2]
    pos, neg = c[:, 1], c[:, 0]
    positive = Ratio(int((pos * (pos - 1)).sum()), int((pos * (m - 1)).sum()))
    negative = Ratio(int((neg * (neg - 1)).sum()), int((neg * (m - 1)).sum()))
    return positive, negative


@dataclass(frozen=True, slots=True)
class BinarySummary:
    """Agreement summary of one binary rubric criterion.

    Attributes:
        n_units: Units (items) with at least two ratings.
        n_ratings: All ratings of the criterion (including singly rated units).
        percent_agreement: Pairwise percent agreement (fraction).
        alpha: Krippendorff's alpha, nominal.
        ac1: Gwet's AC1.
        brennan_prediger: Brennan & Prediger's coefficient (chance = one half).
        scott_pi: Scott's pi (chance from the pooled pass rate).
        prevalence: Pass rate over all ratings (:class:`Ratio`).
        positive_agreement: Positive specific agreement (PSA).
        negative_agreement: Negative specific agreement (NSA).
        alpha_unstable_prevalence: True when the pass rate is > 0.85 or < 0.15; alpha (and
            kappa) can then be low or undefined despite high raw agreement.
    """

    n_units: int
    n_ratings: int
    percent_agreement: Coefficient
    alpha: Coefficient
    ac1: Coefficient
    brennan_prediger: Coefficient
    scott_pi: Coefficient
    prevalence: Ratio
    positive_agreement: Ratio
    negative_agreement: Ratio
    alpha_unstable_prevalence: bool


def binary_summary(counts: npt.ArrayLike) -> BinarySummary:
    """Summarise a binary criterion from its ``(n_units, 2)`` [fail, pass] counts."""
    c = _binary(counts)
    m = ratings_per_unit(c)
    prevalence = pass_rate(c)
    positive, negative = specific_agreement(c)
    rate = prevalence.value
    unstable = rate is not None and (rate > PREVALENCE_HIGH or rate < PREVALENCE_LOW)
    agreement, ac1, bp, pi = nominal_family(c)
    return BinarySummary(
        n_units=int((m >= 2).sum()),
        n_ratings=int(m.sum()),
        percent_agreement=agreement,
        alpha=alpha_from_counts(c, "nominal"),
        ac1=ac1,
        brennan_prediger=bp,
        scott_pi=pi,
        prevalence=prevalence,
        positive_agreement=positive,
        negative_agreement=negative,
        alpha_unstable_prevalence=unstable,
    )
