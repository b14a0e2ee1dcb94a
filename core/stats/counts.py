"""Value-count representation of reliability data.

Every coefficient in this package starts from a *value-count matrix* ``counts`` of shape
``(n_units, n_values)``: ``counts[u, v]`` is how many raters gave value index ``v`` to
unit ``u`` (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C,
the ``n_uc`` table). A unit is one item x criterion; a value index points into a
``value_domain`` (for a 1-5 scale, index 0 is score 1). Missing ratings are simply not
counted, so units may carry different numbers of ratings ``m_u = counts[u].sum()``.

The matrix is built from ``(unit_index, value_index)`` pairs with :func:`numpy.bincount`,
never through a dense raters x units matrix. :func:`counts_from_dense` exists for tests
and oracles that start from the textbook raters x units layout with ``NaN`` for missing.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "FloatArray",
    "IntArray",
    "coincidence_matrix",
    "counts_from_dense",
    "counts_from_pairs",
    "pairable_mask",
    "ratings_per_unit",
    "unit_pair_products",
]

type IntArray = npt.NDArray[np.int64]
type FloatArray = npt.NDArray[np.float64]


def counts_from_pairs(
    unit_index: npt.ArrayLike,
    value_index: npt.ArrayLike,
    *,
    n_values: int,
    n_units: int | None = None,
) -> IntArray:
    """Build the units x values count matrix from one ``(unit, value)`` pair per rating.

    Args:
        unit_index: Integer unit index of each rating, shape ``(n_ratings,)``, >= 0.
        value_index: Integer value index of each rating, same shape, >= 0.
        n_values: Number of columns: the size of the scale, which only the caller knows. It is
            never guessed from the data: a binary criterion everyone failed still has a pass
            column, which AC1/AC2, the chance terms and ordinal distances all read.
        n_units: Number of rows; defaults to ``max(unit_index) + 1``. Units without any
            rating get an all-zero row (they contribute nothing to any coefficient).

    Returns:
        ``int64`` array of shape ``(n_units, n_values)``.

    Raises:
        ValueError: on shape mismatch, negative or out-of-range indices.

    Cost is one :func:`numpy.bincount` over ``value * n_units + unit``: O(n_ratings).
    """
    units = np.asarray(unit_index)
    values = np.asarray(value_index)
    if units.shape != values.shape or units.ndim != 1:
        raise ValueError("unit_index and value_index must be 1-D arrays of the same length")
    if units.size and not (
        np.issubdtype(units.dtype, np.integer) and np.issubdtype(values.dtype, np.integer)
    ):
        raise ValueError("unit_index and value_index must be integer arrays")
    units = units.astype(np.int64, copy=False)
    values = values.astype(np.int64, copy=False)
    n_u = n_units if n_units is not None else (int(units.max()) + 1 if units.size else 0)
    n_v = n_values
    if n_v < 1:
        raise ValueError("n_values must be at least 1 (the size of the scale)")
    if units.size:
        if units.min() < 0 or values.min() < 0:
            raise ValueError("indices must be non-negative")
        if units.max() >= n_u or values.max() >= n_v:
            raise ValueError("an index is out of range for n_units / n_values")
    key = values * n_u
    key += units
    flat = np.bincount(key, minlength=n_u * n_v)
    # Counted value-major and returned as a (units, values) view: each value's column is
    # contiguous, which is the direction every coefficient reads (column sums, c.T @ c).
    return flat.reshape(n_v, n_u).T


def counts_from_dense(data: npt.ArrayLike, value_domain: npt.ArrayLike) -> IntArray:
    """Count matrix from a dense raters x units matrix with ``NaN`` for missing ratings.

    Intended for tests and oracles (textbook examples are printed this way); production
    code should use :func:`counts_from_pairs`.

    Args:
        data: Array of shape ``(n_raters, n_units)``; ``NaN`` marks a missing rating.
        value_domain: The ordered possible values, shape ``(n_values,)``.

    Returns:
        ``int64`` array of shape ``(n_units, n_values)``.

    Raises:
        ValueError: if a non-missing rating is not in ``value_domain``.
    """
    matrix = np.asarray(data, dtype=np.float64)
    domain = np.asarray(value_domain, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError("data must be a 2-D raters x units matrix")
    present = ~np.isnan(matrix)
    _, unit_idx = np.nonzero(present)
    observed = matrix[present]
    order = np.argsort(domain)
    pos = np.searchsorted(domain, observed, sorter=order)
    pos = np.clip(pos, 0, domain.size - 1)
    value_idx = order[pos]
    if observed.size and not np.array_equal(domain[value_idx], observed):
        raise ValueError("data contains a value outside value_domain")
    return counts_from_pairs(unit_idx, value_idx, n_units=matrix.shape[1], n_values=domain.size)


def ratings_per_unit(counts: npt.ArrayLike) -> IntArray:
    """``m_u``: number of ratings of each unit (last axis summed), any leading shape."""
    c = np.asarray(counts)
    if c.shape[-1] == 0:
        return np.zeros(c.shape[:-1], dtype=np.int64)
    if c.shape[-1] <= 16:
        # Column-wise adds beat a reduction along a short contiguous axis by ~5x.
        m = c[..., 0].astype(np.int64)
        for j in range(1, c.shape[-1]):
            m += c[..., j]
        return m
    return c.sum(axis=-1).astype(np.int64, copy=False)


def pairable_mask(counts: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Units with at least two ratings: the only ones that enter pairwise coefficients."""
    return ratings_per_unit(counts) >= 2


