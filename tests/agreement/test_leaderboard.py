"""Model scores of a study by the experts and by the judge (pure: no database)."""

import numpy as np
import pytest

from core.analysis.calibration import MISSING, JudgeData
from core.analysis.leaderboard import leaderboard, response_scores
from core.analysis.ratings import NA, CriterionInfo, ItemInfo, ratings_from_rows

CRITERIA = (
    CriterionInfo(1, "06u1", "", "universal", "", "", weight=5),
    CriterionInfo(2, "01a-01", "", "consensus", "01a", "01", weight=3),
    CriterionInfo(3, "01a-02", "", "consensus", "01a", "01", weight=-2),
)


def item(n, model):
    return ItemInfo(n, f"t{n}", "01a", "01", "fam", (("CEFR level", "A1"),), model, "easy", "")


ITEMS = tuple(item(n, "alpha" if n < 4 else "beta") for n in range(8))


def ratings(verdicts):
    """verdicts[item] = (criterion values) given by both of two raters."""
    rows = [
        (i, c, rater, value)
        for i, values in enumerate(verdicts)
        for c, value in enumerate(values)
        for rater in range(2)
        if value is not None
    ]
    return ratings_from_rows(rows, CRITERIA, ITEMS, ("A", "B"))


# alpha: every positive criterion met, no penalty -> 1.0; beta: 5 earned, penalty 2 -> 3/8.
VERDICTS = [(1, 1, 0)] * 4 + [(1, 0, 1)] * 4


def judge_for(r, rule):
    values = np.array(
        [rule(int(r.unit_item[u]), int(r.unit_criterion[u])) for u in range(r.n_units)]
    )
    return JudgeData(r, "judge", values, values[None, :], np.full(r.n_units, MISSING), ("fam",) * 8)


def test_expert_scores_follow_the_l2bench_formula():
    board = leaderboard(ratings(VERDICTS))
    scores = {row.model: row.experts.mean for row in board.rows}
    assert scores == {"alpha": pytest.approx(1.0), "beta": pytest.approx(3 / 8)}
    assert [row.model for row in board.rows] == ["alpha", "beta"]


def test_a_criterion_left_na_counts_in_neither_sum():
    verdicts = [(1, None, 0)] * 4 + [(1, 0, 1)] * 4
    experts, _ = response_scores(ratings(verdicts), np.ones(20, dtype=bool), None)
    assert experts[0] == pytest.approx(1.0)  # 5/5: the weight-3 criterion is N/A


def test_negative_task_scores_are_clipped_when_averaged():
    verdicts = [(0, 0, 1)] * 4 + [(1, 1, 0)] * 4  # alpha: -2/8 per response
    board = leaderboard(ratings(verdicts))
    alpha = next(row for row in board.rows if row.model == "alpha")
    assert alpha.experts.mean == 0.0


def test_a_judge_that_agrees_scores_like_the_experts_and_a_lenient_one_higher():
    r = ratings(VERDICTS)
    same = leaderboard(r, judge_for(r, lambda i, c: VERDICTS[i][c]))
    assert all(row.gap == pytest.approx(0.0) for row in same.rows)
    lenient = leaderboard(r, judge_for(r, lambda i, c: 1 if c < 2 else VERDICTS[i][c]))
    beta = next(row for row in lenient.rows if row.model == "beta")
    assert beta.judge.mean == pytest.approx(6 / 8)
    assert beta.gap == pytest.approx(6 / 8 - 3 / 8)


def test_intervals_are_withheld_below_15_responses_with_the_reason():
    verdicts = [(1, 1, 0), (1, 0, 0), (0, 1, 0), (1, 1, 1)] + [(1, 0, 1)] * 4
    alpha = leaderboard(ratings(verdicts)).rows[0]
    assert alpha.experts.n_responses == 4
    assert alpha.experts.low is None and alpha.experts.high is None
    assert alpha.experts.unreliable_reason == (
        "interval unreliable: 4 responses (coverage checked from 15)"
    )


