"""Judge calibration recovers what a synthetic judge was built to do (pure: no database)."""

import krippendorff
import numpy as np
import pytest

from core.analysis.calibration import (
    FEWER_THAN_TWO_REPEATED,
    MISSING,
    ONE_EPOCH,
    JudgeData,
    calibration_report,
    experts_matrix,
    scale_stability,
)
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.stats import NO_VARIATION

N_ITEMS, N_CRITERIA, N_EXPERTS = 150, 4, 4
EXPERT_NOISE = 0.1


def synthetic(judge_rule, *, seed=7, epochs=1, families=("acme", "other")):
    """Truth passes with p = 0.6; each expert flips it with p = 0.1; the judge follows
    `judge_rule(truth, family, rng)`."""
    rng = np.random.default_rng(seed)
    criteria = [
        CriterionInfo(i, f"c{i}", "", "universal" if i < 2 else "task", "01a", "01")
        for i in range(N_CRITERIA)
    ]
    items = [ItemInfo(i, f"t{i}", "01a", "01", families[i % len(families)]) for i in range(N_ITEMS)]
    truth = (rng.random((N_ITEMS, N_CRITERIA)) < 0.6).astype(int)
    rows = []
    for expert in range(N_EXPERTS):
        flips = rng.random(truth.shape) < EXPERT_NOISE
        for (item, crit), value in np.ndenumerate(np.where(flips, 1 - truth, truth)):
            rows.append((item, crit, expert, int(value)))
    ratings = ratings_from_rows(rows, criteria, items, [f"E{n}" for n in range(N_EXPERTS)])
    unit_truth = truth[ratings.unit_item, ratings.unit_criterion]
    unit_family = np.array([items[i].model_family for i in ratings.unit_item])
    judge_epochs = np.stack(
        [judge_rule(unit_truth, unit_family, rng) for _ in range(epochs)]
    ).astype(np.int64)
    return JudgeData(
        ratings=ratings,
        judge_name="synthetic judge",
        judge=judge_epochs[0],
        judge_epochs=judge_epochs,
        gold=unit_truth.astype(np.int64),
        item_family=tuple(item.model_family for item in items),
    )


def lenient(rate, only=None):
    def rule(truth, family, rng):
        say_pass = (truth == 0) & (rng.random(truth.size) < rate)
        if only is not None:
            say_pass &= family == only
        return np.where(say_pass, 1, truth)

    return rule


def honest(truth, family, rng):
    return truth


def coin(truth, family, rng):
    return (rng.random(truth.size) < 0.5).astype(int)


def test_the_report_recovers_a_known_leniency():
    report = calibration_report(synthetic(lenient(0.4)), n_resamples=400, seed=1)
    # Expert pass rate 0.6*0.9 + 0.4*0.1 = 0.58; judge 0.6 + 0.4*0.4 = 0.76: leniency 0.18.
    found = report.overall.leniency
    assert found.low <= 0.18 <= found.high
    assert found.difference == pytest.approx(0.18, abs=0.03)


def test_an_honest_judge_is_not_lenient_and_matches_gold():
    report = calibration_report(synthetic(honest), n_resamples=400, seed=1)
    assert report.overall.leniency.low <= 0.02 <= report.overall.leniency.high
    assert report.overall.vs_gold.accuracy.value == 1.0


def test_an_honest_judge_can_replace_an_expert_and_a_coin_cannot():
    assert calibration_report(synthetic(honest), n_resamples=100).overall.alt_test.judge_can_replace
    coin_report = calibration_report(synthetic(coin), n_resamples=100)
    assert coin_report.overall.alt_test.judge_can_replace is False


def test_leave_one_out_shows_the_coin_below_the_experts():
    report = calibration_report(synthetic(coin), n_resamples=100)
    assert len(report.overall.leave_one_out) == N_EXPERTS
    assert report.overall.mean_accuracy_gap < -0.2


def test_agreement_drops_when_a_coin_joins_the_experts():
    overall = calibration_report(synthetic(coin), n_resamples=100).overall
    assert overall.alpha_with_judge.value < overall.alpha_experts.value


def test_self_preference_shows_leniency_on_the_judges_own_family():
    data = synthetic(lenient(0.5, only="acme"))
    report = calibration_report(data, judge_family="acme", n_resamples=200)
    assert report.self_preference.gap > 0.1
    neutral = calibration_report(synthetic(lenient(0.5)), judge_family="acme", n_resamples=200)
    assert abs(neutral.self_preference.gap) < 0.08


def test_breakdowns_cover_each_layer_and_criterion():
    report = calibration_report(synthetic(honest), n_resamples=50)
    assert [g.label for g in report.by_layer] == ["task", "universal"]
    assert [g.label for g in report.by_criterion] == ["c0", "c1", "c2", "c3"]
    assert sum(g.n_units for g in report.by_criterion) == report.overall.n_units


