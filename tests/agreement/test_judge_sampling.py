"""Drawing what the experts grade by the judge's uncertainty (pure), and the leaderboard's
prediction-powered score of a study drawn so: its inverse-probability weights."""

from __future__ import annotations

import numpy as np
import pytest

from core.analysis.leaderboard import prediction_powered
from core.stats.judge_sampling import draw_by_judge_uncertainty, judge_uncertainty
from core.stats.ppi import ppi_mean
from core.stats.ppi_planning import uncertainty_from_epochs, uncertainty_from_pass_probability


def test_split_epochs_make_a_response_less_certain_than_unanimous_ones():
    # Three epochs on one criterion: unanimous pass, unanimous fail, split 2 of 3.
    found = judge_uncertainty([[3], [0], [2]], [[3], [3], [3]], [[1], [1], [1]])
    assert found[0] == pytest.approx(found[1])
    assert found[2] > found[0]
    assert found[2] == pytest.approx(float(uncertainty_from_epochs(2, 3)))


def test_a_response_s_uncertainty_is_its_weighted_score_s_standard_deviation():
    passes, epochs, weights = [[3, 1]], [[3, 3]], [[3, 2]]
    u = uncertainty_from_epochs(np.array([3, 1]), np.array([3, 3]))
    expected = np.sqrt((3 * u[0]) ** 2 + (2 * u[1]) ** 2) / 5
    assert judge_uncertainty(passes, epochs, weights)[0] == pytest.approx(expected)


def test_a_criterion_the_judge_gave_nothing_on_counts_as_a_coin():
    unjudged = judge_uncertainty([[0, 0]], [[0, 0]], [[1, 1]])
    nothing_weighed = judge_uncertainty([[0]], [[0]], [[0]])
    assert unjudged[0] == pytest.approx(np.sqrt(2 * 0.25) / 2)
    assert nothing_weighed[0] == 0.5


def test_inconsistent_counts_are_refused():
    with pytest.raises(ValueError, match="passes <= epochs"):
        judge_uncertainty([[4]], [[3]], [[1]])
    with pytest.raises(ValueError, match="responses, criteria"):
        judge_uncertainty([1, 2], [3, 3], [1, 1])


def test_a_stated_probability_replaces_the_epochs_disagreement():
    # One epoch each, both passed: no disagreement to read, but the judge said 0.5 and 0.99.
    passes, epochs, weights = [[1], [1], [1]], [[1], [1], [1]], [[1], [1], [1]]
    found = judge_uncertainty(passes, epochs, weights, [[0.5], [0.99], [0]], [[1], [1], [0]])
    assert found[0] == pytest.approx(np.sqrt(0.5))
    assert found[1] == pytest.approx(float(uncertainty_from_pass_probability(0.99, 1.0)))
    assert found[2] == pytest.approx(float(uncertainty_from_epochs(1, 1)))  # none stated
    # The mean over the epochs that stated one, for the majority verdict (a fail here).
    mean = judge_uncertainty([[0]], [[2]], [[1]], [[0.3]], [[2]])
    assert mean[0] == pytest.approx(float(uncertainty_from_pass_probability(0.15, 0.0)))


def test_the_draw_favours_a_response_the_judge_stated_0_5_on_over_one_at_0_99():
    size = 200
    stated = np.where(np.arange(size) % 2 == 0, 0.5, 0.99)[:, None]
    ones = np.ones((size, 1))
    u = judge_uncertainty(ones, ones, ones, stated, ones)
    sample = draw_by_judge_uncertainty(u, ["m"] * size, 40, seed=3)
    assert sample.informative
    doubtful, sure = sample.probabilities[0::2], sample.probabilities[1::2]
    assert np.all(doubtful > 3 * sure)
    drawn_doubtful = int(np.sum(sample.drawn % 2 == 0))
    assert drawn_doubtful > 2 * (sample.drawn.size - drawn_doubtful)
    # Without the stated probabilities one epoch tells nothing: an even draw.
    assert not draw_by_judge_uncertainty(
        judge_uncertainty(ones, ones, ones), ["m"] * size, 40, seed=3
    ).informative


def test_stated_probabilities_out_of_step_with_the_epochs_are_refused():
    with pytest.raises(ValueError, match="stated"):
        judge_uncertainty([[1]], [[1]], [[1]], [[1.5]], [[1]])
    with pytest.raises(ValueError, match="only where judged"):
        judge_uncertainty([[0]], [[0]], [[1]], [[0.5]], [[1]])


def uncertain_pool(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.0, 0.5, size) ** 2
    models = np.array(["kestrel", "osprey"])[rng.integers(0, 2, size)]
    return u, models


