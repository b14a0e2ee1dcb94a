"""Gwet's AC1 / AC2, Brennan-Prediger, Scott's pi and pairwise percent agreement from value
counts: one weighted observed agreement ``p_a``, three chance terms.

Both allow a varying number of raters per unit (missing ratings). Notation follows
Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 2 and 3 (the formulas
implemented by Gwet's own R package ``irrCAC``, function ``gwet.ac1.raw``):

* ``r_ik``: raters who classified unit ``i`` into category ``k``; ``r_i = sum_k r_ik``;
* ``r*_ik = sum_l w_kl r_il`` (weighted count; equals ``r_ik`` for identity weights);
* ``p_a = (1/n') sum_{i: r_i >= 2} sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))``, with ``n'``
  the number of units rated by at least two raters;
* ``pi_k = (1/n) sum_{i: r_i >= 1} r_ik / r_i`` over the ``n`` units rated at least once;
* ``p_e = T_w / (q (q - 1)) * sum_k pi_k (1 - pi_k)``, ``T_w = sum_kl w_kl``
  (``= sum_k pi_k (1 - pi_k) / (q - 1)`` for AC1, Gwet 2008, eq. 5 and 14);
* ``AC = (p_a - p_e) / (1 - p_e)``;
* Brennan & Prediger 1981 (``irrCAC`` ``bp.coeff.raw``): ``p_e = T_w / q^2``, chance as if
  every value were equally likely;
* Scott 1955, for many raters and missing ratings as Gwet generalises Fleiss' kappa
  (``irrCAC`` ``fleiss.kappa.raw``): ``p_e = sum_kl w_kl pi_k pi_l``, chance from the pooled
  shares; with two raters who rated every unit this is Scott's pi itself.

``q`` is the number of columns of the count matrix (the full scale, whether or not a value
was used), so always pass counts over the whole value domain.

Every quantity is a ratio of sums over units, so the statistics are also exposed as
per-unit feature rows plus a finaliser (:func:`ac_unit_features`, :func:`ac_from_sums`);
the bootstrap multiplies resample weights into those rows instead of looping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .counts import FloatArray, ratings_per_unit
from .results import FEWER_THAN_TWO_PAIRABLE, NO_VARIATION, Coefficient, defined, undefined

__all__ = [
    "GwetWeights",
    "ac_from_sums",
    "ac_unit_features",
    "brennan_prediger",
    "gwet_ac",
    "gwet_weights",
    "nominal_family",
    "percent_agreement",
    "scott_pi",
]

type GwetWeights = Literal["identity", "linear", "quadratic", "ordinal"]

SINGLE_CATEGORY = gettext_noop("the value domain has a single category")


def gwet_weights(
    n_values: int, weights: GwetWeights = "identity", value_domain: npt.ArrayLike | None = None
) -> FloatArray:
    """Agreement weights of Gwet 2014, section 3.3 (as in ``irrCAC``'s weight functions).

    * identity: ``[k == l]`` (AC1);
    * linear: ``1 - |x_k - x_l| / (x_max - x_min)``;
    * quadratic: ``1 - (x_k - x_l)^2 / (x_max - x_min)^2``;
    * ordinal: ``1 - M_kl / max M`` with ``M_kl = C(|k - l| + 1, 2)`` on ranks.

    ``x`` is ``value_domain`` (defaults to ``0..q-1``).
    """
    if weights == "identity" or n_values == 1:
        return np.eye(n_values)
    x = (
        np.arange(n_values, dtype=np.float64)
        if value_domain is None
        else np.asarray(value_domain, dtype=np.float64)
    )
    if x.shape != (n_values,):
        raise ValueError("value_domain must have one entry per column")
    span = float(x.max() - x.min())
    diff = np.abs(x[:, None] - x[None, :])
    if weights == "linear":
        return 1.0 - diff / span
    if weights == "quadratic":
        return 1.0 - (diff / span) ** 2
    if weights == "ordinal":
        rank = np.arange(n_values, dtype=np.float64)
        n_kl = np.abs(rank[:, None] - rank[None, :]) + 1.0
        m = n_kl * (n_kl - 1.0) / 2.0
        return 1.0 - m / m.max()
    raise ValueError(f"unknown weights {weights!r}")


def ac_unit_features(counts: npt.ArrayLike, weight_matrix: npt.ArrayLike) -> FloatArray:
    """Per-unit additive terms of AC1/AC2, shape ``(n_units, 3 + q)``.

    Columns: ``[r_i >= 2, agreement term of unit i (0 if r_i < 2), r_i >= 1,
    r_i1 / r_i, ..., r_iq / r_i]``. Summing rows over any multiset of units and passing
    the sums to :func:`ac_from_sums` gives AC for that multiset.
    """
    c = np.asarray(counts, dtype=np.float64)
    w = np.asarray(weight_matrix, dtype=np.float64)
    r = c.sum(axis=1)
    r_star = c @ w.T
    pair = r * (r - 1.0)
    two = r >= 2
    agree = np.zeros_like(r)
    agree[two] = (c[two] * (r_star[two] - 1.0)).sum(axis=1) / pair[two]
    one = r >= 1
    shares = np.zeros_like(c)
    shares[one] = c[one] / r[one, None]
    return np.column_stack([two.astype(np.float64), agree, one.astype(np.float64), shares])


def ac_from_sums(sums: npt.ArrayLike, weight_matrix: npt.ArrayLike) -> FloatArray:
    """AC1/AC2 from summed :func:`ac_unit_features` rows, shape ``(..., 3 + q)`` -> ``(...)``.

    Returns NaN where undefined (no unit with two ratings); stack helper for bootstrap.
    """
    s = np.asarray(sums, dtype=np.float64)
    w = np.asarray(weight_matrix, dtype=np.float64)
    q = w.shape[0]
    n2, agree, n1, shares = s[..., 0], s[..., 1], s[..., 2], s[..., 3:]
    with np.errstate(divide="ignore", invalid="ignore"):
        p_a = agree / n2
        pi = shares / n1[..., None]
        p_e = w.sum() / (q * (q - 1.0)) * (pi * (1.0 - pi)).sum(axis=-1)
        value = (p_a - p_e) / (1.0 - p_e)
    return np.where((n2 > 0) & (p_e < 1.0), value, np.nan)


def gwet_ac(
    counts: npt.ArrayLike,
    *,
    weights: GwetWeights = "identity",
    value_domain: npt.ArrayLike | None = None,
) -> Coefficient:
    """Gwet's AC1 (``weights="identity"``, nominal) or AC2 (weighted, ordinal scales).

    Args:
        counts: ``(n_units, q)`` value counts over the whole value domain.
        weights: ``"identity"`` (AC1), ``"linear"``, ``"quadratic"`` or ``"ordinal"``.
        value_domain: Numeric values of the columns for linear/quadratic weights.

    Returns:
        :class:`Coefficient` with ``observed`` = p_a and ``expected`` = p_e. Undefined when
        no unit has two ratings, or when ``q < 2``. Unlike kappa and alpha, AC1 stays
        defined (and equals 1) when all raters always agree on one value (Gwet 2008).

    Source: Gwet 2014, Handbook, 4th ed., section 2.5 / 3.4; Gwet 2008, BJMSP 61, eq. 14.
    """
    name = "gwet_ac1" if weights == "identity" else f"gwet_ac2_{weights}"
    return _chance_corrected(name, counts, weights, value_domain, _gwet_chance)


def brennan_prediger(
    counts: npt.ArrayLike,
    *,
    weights: GwetWeights = "identity",
    value_domain: npt.ArrayLike | None = None,
) -> Coefficient:
    """Brennan & Prediger's coefficient (free-marginal kappa): chance agreement as if every
    value of the scale were equally likely, ``p_e = T_w / q^2`` (1/q unweighted).

    Same arguments and undefined cases as :func:`gwet_ac`. Source: Brennan & Prediger 1981,
    Educational and Psychological Measurement 41; Gwet 2014, section 2.4 (``irrCAC``
    ``bp.coeff.raw``).
    """
    name = "brennan_prediger" if weights == "identity" else f"brennan_prediger_{weights}"
    return _chance_corrected(name, counts, weights, value_domain, _uniform_chance)


def scott_pi(
    counts: npt.ArrayLike,
    *,
    weights: GwetWeights = "identity",
    value_domain: npt.ArrayLike | None = None,
) -> Coefficient:
    """Scott's pi: chance agreement from the raters' pooled shares, ``p_e = sum_kl w_kl pi_k
    pi_l``; for many raters and missing ratings, as Gwet 2014 generalises Fleiss' kappa.

    Undefined as :func:`gwet_ac`, and when every rating has one value (``p_e = 1``). Source:
    Scott 1955, Public Opinion Quarterly 19; Gwet 2014, section 2.3 (``irrCAC``
    ``fleiss.kappa.raw``).
    """
    name = "scott_pi" if weights == "identity" else f"scott_pi_{weights}"
    return _chance_corrected(name, counts, weights, value_domain, _pooled_chance)


type ChanceTerm = Callable[[FloatArray, FloatArray], float]


def _gwet_chance(w: FloatArray, pi: FloatArray) -> float:
    q = w.shape[0]
    return float(w.sum() / (q * (q - 1.0)) * (pi * (1.0 - pi)).sum())


def _uniform_chance(w: FloatArray, pi: FloatArray) -> float:
    return float(w.sum() / w.shape[0] ** 2)


def _pooled_chance(w: FloatArray, pi: FloatArray) -> float:
    return float(pi @ w @ pi)


def _chance_corrected(
    name: str,
    counts: npt.ArrayLike,
    weights: GwetWeights,
    value_domain: npt.ArrayLike | None,
    chance: ChanceTerm,
) -> Coefficient:
    """``(p_a - p_e) / (1 - p_e)`` with Gwet's weighted ``p_a`` and the given chance term."""
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    q = c.shape[1]
    m = ratings_per_unit(c)
    n_units = int((m >= 2).sum())
    n_ratings = int(m[m >= 2].sum())
    if q < 2:
        return undefined(name, SINGLE_CATEGORY, n_units=n_units, n_ratings=n_ratings)
    if n_units == 0:
        return undefined(name, FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    w = gwet_weights(q, weights, value_domain)
    sums = ac_unit_features(c, w).sum(axis=0)
    return _from_sums(name, sums, w, chance, n_units, n_ratings)


def _from_sums(
    name: str, sums: FloatArray, w: FloatArray, chance: ChanceTerm, n_units: int, n_ratings: int
) -> Coefficient:
    n2, agree, n1, shares = sums[0], sums[1], sums[2], sums[3:]
    p_a = agree / n2
    p_e = chance(w, shares / n1)
    if p_e > 1.0 - 1e-12:  # every rating one value (up to the rounding of the shares)
        return undefined(
            name, NO_VARIATION, n_units=n_units, n_ratings=n_ratings, observed=p_a, expected=p_e
        )
    return defined(
        name,
        (p_a - p_e) / (1.0 - p_e),
        n_units=n_units,
        n_ratings=n_ratings,
        observed=p_a,
        expected=p_e,
    )


def nominal_family(
    counts: npt.ArrayLike,
) -> tuple[Coefficient, Coefficient, Coefficient, Coefficient]:
    """(percent agreement, AC1, Brennan-Prediger, Scott's pi) of nominal counts, from one pass
    over the units: the same values as the four functions called one by one."""
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    q = c.shape[1]
    m = ratings_per_unit(c)
    n_units = int((m >= 2).sum())
    if q < 2 or n_units == 0:
        return (
            percent_agreement(c),
            gwet_ac(c),
            brennan_prediger(c),
            scott_pi(c),
        )
    n_ratings = int(m[m >= 2].sum())
    w = np.eye(q)
    sums = ac_unit_features(c, w).sum(axis=0)
    value = sums[1] / sums[0]
    return (
        defined("percent_agreement", value, n_units=n_units, n_ratings=n_ratings, observed=value),
        _from_sums("gwet_ac1", sums, w, _gwet_chance, n_units, n_ratings),
        _from_sums("brennan_prediger", sums, w, _uniform_chance, n_units, n_ratings),
        _from_sums("scott_pi", sums, w, _pooled_chance, n_units, n_ratings),
    )


def percent_agreement(counts: npt.ArrayLike) -> Coefficient:
    """Pairwise percent agreement: mean over units (with >= 2 ratings) of the share of
    agreeing rater pairs, ``sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))``.

    This is Gwet's ``p_a`` with identity weights (Gwet 2014, eq. 2.5.2; ``irrCAC``
    ``pa.coeff.raw``) and Fleiss' ``P_bar`` when every unit has the same raters. Each unit
    weighs the same regardless of its number of raters. Not chance-corrected.
    ``value`` is a fraction in [0, 1].
    """
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    m = ratings_per_unit(c)
    n_units = int((m >= 2).sum())
    if n_units == 0:
        return undefined("percent_agreement", FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    feats = ac_unit_features(c, np.eye(c.shape[1])).sum(axis=0)
    value = feats[1] / feats[0]
    return defined(
        "percent_agreement",
        value,
        n_units=n_units,
        n_ratings=int(m[m >= 2].sum()),
        observed=value,
    )
