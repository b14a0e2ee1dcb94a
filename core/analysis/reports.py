"""Agreement reports of a grading study, composed from the pure statistics core.

Pure: numpy arrays and dataclasses in, frozen dataclasses out; no Django. `agreement.data`
builds the StudyRatings (`core.analysis.ratings`) from the database; views, exports and
the command render the report.

A *unit* is one (study item, criterion) pair; a rating is one annotator's pass or fail on a
unit (N/A is missing data, not a third value). Confidence intervals resample study items as
clusters: the criteria of one response are graded together by the same people, so resampling
units alone would understate the uncertainty.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from core.analysis.ordinal_criteria import OrdinalAgreement
from core.analysis.ratings import CriterionInfo, IntArray, ItemInfo, StudyRatings
from core.analysis.scales import Consistency, ScaleAgreement
from core.messages import gettext_noop
from core.stats import (
    BinarySummary,
    Coefficient,
    Interval,
    alpha_from_counts,
    binary_summary,
    cohen_kappa,
    counts_from_pairs,
)
from core.stats.grouped import grouped_intervals

DEFAULT_THRESHOLD = 0.667  # Krippendorff 2004: lowest alpha for tentative conclusions.
# Below this many units graded by two experts or more, no criterion is called validated: a
# bootstrap interval from a handful of units is far narrower than the uncertainty it stands for
# (two units that agree give the interval [1, 1]). 30 is the smallest sample at which the
# interval's coverage is checked (docs/statistics.md, "Small samples"); a study may set more.
DEFAULT_MINIMUM_UNITS = 30


@dataclass(frozen=True)
class GroupAgreement:
    """Agreement over one set of units (a criterion, a layer, a competency, ...)."""

    label: str
    n_items: int  # responses
    summary: BinarySummary  # its n_units: the units compared (two ratings or more)
    alpha: Interval  # BCa bootstrap over responses; withheld when unreliable
    ac1: Interval  # Wilson-type, Gwet's linearised variance over responses
    percent_agreement: Interval  # Wilson at the responses' effective n
    n_units: int = 0  # every unit of the group with a submitted rating
    n_na: int = 0  # N/A grades on the group's responses and criteria: no rating, left out

    @property
    def n_single(self) -> int:
        """Units left out of every coefficient: a single submitted rating, nothing to pair."""
        return self.n_units - self.summary.n_units


@dataclass(frozen=True)
class CriterionAgreement:
    criterion: CriterionInfo
    agreement: GroupAgreement
    validated: bool | None  # None: not enough data to say
    verdict: str


@dataclass(frozen=True)
class RaterAgreement:
    rater: str
    n_ratings: int
    agreement_with_others: float | None  # share of pairs with another rater that agree
    alpha_without: Coefficient  # alpha of the study with this rater's ratings removed
    n_pairs: int = 0  # pairs of this rater's rating with another rater's on the same unit


@dataclass(frozen=True)
class PairAgreement:
    shared_units: int
    percent: float | None
    kappa: Coefficient


@dataclass(frozen=True)
class StudyAgreement:
    threshold: float
    overall: GroupAgreement
    criteria: tuple[CriterionAgreement, ...]
    by_layer: tuple[GroupAgreement, ...]
    by_competency: tuple[GroupAgreement, ...]
    by_sub_competency: tuple[GroupAgreement, ...]
    by_context: tuple[GroupAgreement, ...]
    raters: tuple[RaterAgreement, ...]
    rater_names: tuple[str, ...]
    rater_matrix: tuple[tuple[PairAgreement | None, ...], ...] = field(repr=False)
    scales: tuple[ScaleAgreement, ...] = ()
    consistency: tuple[Consistency, ...] = ()
    by_language: tuple[GroupAgreement, ...] = ()  # the tasks' target languages
    # Turn-level criteria: per criterion, agreement on each tutor turn, then on the dialogue
    # (the per-response verdict its rule gives): turn_agreement().
    turns: tuple[tuple[GroupAgreement, GroupAgreement | None], ...] = ()
    ordinal: tuple[OrdinalAgreement, ...] = ()  # each ordinal criterion's levels

    def least_reliable(self, limit: int = 10) -> tuple[CriterionAgreement, ...]:
        """Criteria ordered from the least reliable: undefined alpha last, lowest first."""
        ranked = sorted(
            self.criteria,
            key=lambda c: (
                c.agreement.alpha.estimate.value is None,
                c.agreement.alpha.estimate.value
                if c.agreement.alpha.estimate.value is not None
                else 0.0,
            ),
        )
        return tuple(ranked[:limit])


def group_agreements(
    ratings: StudyRatings,
    counts: IntArray,
    groups: list[tuple[str, IntArray]],
    *,
    n_resamples: int,
    seed: int,
    n_na: list[int] | None = None,
) -> list[GroupAgreement]:
    """Every group's agreement, its intervals from one study-wide set of resamples."""
    members = [units for _, units in groups]
    summaries = [binary_summary(counts[units]) for units in members]
    found = grouped_intervals(
        counts,
        ratings.unit_item,
        members,
        n_resamples=n_resamples,
        seed=seed,
        estimates=[(s.alpha, s.ac1, s.percent_agreement) for s in summaries],
    )
    return [
        GroupAgreement(
            label=label,
            n_items=int(np.unique(ratings.unit_item[units]).size),
            summary=summary,
            alpha=intervals.alpha,
            ac1=intervals.ac1,
            percent_agreement=intervals.percent_agreement,
            n_units=int((counts[units].sum(axis=1) > 0).sum()),
            n_na=left_out,
        )
        for (label, _), units, summary, intervals, left_out in zip(
            groups, members, summaries, found, n_na or [0] * len(groups), strict=True
        )
    ]