def unit_pair_products(counts: npt.ArrayLike) -> IntArray:
    """Per-unit ordered-pair counts ``n_uc * n_uk - [c == k] * n_uc``.

    Entry ``[u, c, k]`` is the number of ordered pairs of *different* raters of unit
    ``u`` that assigned ``(c, k)``. Dividing by ``m_u - 1`` gives the unit's contribution
    to the coincidence matrix (Krippendorff 2011, eq. for ``o_ck``). Values are integers,
    so sums of them are exact in ``float64`` regardless of summation order; the bootstrap
    relies on this.

    Args:
        counts: ``(..., n_units, n_values)`` count matrix.

    Returns:
        ``int64`` array of shape ``(..., n_units, n_values, n_values)``.
    """
    c = np.asarray(counts, dtype=np.int64)
    products = c[..., :, None] * c[..., None, :]
    diag = np.arange(c.shape[-1])
    products[..., diag, diag] -= c
    return products


def coincidence_matrix(counts: npt.ArrayLike) -> FloatArray:
    """Krippendorff's coincidence matrix ``o_ck = sum_u (n_uc n_uk - [c=k] n_uc)/(m_u - 1)``.

    Source: Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C.2.
    Units with fewer than two ratings contribute nothing. The result is symmetric and its
    total equals the number of pairable ratings ``n = sum_u m_u [m_u >= 2]``.

    Args:
        counts: ``(n_units, n_values)`` count matrix, or a stack
            ``(n_stack, n_units, n_values)`` (e.g. bootstrap resamples).

    Returns:
        ``float64`` array ``(n_values, n_values)`` or ``(n_stack, n_values, n_values)``.

    For a single matrix the integer pair sums are accumulated per group of units with the
    same ``m_u`` and divided by ``m_u - 1`` once per group, in ascending ``m_u`` order; this
    makes the result bit-for-bit reproducible from any row permutation or repetition of
    the same units (which the bootstrap tests check exactly).
    """
    c = np.asarray(counts)
    if c.ndim == 3:
        m = c.sum(axis=-1)
        weight = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
        cf = c.astype(np.float64)
        weighted = cf * weight[..., None]
        out: FloatArray = np.einsum("suc,suk->sck", weighted, cf)
        diag = np.arange(c.shape[-1])
        out[:, diag, diag] -= weighted.sum(axis=1)
        return out
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values) or 3-D (stack x units x values)")
    return _coincidence_2d(c, ratings_per_unit(c))


def _coincidence_2d(c: npt.NDArray[np.generic], m: IntArray) -> FloatArray:
    """Coincidences of one count matrix given its ``m_u`` (see :func:`coincidence_matrix`)."""
    n_values = c.shape[-1]
    out = np.zeros((n_values, n_values), dtype=np.float64)
    diag = np.arange(n_values)
    sizes = np.flatnonzero(np.bincount(m)) if m.size else np.zeros(0, dtype=np.intp)
    sizes = sizes[sizes >= 2]
    for size in sizes:
        if sizes.size == 1 and m[0] == size and bool((m == size).all()):
            group = c.astype(np.float64)
        else:
            group = c[m == size].astype(np.float64)
        pair_sum = group.T @ group
        # Column sums as a product with ones: a reduction down a tall, narrow array's axis 0
        # is ~20x slower in NumPy. The entries are integers, so both are exact.
        pair_sum[diag, diag] -= np.ones(group.shape[0]) @ group
        out += pair_sum / float(size - 1)
    return out
