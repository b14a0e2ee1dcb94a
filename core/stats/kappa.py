"""Cohen's kappa (two raters, optionally weighted) and Fleiss' kappa (many raters).

Weights are *agreement* weights ``w_ij`` in [0, 1] with ``w_ii = 1`` on equally spaced
categories ``0..q-1`` (Cohen 1968; Fleiss, Levin & Paik 2003, section 18.1):

* ``"none"``: identity (unweighted kappa, Cohen 1960);
* ``"linear"``: ``1 - |i - j| / (q - 1)`` (Cicchetti & Allison 1971);
* ``"quadratic"``: ``1 - (i - j)^2 / (q - 1)^2`` (Fleiss & Cohen 1973).

``kappa_w = (p_o - p_e) / (1 - p_e)`` with ``p_o = sum_ij w_ij p_ij`` and
``p_e = sum_ij w_ij p_i. p_.j``. Undefined when there is no paired item or when
``p_e = 1`` (both raters used one and the same category: no variation).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .counts import FloatArray, IntArray, ratings_per_unit
from .results import FEWER_THAN_TWO_PAIRABLE, NO_VARIATION, Coefficient, defined, undefined

__all__ = [
    "UNEQUAL_RATERS",
    "Weights",
    "agreement_weights",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "contingency_table",
    "fleiss_kappa",
]

type Weights = Literal["none", "linear", "quadratic"]

#: Reason used by :func:`fleiss_kappa` when units carry different numbers of ratings.
UNEQUAL_RATERS = gettext_noop("unequal number of raters per unit")


def agreement_weights(n_values: int, weights: Weights = "none") -> FloatArray:
    """``(q, q)`` agreement-weight matrix for equally spaced categories (see module doc)."""
    if n_values < 1:
        raise ValueError("n_values must be >= 1")
    if weights == "none" or n_values == 1:
        return np.eye(n_values)
    idx = np.arange(n_values, dtype=np.float64)
    dist = np.abs(idx[:, None] - idx[None, :]) / (n_values - 1)
    if weights == "linear":
        return 1.0 - dist
    if weights == "quadratic":
        return 1.0 - dist**2
    raise ValueError(f"weights must be 'none', 'linear' or 'quadratic', got {weights!r}")


def contingency_table(
    rater_a: npt.ArrayLike, rater_b: npt.ArrayLike, n_values: int | None = None
) -> IntArray:
    """``(q, q)`` table of paired ratings: ``table[i, j]`` = items rated i by A and j by B.

    Args:
        rater_a: Value indices (0..q-1) given by rater A, one per item.
        rater_b: Value indices given by rater B to the same items. Items either rater
            skipped must be removed beforehand (or passed as negative numbers, which are
            dropped pairwise).
        n_values: ``q``; defaults to ``max + 1`` of both raters.
    """
    a = np.asarray(rater_a).astype(np.int64)
    b = np.asarray(rater_b).astype(np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("rater_a and rater_b must be 1-D arrays of equal length")
    keep = (a >= 0) & (b >= 0)
    a, b = a[keep], b[keep]
    q = n_values if n_values is not None else (int(max(a.max(), b.max())) + 1 if a.size else 0)
    if a.size and max(a.max(), b.max()) >= q:
        raise ValueError("a value index is >= n_values")
    return np.bincount(a * q + b, minlength=q * q).reshape(q, q).astype(np.int64)


def cohen_kappa_from_table(table: npt.ArrayLike, weights: Weights = "none") -> Coefficient:
    """Cohen's (weighted) kappa from a ``q x q`` contingency table of counts.

    Source: Cohen 1960, eq. 1 (unweighted); Cohen 1968 (weighted). ``observed`` is the
    (weighted) observed agreement p_o, ``expected`` the chance agreement p_e.
    """
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError("table must be square")
    name = "cohen_kappa" if weights == "none" else f"cohen_kappa_{weights}"
    n = float(t.sum())
    if n == 0:
        return undefined(name, FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    w = agreement_weights(t.shape[0], weights)
    p = t / n
    p_o = float((w * p).sum())
    p_e = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    n_items = round(n)
    if p_e >= 1.0 - 1e-15:
        return undefined(
            name, NO_VARIATION, n_units=n_items, n_ratings=2 * n_items, observed=p_o, expected=p_e
        )
    return defined(
        name,
        (p_o - p_e) / (1.0 - p_e),
        n_units=n_items,
        n_ratings=2 * n_items,
        observed=p_o,
        expected=p_e,
    )


def cohen_kappa(
    rater_a: npt.ArrayLike,
    rater_b: npt.ArrayLike,
    *,
    n_values: int | None = None,
    weights: Weights = "none",
) -> Coefficient:
    """Cohen's kappa between two raters' value indices on the same items.

    Negative indices mark a missing rating; such items are dropped pairwise. Pass
    ``n_values`` for weighted kappa so the weights span the whole scale (e.g. 5 for 1-5).
    """
    return cohen_kappa_from_table(contingency_table(rater_a, rater_b, n_values), weights)


def fleiss_kappa(
    counts: npt.ArrayLike, *, unequal: Literal["undefined", "modal"] = "undefined"
) -> Coefficient:
    """Fleiss' kappa from a units x values count matrix.

    Source: Fleiss 1971, "Measuring nominal scale agreement among many raters",
    eqs. 2-9: ``P_i = (sum_j n_ij^2 - m) / (m (m - 1))``, ``P_bar = mean P_i``,
    ``p_j = sum_i n_ij / (N m)``, ``P_e = sum_j p_j^2``, ``kappa = (P_bar - P_e)/(1 - P_e)``.

    Fleiss' formula assumes every unit was rated by the same number ``m`` of raters.
    Units with no rating are ignored. If the remaining units do not all have the same
    ``m``:

    * ``unequal="undefined"`` (default): the result is undefined with reason
      :data:`UNEQUAL_RATERS` (use Krippendorff's alpha or Gwet's AC1 instead, which allow
      missing ratings);
    * ``unequal="modal"``: kappa is computed on the units whose ``m`` is the most common
      one (ties broken towards the larger ``m``); ``n_units`` tells how many were used.

    ``observed`` is ``P_bar`` and ``expected`` is ``P_e``.
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    name = "fleiss_kappa"
    m = ratings_per_unit(c)
    c, m = c[m > 0], m[m > 0]
    sizes, freq = np.unique(m, return_counts=True)
    if sizes.size > 1:
        if unequal == "undefined":
            return undefined(name, UNEQUAL_RATERS, n_units=int(c.shape[0]), n_ratings=int(m.sum()))
        best = sizes[freq == freq.max()].max()
        c, m = c[m == best], m[m == best]
    if c.shape[0] == 0 or m[0] < 2:
        return undefined(name, FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    raters = float(m[0])
    n_units = c.shape[0]
    cf = c.astype(np.float64)
    p_i = ((cf**2).sum(axis=1) - raters) / (raters * (raters - 1.0))
    p_bar = float(p_i.mean())
    p_j = cf.sum(axis=0) / (n_units * raters)
    p_e = float((p_j**2).sum())
    n_ratings = int(m.sum())
    if p_e >= 1.0 - 1e-15:
        return undefined(
            name, NO_VARIATION, n_units=n_units, n_ratings=n_ratings, observed=p_bar, expected=p_e
        )
    return defined(
        name,
        (p_bar - p_e) / (1.0 - p_e),
        n_units=n_units,
        n_ratings=n_ratings,
        observed=p_bar,
        expected=p_e,
    )