def criterion_verdict(
    interval: Interval,
    unstable: bool,
    threshold: float,
    minimum_units: int = DEFAULT_MINIMUM_UNITS,
) -> tuple[bool | None, str]:
    """Whether a criterion is validated: on at least `minimum_units` units graded twice or more,
    the lower bound of alpha's CI reaches the threshold."""
    n_units = interval.estimate.n_units
    if n_units < minimum_units:
        return None, gettext_noop(
            "too few units (n = %(n)s; %(needed)s needed to validate)",
            n=n_units,
            needed=minimum_units,
        )
    if interval.unreliable_reason is not None:
        return None, interval.unreliable_reason
    if interval.low is None:
        reason = (
            interval.undefined_reason
            or interval.estimate.undefined_reason
            or gettext_noop("no interval")
        )
        if unstable:
            return None, gettext_noop("alpha unstable (prevalence); %(reason)s", reason=reason)
        return None, gettext_noop("not enough data: %(reason)s", reason=reason)
    bounds = {"low": f"{interval.low:.3f}", "threshold": f"{threshold:.3f}"}
    if interval.low >= threshold:
        return True, gettext_noop("validated: lower bound %(low)s >= %(threshold)s", **bounds)
    if unstable:
        return None, gettext_noop(
            "alpha unstable (prevalence): lower bound %(low)s; judge by percent agreement and AC1",
            **bounds,
        )
    return False, gettext_noop("not validated: lower bound %(low)s < %(threshold)s", **bounds)


def _groups(
    keys: npt.NDArray[np.object_], na_keys: npt.NDArray[np.object_] | None = None
) -> list[tuple[str, IntArray]]:
    """Each non-empty key with the indices of its units (a key only N/A grades carry has
    none)."""
    found = {k for k in keys.tolist() if k}
    if na_keys is not None:
        found |= {k for k in na_keys.tolist() if k}
    return [(key, np.flatnonzero(keys == key)) for key in sorted(found)]


