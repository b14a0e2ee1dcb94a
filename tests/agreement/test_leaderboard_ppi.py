"""Prediction-powered scores on the leaderboard (pure: no database)."""

import numpy as np
import pytest

from core.analysis.leaderboard import (
    JudgedResponses,
    leaderboard,
    prediction_powered,
    response_scores,
    single_rater_scores,
)
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.stats.ppi import ppi_mean

CRITERIA = (
    CriterionInfo(1, "06u1", "", "universal", "", "", weight=2),
    CriterionInfo(2, "01a-01", "", "consensus", "01a", "01", weight=2),
)


def test_the_score_is_ppi_mean_of_the_clipped_scores():
    rng = np.random.default_rng(7)
    y = rng.uniform(-0.2, 1.0, 60)
    f = np.clip(y + rng.normal(0.1, 0.2, 60), -0.3, 1.0)
    f_u = rng.uniform(-0.1, 1.0, 400)
    found = prediction_powered(y.tolist(), f.tolist(), f_u.tolist())
    assert found is not None
    expected = ppi_mean(np.clip(y, 0, None), np.clip(f, 0, None), np.clip(f_u, 0, None))
    assert found.score == expected
    assert found.judge_only.n_responses == 460
    assert found.judge_only.mean == pytest.approx(np.clip(np.r_[f, f_u], 0, None).mean())


def test_a_judge_that_matches_the_experts_is_worth_about_as_many_responses_as_it_judged():
    # lambda = Cov(Y, f) / ((1 + n/N) Var_pooled(f)) = 0.25 / (2 * 0.25 * 8/7) = 7/16;
    # se^2 = 0.25 (lam^2 + (1 - lam)^2) / 4; effective n = Var(Y) / se^2 = 7.88.
    found = prediction_powered([1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0])
    assert found is not None
    lam = 7 / 16
    assert found.score.lam == pytest.approx(lam)
    assert found.score.estimate == pytest.approx(0.5)
    se2 = 0.25 * (lam**2 + (1 - lam) ** 2) / 4
    assert found.score.standard_error == pytest.approx(np.sqrt(se2))
    assert found.effective_n == pytest.approx(0.25 / se2)
    assert found.gain == 4
    assert not found.experts_alone


def test_a_judge_without_information_leaves_the_experts_mean_and_says_so():
    found = prediction_powered([1, 0, 1, 1], [1, 1, 1, 1], [1] * 10)
    assert found is not None
    assert found.score.lam == 0.0
    assert found.score.estimate == pytest.approx(0.75)
    assert found.experts_alone
    assert found.effective_n == pytest.approx(4.0)
    assert found.gain == 0
    assert (found.score.n_labeled, found.score.n_unlabeled) == (4, 10)


def test_no_score_without_two_labelled_or_one_unlabelled_response():
    assert prediction_powered([1], [1], [0, 1]) is None
    assert prediction_powered([1, 0], [1, 0], []) is None


def item(key, model, competency="01"):
    return ItemInfo(key, f"t{key}", "01a", competency, "fam", (), model)


# The study: four responses of each model, graded by one expert on both criteria.
STUDY_ITEMS = tuple(item(n, "alpha" if n < 4 else "beta") for n in range(8))
EXPERT = [(1, 1), (1, 0), (0, 1), (1, 1), (0, 0), (1, 0), (0, 1), (1, 1)]


def expert_ratings():
    rows = [(i, c, 0, v) for i, values in enumerate(EXPERT) for c, v in enumerate(values)]
    return ratings_from_rows(rows, CRITERIA, STUDY_ITEMS, ("A",))


def judged(verdicts, models):
    """The run judged responses 100.. of `models`; the first eight are the study's."""
    items = [item(100 + n, model) for n, model in enumerate(models)]
    rows = [(i, c, 0, v) for i, values in enumerate(verdicts) for c, v in enumerate(values)]
    return JudgedResponses(
        ratings=ratings_from_rows(rows, CRITERIA, items, ("judge",)),
        of_study_item=np.arange(8, dtype=np.int64),
    )


