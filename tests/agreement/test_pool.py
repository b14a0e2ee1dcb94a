"""The annotator pool over time and a study's drift (pure: no database)."""

import numpy as np
import pytest

from core.analysis.pool import (
    PoolGold,
    PoolGrades,
    PoolRatings,
    drift,
    pool_figures,
    time_per_criterion,
)
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.analysis.reports import rater_agreement


def arr(values):
    return np.asarray(values, dtype=np.int64)


# Two studies; units 0-1 in study 0 (period 0), units 2-3 in study 1 (period 1).
# Annotator 0 agrees with annotator 1 on units 0 and 1, with annotator 2 on neither of 2, 3.
RATINGS = PoolRatings(
    unit=arr([0, 0, 1, 1, 2, 2, 3, 3]),
    annotator=arr([0, 1, 0, 1, 0, 2, 0, 2]),
    study=arr([0, 0, 0, 0, 1, 1, 1, 1]),
    period=arr([0, 0, 0, 0, 1, 1, 1, 1]),
    value=arr([1, 1, 0, 0, 1, 0, 1, 0]),
)
GRADES = PoolGrades(
    annotator=arr([0, 1, 0, 1, 0, 2, 0, 2, 0]),
    study=arr([0, 0, 0, 0, 1, 1, 1, 1, 1]),
    period=arr([0, 0, 0, 0, 1, 1, 1, 1, 1]),
    criterion=("a", "a", "b", "b", "a", "a", "b", "b", "b"),
    active_ms=arr([1000, 2000, 3000, 2000, 5000, -1, 7000, 4000, -1]),
)
GOLD = PoolGold(
    annotator=arr([0, 0, 0]), study=arr([1, 1, 1]), period=arr([1, 1, 1]), right=arr([1, 1, 0])
)


def figures():
    return {p.annotator: p for p in pool_figures(RATINGS, GRADES, GOLD, n_units=4, n_annotators=4)}


def test_agreement_with_others_is_split_by_study_and_period():
    mine = figures()[0]
    assert (mine.overall.agreement, mine.overall.n_pairs) == (0.5, 4)
    assert [(k, f.agreement, f.n_pairs) for k, f in mine.per_study] == [(0, 1.0, 2), (1, 0.0, 2)]
    assert [(k, f.agreement) for k, f in mine.per_period] == [(0, 1.0), (1, 0.0)]


def test_agreement_with_others_is_the_reports_rater_agreement_in_one_study():
    ratings = ratings_from_rows(
        [
            (u, 0, int(a), int(v))
            for u, a, v in zip(RATINGS.unit, RATINGS.annotator, RATINGS.value, strict=True)
        ],
        (CriterionInfo(1, "a", "", "universal", "", ""),),
        tuple(ItemInfo(i, "t", "", "") for i in range(4)),
        ("A", "B", "C"),
    )
    expected = rater_agreement(ratings, ratings.counts())[0]
    mine = figures()[0].overall
    assert (mine.agreement, mine.n_pairs) == (expected.agreement_with_others, expected.n_pairs)


def test_volume_counts_every_grade_and_time_only_the_measured():
    mine = figures()[0]
    assert mine.overall.n_grades == 5
    assert (mine.overall.median_seconds, mine.overall.n_timed) == (4.0, 4)
    assert [(k, f.n_grades, f.median_seconds) for k, f in mine.per_period] == [
        (0, 2, 2.0),
        (1, 3, 6.0),
    ]


def test_gold_accuracy_has_its_wilson_interval_only_where_there_is_gold():
    by_study = dict(figures()[0].per_study)
    assert by_study[0].gold_accuracy is None and by_study[0].gold_low is None
    gold = by_study[1]
    assert gold.gold_accuracy == pytest.approx(2 / 3) and gold.n_gold == 3
    assert gold.gold_low < 2 / 3 < gold.gold_high


def test_an_annotator_with_nothing_is_left_out():
    assert sorted(figures()) == [0, 1, 2]
    assert figures()[2].overall.agreement == 0.0


def test_time_per_criterion_is_the_annotators_median_per_code():
    assert time_per_criterion(GRADES, 0, ["b", "a"]) == (("b", 5.0, 2, ""), ("a", 3.0, 2, ""))


def test_drift_shows_a_criterion_and_a_grader_changing_from_one_week_to_the_next():
    # Criterion "b" agrees in week 0 and splits in week 1; rater C's week-1 grades disagree.
    rows, periods = [], []
    for item in range(4):
        week = item // 2
        for crit in (0, 1):
            for rater in range(3):
                value = 1
                if crit == 1 and week == 1 and rater == 2:
                    value = 0
                rows.append((item, crit, rater, value))
                periods.append(week)
    ratings = ratings_from_rows(
        rows,
        (
            CriterionInfo(1, "a", "", "universal", "", ""),
            CriterionInfo(2, "b", "", "universal", "", ""),
        ),
        tuple(ItemInfo(i, f"t{i}", "", "") for i in range(4)),
        ("A", "B", "C"),
    )
    period = np.empty(len(rows), dtype=np.int64)
    for n, (item, crit, rater, _) in enumerate(rows):
        unit = np.flatnonzero((ratings.unit_item == item) & (ratings.unit_criterion == crit))[0]
        index = np.flatnonzero((ratings.rating_unit == unit) & (ratings.rating_rater == rater))[0]
        period[index] = periods[n]
    found = drift(ratings, period, ["week 1", "week 2"])
    criteria = dict(found.criteria)
    assert [c.agreement for c in criteria["a"]] == [1.0, 1.0]
    assert criteria["b"][0].agreement == 1.0
    assert criteria["b"][1].agreement == pytest.approx(1 / 3)
    raters = dict(found.raters)
    assert [c.agreement for c in raters["C"]] == [1.0, 0.5]
    assert raters["A"][1].agreement == pytest.approx(0.75)
    assert [c.n_pairs for c in found.overall] == [24, 24]