def test_intervals_contain_the_mean_from_15_responses():
    patterns = [(1, 1, 0), (1, 0, 0), (0, 1, 0), (1, 1, 1)]
    items = tuple(item(n, "alpha") for n in range(16))
    rows = [
        (i, c, rater, value)
        for i in range(16)
        for c, value in enumerate(patterns[i % 4])
        for rater in range(2)
    ]
    board = leaderboard(ratings_from_rows(rows, CRITERIA, items, ("A", "B")))
    (alpha,) = board.rows
    assert alpha.experts.n_responses == 16 and alpha.experts.unreliable_reason is None
    assert alpha.experts.low < alpha.experts.mean < alpha.experts.high


def test_a_response_graded_n_a_on_every_criterion_is_counted_as_left_out():
    rows = [
        (i, c, rater, value)
        for i, values in enumerate(VERDICTS)
        for c, value in enumerate(values)
        for rater in range(2)
    ]
    rows[:6] = [(0, c, rater, NA) for c in range(3) for rater in range(2)]  # item 0: all N/A
    board = leaderboard(ratings_from_rows(rows, CRITERIA, ITEMS, ("A", "B")))
    alpha = next(row for row in board.rows if row.model == "alpha")
    assert (alpha.n_graded, alpha.experts.n_responses, alpha.n_unscored) == (4, 3, 1)
    layers = dict(board.breakdowns)["Layer"]
    assert [row.n_unscored for b in layers for row in b.rows if row.model == "alpha"] == [1, 1]


def test_breakdowns_score_each_layer_on_its_own_criteria():
    board = leaderboard(ratings(VERDICTS))
    layers = dict(board.breakdowns)["Layer"]
    assert [b.label for b in layers] == ["consensus", "universal"]
    universal = {row.model: row.experts.mean for row in layers[1].rows}
    assert universal == {"alpha": 1.0, "beta": 1.0}
    assert [b.label for b in dict(board.breakdowns)["Difficulty"]] == ["easy"]
    assert [b.label for b in dict(board.breakdowns)["Context value"]] == ["CEFR level: A1"]


# An ordinal criterion (weight 4, levels 1-5) beside the three binary ones.
SCALED = (*CRITERIA, CriterionInfo(4, "01a-03", "", "task", "01a", "01", weight=4, scale=(1, 5)))


def test_a_level_earns_its_share_of_the_weight_in_the_experts_and_the_judges_score():
    rows = [(i, c, rater, 1) for i in range(2) for c in range(2) for rater in range(2)]
    # Item 0: levels 5 and 2 (4 x 1 and 4 x 1/4); item 1: level 3 by both (4 x 1/2).
    levels = [(0, 3, 0, 5), (0, 3, 1, 2), (1, 3, 0, 3), (1, 3, 1, 3)]
    r = ratings_from_rows(rows, SCALED, ITEMS[:2], ("A", "B"), levels=levels)
    experts, _ = response_scores(r, np.ones(r.n_units, dtype=bool), None)
    assert experts[0] == pytest.approx(((8 + 4) / 12 + (8 + 1) / 12) / 2)
    assert experts[1] == pytest.approx((8 + 2) / 12)
    judge = JudgeData(
        r,
        "judge",
        np.full(r.n_units, 1),
        np.full((1, r.n_units), 1),
        np.full(r.n_units, MISSING),
        ("fam",) * 2,
        level_pairs=np.array([[0, 3], [1, 3]]),
        judge_levels=np.array([[1.0, np.nan]]),  # level 1 (earns 0) on item 0, none on item 1
    )
    _, judged = response_scores(r, np.ones(r.n_units, dtype=bool), judge)
    assert judged == {0: pytest.approx(8 / 12), 1: pytest.approx(8 / 8)}
    board = leaderboard(r, judge)
    (alpha,) = board.rows
    assert alpha.experts.mean == pytest.approx(np.mean([experts[0], experts[1]]))
    task_layer = next(b for b in dict(board.breakdowns)["Layer"] if b.label == "task")
    (row,) = task_layer.rows
    assert row.experts.mean == pytest.approx(np.mean([(1 + 0.25) / 2, 0.5]))
    assert row.judge.mean == pytest.approx(0.0) and row.judge.n_responses == 1
