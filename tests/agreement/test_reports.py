"""Study agreement reports composed from the statistics core (pure: no database)."""

import numpy as np
import pytest

from core.analysis.ratings import NA, CriterionInfo, ItemInfo, ratings_from_rows
from core.analysis.reports import criterion_verdict, study_agreement
from core.stats import Interval, binary_summary, counts_from_dense
from core.stats.results import defined, undefined

CRITERIA = (
    CriterionInfo(10, "06u1", "Fits the age", "universal", "", ""),
    CriterionInfo(11, "01a-01", "Names one objective", "consensus", "01a", "01"),
)
ITEMS = tuple(
    ItemInfo(
        100 + i,
        f"t{i}",
        "01a" if i < 2 else "02b",
        "01" if i < 2 else "02",
        "acme",
        (("CEFR level", "A1" if i % 2 else "B2"),),
    )
    for i in range(4)
)
RATERS = ("Annotator 1", "Annotator 2", "Annotator 3")

# value[rater][item][criterion]; rater 3 disagrees on criterion 0 of items 0 and 1.
VALUES = np.array(
    [
        [[1, 1], [1, 0], [0, 1], [1, 1]],
        [[1, 1], [1, 0], [0, 1], [1, 1]],
        [[0, 1], [0, 0], [0, 1], [1, 1]],
    ]
)


def rows():
    return [
        (item, crit, rater, int(VALUES[rater, item, crit]))
        for rater in range(3)
        for item in range(4)
        for crit in range(2)
    ]


def ratings():
    return ratings_from_rows(rows(), CRITERIA, ITEMS, RATERS)


def test_ratings_from_rows_makes_one_unit_per_item_and_criterion():
    r = ratings()
    assert r.n_units == 8
    assert r.counts().sum() == 24
    unit = r.rating_unit[0]
    assert (r.unit_item[unit], r.unit_criterion[unit]) == (0, 0)


def test_overall_summary_is_the_binary_summary_of_all_units():
    report = study_agreement(ratings(), n_resamples=200, seed=1)
    assert report.overall.summary == binary_summary(ratings().counts())
    assert report.overall.n_items == 4


def test_each_criterion_gets_its_own_summary():
    report = study_agreement(ratings(), n_resamples=200, seed=1)
    [first, second] = report.criteria
    dense = VALUES[:, :, 0].astype(float)
    assert first.agreement.summary == binary_summary(counts_from_dense(dense, [0, 1]))
    assert second.agreement.summary.percent_agreement.value == 1.0


def test_breakdowns_group_units_by_layer_competency_and_context():
    report = study_agreement(ratings(), n_resamples=100, seed=1)
    assert [g.label for g in report.by_layer] == ["consensus", "universal"]
    assert [g.label for g in report.by_sub_competency] == ["01a", "02b"]
    assert [g.label for g in report.by_context] == ["CEFR level: A1", "CEFR level: B2"]
    assert [g.summary.n_ratings for g in report.by_context] == [12, 12]
    # Units are grouped by their task's sub-competency, whatever the criterion's layer.
    assert [g.summary.n_ratings for g in report.by_sub_competency] == [12, 12]


def test_each_rater_is_compared_with_the_rest():
    report = study_agreement(ratings(), n_resamples=100, seed=1)
    by_name = {r.rater: r for r in report.raters}
    # Rater 1 rates 8 units; on 2 of them rater 3 disagrees: 16 pairs, 14 agreeing.
    assert by_name["Annotator 1"].n_ratings == 8
    assert by_name["Annotator 1"].agreement_with_others == pytest.approx(14 / 16)
    assert by_name["Annotator 3"].agreement_with_others == pytest.approx(12 / 16)
    # Without the dissenting rater the other two agree everywhere.
    assert by_name["Annotator 3"].alpha_without.value == pytest.approx(1.0)


def test_the_rater_matrix_holds_pairwise_agreement_on_shared_units():
    matrix = study_agreement(ratings(), n_resamples=100, seed=1).rater_matrix
    assert matrix[0][0] is None
    assert matrix[0][1].shared_units == 8 and matrix[0][1].percent == 1.0
    assert matrix[0][2].percent == pytest.approx(6 / 8)
    assert matrix[2][0].percent == matrix[0][2].percent


def test_least_reliable_puts_the_lowest_alpha_first():
    report = study_agreement(ratings(), n_resamples=100, seed=1)
    assert report.least_reliable()[0].criterion.code == "06u1"


def interval(low, value=0.8, n_units=40):
    estimate = defined("alpha", value, n_units=n_units, n_ratings=3 * n_units)
    return Interval(estimate, low, None if low is None else 0.9, 0.95, "test", 100, 0)


def test_a_criterion_is_validated_when_its_lower_bound_reaches_the_threshold():
    assert criterion_verdict(interval(0.70), False, 0.667)[0] is True
    assert criterion_verdict(interval(0.60), False, 0.667)[0] is False


