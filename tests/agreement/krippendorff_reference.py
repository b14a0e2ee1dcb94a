"""The `krippendorff` package (Castro 2017) as a test oracle for our own alpha.

Production computes alpha one way, `core.stats.alpha_from_counts`; this wrapper gives the
reference package's value in the same `Coefficient` shape so tests can compare the two. The
undefined cases are detected beforehand, so the package is never asked for 0/0 (it would return
NaN) or for data it rejects.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import numpy.typing as npt

from core.stats import FEWER_THAN_TWO_PAIRABLE, NO_VARIATION, Coefficient, ratings_per_unit
from core.stats.alpha import Level
from core.stats.results import defined, undefined


def krippendorff_alpha(
    counts: npt.ArrayLike,
    level: Level = "nominal",
    value_domain: npt.ArrayLike | None = None,
) -> Coefficient:
    """Alpha of ``(n_units, n_values)`` counts, from ``krippendorff.alpha(value_counts=...)``."""
    c = np.asarray(counts)
    if c.ndim != 2:
        raise ValueError("counts must be 2-D (units x values)")
    domain = (
        np.arange(c.shape[1], dtype=np.float64)
        if value_domain is None
        else np.asarray(value_domain, dtype=np.float64)
    )
    m = ratings_per_unit(c)
    pairable = m >= 2
    n_units = int(pairable.sum())
    n = int(m[pairable].sum())
    name = f"krippendorff_alpha_{level}"
    if n_units == 0:
        return undefined(name, FEWER_THAN_TWO_PAIRABLE, n_units=0, n_ratings=0)
    if (c[pairable].sum(axis=0) > 0).sum() < 2:
        return undefined(name, NO_VARIATION, n_units=n_units, n_ratings=n, observed=0.0)
    value = float(
        krippendorff.alpha(
            value_counts=c[pairable], value_domain=domain, level_of_measurement=level
        )
    )
    return defined(name, value, n_units=n_units, n_ratings=n)
