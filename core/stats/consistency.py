"""Internal consistency of a rubric: Cronbach's alpha over its criteria.

Here the "items" of classical test theory are the rubric criteria and the "respondents"
are the graded responses: a high value means the criteria move together (they may be
measuring one construct), a low one that they capture different aspects.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .results import Coefficient, defined, undefined

__all__ = ["MINIMUM_RESPONDENTS", "cronbach_alpha"]

#: Below this many respondents Cronbach's alpha is undefined. With fewer, the estimate says
#: nothing: for a scale whose true alpha is 0.7 (2 to 30 items, normal scores), simulated
#: estimates fall below 0 in 23-28% of samples at 3 respondents (down to -2,600), 12-14% at 5
#: and 2-5% at 10; from 15 on, their 2.5% quantile is above 0 (0.12 to 0.22), so a negative
#: value is itself informative. (Feldt 1965: ``(1 - alpha_hat) / (1 - alpha)`` follows an F
#: distribution with ``n - 1`` and ``(n - 1)(k - 1)`` degrees of freedom, wide for small n.)
MINIMUM_RESPONDENTS = 15

TOO_FEW_ITEMS = gettext_noop("fewer than two items")
TOO_FEW_RESPONDENTS = gettext_noop("fewer than two respondents")
ZERO_VARIANCE = gettext_noop("zero variance of the total score")


def cronbach_alpha(
    scores: npt.ArrayLike, *, minimum_respondents: int = MINIMUM_RESPONDENTS
) -> Coefficient:
    """Cronbach's alpha from a complete respondents x items score matrix.

    ``alpha = k / (k - 1) * (1 - sum_j var(x_j) / var(sum_j x_j))`` with sample variances
    (ddof = 1; the choice cancels). Source: Cronbach 1951, eq. 2.

    Args:
        scores: ``(n_respondents, k_items)`` numeric scores, no missing values (drop
            incomplete rows first; ``NaN`` raises).
        minimum_respondents: Undefined below this many respondents (at least 2; default
            :data:`MINIMUM_RESPONDENTS`, see its reason).

    Returns:
        :class:`Coefficient`; ``observed`` is the sum of item variances and ``expected`` the
        variance of the total score (both in squared score units). Undefined with a reason
        if there are fewer than 2 items, fewer than ``minimum_respondents`` respondents, or
        the total score has zero variance. Alpha can be negative (items negatively
        correlated on average).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("scores must be 2-D (respondents x items)")
    if np.isnan(x).any():
        raise ValueError("scores must be complete (no NaN)")
    n, k = x.shape
    name = "cronbach_alpha"
    if k < 2:
        return undefined(name, TOO_FEW_ITEMS, n_units=n, n_ratings=n * k)
    if n < 2:
        return undefined(name, TOO_FEW_RESPONDENTS, n_units=n, n_ratings=n * k)
    if n < minimum_respondents:
        reason = gettext_noop(
            "too few respondents (n = %(n)s; %(needed)s needed)", n=n, needed=minimum_respondents
        )
        return undefined(name, reason, n_units=n, n_ratings=n * k)
    item_var = float(x.var(axis=0, ddof=1).sum())
    total_var = float(x.sum(axis=1).var(ddof=1))
    if total_var <= 1e-12 * max(1.0, item_var):
        return undefined(name, ZERO_VARIANCE, n_units=n, n_ratings=n * k, observed=item_var)
    value = k / (k - 1.0) * (1.0 - item_var / total_var)
    return defined(name, value, n_units=n, n_ratings=n * k, observed=item_var, expected=total_var)