def _unit_labels(
    ratings: StudyRatings, label: Callable[[CriterionInfo, ItemInfo], str], *, na: bool = False
) -> npt.NDArray[np.object_]:
    """Each unit's label (with `na`: each N/A grade's, from its response and criterion)."""
    items, criteria = (
        (ratings.na_item, ratings.na_criterion)
        if na
        else (ratings.unit_item, ratings.unit_criterion)
    )
    return np.array(
        [
            label(ratings.criteria[c], ratings.items[i])
            for i, c in zip(items.tolist(), criteria.tolist(), strict=True)
        ],
        dtype=object,
    )


def pairs_per_rating(
    counts: IntArray, units: IntArray, values: IntArray
) -> tuple[IntArray, IntArray]:
    """For each rating (its unit and value; `counts` the units' ratings, its own among them):
    how many other ratings of its unit agree with it, and how many other ratings there are.
    Summed over any set of ratings (a rater's, a week's), the two give that set's agreement
    with the others: the share of its pairs that agree."""
    return counts[units, values] - 1, counts.sum(axis=1)[units] - 1


def rater_agreement(ratings: StudyRatings, counts: IntArray) -> tuple[RaterAgreement, ...]:
    """Each rater against the rest: how often their pairs with other raters agree, and alpha
    with their ratings removed (a rater whose removal raises alpha deserves a look)."""
    out = []
    for r, name in enumerate(ratings.raters):
        mine = ratings.rating_rater == r
        units, values = ratings.rating_unit[mine], ratings.rating_value[mine]
        agreeing, others = pairs_per_rating(counts, units, values)
        pairs = int(others.sum())
        without = counts - counts_from_pairs(units, values, n_units=ratings.n_units, n_values=2)
        out.append(
            RaterAgreement(
                rater=name,
                n_ratings=int(mine.sum()),
                agreement_with_others=float(agreeing.sum()) / pairs if pairs else None,
                alpha_without=alpha_from_counts(without),
                n_pairs=pairs,
            )
        )
    return tuple(out)


def rater_matrix(ratings: StudyRatings) -> tuple[tuple[PairAgreement | None, ...], ...]:
    """Pairwise agreement of every two raters on the units both rated (None on the diagonal)."""
    n = len(ratings.raters)
    dense = np.full((n, ratings.n_units), -1, dtype=np.int64)
    dense[ratings.rating_rater, ratings.rating_unit] = ratings.rating_value
    rows = []
    for a in range(n):
        row: list[PairAgreement | None] = []
        for b in range(n):
            if a == b:
                row.append(None)
                continue
            both = (dense[a] >= 0) & (dense[b] >= 0)
            shared = int(both.sum())
            percent = float((dense[a][both] == dense[b][both]).mean()) if shared else None
            row.append(PairAgreement(shared, percent, cohen_kappa(dense[a], dense[b], n_values=2)))
        rows.append(tuple(row))
    return tuple(rows)


