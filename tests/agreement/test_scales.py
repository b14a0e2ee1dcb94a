"""1-5 task ratings and internal consistency (pure: no database)."""

import numpy as np
import pytest

from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.analysis.scales import (
    ScaleRatings,
    criteria_consistency,
    scale_agreement,
    scale_consistency,
)
from core.stats import cronbach_alpha


def test_identical_scale_ratings_agree_perfectly():
    rows = [(item, 0, rater, 1 + item % 5) for item in range(10) for rater in range(3)]
    [result] = scale_agreement(ScaleRatings.from_rows(["Authentic?"], rows), n_resamples=100)
    assert result.alpha_ordinal.estimate.value == pytest.approx(1.0)
    assert result.alpha_interval.value == pytest.approx(1.0)
    assert result.alpha_ratio.value == pytest.approx(1.0)
    assert result.distribution == (6, 6, 6, 6, 6)
    assert result.mean == pytest.approx(3.0)
    assert (result.n_items, result.n_ratings) == (10, 30)


def test_ordinal_alpha_has_a_bca_interval_from_20_responses_and_is_withheld_below():
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 30)
    rows = [
        (i, 0, r, int(np.clip(truth[i] + rng.integers(-1, 2), 1, 5)))
        for i in range(30)
        for r in range(3)
    ]
    [found] = scale_agreement(ScaleRatings.from_rows(["q"], rows), n_resamples=200, seed=1)
    alpha = found.alpha_ordinal
    assert alpha.method.startswith("BCa") and not alpha.interval_unreliable
    assert alpha.low is not None and alpha.high is not None
    assert alpha.low < alpha.estimate.value < alpha.high
    few = [row for row in rows if row[0] < 10]
    [small] = scale_agreement(ScaleRatings.from_rows(["q"], few), n_resamples=200, seed=1)
    assert small.alpha_ordinal.low is None and small.alpha_ordinal.interval_unreliable
    assert small.alpha_ordinal.estimate.value is not None


def test_scale_ratings_one_step_apart_agree_more_than_opposite_ones():
    close = [(i, 0, r, 3 + (r == 1)) for i in range(12) for r in range(2)]
    far = [(i, 0, r, 1 if r == 0 else 5) for i in range(12) for r in range(2)]
    rows = close + [(i + 12, 0, r, 2 + 2 * (i % 2)) for i in range(12) for r in range(2)]
    mixed = scale_agreement(ScaleRatings.from_rows(["q"], rows), n_resamples=50)[0]
    opposite = scale_agreement(ScaleRatings.from_rows(["q"], far), n_resamples=50)[0]
    assert mixed.alpha_interval.value > 0
    assert opposite.alpha_interval.value is None or opposite.alpha_interval.value <= 0


def test_criteria_graded_together_are_internally_consistent():
    criteria = [
        CriterionInfo(n, f"c{n}", "", "universal" if n < 2 else "task", "", "") for n in range(4)
    ]
    items = [ItemInfo(n, "t1" if n < 5 else "t2", "01a", "01") for n in range(10)]
    # Each grading passes everything or fails everything: a perfectly consistent rubric.
    rows = [
        (item, crit, rater, int((item + rater) % 3 == 0))
        for item in range(10)
        for rater in range(2)
        for crit in range(4)
    ]
    found = {
        c.label: c for c in criteria_consistency(ratings_from_rows(rows, criteria, items, "ab"))
    }
    assert set(found) == {"universal criteria, all tasks", "task t1", "task t2"}
    assert found["universal criteria, all tasks"].n_gradings == 20
    assert found["task t1"].n_items == 4
    assert found["universal criteria, all tasks"].alpha.value == pytest.approx(1.0)
    # Ten gradings of task t1: below Cronbach's minimum of 15, undefined with the reason.
    assert found["task t1"].alpha.value is None
    assert found["task t1"].alpha.undefined_reason == "too few respondents (n = 10; 15 needed)"


def test_consistency_matches_cronbach_on_the_complete_gradings():
    rng = np.random.default_rng(4)
    criteria = [CriterionInfo(n, f"c{n}", "", "task", "", "") for n in range(3)]
    items = [ItemInfo(n, "t1", "01a", "01") for n in range(8)]
    values = rng.integers(0, 2, size=(8, 2, 3))
    rows = [
        (i, c, r, int(values[i, r, c]))
        for i in range(8)
        for r in range(2)
        for c in range(3)
        if not (i == 0 and r == 0 and c == 2)
    ]  # one missing grade: that grading drops out
    [task] = criteria_consistency(ratings_from_rows(rows, criteria, items, "ab"))
    expected = cronbach_alpha(values.reshape(16, 3)[1:])
    assert task.n_gradings == 15 and task.n_incomplete == 1  # 16 gradings in all
    assert task.alpha.value == expected.value


def test_scale_consistency_needs_two_items():
    one = ScaleRatings.from_rows(["q"], [(0, 0, 0, 3)])
    assert scale_consistency(one) is None
    rows = [(i, p, r, 1 + (i + r) % 5) for i in range(8) for r in range(2) for p in range(2)]
    both = scale_consistency(ScaleRatings.from_rows(["q1", "q2"], rows))
    assert both.n_gradings == 16 and both.alpha.value == pytest.approx(1.0)