def test_each_model_expects_its_budget_and_none_falls_under_the_floor():
    u, models = uncertain_pool(2_000, 3)
    sample = draw_by_judge_uncertainty(u, models, 120, floor_share=0.1, seed=5)
    for model in ("kestrel", "osprey"):
        mine = models == model
        assert sample.probabilities[mine].sum() == pytest.approx(120)
        assert sample.probabilities[mine].min() >= 0.1 * 120 / mine.sum() - 1e-12
    assert sample.expected == pytest.approx(240)
    assert sample.informative
    assert np.all(sample.probabilities <= 1.0)
    np.testing.assert_allclose(sample.weights, 1.0 / sample.probabilities[sample.drawn])


def test_the_doubtful_responses_are_likelier_to_be_drawn():
    u, models = uncertain_pool(1_000, 4)
    sample = draw_by_judge_uncertainty(u, models, 50, seed=1)
    order = np.argsort(u)
    assert sample.probabilities[order[-1]] > 5 * sample.probabilities[order[0]]


def test_the_same_seed_draws_the_same_responses_and_another_seed_others():
    u, models = uncertain_pool(1_000, 6)
    first = draw_by_judge_uncertainty(u, models, 80, seed=11)
    again = draw_by_judge_uncertainty(u, models, 80, seed=11)
    other = draw_by_judge_uncertainty(u, models, 80, seed=12)
    np.testing.assert_array_equal(first.drawn, again.drawn)
    assert not np.array_equal(first.drawn, other.drawn)
    # Poisson sampling: the number drawn varies around the expected 160.
    assert abs(first.drawn.size - 160) < 40


def test_equal_uncertainties_draw_uniformly_and_say_so():
    sample = draw_by_judge_uncertainty(np.full(400, 0.3), ["m"] * 400, 40, seed=0)
    np.testing.assert_allclose(sample.probabilities, 0.1)
    assert not sample.informative


def test_a_budget_above_a_model_s_responses_draws_them_all():
    sample = draw_by_judge_uncertainty([0.1, 0.4, 0.2], ["m", "m", "m"], 10, seed=0)
    np.testing.assert_allclose(sample.probabilities, 1.0)
    assert sample.drawn.tolist() == [0, 1, 2]


def test_the_sampled_score_weighs_each_expert_grade_by_its_inverse_probability():
    rng = np.random.default_rng(8)
    y, f = rng.integers(0, 2, 60).astype(float), rng.integers(0, 2, 60).astype(float)
    f_u, p = rng.integers(0, 2, 500).astype(float), rng.uniform(0.05, 1.0, 60)
    row = prediction_powered(y, f, f_u, p)
    assert row is not None
    expected = ppi_mean(y, f, np.concatenate([f, f_u]), weights=1.0 / p)
    assert row.score.estimate == pytest.approx(expected.estimate, abs=1e-12)
    assert (row.score.low, row.score.high) == pytest.approx((expected.low, expected.high))
    assert (row.score.n_labeled, row.score.n_unlabeled) == (60, 500)
    assert row.judge_only.n_responses == 560


def test_the_sampled_score_covers_the_true_score_and_the_unweighted_one_is_biased():
    # A lenient judge (it passes from a stated pass probability of 0.35) whose probability is
    # calibrated; 1,000 responses, an expected 100 drawn by its doubt, 300 simulated studies.
    rng = np.random.default_rng(2026)
    stated = rng.beta(0.3, 0.3, 1_000)
    judge = (stated > 0.35).astype(float)
    u = uncertainty_from_pass_probability(stated, judge)
    true = float(stated.mean())
    hits, errors, naive = 0, [], []
    for study in range(300):
        truth = (rng.random(stated.size) < stated).astype(float)
        sample = draw_by_judge_uncertainty(u, ["m"] * stated.size, 100, seed=study)
        undrawn = np.ones(stated.size, dtype=bool)
        undrawn[sample.drawn] = False
        drawn = sample.drawn
        row = prediction_powered(
            truth[drawn], judge[drawn], judge[undrawn], sample.probabilities[drawn]
        )
        plain = prediction_powered(truth[drawn], judge[drawn], judge[undrawn])
        assert row is not None and plain is not None
        hits += row.score.low <= true <= row.score.high
        errors.append(row.score.estimate - true)
        naive.append(plain.score.estimate - true)
    assert hits / 300 >= 0.92
    assert abs(np.mean(errors)) < 0.005
    # Without the weights the doubtful responses' errors count as the whole pool's: the judge's
    # leniency there is charged to every response, four points too low.
    assert np.mean(naive) < -0.03