def study_agreement(
    ratings: StudyRatings,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    minimum_units: int = DEFAULT_MINIMUM_UNITS,
    n_resamples: int = 1000,
    seed: int = 0,
) -> StudyAgreement:
    """The whole agreement report of a study (see the module docstring for units)."""
    counts = ratings.counts()
    # Each criterion's units as indices (a boolean mask per criterion would hold n_units
    # bytes for each of thousands of criteria).
    order = np.argsort(ratings.unit_criterion, kind="stable")
    bounds = np.searchsorted(ratings.unit_criterion[order], np.arange(len(ratings.criteria) + 1))
    # N/A grades are no rating: each group counts those on its responses and criteria.
    na_per_criterion = np.bincount(ratings.na_criterion, minlength=len(ratings.criteria))
    criteria = [
        (index, info, order[bounds[index] : bounds[index + 1]])
        for index, info in enumerate(ratings.criteria)
        if bounds[index + 1] > bounds[index] or na_per_criterion[index]
    ]

    def contexts(items: IntArray) -> list[set[str]]:
        return [{f"{name}: {value}" for name, value in ratings.items[i].context} for i in items]

    unit_context, na_context = contexts(ratings.unit_item), contexts(ratings.na_item)
    by_label: dict[str, Callable[[CriterionInfo, ItemInfo], str]] = {
        "layer": lambda c, i: c.layer,
        "competency": lambda c, i: i.competency,
        "sub_competency": lambda c, i: i.sub_competency,
        "language": lambda c, i: i.language,
    }
    families: dict[str, list[tuple[str, IntArray]]] = {
        "overall": [("overall", np.arange(ratings.n_units))],
        "criteria": [(info.code, units) for _, info, units in criteria],
    }
    na_counts: dict[str, list[int]] = {
        "overall": [int(ratings.na_item.size)],
        "criteria": [int(na_per_criterion[index]) for index, _, _ in criteria],
    }
    for name, label in by_label.items():
        na_keys = _unit_labels(ratings, label, na=True)
        families[name] = _groups(_unit_labels(ratings, label), na_keys)
        na_counts[name] = [int((na_keys == key).sum()) for key, _ in families[name]]
    context_labels = sorted(set().union(*unit_context, *na_context))
    families["context"] = [
        (label, np.flatnonzero([label in labels for labels in unit_context]))
        for label in context_labels
    ]
    na_counts["context"] = [
        sum(label in labels for labels in na_context) for label in context_labels
    ]
    found = iter(
        group_agreements(
            ratings,
            counts,
            [group for family in families.values() for group in family],
            n_resamples=n_resamples,
            seed=seed,
            n_na=[n for family in families for n in na_counts[family]],
        )
    )
    by_family = {name: tuple(next(found) for _ in family) for name, family in families.items()}
    criterion_rows = []
    for (_, info, _), group in zip(criteria, by_family["criteria"], strict=True):
        validated, verdict = criterion_verdict(
            group.alpha, group.summary.alpha_unstable_prevalence, threshold, minimum_units
        )
        criterion_rows.append(CriterionAgreement(info, group, validated, verdict))
    return StudyAgreement(
        threshold=threshold,
        overall=by_family["overall"][0],
        criteria=tuple(criterion_rows),
        by_layer=by_family["layer"],
        by_competency=by_family["competency"],
        by_sub_competency=by_family["sub_competency"],
        by_context=by_family["context"],
        by_language=by_family["language"],
        raters=rater_agreement(ratings, counts),
        rater_names=ratings.raters,
        rater_matrix=rater_matrix(ratings),
    )


def turn_agreement(
    turn_ratings: StudyRatings,
    report: StudyAgreement,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[tuple[GroupAgreement, GroupAgreement | None], ...]:
    """Each turn-level criterion's agreement on each tutor turn (units: response, criterion,
    turn; intervals resample responses), counting the turns graded N/A as left out (a
    criterion graded N/A on every turn keeps its row, with n = 0), beside its per-response row
    of `report` (None when no response has two verdicts on it yet)."""
    if turn_ratings.n_units == 0 and turn_ratings.na_item.size == 0:
        return ()
    counts = turn_ratings.counts()
    groups = [
        (f"{info.code}: each turn", np.flatnonzero(turn_ratings.unit_criterion == index))
        for index, info in enumerate(turn_ratings.criteria)
    ]
    na = np.bincount(turn_ratings.na_criterion, minlength=len(turn_ratings.criteria))
    found = group_agreements(
        turn_ratings,
        counts,
        groups,
        n_resamples=n_resamples,
        seed=seed,
        n_na=[int(n) for n in na.tolist()],
    )
    per_response = {row.criterion.key: row.agreement for row in report.criteria}
    return tuple(
        (group, per_response.get(info.key))
        for info, group in zip(turn_ratings.criteria, found, strict=True)
    )