def test_an_unstable_prevalence_criterion_is_not_failed_on_alpha_alone():
    validated, verdict = criterion_verdict(interval(0.10), True, 0.667)
    assert validated is None
    assert verdict.startswith("alpha unstable (prevalence)")


def test_a_criterion_without_an_interval_says_why():
    estimate = undefined(
        "alpha", "no variation: every rating is the same value", n_units=3, n_ratings=9
    )
    empty = Interval(estimate, None, None, 0.95, "test", 100, 100, "no variation")
    validated, verdict = criterion_verdict(empty, False, 0.667, minimum_units=3)
    assert validated is None and verdict == "not enough data: no variation"


def test_a_criterion_whose_interval_is_unreliable_is_not_called_validated():
    estimate = defined("alpha", 0.9, n_units=40, n_ratings=80)
    withheld = Interval(
        estimate, None, None, 0.95, "test", 100, 0, unreliable_reason="interval unreliable: x"
    )
    assert withheld.interval_unreliable
    assert criterion_verdict(withheld, False, 0.667) == (None, "interval unreliable: x")


def test_no_criterion_is_validated_on_fewer_units_than_the_minimum():
    perfect_on_two = interval(1.0, value=1.0, n_units=2)
    validated, verdict = criterion_verdict(perfect_on_two, False, 0.667)
    assert validated is None
    assert verdict == "too few units (n = 2; 30 needed to validate)"
    assert criterion_verdict(perfect_on_two, False, 0.667, minimum_units=2)[0] is True
    report = study_agreement(ratings(), n_resamples=100, seed=1)  # 4 responses
    assert {c.verdict for c in report.criteria} == {"too few units (n = 4; 30 needed to validate)"}


def test_a_study_without_grades_has_an_undefined_report_not_an_error():
    report = study_agreement(ratings_from_rows([], [], [], []), n_resamples=50)
    assert report.overall.alpha.estimate.value is None
    assert report.overall.alpha.estimate.undefined_reason
    assert report.criteria == () and report.raters == () and report.rater_matrix == ()


def test_every_group_counts_add_up_with_what_it_left_out():
    """Units compared + units left out (a single rating) = the group's units, and the criteria's
    units and ratings add up to the study's; every figure's n is the units compared."""
    single = [(0, 0, 0, 1), (1, 1, 2, 0)]  # two units graded once: nothing to pair
    full = [row for row in rows() if row[:2] not in {(0, 0), (1, 1)}]
    report = study_agreement(
        ratings_from_rows(full + single, CRITERIA, ITEMS, RATERS), n_resamples=50, seed=1
    )
    groups = [report.overall, *(c.agreement for c in report.criteria), *report.by_layer]
    for group in groups:
        assert group.summary.n_units + group.n_single == group.n_units
        for interval in (group.alpha, group.ac1, group.percent_agreement):
            assert interval.estimate.n_units == group.summary.n_units
    assert report.overall.n_units == 8 and report.overall.n_single == 2
    criteria = [c.agreement for c in report.criteria]
    assert sum(g.n_units for g in criteria) == report.overall.n_units
    assert sum(g.n_single for g in criteria) == report.overall.n_single
    assert sum(g.summary.n_ratings for g in criteria) == report.overall.summary.n_ratings
    assert sum(g.n_units for g in report.by_layer) == report.overall.n_units


def test_n_a_grades_are_counted_per_group_and_a_criterion_all_n_a_keeps_its_row():
    criteria = (*CRITERIA, CriterionInfo(12, "01a-02", "Never applies", "consensus", "01a", "01"))
    na = [(item, 2, rater, NA) for item in range(4) for rater in range(3)]  # 12: criterion 2
    na += [(0, 0, 0, NA)]  # and one on criterion 0 of item 0 (competency 01, context B2)
    report = study_agreement(
        ratings_from_rows(rows() + na, criteria, ITEMS, RATERS), n_resamples=50, seed=1
    )
    assert report.overall.n_na == 13
    by_code = {c.criterion.code: c for c in report.criteria}
    assert [by_code[code].agreement.n_na for code in ("06u1", "01a-01", "01a-02")] == [1, 0, 12]
    never = by_code["01a-02"]
    assert never.agreement.n_units == 0 and never.validated is None
    assert never.verdict.startswith("too few units (n = 0;")
    assert {g.label: g.n_na for g in report.by_layer} == {"consensus": 12, "universal": 1}
    assert {g.label: g.n_na for g in report.by_competency} == {"01": 7, "02": 6}
    assert {g.label: g.n_na for g in report.by_context} == {
        "CEFR level: A1": 6,
        "CEFR level: B2": 7,
    }
    # The pass/fail figures are those without the N/A grades.
    plain = study_agreement(ratings(), n_resamples=50, seed=1)
    assert report.overall.summary.n_ratings == plain.overall.summary.n_ratings
