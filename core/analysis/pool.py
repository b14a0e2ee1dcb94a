"""The annotator pool over time: each annotator's agreement with the others and with gold,
time per criterion and volume, per study and per period (a month, a week), and a long study's
agreement drift by period, per criterion and per grader.

Pure: parallel integer arrays in, frozen dataclasses out; `agreement.data.pool` builds them
from the database. Agreement with the others is the share of agreeing pairs that
`reports.rater_agreement` reports (`reports.pairs_per_rating`), summed over the ratings of a
group; gold accuracy and its Wilson interval are `grading.gold`'s, per period; time is
`core.timing`'s median seconds per criterion graded.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.analysis.ratings import IntArray, StudyRatings
from core.analysis.reports import pairs_per_rating
from core.stats import Coefficient, alpha_from_counts, counts_from_pairs
from core.stats.intervals import wilson_bounds
from core.timing import summarise


@dataclass(frozen=True)
class PoolRatings:
    """Submitted pass/fail ratings of many studies, one entry per rating in each array. A unit
    (a study's response and criterion) belongs to one study, so units of different studies
    never pair."""

    unit: IntArray
    annotator: IntArray  # index into the annotators
    study: IntArray  # index into the studies
    period: IntArray  # index into the periods
    value: IntArray  # FAIL or PASS


@dataclass(frozen=True)
class PoolGrades:
    """Every submitted grade (pass, fail, N/A or level) for volume and time: per grade its
    annotator, study, period, criterion code and active milliseconds (-1: not measured)."""

    annotator: IntArray
    study: IntArray
    period: IntArray
    criterion: tuple[str, ...]
    active_ms: IntArray


@dataclass(frozen=True)
class PoolGold:
    """Every verdict on a gold check's criterion with a gold verdict: right (1) or not (0)."""

    annotator: IntArray
    study: IntArray
    period: IntArray
    right: IntArray


@dataclass(frozen=True)
class Figures:
    """One annotator's figures over a set of grades (a study, a period, all of them)."""

    n_grades: int
    agreement: float | None  # share of pairs with another annotator's rating that agree
    n_pairs: int
    gold_accuracy: float | None
    gold_low: float | None  # Wilson 95%
    gold_high: float | None
    n_gold: int
    median_seconds: float | None  # per criterion graded, over measured grades
    n_timed: int


@dataclass(frozen=True)
class AnnotatorPool:
    annotator: int  # index into the annotators
    overall: Figures
    per_study: tuple[tuple[int, Figures], ...]  # (study index, figures), studies graded
    per_period: tuple[tuple[int, Figures], ...]  # (period index, figures), in period order


def _figures(
    agreeing: int, pairs: int, right: int, n_gold: int, n_grades: int, times: list[int]
) -> Figures:
    low, high = wilson_bounds([right / n_gold if n_gold else float("nan")], [n_gold])
    median = summarise(("", "", ms) for ms in times).overall_median_seconds
    return Figures(
        n_grades=n_grades,
        agreement=agreeing / pairs if pairs else None,
        n_pairs=pairs,
        gold_accuracy=right / n_gold if n_gold else None,
        gold_low=float(low[0]) if n_gold else None,
        gold_high=float(high[0]) if n_gold else None,
        n_gold=n_gold,
        median_seconds=median,
        n_timed=len(times),
    )


@dataclass(frozen=True)
class _Pairs:
    """Each rating's agreeing pairs and pairs with the other ratings of its unit."""

    agreeing: IntArray
    others: IntArray


def _group(
    pairs: _Pairs,
    grades: PoolGrades,
    gold: PoolGold,
    rated: npt.NDArray[np.bool_],
    graded: npt.NDArray[np.bool_],
    checked: npt.NDArray[np.bool_],
) -> Figures:
    """The figures of the ratings, grades and gold verdicts the three masks select."""
    return _figures(
        int(pairs.agreeing[rated].sum()),
        int(pairs.others[rated].sum()),
        int(gold.right[checked].sum()),
        int(checked.sum()),
        int(graded.sum()),
        grades.active_ms[graded & (grades.active_ms >= 0)].tolist(),
    )


def pool_figures(
    ratings: PoolRatings,
    grades: PoolGrades,
    gold: PoolGold,
    *,
    n_units: int,
    n_annotators: int,
) -> tuple[AnnotatorPool, ...]:
    """Each annotator's figures overall, per study and per period. An annotator with no
    grade, gold verdict or rating is left out."""
    counts = counts_from_pairs(ratings.unit, ratings.value, n_units=n_units, n_values=2)
    pairs = _Pairs(*pairs_per_rating(counts, ratings.unit, ratings.value))
    out = []
    for a in range(n_annotators):
        mine = (ratings.annotator == a, grades.annotator == a, gold.annotator == a)
        if not any(mask.any() for mask in mine):
            continue
        split = []
        for keys in (
            (ratings.study, grades.study, gold.study),
            (ratings.period, grades.period, gold.period),
        ):
            found = sorted(set().union(*(k[m].tolist() for k, m in zip(keys, mine, strict=True))))
            split.append(
                tuple(
                    (
                        k,
                        _group(
                            pairs,
                            grades,
                            gold,
                            *(m & (key == k) for key, m in zip(keys, mine, strict=True)),
                        ),
                    )
                    for k in found
                )
            )
        out.append(
            AnnotatorPool(
                annotator=a,
                overall=_group(pairs, grades, gold, *mine),
                per_study=split[0],
                per_period=split[1],
            )
        )
    return tuple(out)


def time_per_criterion(
    grades: PoolGrades, annotator: int, criterion_order: Sequence[str] = ()
) -> tuple[tuple[str, float, int, str], ...]:
    """One annotator's median seconds per criterion code, with n and `core.timing`'s mark
    against their typical criterion: (code, median seconds, n, "slow" / "quick" / "")."""
    mine = np.flatnonzero((grades.annotator == annotator) & (grades.active_ms >= 0))
    summary = summarise(
        ((grades.criterion[i], "", int(grades.active_ms[i])) for i in mine.tolist()),
        criterion_order,
    )
    return tuple((r.key, r.median_seconds, r.n, r.stands_out) for r in summary.per_criterion)


@dataclass(frozen=True)
class Cell:
    """Agreement of a set of ratings with the others of their units: agreeing pairs of all."""

    agreement: float | None
    n_pairs: int


@dataclass(frozen=True)
class Drift:
    """A study's agreement period by period: overall (alpha of the units completed in the
    period), per criterion (units completed in the period) and per grader (their ratings given
    in the period)."""

    periods: tuple[str, ...]
    alpha: tuple[Coefficient, ...]
    overall: tuple[Cell, ...]
    criteria: tuple[tuple[str, tuple[Cell, ...]], ...]  # (criterion code, a cell per period)
    raters: tuple[tuple[str, tuple[Cell, ...]], ...]  # (rater, a cell per period)


def _cells(keys: IntArray, agreeing: IntArray, others: IntArray, n: int) -> tuple[Cell, ...]:
    agree = np.bincount(keys, weights=agreeing, minlength=n)
    pairs = np.bincount(keys, weights=others, minlength=n)
    return tuple(
        Cell(float(a / p) if p else None, int(p))
        for a, p in zip(agree.tolist(), pairs.tolist(), strict=True)
    )


def drift(ratings: StudyRatings, rating_period: IntArray, periods: Sequence[str]) -> Drift:
    """Agreement per period of a study (`rating_period`: each rating's period, an index into
    `periods`). A unit belongs to the period of its last rating (when it was complete), so a
    criterion drifting shows in the units graded then; a grader's cell holds their ratings
    given in the period, paired with the other ratings of the same units whenever given."""
    n = len(periods)
    counts = ratings.counts()
    agreeing, others = pairs_per_rating(counts, ratings.rating_unit, ratings.rating_value)
    unit_period = np.full(ratings.n_units, -1, dtype=np.int64)
    np.maximum.at(unit_period, ratings.rating_unit, rating_period)
    per_rating = unit_period[ratings.rating_unit]
    alphas = tuple(alpha_from_counts(counts[unit_period == p]) for p in range(n))
    criterion_of = ratings.unit_criterion[ratings.rating_unit]
    criteria = []
    for c, info in enumerate(ratings.criteria):
        mine = criterion_of == c
        if mine.any():
            criteria.append((info.code, _cells(per_rating[mine], agreeing[mine], others[mine], n)))
    raters = []
    for r, name in enumerate(ratings.raters):
        mine = ratings.rating_rater == r
        raters.append((name, _cells(rating_period[mine], agreeing[mine], others[mine], n)))
    return Drift(
        periods=tuple(periods),
        alpha=alphas,
        overall=_cells(per_rating, agreeing, others, n),
        criteria=tuple(criteria),
        raters=tuple(raters),
    )