JUDGE = [(1, 1), (1, 1), (0, 1), (1, 1), (0, 1), (1, 0), (0, 1), (1, 1)]
EXTRA = [(1, 0), (1, 1), (0, 0), (1, 1), (0, 1), (1, 1)]
MODELS = ["alpha"] * 4 + ["beta"] * 4 + ["alpha", "alpha", "alpha", "beta", "beta", "beta"]


def score(values):
    return (2 * values[0] + 2 * values[1]) / 4


def test_labelled_are_the_studys_scored_responses_and_unlabelled_the_others():
    board = leaderboard(expert_ratings(), None, judged(JUDGE + EXTRA, MODELS))
    alpha = next(row for row in board.rows if row.model == "alpha")
    expected = ppi_mean(
        [score(v) for v in EXPERT[:4]],
        [score(v) for v in JUDGE[:4]],
        [score(v) for v in EXTRA[:3]],
    )
    assert alpha.ppi is not None
    assert alpha.ppi.score == expected
    assert (alpha.ppi.score.n_labeled, alpha.ppi.score.n_unlabeled) == (4, 3)


def test_a_layer_scores_only_its_criteria_on_both_sides():
    board = leaderboard(expert_ratings(), None, judged(JUDGE + EXTRA, MODELS))
    layers = dict(board.breakdowns)["Layer"]
    universal = next(g for g in layers if g.label == "universal")
    beta = next(row for row in universal.rows if row.model == "beta")
    expected = ppi_mean(
        [v[0] for v in EXPERT[4:]], [v[0] for v in JUDGE[4:]], [v[0] for v in EXTRA[3:]]
    )
    assert beta.ppi is not None
    assert beta.ppi.score == expected


def test_a_study_response_the_experts_left_unscored_is_neither_labelled_nor_unlabelled():
    rows = [(i, c, 0, v) for i, values in enumerate(EXPERT) for c, v in enumerate(values)]
    rows = [r for r in rows if r[0] != 0] + [(0, 0, 0, -1), (0, 1, 0, -1)]  # all N/A
    ratings = ratings_from_rows(rows, CRITERIA, STUDY_ITEMS, ("A",))
    board = leaderboard(ratings, None, judged(JUDGE + EXTRA, MODELS))
    alpha = next(row for row in board.rows if row.model == "alpha")
    assert alpha.ppi is not None
    assert (alpha.ppi.score.n_labeled, alpha.ppi.score.n_unlabeled) == (3, 3)


def test_without_judged_responses_no_row_has_a_prediction_powered_score():
    board = leaderboard(expert_ratings())
    assert all(row.ppi is None for row in board.rows)


def test_judged_responses_are_scored_as_response_scores_scores_them():
    criteria = (
        *CRITERIA,
        CriterionInfo(3, "01a-02", "", "task", "01a", "01", weight=-1),
        CriterionInfo(4, "01a-03", "", "task", "01a", "01", weight=3, scale=(1, 4)),
    )
    rng = np.random.default_rng(3)
    items = [item(n, "alpha") for n in range(40)]
    rows = [
        (i, c, 0, int(rng.integers(2))) for i in range(40) for c in range(3) if rng.random() < 0.8
    ]
    levels = [(i, 3, 0, int(rng.integers(1, 5))) for i in range(40) if rng.random() < 0.7]
    found = ratings_from_rows(rows, criteria, items, ("judge",), levels=levels)
    units = rng.random(found.n_units) < 0.7
    leveled = rng.random(found.level_item.size) < 0.7
    expected, _ = response_scores(found, units, None, leveled)
    scores = single_rater_scores(found, units, leveled)
    assert scores.keys() == expected.keys()
    for key, value in expected.items():
        assert scores[key] == pytest.approx(value, abs=1e-12)