def test_a_deterministic_judge_is_stable_across_epochs_and_a_coin_is_not():
    steady = calibration_report(synthetic(honest, epochs=3), n_resamples=50).stability
    assert steady.epochs == 3 and steady.identical == 1.0
    shaky = calibration_report(synthetic(coin, epochs=3), n_resamples=50).stability
    assert shaky.identical < 0.5


def test_units_the_judge_did_not_rate_are_counted_and_left_out():
    data = synthetic(honest)
    judge = data.judge.copy()
    judge[:10] = MISSING
    partial = JudgeData(data.ratings, "j", judge, judge[None, :], data.gold, data.item_family)
    report = calibration_report(partial, n_resamples=50)
    assert report.unmatched_units == 10
    assert report.overall.n_units == data.ratings.n_units - 10
    assert report.stability is None


def test_experts_matrix_marks_missing_grades_with_nan():
    data = synthetic(honest)
    matrix = experts_matrix(data.ratings, np.arange(3))
    assert matrix.shape == (N_EXPERTS, 3)
    assert not np.isnan(matrix).any()


# ----- stability of 1-5 scores across epochs -----------------------------------------------
N_RESPONSES = 80


def test_a_judge_giving_the_same_scores_each_epoch_is_perfectly_stable():
    scores = np.random.default_rng(3).integers(1, 6, N_RESPONSES).astype(float)
    found = scale_stability(np.tile(scores, (3, 1)))
    assert (found.epochs, found.n_responses) == (3, N_RESPONSES)
    assert found.identical == 1.0
    assert found.alpha.value == pytest.approx(1.0)
    assert found.alpha.name == "krippendorff_alpha_ordinal"


def test_a_judge_redrawing_its_scores_at_random_has_low_alpha():
    epochs = np.random.default_rng(3).integers(1, 6, (3, N_RESPONSES)).astype(float)
    found = scale_stability(epochs)
    assert abs(found.alpha.value) < 0.15
    assert found.identical < 0.2  # 1/25 expected for three independent draws


def test_a_judge_that_mostly_repeats_itself_lies_between():
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 6, N_RESPONSES)
    moved = np.clip(truth + rng.choice([-1, 0, 0, 0, 1], N_RESPONSES), 1, 5)
    found = scale_stability(np.stack([truth, moved]).astype(float))
    assert 0.6 < found.alpha.value < 1.0
    assert found.identical == pytest.approx(float((truth == moved).mean()))


def test_stability_alpha_matches_the_krippendorff_package_with_missing_scores():
    epochs = np.random.default_rng(8).integers(1, 6, (3, 30)).astype(float)
    epochs[0, :5] = np.nan
    epochs[1:, 5:8] = np.nan  # scored once only: left out
    found = scale_stability(epochs)
    assert found.n_responses == 27
    reference = krippendorff.alpha(
        reliability_data=epochs, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]
    )
    assert found.alpha.value == pytest.approx(reference)


def test_one_epoch_gives_no_stability_figure_but_its_reason():
    found = scale_stability(np.array([[1.0, 3.0, 5.0, np.nan]]))
    assert found.epochs == 1 and found.n_responses == 0
    assert found.alpha.value is None and found.alpha.undefined_reason == ONE_EPOCH
    assert found.identical is None


def test_epochs_that_scored_different_responses_cannot_be_compared():
    nan = np.nan
    found = scale_stability(np.array([[1.0, 2.0, nan, 4.0], [1.0, nan, 3.0, nan]]))
    assert found.epochs == 2 and found.n_responses == 1 and found.identical == 1.0
    assert found.alpha.value is None
    assert found.alpha.undefined_reason == FEWER_THAN_TWO_REPEATED


def test_the_same_score_everywhere_is_stable_but_alpha_is_undefined():
    found = scale_stability(np.full((2, 10), 4.0))
    assert found.identical == 1.0
    assert found.alpha.value is None and found.alpha.undefined_reason == NO_VARIATION


def test_the_counts_add_up_units_on_which_the_experts_split_evenly_are_named():
    data = synthetic(honest)
    overall = calibration_report(data, n_resamples=50).overall
    experts = experts_matrix(data.ratings, np.arange(data.ratings.n_units))
    passes = np.nansum(experts, axis=0)
    tied = int((passes * 2 == (~np.isnan(experts)).sum(axis=0)).sum())
    assert tied > 0  # four experts split 2-2 on some units
    assert overall.n_tied == tied
    assert overall.n_with_majority + overall.n_tied == overall.n_units
    assert overall.vs_majority.confusion.sum() == overall.n_with_majority
    assert overall.n_with_gold == overall.vs_gold.confusion.sum() == overall.n_units
