"""Agreement on each ordinal criterion of a study: Krippendorff's ordinal alpha and weighted
kappa (linear and quadratic weights), each with a 95% BCa bootstrap interval over responses
(withheld, with the reason, below 20 responses) and n.

Pure: no Django. A unit is one response graded on the criterion; its ratings are the levels
its graders chose (N/A and drafts are not ratings). Weighted kappa for more than two graders
is pooled over pairs: every ordered pair of two different graders of the same response adds
one cell to one contingency table (symmetric, so both raters share the marginals, as in
Fleiss' kappa), and Cohen's weighted kappa is read from it (`cohen_kappa_from_table`). With
two graders per response it is Cohen's weighted kappa of the symmetrised table. Intervals
resample responses (units) with replacement; their coverage is simulated in
tests/agreement/test_interval_coverage.py.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.stats.bootstrap import Interval, weights_from_indices
from core.stats.grouped import grouped_intervals
from core.stats.intervals import bca_bounds, too_few_responses
from core.stats.kappa import Weights, agreement_weights, cohen_kappa_from_table
from core.stats.results import Coefficient

FloatArray = npt.NDArray[np.float64]

#: Below this many responses a weighted kappa's interval is withheld as unreliable. Simulated
#: (tests/agreement/test_interval_coverage.py; docs/statistics.md), the BCa interval covered
#: linear kappa 92-98% of the time from 20 responses; quadratic kappa 87-93% at 20 and 30
#: responses, 90-96% from 40. (The percentile interval: 87-89% for quadratic kappa at 30
#: responses and 2 graders.)
KAPPA_MINIMUM_RESPONSES: dict[Weights, int] = {"none": 20, "linear": 20, "quadratic": 40}


@dataclass(frozen=True)
class KappaInterval:
    estimate: Coefficient
    low: float | None
    high: float | None
    unreliable_reason: str | None = None  # why the interval is withheld (too few responses)


@dataclass(frozen=True)
class OrdinalAgreement:
    """One ordinal criterion's agreement. `n_units`: responses with two levels or more (the n
    of every figure); `n_single`: responses with one level, `n_na`: N/A grades, both left out."""

    code: str
    scale_min: int
    scale_max: int
    n_units: int
    n_ratings: int
    alpha: Interval
    kappa_linear: KappaInterval
    kappa_quadratic: KappaInterval
    n_single: int = 0
    n_na: int = 0


def level_counts(
    units: Sequence[int], levels: Sequence[int], scale_min: int, scale_max: int
) -> npt.NDArray[np.int64]:
    """(n_units, scale points) counts of each level per unit, units in first-seen order."""
    order = {unit: i for i, unit in enumerate(dict.fromkeys(units))}
    counts = np.zeros((len(order), scale_max - scale_min + 1), dtype=np.int64)
    for unit, level in zip(units, levels, strict=True):
        counts[order[unit], level - scale_min] += 1
    return counts


def pair_tables(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit, the (q, q) table of ordered pairs of two different raters' levels."""
    c = counts.astype(np.float64)
    tables = c[:, :, None] * c[:, None, :]
    diagonal = np.arange(c.shape[1])
    tables[:, diagonal, diagonal] -= c  # a rater is not paired with themself
    return tables


def _kappas(tables: FloatArray, w: FloatArray) -> FloatArray:
    """Weighted kappa of each (q, q) table of a (r, q, q) stack; NaN where undefined."""
    total = tables.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tables / total[:, None, None]
        observed = (p * w).sum(axis=(1, 2))
        rows, cols = p.sum(axis=2), p.sum(axis=1)
        expected = np.einsum("ra,ab,rb->r", rows, w, cols)
        return np.where(np.isclose(expected, 1.0), np.nan, (observed - expected) / (1 - expected))


def pooled_kappa(
    tables: FloatArray, weights: Weights, *, n_resamples: int, seed: int
) -> KappaInterval:
    """Pooled weighted kappa of per-unit pair tables, with a BCa bootstrap interval over units
    (acceleration from the delete-one-unit jackknife), withheld below
    `KAPPA_MINIMUM_RESPONSES` units (see its reason)."""
    q = tables.shape[1]
    total = tables.sum(axis=0)
    estimate = cohen_kappa_from_table(total, weights)
    n = tables.shape[0]
    if estimate.value is None or n < 2:
        return KappaInterval(estimate, None, None)
    unreliable = too_few_responses(n, KAPPA_MINIMUM_RESPONSES[weights])
    if unreliable is not None:
        return KappaInterval(estimate, None, None, unreliable)
    w = agreement_weights(q, weights)
    rng = np.random.default_rng(seed)
    multiplicity = weights_from_indices(rng.integers(0, n, size=(n_resamples, n)), n)
    values = _kappas(np.einsum("ru,uab->rab", multiplicity, tables), w)
    jackknife = _kappas(total[None, :, :] - tables, w)
    low, high = bca_bounds([estimate.value], values[None, :], jackknife[None, :])
    if np.isnan(low[0]):
        return KappaInterval(estimate, None, None)
    return KappaInterval(estimate, float(low[0]), float(high[0]))


def ordinal_agreement(
    code: str,
    scale: tuple[int, int],
    units: Sequence[int],
    levels: Sequence[int],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    n_na: int = 0,
) -> OrdinalAgreement:
    """Agreement on one ordinal criterion from its (unit, level) ratings (`n_na`: its N/A
    grades, counted as left out)."""
    counts = level_counts(units, levels, *scale)
    pairable = counts[counts.sum(axis=1) >= 2]
    domain = np.arange(scale[0], scale[1] + 1)
    # BCa over responses, withheld below 20 responses, as for the task-level ratings.
    everything = np.arange(counts.shape[0])
    alpha = grouped_intervals(
        counts,
        everything,
        [everything],
        level="ordinal",
        value_domain=domain,
        n_resamples=n_resamples,
        seed=seed,
    )[0].alpha
    tables = pair_tables(pairable)
    options = {"n_resamples": n_resamples, "seed": seed}
    return OrdinalAgreement(
        code=code,
        scale_min=scale[0],
        scale_max=scale[1],
        n_units=int(pairable.shape[0]),
        n_ratings=int(pairable.sum()),
        alpha=alpha,
        kappa_linear=pooled_kappa(tables, "linear", **options),
        kappa_quadratic=pooled_kappa(tables, "quadratic", **options),
        n_single=int((counts.sum(axis=1) == 1).sum()),
        n_na=n_na,
    )
