"""Krippendorff's alpha from value counts.

One implementation, our own: :func:`alpha_from_counts` / :func:`alpha_from_coincidences`
compute alpha from the coincidence matrix, vectorised, and also accept a *stack* of count or
coincidence matrices (resamples x units x values) so a bootstrap computes 1,000 alphas with a
handful of array operations. The reference package ``krippendorff`` (Castro 2017) is used only
by the tests, as an oracle (``tests/agreement/krippendorff_reference.py``).

Formulas (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", sections C-E):

* coincidences ``o_ck = sum_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1)`` over units with
  ``m_u >= 2``; marginals ``n_c = sum_k o_ck``; ``n = sum_c n_c`` pairable values;
* ``alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck``;
* difference functions ``d_ck``: nominal ``[c != k]``; interval ``(v_c - v_k)^2`` on the
  numeric value domain; ratio ``((v_c - v_k) / (v_c + v_k))^2`` (values >= 0, 0 when both are
  0: Krippendorff 2011, section E); ordinal ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` (ranks from
  the coincidence marginals, so it depends on the data).

Alpha is undefined (never 0 or NaN in a :class:`Coefficient`) when no unit has two
ratings (:data:`FEWER_THAN_TWO_PAIRABLE`) or when every pairable rating has the same value
(:data:`NO_VARIATION`, D_e = 0).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .counts import FloatArray, _coincidence_2d, coincidence_matrix, ratings_per_unit
from .results import FEWER_THAN_TWO_PAIRABLE, NO_VARIATION, Coefficient, defined, undefined

__all__ = [
    "Level",
    "alpha_from_coincidences",
    "alpha_from_counts",
    "alpha_stack",
    "difference_matrix",
]

type Level = Literal["nominal", "ordinal", "interval", "ratio"]
_LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")


def _domain(value_domain: npt.ArrayLike | None, n_values: int, level: str) -> FloatArray:
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    if value_domain is None:
        return np.arange(n_values, dtype=np.float64)
    domain = np.asarray(value_domain, dtype=np.float64)
    if domain.shape != (n_values,):
        raise ValueError(f"value_domain must have {n_values} entries, got shape {domain.shape}")
    if level != "nominal" and np.any(np.diff(domain) <= 0):
        raise ValueError("value_domain must be strictly increasing for ordinal/interval/ratio")
    if level == "ratio" and np.any(domain < 0):
        raise ValueError("a ratio scale has no negative values (its zero is absolute)")
    return domain


def difference_matrix(
    level: Level, value_domain: npt.ArrayLike, marginals: npt.ArrayLike | None = None
) -> FloatArray:
    """Squared difference function ``d_ck`` for a level of measurement.

    Args:
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
        value_domain: Ordered values ``(n_values,)``; used by ``"interval"`` and ``"ratio"``.
        marginals: Coincidence marginals ``n_c`` of shape ``(..., n_values)``; required for
            ``"ordinal"`` (Krippendorff 2011, section E, ordinal metric).

    Returns:
        ``(n_values, n_values)`` for nominal/interval/ratio, ``(..., n_values, n_values)`` for
        ordinal (one matrix per stacked marginal vector).
    """
    domain = np.asarray(value_domain, dtype=np.float64)
    n_values = domain.shape[0]
    if level == "nominal":
        return 1.0 - np.eye(n_values)
    if level == "interval":
        return (domain[:, None] - domain[None, :]) ** 2
    if level == "ratio":
        total = domain[:, None] + domain[None, :]
        gap = domain[:, None] - domain[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, (gap / np.where(total > 0, total, 1.0)) ** 2, 0.0)
    if level == "ordinal":
        if marginals is None:
            raise ValueError("ordinal differences need the coincidence marginals")
        n_c = np.asarray(marginals, dtype=np.float64)
        cum = np.cumsum(n_c, axis=-1)
        # For c <= k: sum_{g=c}^{k} n_g - (n_c + n_k)/2 = S_k - S_c + (n_c - n_k)/2;
        # the same expression is the negated value for c > k, and it is squared.
        e = cum[..., None, :] - cum[..., :, None] + (n_c[..., :, None] - n_c[..., None, :]) / 2.0
        return e**2
    raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")


def alpha_from_coincidences(
    coincidences: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
) -> FloatArray:
    """Vectorised alpha from one or a stack of coincidence matrices.

    Args:
        coincidences: ``(..., n_values, n_values)`` coincidence matrices.
        level: Level of measurement.
        value_domain: Ordered numeric values (interval distances); defaults to
            ``0..n_values-1``.

    Returns:
        ``float64`` array of shape ``(...)``. Undefined entries (no pairable values, or
        D_e = 0) are ``NaN`` here -- this is the only API that uses NaN, because it serves
        bootstrap stacks; callers turn NaN into an explicit undefined result.
    """
    o = np.asarray(coincidences, dtype=np.float64)
    n_values = o.shape[-1]
    domain = _domain(value_domain, n_values, level)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    d = difference_matrix(level, domain, n_c if level == "ordinal" else None)
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
    variation = (n_c > 0).sum(axis=-1) >= 2
    ok = (n >= 2) & variation & (expected > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 - (n - 1.0) * observed / expected
    return np.where(ok, value, np.nan)


def alpha_stack(
    counts_stack: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
) -> FloatArray:
    """Alpha for each count matrix of a ``(n_stack, n_units, n_values)`` stack (NaN = undefined)."""
    stack = np.asarray(counts_stack)
    if stack.ndim != 3:
        raise ValueError("counts_stack must be 3-D (stack x units x values)")
    return alpha_from_coincidences(coincidence_matrix(stack), level, value_domain)


def _alpha_name(level: str) -> str:
    return f"krippendorff_alpha_{level}"


def alpha_from_counts(
    counts: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
) -> Coefficient:
    """Krippendorff's alpha of value counts.

    Args:
        counts: ``(n_units, n_values)`` value counts (see :mod:`core.stats.counts`).
        level: ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
        value_domain: Ordered numeric values of the columns; defaults to
            ``0..n_values-1``. Only interval and ratio distances use the actual numbers.

    Returns:
        :class:`Coefficient` with ``observed`` = D_o and ``expected`` = D_e (disagreements,
        in squared units of the difference function), ``n_units`` = units with >= 2
        ratings, ``n_ratings`` = pairable values ``n``.
    """
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    domain = _domain(value_domain, c.shape[1], level)
    m = ratings_per_unit(c)
    pairable = m >= 2
    n_units = int(pairable.sum())
    n = int(m[pairable].sum())
    name = _alpha_name(level)
    if n_units == 0:
        return undefined(name, FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    o = _coincidence_2d(c, m)
    # The value goes through the same stack code as the bootstrap, so a resample computed
    # here and one computed from a weight matrix are bit-identical.
    value = float(alpha_from_coincidences(o, level, domain))
    n_c = o.sum(axis=1)
    d = difference_matrix(level, domain, n_c if level == "ordinal" else None)
    d_o = float((o * d).sum()) / n
    d_e = float((np.outer(n_c, n_c) * d).sum()) / (n * (n - 1.0))
    if np.isnan(value):
        return undefined(name, NO_VARIATION, n_units=n_units, n_ratings=n, observed=d_o)
    return defined(name, value, n_units=n_units, n_ratings=n, observed=d_o, expected=d_e)
