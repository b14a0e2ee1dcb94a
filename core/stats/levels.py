"""A judge's levels on an ordinal criterion against one reference level per item.

The reference is one level per item: the adjudicated gold level, or the experts' level on the
item (their strict majority or their median, chosen by the caller). The judge is compared with
it four ways, each over the same ``n`` items (a level from both):

* quadratic-weighted Cohen's kappa (Cohen 1968): chance-corrected, a miss by two levels costs
  four times a miss by one;
* exact agreement and agreement within one level (the share of items, with n);
* Bland-Altman (Bland & Altman 1986): the mean of ``judge - reference`` in levels and its 95%
  limits of agreement.

Levels are whole numbers on the criterion's own scale ``(low, high)`` (e.g. 0-3); NaN where
there is none. Pure: numpy in, a frozen dataclass out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .judge import level_match
from .kappa import cohen_kappa_from_table, contingency_table
from .limits import BlandAltman, bland_altman
from .results import Coefficient, Ratio

__all__ = ["LevelAgreement", "level_agreement"]


@dataclass(frozen=True, slots=True)
class LevelAgreement:
    """The judge's levels against reference levels on one ordinal criterion.

    Attributes:
        exact: Items where the judge chose the reference level, of the ``n`` items.
        within_one: Items where it chose that level or a neighbouring one (on a two-level
            scale, every item by construction).
        quadratic_kappa: Quadratic-weighted kappa over the same items; undefined (with the
            reason) without items or when every level given is the same.
        bland_altman: ``judge - reference`` in levels: the bias and the 95% limits of
            agreement; undefined below two items.
    """

    exact: Ratio
    within_one: Ratio
    quadratic_kappa: Coefficient
    bland_altman: BlandAltman

    @property
    def n(self) -> int:
        """Items with a level from the judge and from the reference."""
        return self.exact.denominator


def level_agreement(
    judge: npt.ArrayLike, reference: npt.ArrayLike, scale: tuple[int, int]
) -> LevelAgreement:
    """Quadratic-weighted kappa, exact and within-one agreement and Bland-Altman of the judge's
    levels against `reference` (see the module doc).

    Args:
        judge: The judge's level per item on `scale`, NaN where it gave none.
        reference: The reference level per item on `scale`, NaN where there is none.
        scale: ``(low, high)``, the criterion's lowest and highest level (inclusive).

    Raises:
        ValueError: when the arrays differ in shape, or hold a level that is not a whole
            number of `scale`.
    """
    j = np.asarray(judge, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    match = level_match(j, r)  # checks the shapes and whole numbers
    low, high = scale
    given = np.concatenate([j[~np.isnan(j)], r[~np.isnan(r)]])
    if given.size and ((given < low).any() or (given > high).any()):
        raise ValueError(f"levels must be from {low} to {high}")
    both = ~np.isnan(j) & ~np.isnan(r)
    table = contingency_table(
        r[both].astype(np.int64) - low, j[both].astype(np.int64) - low, high - low + 1
    )
    return LevelAgreement(
        exact=match.exact,
        within_one=match.within_one,
        quadratic_kappa=cohen_kappa_from_table(table, "quadratic"),
        bland_altman=bland_altman(j, r),
    )
