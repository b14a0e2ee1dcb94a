"""Calibration of an LLM judge against expert raters (pure functions).

Inputs are value indices: ``judge`` has shape ``(n_items,)`` (negative = no verdict) and
``experts`` has shape ``(n_experts, n_items)`` as floats with ``NaN`` where an expert did
not grade the item. Experts per criterion are few, so this dense layout is small. For
binary criteria index 1 is *pass* (positive) and 0 is *fail*.

Contents:

* :func:`majority_reference` / :func:`calibrate`: confusion matrix, accuracy, Cohen's
  kappa, sensitivity and specificity of the judge against a reference (expert majority or
  a gold label);
* :func:`leave_one_expert_out`: the judge vs each held-out expert compared with the other
  experts vs that same expert, on the same items;
* :func:`leniency`: judge pass rate minus expert pass rate, Newcombe's paired score interval
  (correlation over responses) and an exact McNemar test against the expert majority;
* :func:`alternative_annotator_test`: the alt-test of Calderon, Reichart & Dror 2025
  ("The Alternative Annotator Test for LLM-as-a-Judge", ACL 2025, arXiv 2501.10970);
* :func:`ordinal_calibration`: weighted kappa against the expert median and Bland-Altman
  limits of agreement (:mod:`.limits`) for ordinal (1-5) criteria; see
  :mod:`.ordinal` for the judge compared with experts and experts with each other;
* :func:`level_match`: exact and within-one agreement of the judge's levels with reference
  levels (the adjudicated gold) on an ordinal criterion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .counts import FloatArray, IntArray
from .distributions import benjamini_yekutieli, mcnemar_exact, student_t_cdf
from .intervals import paired_difference_bounds, too_few_responses
from .kappa import Weights, cohen_kappa_from_table, contingency_table
from .limits import BlandAltman, bland_altman
from .results import Coefficient, Ratio

__all__ = [
    "AltTestExpert",
    "AltTestResult",
    "BlandAltman",
    "Calibration",
    "ExpertComparison",
    "Leniency",
    "LevelMatch",
    "OrdinalCalibration",
    "alternative_annotator_test",
    "bland_altman",
    "calibrate",
    "leave_one_expert_out",
    "leniency",
    "level_match",
    "majority_reference",
    "median_reference",
    "ordinal_calibration",
]

NO_MAJORITY = -1


def _judge(judge: npt.ArrayLike) -> IntArray:
    j = np.asarray(judge)
    if j.ndim != 1:
        raise ValueError("judge must be 1-D (one verdict per item)")
    return j.astype(np.int64)


def _experts(experts: npt.ArrayLike, n_items: int | None = None) -> FloatArray:
    e = np.asarray(experts, dtype=np.float64)
    if e.ndim != 2:
        raise ValueError("experts must be 2-D (experts x items) with NaN for missing")
    if n_items is not None and e.shape[1] != n_items:
        raise ValueError("experts and judge must cover the same items")
    return e


def majority_reference(experts: npt.ArrayLike, n_values: int = 2) -> IntArray:
    """Per-item plurality value of the experts, ``-1`` when tied or nobody rated the item.

    For binary data with an even number of experts a 1-1 split has no majority.
    """
    e = _experts(experts)
    present = ~np.isnan(e)
    idx = np.where(present, e, 0).astype(np.int64)
    votes = np.zeros((e.shape[1], n_values), dtype=np.int64)
    for row, mask in zip(idx, present, strict=True):
        np.add.at(votes, (np.flatnonzero(mask), row[mask]), 1)
    top = votes.max(axis=1)
    winners = (votes == top[:, None]).sum(axis=1)
    ref = votes.argmax(axis=1)
    return np.where((top > 0) & (winners == 1), ref, NO_MAJORITY).astype(np.int64)


def median_reference(experts: npt.ArrayLike) -> IntArray:
    """Per-item lower median of the experts' values (always an observed value), -1 if none."""
    e = _experts(experts)
    out = np.full(e.shape[1], NO_MAJORITY, dtype=np.int64)
    for item in range(e.shape[1]):
        col = np.sort(e[~np.isnan(e[:, item]), item])
        if col.size:
            out[item] = int(col[(col.size - 1) // 2])
    return out


@dataclass(frozen=True, slots=True)
class Calibration:
    """Judge vs reference on the items where both exist.

    ``confusion[r, j]`` counts items with reference value ``r`` and judge value ``j``.
    Sensitivity = judge passes among reference passes, specificity = judge fails among
    reference fails; both ``None`` unless the data are binary.
    """

    n_items: int
    confusion: IntArray
    accuracy: Ratio
    kappa: Coefficient
    sensitivity: Ratio | None
    specificity: Ratio | None


def calibrate(
    judge: npt.ArrayLike,
    reference: npt.ArrayLike,
    *,
    n_values: int = 2,
    weights: Weights = "none",
) -> Calibration:
    """Confusion matrix, accuracy, (weighted) Cohen's kappa, sensitivity, specificity.

    Args:
        judge: Judge value index per item (negative = missing).
        reference: Reference value index per item (e.g. :func:`majority_reference` or gold
            labels; negative = missing). Items missing on either side are dropped.
        n_values: Size of the scale (2 for pass/fail).
        weights: Kappa weights (``"linear"``/``"quadratic"`` for ordinal scales).
    """
    j = _judge(judge)
    r = _judge(reference)
    table = contingency_table(r, j, n_values)
    n = int(table.sum())
    accuracy = Ratio(int(np.trace(table)), n)
    sens = spec = None
    if n_values == 2:
        sens = Ratio(int(table[1, 1]), int(table[1].sum()))
        spec = Ratio(int(table[0, 0]), int(table[0].sum()))
    return Calibration(n, table, accuracy, cohen_kappa_from_table(table, weights), sens, spec)


@dataclass(frozen=True, slots=True)
class ExpertComparison:
    """One held-out expert ``expert`` used as the reference.

    Attributes:
        expert: Row index of the held-out expert.
        n_items: Items graded by this expert, the judge and at least one other expert.
        judge_accuracy / judge_kappa: Judge vs the held-out expert on those items.
        experts_accuracy / experts_kappa: Every other expert vs the held-out expert on the
            same items, pooled over (other expert, item) pairs into one contingency table.
        accuracy_gap: ``judge_accuracy - experts_accuracy`` (fraction), ``None`` if either
            is undefined. Positive means the judge agrees with this expert more than
            colleagues do.
    """

    expert: int
    n_items: int
    judge_accuracy: Ratio
    judge_kappa: Coefficient
    experts_accuracy: Ratio
    experts_kappa: Coefficient
    accuracy_gap: float | None


def leave_one_expert_out(
    judge: npt.ArrayLike,
    experts: npt.ArrayLike,
    *,
    n_values: int = 2,
    weights: Weights = "none",
) -> tuple[ExpertComparison, ...]:
    """Compare the judge with each held-out expert against expert-vs-expert agreement.

    For every expert ``h``: restrict to items graded by ``h``, by the judge and by at least
    one other expert; compute judge-vs-``h`` agreement and the pooled agreement of the other
    experts with ``h`` on exactly those items. A judge that is "as good as an expert"
    matches each held-out expert about as well as the other experts do.
    """
    j = _judge(judge)
    e = _experts(experts, j.size)
    present = ~np.isnan(e)
    out: list[ExpertComparison] = []
    for h in range(e.shape[0]):
        others = np.delete(np.arange(e.shape[0]), h)
        items = present[h] & (j >= 0) & present[others].any(axis=0)
        ref = e[h, items].astype(np.int64)
        judge_table = contingency_table(ref, j[items], n_values)
        expert_table = np.zeros((n_values, n_values), dtype=np.int64)
        for k in others:
            both = present[k, items]
            expert_table += contingency_table(
                ref[both], e[k, items][both].astype(np.int64), n_values
            )
        judge_acc = Ratio(int(np.trace(judge_table)), int(judge_table.sum()))
        expert_acc = Ratio(int(np.trace(expert_table)), int(expert_table.sum()))
        gap = (
            None
            if judge_acc.value is None or expert_acc.value is None
            else judge_acc.value - expert_acc.value
        )
        out.append(
            ExpertComparison(
                expert=h,
                n_items=int(items.sum()),
                judge_accuracy=judge_acc,
                judge_kappa=cohen_kappa_from_table(judge_table, weights),
                experts_accuracy=expert_acc,
                experts_kappa=cohen_kappa_from_table(expert_table, weights),
                accuracy_gap=gap,
            )
        )
    return tuple(out)


LENIENCY_METHOD = "Newcombe hybrid score, paired (responses)"


@dataclass(frozen=True, slots=True)
class Leniency:
    """Judge leniency on a binary criterion.

    Attributes:
        n_items: Items with a judge verdict and at least one expert grade.
        judge_pass_rate: Share of those items the judge passed.
        expert_pass_rate: Mean over those items of the share of experts who passed it.
        difference: ``judge_pass_rate - expert_pass_rate`` (proportion; > 0 = lenient).
        low, high: Newcombe's hybrid score interval of ``difference`` (paired rates,
            correlation over responses; :func:`core.stats.intervals.
            paired_difference_bounds`); ``None`` below two responses, and withheld below
            :data:`~core.stats.intervals.MINIMUM_RESPONSES` (``unreliable_reason``).
        confidence: Nominal coverage.
        method: How the interval was computed.
        n_responses: Responses (clusters) the items belong to: the interval's n.
        unreliable_reason: Why the interval is withheld (too few responses), else ``None``.
        mcnemar_judge_only: Items the judge passed but the expert majority failed.
        mcnemar_reference_only: Items the expert majority passed but the judge failed.
        mcnemar_p_value: Exact two-sided McNemar p-value on the two counts above (items
            without a strict expert majority are excluded from the test).
    """

    n_items: int
    judge_pass_rate: float
    expert_pass_rate: float
    difference: float
    low: float | None
    high: float | None
    confidence: float
    method: str
    n_responses: int
    unreliable_reason: str | None
    mcnemar_judge_only: int
    mcnemar_reference_only: int
    mcnemar_p_value: float


def leniency(
    judge: npt.ArrayLike,
    experts: npt.ArrayLike,
    *,
    clusters: npt.ArrayLike | None = None,
    confidence: float = 0.95,
) -> Leniency:
    """Judge pass rate minus expert pass rate, with Newcombe's paired interval and McNemar's
    test.

    Args:
        judge, experts: The judge's verdict per item; experts x items, NaN where missing.
        clusters: The response of each item (the criteria of one response are not
            independent); each item its own response when None.
        confidence: Nominal coverage.

    Raises:
        ValueError: if no item has both a judge verdict and an expert grade.
    """
    j = _judge(judge)
    e = _experts(experts, j.size)
    present = ~np.isnan(e)
    items = (j >= 0) & present.any(axis=0)
    n = int(items.sum())
    if n == 0:
        raise ValueError("no item has both a judge verdict and an expert grade")
    judge_pass = (j[items] == 1).astype(np.float64)
    expert_share = np.nansum(e[:, items] == 1, axis=0) / present[:, items].sum(axis=0)
    groups = None if clusters is None else np.asarray(clusters).reshape(-1)[items]
    n_responses = n if groups is None else int(np.unique(groups).size)
    difference, low_bound, high_bound = paired_difference_bounds(
        judge_pass, expert_share, groups, confidence
    )
    unreliable = too_few_responses(n_responses)
    shown = unreliable is None and not math.isnan(low_bound)
    low = float(low_bound) if shown else None
    high = float(high_bound) if shown else None
    reference = majority_reference(e[:, items], 2)
    decided = reference >= 0
    judge_only = int(((j[items] == 1) & (reference == 0) & decided).sum())
    reference_only = int(((j[items] == 0) & (reference == 1) & decided).sum())
    return Leniency(
        n_items=n,
        judge_pass_rate=float(judge_pass.mean()),
        expert_pass_rate=float(expert_share.mean()),
        difference=float(difference),
        low=low,
        high=high,
        confidence=confidence,
        method=LENIENCY_METHOD,
        n_responses=n_responses,
        unreliable_reason=unreliable,
        mcnemar_judge_only=judge_only,
        mcnemar_reference_only=reference_only,
        mcnemar_p_value=mcnemar_exact(judge_only, reference_only),
    )


# --------------------------------------------------------------------------------------
# Alternative annotator test (Calderon, Reichart & Dror 2025)
# --------------------------------------------------------------------------------------

type Scoring = Literal["accuracy", "neg_rmse"]

#: Minimum number of experts (paper's FAQ: "at least three human annotators").
ALT_TEST_MIN_EXPERTS = 3
#: Minimum items per held-out expert: the paper requires >= 30 for the t-test's normality
#: assumption (and recommends 50-100 items); its reference code skips experts below 30.
ALT_TEST_MIN_ITEMS = 30


@dataclass(frozen=True, slots=True)
class AltTestExpert:
    """Leave-one-out comparison for one held-out expert ``j``.

    Attributes:
        expert: Row index of the held-out expert.
        n_items: Items graded by ``j``, the judge and >= 1 other expert.
        advantage_probability: ``rho_j`` = share of items where the judge aligns with the
            remaining experts at least as well as ``j`` does.
        expert_advantage: Share of items where ``j`` aligns at least as well as the judge.
        t_statistic: One-sample t of ``d_i = W^h_i - W^f_i`` against ``epsilon``.
        p_value: One-sided p-value of ``H0: mean(d) >= epsilon``; ``None`` if skipped.
        rejected: True when BY-corrected H0 is rejected (the judge "wins" against ``j``).
        skipped_reason: Why the expert was left out of the test, else ``None``.
    """

    expert: int
    n_items: int
    advantage_probability: float | None
    expert_advantage: float | None
    t_statistic: float | None
    p_value: float | None
    rejected: bool
    skipped_reason: str | None


@dataclass(frozen=True, slots=True)
class AltTestResult:
    """Outcome of the alternative annotator test.

    Attributes:
        epsilon: Cost-benefit margin granted to the judge (0.2 for expert annotators).
        fdr: Benjamini-Yekutieli false discovery rate level ``q``.
        scoring: Alignment score (``"accuracy"`` or ``"neg_rmse"``).
        experts: Per-expert details (including skipped experts).
        winning_rate: ``omega`` = rejected / tested experts; ``None`` when not enough data.
        advantage_probability: ``rho`` = mean of ``rho_j`` over tested experts.
        judge_can_replace: ``omega >= 0.5``; ``None`` when not enough data.
        verdict: Human-readable conclusion.
        undefined_reason: Why there is no verdict (not enough data), else ``None``.
    """

    epsilon: float
    fdr: float
    scoring: str
    experts: tuple[AltTestExpert, ...]
    winning_rate: float | None
    advantage_probability: float | None
    judge_can_replace: bool | None
    verdict: str
    undefined_reason: str | None

    @property
    def n_experts(self) -> int:
        """Experts held out in turn (tested or skipped)."""
        return len(self.experts)

    @property
    def n_tested(self) -> int:
        """Experts tested: those with at least ``min_items`` items; the n of ``winning_rate``."""
        return sum(1 for expert in self.experts if expert.skipped_reason is None)

    @property
    def min_items(self) -> int:
        """Fewest items of a tested expert (0 when none was tested): each test's n."""
        return min((e.n_items for e in self.experts if e.skipped_reason is None), default=0)

    @property
    def max_items(self) -> int:
        """Most items of a tested expert (0 when none was tested)."""
        return max((e.n_items for e in self.experts if e.skipped_reason is None), default=0)


def _alignment(source: FloatArray, others: FloatArray, scoring: Scoring) -> FloatArray:
    """Per-item alignment of ``source`` (items,) with ``others`` (k, items), NaN-aware."""
    n_other = (~np.isnan(others)).sum(axis=0)
    if scoring == "accuracy":
        share_equal: FloatArray = np.nansum(others == source[None, :], axis=0) / n_other
        return share_equal
    if scoring == "neg_rmse":
        sq = np.nansum((others - source[None, :]) ** 2, axis=0)
        neg_rmse: FloatArray = -np.sqrt(sq / n_other)
        return neg_rmse
    raise ValueError(f"scoring must be 'accuracy' or 'neg_rmse', got {scoring!r}")


def _one_sided_t(d: FloatArray, epsilon: float) -> tuple[float, float]:
    """t statistic and p-value of H0: mean(d) >= epsilon vs H1: mean(d) < epsilon."""
    n = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        # Degenerate sample: the sign of (mean - epsilon) decides with certainty.
        return (-math.inf, 0.0) if mean < epsilon else (math.inf, 1.0)
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return t, student_t_cdf(t, n - 1)


def alternative_annotator_test(
    judge: npt.ArrayLike,
    experts: npt.ArrayLike,
    *,
    epsilon: float = 0.2,
    fdr: float = 0.05,
    scoring: Scoring = "accuracy",
    min_experts: int = ALT_TEST_MIN_EXPERTS,
    min_items: int = ALT_TEST_MIN_ITEMS,
) -> AltTestResult:
    """Alternative annotator test (alt-test), Calderon, Reichart & Dror 2025.

    For each expert ``j`` held out, on every item ``i`` graded by ``j``, the judge and at
    least one other expert: ``S_f = align(judge_i, others_i)``, ``S_h = align(j_i,
    others_i)`` (accuracy = share of remaining experts with the same label; neg_rmse =
    minus root mean squared difference, for scores). ``W^f_i = [S_f >= S_h]``,
    ``W^h_i = [S_h >= S_f]``, ``d_i = W^h_i - W^f_i``. A one-sided one-sample t-test of
    ``H0: mean(d) >= epsilon`` vs ``H1: mean(d) < epsilon`` (p from Student's t with
    ``n - 1`` df, no SciPy); if every ``d_i`` is equal the p-value is 0 or 1 by the sign
    of ``mean - epsilon``. The experts' p-values are corrected with Benjamini-Yekutieli
    at ``fdr``; the winning rate ``omega`` is the share of rejected nulls; the judge may
    replace an expert when ``omega >= 0.5``. ``rho`` (average advantage probability) is
    the mean over experts of ``mean(W^f)`` and is the paper's measure for comparing
    judges.

    ``judge`` and ``experts`` mark an unrated item with ``NaN`` and nothing else: any number,
    negative ones included, is a rating (signed scores keep every item).

    Data requirements (paper FAQ and reference code): experts with fewer than
    ``min_items`` (30) eligible items are skipped; fewer than ``min_experts`` (3) tested
    experts gives "not enough data". ``epsilon``: 0.2 for experts, 0.15 for skilled
    annotators, 0.1 for crowd workers (paper's rule of thumb).
    """
    j = np.asarray(judge, dtype=np.float64)
    if j.ndim != 1:
        raise ValueError("judge must be 1-D")
    e = _experts(experts, j.size)
    present = ~np.isnan(e)
    rows: list[AltTestExpert] = []
    tested: list[int] = []
    p_values: list[float] = []
    stats: dict[int, tuple[float, float, float, float]] = {}
    for h in range(e.shape[0]):
        others = np.delete(np.arange(e.shape[0]), h)
        items = present[h] & ~np.isnan(j) & present[others].any(axis=0)
        n = int(items.sum())
        if n < min_items:
            rows.append(
                AltTestExpert(
                    h,
                    n,
                    None,
                    None,
                    None,
                    None,
                    False,
                    gettext_noop("fewer than %(n)s items", n=min_items),
                )
            )
            continue
        rest = e[np.ix_(others, np.flatnonzero(items))]
        s_f = _alignment(j[items], rest, scoring)
        s_h = _alignment(e[h, items], rest, scoring)
        w_f = (s_f >= s_h).astype(np.float64)
        w_h = (s_h >= s_f).astype(np.float64)
        t, p = _one_sided_t(w_h - w_f, epsilon)
        stats[h] = (float(w_f.mean()), float(w_h.mean()), t, p)
        tested.append(h)
        p_values.append(p)
        rows.append(AltTestExpert(h, n, None, None, None, None, False, None))
    rejected = dict(zip(tested, benjamini_yekutieli(p_values, fdr), strict=True))
    final = tuple(
        row
        if row.skipped_reason is not None
        else AltTestExpert(
            row.expert,
            row.n_items,
            stats[row.expert][0],
            stats[row.expert][1],
            stats[row.expert][2],
            stats[row.expert][3],
            rejected[row.expert],
            None,
        )
        for row in rows
    )
    if len(tested) < min_experts:
        reason = gettext_noop(
            "not enough data: %(tested)s expert(s) with >= %(items)s items, need >= %(needed)s",
            tested=len(tested),
            items=min_items,
            needed=min_experts,
        )
        return AltTestResult(epsilon, fdr, scoring, final, None, None, None, reason, reason)
    omega = sum(rejected.values()) / len(tested)
    rho = float(np.mean([stats[h][0] for h in tested]))
    can = omega >= 0.5
    verdict = (
        gettext_noop("judge can replace an expert")
        if can
        else gettext_noop("judge cannot replace an expert")
    )
    return AltTestResult(epsilon, fdr, scoring, final, omega, rho, can, verdict, None)


# --------------------------------------------------------------------------------------
# Ordinal criteria
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OrdinalCalibration:
    """Judge vs experts on an ordinal criterion.

    ``linear_kappa`` / ``quadratic_kappa``: weighted Cohen's kappa of the judge against the
    per-item lower median of the experts. ``bland_altman``: judge score minus the experts'
    mean score, in score points (add back the scale origin if indices are used).
    """

    n_items: int
    linear_kappa: Coefficient
    quadratic_kappa: Coefficient
    bland_altman: BlandAltman


def ordinal_calibration(
    judge: npt.ArrayLike, experts: npt.ArrayLike, *, n_values: int = 5
) -> OrdinalCalibration:
    """Weighted kappas and Bland-Altman of a judge on an ordinal (e.g. 1-5) criterion.

    Args:
        judge: Judge value index per item (0..n_values-1; negative = missing).
        experts: ``(n_experts, n_items)`` value indices with NaN for missing.
        n_values: Scale length (5 for a 1-5 scale).
    """
    j = _judge(judge)
    e = _experts(experts, j.size)
    ref = median_reference(e)
    has_expert = (~np.isnan(e)).any(axis=0)
    with np.errstate(invalid="ignore"):
        mean_score = np.where(has_expert, np.nanmean(np.where(has_expert, e, 0.0), axis=0), np.nan)
    judge_scores = np.where(j >= 0, j, np.nan).astype(np.float64)
    table = contingency_table(ref, j, n_values)
    return OrdinalCalibration(
        n_items=int(table.sum()),
        linear_kappa=cohen_kappa_from_table(table, "linear"),
        quadratic_kappa=cohen_kappa_from_table(table, "quadratic"),
        bland_altman=bland_altman(judge_scores, mean_score),
    )


@dataclass(frozen=True, slots=True)
class LevelMatch:
    """A judge's levels against reference levels on one ordinal criterion.

    ``exact``: items where the judge chose the reference level; ``within_one``: items where
    it chose that level or a neighbouring one. Both count over the same ``n`` items, those
    with a level from the judge and from the reference. On a two-level scale every level is
    within one of the other, so ``within_one`` is 1 there by construction.
    """

    exact: Ratio
    within_one: Ratio

    @property
    def n(self) -> int:
        """Items with both a judge level and a reference level."""
        return self.exact.denominator


def level_match(judge: npt.ArrayLike, reference: npt.ArrayLike) -> LevelMatch:
    """Exact and within-one agreement of a judge's levels with reference levels.

    Args:
        judge: The judge's level per item, on the criterion's own scale (e.g. 0-3), NaN
            where it gave none.
        reference: The reference level per item on the same scale (the adjudicated gold
            level), NaN where there is none (not adjudicated, or adjudicated N/A).

    Raises:
        ValueError: when the two arrays differ in shape or hold a level that is not a
            whole number.
    """
    j = np.asarray(judge, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    if j.shape != r.shape or j.ndim != 1:
        raise ValueError("judge and reference must be 1-d arrays of the same length")
    both = ~np.isnan(j) & ~np.isnan(r)
    if not (np.all(j[both] == np.round(j[both])) and np.all(r[both] == np.round(r[both]))):
        raise ValueError("levels must be whole numbers")
    distance = np.abs(j[both] - r[both])
    n = int(both.sum())
    return LevelMatch(
        exact=Ratio(int((distance == 0).sum()), n),
        within_one=Ratio(int((distance <= 1).sum()), n),
    )
