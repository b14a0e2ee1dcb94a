"""A judge's scores on an ordinal (1-5) question compared with the experts' scores.

Inputs are scores on the scale ``origin .. origin + n_values - 1`` (1..5 by default):
``judge`` has shape ``(n_items,)`` and ``experts`` ``(n_experts, n_items)``, both float with
``NaN`` where there is no score.

* :func:`ordinal_agreement`: weighted Cohen's kappa (linear and quadratic) of the judge with
  the experts and of the experts with each other on the same items, with a percentile
  bootstrap interval over items; the judge against each held-out expert
  (:func:`core.stats.judge.leave_one_expert_out`); Bland-Altman of the judge's score
  against the mean expert score of each item (:mod:`core.stats.limits`).

Pooled kappa: every (expert, judge) pair on an item is one observation of the judge's table;
every ordered pair of two different experts on an item one observation of the experts'
table (so that table is symmetric). Both use the items with a judge score and at least two
expert scores, so the two figures describe the same items.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .bootstrap import (
    DEFAULT_RESAMPLES,
    Interval,
    Seed,
    _percentile_interval,
    resample_index_blocks,
    rng_from_seed,
    weights_from_indices,
)
from .counts import FloatArray
from .intervals import too_few_responses
from .judge import ExpertComparison, leave_one_expert_out
from .kappa import Weights, agreement_weights, cohen_kappa_from_table
from .limits import BlandAltman, bland_altman

__all__ = ["KappaComparison", "OrdinalAgreement", "ordinal_agreement", "pooled_tables"]


@dataclass(frozen=True, slots=True)
class KappaComparison:
    """Weighted kappa of the judge with the experts, and of the experts with each other.

    ``judge`` and ``experts`` are pooled kappas (see the module doc) with bootstrap intervals
    over items; ``gap = judge - experts`` with its interval from the same resamples (paired),
    ``None`` when either kappa is undefined; the intervals are withheld with their reason
    below :data:`MINIMUM_ITEMS` items, and the gap's always (``gap_unreliable_reason``: no item
    count simulated reached 90% coverage). ``leave_one_out``: the judge and the other experts
    against each held-out expert.
    """

    weights: Weights
    judge: Interval
    experts: Interval
    gap: float | None
    gap_low: float | None
    gap_high: float | None
    leave_one_out: tuple[ExpertComparison, ...]
    gap_unreliable_reason: str | None = None


@dataclass(frozen=True, slots=True)
class OrdinalAgreement:
    """The judge against the experts on one ordinal question.

    Attributes:
        n_items: Items with a judge score and at least one expert score (Bland-Altman, means).
        n_kappa_items: Items with a judge score and at least two expert scores (kappas).
        judge_mean / experts_mean: Mean judge score and mean of the per-item expert means, on
            the ``n_items`` items, in score points; ``None`` without items.
        linear / quadratic: :class:`KappaComparison` with linear and quadratic weights.
        bland_altman: Judge score minus the item's mean expert score.
        differences_x / differences_y: The Bland-Altman points, one per item: the mean of the
            judge's score and the expert mean, and their difference (for a plot).
    """

    n_items: int
    n_kappa_items: int
    judge_mean: float | None
    experts_mean: float | None
    linear: KappaComparison
    quadratic: KappaComparison
    bland_altman: BlandAltman
    differences_x: tuple[float, ...]
    differences_y: tuple[float, ...]

    @property
    def comparisons(self) -> tuple[KappaComparison, KappaComparison]:
        """The linear and the quadratic comparison, in that order."""
        return self.linear, self.quadratic


def pooled_tables(
    judge: npt.ArrayLike, experts: npt.ArrayLike, n_values: int
) -> tuple[FloatArray, FloatArray]:
    """Per-item contingency tables ``(n_items, q, q)`` of the judge's and the experts' pairs.

    Args are value indices (0..q-1, NaN for missing). ``judge_tables[i, e, j]`` counts the
    experts who gave ``e`` to item ``i`` that the judge gave ``j``; ``expert_tables[i, a, b]``
    counts the ordered pairs of two different experts giving ``a`` and ``b`` to item ``i``.
    Summing over items gives the pooled tables.
    """
    j = np.asarray(judge, dtype=np.float64)
    e = np.asarray(experts, dtype=np.float64)
    n_items = j.size
    counts = np.zeros((n_items, n_values), dtype=np.float64)
    rater, item = np.nonzero(~np.isnan(e))
    np.add.at(counts, (item, e[rater, item].astype(np.int64)), 1.0)
    judge_onehot = np.zeros((n_items, n_values), dtype=np.float64)
    has_judge = ~np.isnan(j)
    judge_onehot[np.flatnonzero(has_judge), j[has_judge].astype(np.int64)] = 1.0
    judge_tables = counts[:, :, None] * judge_onehot[:, None, :]
    expert_tables = counts[:, :, None] * counts[:, None, :]
    diagonal = np.arange(n_values)
    expert_tables[:, diagonal, diagonal] -= counts  # a rater is not paired with themself
    return judge_tables, expert_tables


def _kappa_stack(tables: FloatArray, w: FloatArray) -> FloatArray:
    """Weighted kappa of each ``(q, q)`` table in a ``(r, q, q)`` stack; NaN where undefined
    (no pair, or chance agreement 1), as :func:`cohen_kappa_from_table` decides."""
    n = tables.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tables / n[:, None, None]
        p_o = (w * p).sum(axis=(1, 2))
        p_e = np.einsum("ab,ra,rb->r", w, p.sum(axis=2), p.sum(axis=1))
        kappa = (p_o - p_e) / (1.0 - p_e)
    return np.where((n > 0) & (p_e < 1.0 - 1e-15), kappa, np.nan)


#: Below this many items the percentile intervals of the judge's and the experts' weighted kappas
#: and of their gap are withheld as unreliable. Simulated (docs/statistics.md; 2 or 3 experts and
#: a judge who reports the true score with probability 0.85), at 30 items they covered 84-93% of
#: the time (the experts' quadratic kappa and the quadratic gap worst); from 50, 90% or more.
MINIMUM_ITEMS = 50
#: The gap's percentile interval covered 0.87-0.96 at 50 items in the same simulation (under 90%
#: with three experts on skewed scores): no item count checked reaches 90%, so it is withheld.
GAP_UNRELIABLE = gettext_noop(
    "interval unreliable: under %(coverage)s coverage in simulation up to %(n)s responses",
    coverage="90%",
    n=50,
)


def _withheld(interval: Interval, reason: str | None) -> Interval:
    """The interval with its bounds withheld for ``reason`` (unchanged when there is none or
    no bounds to withhold)."""
    if reason is None or interval.low is None:
        return interval
    return replace(interval, low=None, high=None, unreliable_reason=reason)


def _comparison(
    judge_index: FloatArray,
    expert_index: FloatArray,
    judge_tables: FloatArray,
    expert_tables: FloatArray,
    weights: Weights,
    *,
    n_values: int,
    n_resamples: int,
    seed: Seed,
    confidence: float,
    minimum_items: int,
) -> KappaComparison:
    q = n_values
    w = agreement_weights(q, weights)
    judge_kappa = cohen_kappa_from_table(judge_tables.sum(axis=0), weights)
    # From pooled pair tables, a kappa's n_units counts pairs, not items (see n_kappa_items).
    experts_kappa = cohen_kappa_from_table(expert_tables.sum(axis=0), weights)
    n_items = judge_tables.shape[0]
    flat_j = judge_tables.reshape(n_items, q * q)
    flat_e = expert_tables.reshape(n_items, q * q)
    judge_parts: list[FloatArray] = []
    expert_parts: list[FloatArray] = []
    if n_items:
        # One set of resamples for both tables, so the gap's interval is paired.
        for idx in resample_index_blocks(n_items, n_resamples, rng_from_seed(seed)):
            multiplicity = weights_from_indices(idx, n_items)
            judge_parts.append(_kappa_stack((multiplicity @ flat_j).reshape(-1, q, q), w))
            expert_parts.append(_kappa_stack((multiplicity @ flat_e).reshape(-1, q, q), w))
    judge_values = np.concatenate(judge_parts) if judge_parts else np.empty(0)
    expert_values = np.concatenate(expert_parts) if expert_parts else np.empty(0)
    method = "percentile bootstrap (items)"
    judge_interval = _percentile_interval(judge_kappa, judge_values, confidence, method)
    experts_interval = _percentile_interval(experts_kappa, expert_values, confidence, method)
    gap = gap_low = gap_high = None
    if judge_kappa.value is not None and experts_kappa.value is not None:
        gap = judge_kappa.value - experts_kappa.value
        gaps = judge_values - expert_values
        gaps = gaps[~np.isnan(gaps)]
        if gaps.size >= 2:
            tail = (1.0 - confidence) / 2.0
            gap_low, gap_high = (float(v) for v in np.quantile(gaps, [tail, 1.0 - tail]))
    unreliable = too_few_responses(n_items, minimum_items) if minimum_items else None
    gap_unreliable = None
    if gap_low is not None and minimum_items:
        gap_low = gap_high = None
        gap_unreliable = unreliable or GAP_UNRELIABLE
    return KappaComparison(
        weights=weights,
        judge=_withheld(judge_interval, unreliable),
        experts=_withheld(experts_interval, unreliable),
        gap=gap,
        gap_low=gap_low,
        gap_high=gap_high,
        gap_unreliable_reason=gap_unreliable,
        leave_one_out=leave_one_expert_out(
            np.where(np.isnan(judge_index), -1, judge_index).astype(np.int64),
            expert_index,
            n_values=q,
            weights=weights,
        ),
    )


def ordinal_agreement(
    judge: npt.ArrayLike,
    experts: npt.ArrayLike,
    *,
    n_values: int = 5,
    origin: int = 1,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: Seed = 0,
    confidence: float = 0.95,
    minimum_items: int = MINIMUM_ITEMS,
) -> OrdinalAgreement:
    """The judge's scores against the experts' on one ordinal question (see the module doc).

    Args:
        judge: Judge score per item (``origin .. origin + n_values - 1``; NaN = none).
        experts: ``(n_experts, n_items)`` scores with NaN where an expert gave none.
        n_values: Scale length (5 for 1-5); ``origin``: the lowest score (1).
        n_resamples, seed, confidence: Bootstrap over items for the kappa intervals.
        minimum_items: Below this many items (a judge score and two expert scores) the kappas'
            and the gap's intervals are withheld with an ``unreliable_reason`` (default
            :data:`MINIMUM_ITEMS`, see its reason; 0 shows them always).
    """
    j = np.asarray(judge, dtype=np.float64)
    e = np.asarray(experts, dtype=np.float64)
    if j.ndim != 1 or e.ndim != 2 or e.shape[1] != j.size:
        raise ValueError("judge must be (items,) and experts (experts, items)")
    scores = np.concatenate([j[~np.isnan(j)], e[~np.isnan(e)]])
    if scores.size and (
        (scores < origin).any() or (scores > origin + n_values - 1).any() or (scores % 1).any()
    ):
        raise ValueError(f"scores must be whole numbers from {origin} to {origin + n_values - 1}")
    n_experts = (~np.isnan(e)).sum(axis=0)
    rated = ~np.isnan(j) & (n_experts >= 1)
    with np.errstate(invalid="ignore"):
        expert_mean = np.where(n_experts >= 1, np.nansum(e, axis=0) / n_experts, np.nan)
    kappa_items = ~np.isnan(j) & (n_experts >= 2)
    judge_index = j[kappa_items] - origin
    expert_index = e[:, kappa_items] - origin
    judge_tables, expert_tables = pooled_tables(judge_index, expert_index, n_values)
    comparisons = [
        _comparison(
            judge_index,
            expert_index,
            judge_tables,
            expert_tables,
            weights,
            n_values=n_values,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            minimum_items=minimum_items,
        )
        for weights in ("linear", "quadratic")
    ]
    pairs_j, pairs_e = j[rated], expert_mean[rated]
    return OrdinalAgreement(
        n_items=int(rated.sum()),
        n_kappa_items=int(kappa_items.sum()),
        judge_mean=float(pairs_j.mean()) if pairs_j.size else None,
        experts_mean=float(pairs_e.mean()) if pairs_e.size else None,
        linear=comparisons[0],
        quadratic=comparisons[1],
        bland_altman=bland_altman(j, expert_mean, confidence=confidence),
        differences_x=tuple(float(v) for v in (pairs_j + pairs_e) / 2.0),
        differences_y=tuple(float(v) for v in pairs_j - pairs_e),
    )
