"""Judge calibration primitives, the alt-test and its SciPy-free t distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.stats import (
    alternative_annotator_test,
    benjamini_yekutieli,
    bland_altman,
    calibrate,
    leave_one_expert_out,
    leniency,
    level_match,
    majority_reference,
    mcnemar_exact,
    ordinal_calibration,
    regularized_incomplete_beta,
    student_t_cdf,
)

# ----------------------------------------------------------------------------- t / beta


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [
        # Two-sided 95% / one-sided 95% critical values from standard t tables
        # (e.g. NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.2).
        (2.228138851986, 10, 0.975),
        (1.812461122811, 10, 0.95),
        (2.570581835636, 5, 0.975),
        (2.085963447265, 20, 0.975),
        (2.845339709786, 20, 0.995),
        (1.979930405, 120, 0.975),
    ],
)
def test_t_cdf_table_values(t: float, df: float, p: float) -> None:
    assert student_t_cdf(t, df) == pytest.approx(p, abs=1e-8)
    assert student_t_cdf(-t, df) == pytest.approx(1 - p, abs=1e-8)


def test_t_cdf_large_df_approaches_normal() -> None:
    """Large df: the t CDF tends to the normal CDF (difference O(1/df))."""
    assert student_t_cdf(1.959963984540054, 1e6) == pytest.approx(0.975, abs=1e-6)


@given(st.floats(-1e4, 1e4, allow_nan=False))
def test_t_cdf_closed_forms(t: float) -> None:
    """df = 1 is Cauchy: 1/2 + atan(t)/pi; df = 2: 1/2 + t / (2 sqrt(2 + t^2))."""
    assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)
    assert student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-12)


@settings(max_examples=200)
@given(st.integers(1, 60), st.integers(1, 60), st.floats(0.0, 1.0))
def test_incomplete_beta_binomial_identity(a: int, b: int, x: float) -> None:
    """For integers, I_x(a, b) = P(Binomial(a + b - 1, x) >= a), summed exactly."""
    n = a + b - 1
    expected = sum(math.comb(n, k) * x**k * (1 - x) ** (n - k) for k in range(a, n + 1))
    assert regularized_incomplete_beta(a, b, x) == pytest.approx(expected, abs=1e-11)


def test_mcnemar_exact_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(5, 5) == 1.0
    # brute binomial tail
    b, c = 3, 12
    tail = sum(math.comb(15, k) for k in range(4)) / 2**15
    assert mcnemar_exact(b, c) == pytest.approx(2 * tail)
    assert mcnemar_exact(c, b) == mcnemar_exact(b, c)


@given(st.lists(st.floats(0, 1), max_size=12), st.floats(0.001, 0.2))
def test_benjamini_yekutieli_matches_definition(p: list[float], q: float) -> None:
    m = len(p)
    rejected = benjamini_yekutieli(p, q)
    if m == 0:
        assert rejected == []
        return
    c_m = sum(1 / i for i in range(1, m + 1))
    ordered = sorted(p)
    k = max((i for i in range(1, m + 1) if ordered[i - 1] <= i * q / (m * c_m)), default=0)
    threshold = ordered[k - 1] if k else -1.0
    assert rejected == [x <= threshold for x in p]


# ------------------------------------------------------------------------ calibration


def test_calibrate_binary_confusion_and_rates() -> None:
    reference = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0]
    judge = [1, 1, 1, 0, 0, 0, 1, 0, 1, -1]  # last item: no verdict
    result = calibrate(judge, reference)
    assert result.n_items == 9
    assert result.confusion.tolist() == [[3, 1], [1, 4]]  # rows = reference, cols = judge
    assert result.accuracy.value == pytest.approx(7 / 9)
    assert result.sensitivity is not None and result.sensitivity.value == pytest.approx(4 / 5)
    assert result.specificity is not None and result.specificity.value == pytest.approx(3 / 4)
    p_e = (4 / 9) * (4 / 9) + (5 / 9) * (5 / 9)
    assert result.kappa.value == pytest.approx((7 / 9 - p_e) / (1 - p_e))


def test_majority_reference_ties_and_missing() -> None:
    experts = np.array([[1, 0, 1, np.nan], [1, 1, 0, np.nan], [0, np.nan, 1, np.nan]])
    assert majority_reference(experts).tolist() == [1, -1, 1, -1]


def test_leave_one_expert_out_pools_colleagues_on_same_items() -> None:
    experts = np.array(
        [
            [1, 1, 0, 0, 1, np.nan],
            [1, 0, 0, 0, 1, 1],
            [1, 1, 0, 1, np.nan, 0],
        ]
    )
    judge = [1, 1, 0, 0, 1, 1]
    rows = leave_one_expert_out(judge, experts)
    first = rows[0]
    # Expert 0 graded items 0-4, each also graded by someone else.
    assert first.n_items == 5
    assert first.judge_accuracy.value == pytest.approx(5 / 5)
    # Colleagues vs expert 0: expert 1 on items 0-4 (4 agree of 5), expert 2 on 0-3 (3 of 4).
    assert (first.experts_accuracy.numerator, first.experts_accuracy.denominator) == (7, 9)
    assert first.accuracy_gap == pytest.approx(1 - 7 / 9)
    # Expert 2: items 0-3 and 5.
    assert rows[2].n_items == 5


def test_leniency_difference_ci_and_mcnemar() -> None:
    rng = np.random.default_rng(0)
    n = 200
    truth = rng.random(n) < 0.5
    experts = np.where(rng.random((3, n)) < 0.9, truth, ~truth).astype(np.float64)
    judge = (truth | (rng.random(n) < 0.3)).astype(np.int64)  # passes extra items
    result = leniency(judge, experts)
    share = experts.mean(axis=0)
    assert result.difference == pytest.approx(judge.mean() - share.mean())
    assert result.low is not None and result.high is not None
    assert result.low < result.difference < result.high
    assert result.low > 0  # clearly lenient
    reference = majority_reference(experts)
    assert result.mcnemar_judge_only == int(((judge == 1) & (reference == 0)).sum())
    assert result.mcnemar_reference_only == int(((judge == 0) & (reference == 1)).sum())
    assert result.mcnemar_p_value == mcnemar_exact(
        result.mcnemar_judge_only, result.mcnemar_reference_only
    )
    assert result.n_responses == n and result.unreliable_reason is None


def test_leniency_interval_is_not_a_point_when_every_unit_is_concordant() -> None:
    """A percentile bootstrap gives [0, 0] here, and missed a true leniency of 0.015 in most
    simulated studies; Newcombe's interval keeps the marginal rates' uncertainty."""
    experts = np.ones((2, 30))
    experts[:, :3] = 0
    judge = experts[0].astype(np.int64)
    result = leniency(judge, experts)
    assert result.difference == 0.0
    assert result.low is not None and result.high is not None
    assert result.low < -0.05 and result.high > 0.05


def test_leniency_counts_responses_and_withholds_its_interval_below_15() -> None:
    rng = np.random.default_rng(2)
    experts = (rng.random((2, 40)) < 0.6).astype(np.float64)
    judge = (rng.random(40) < 0.7).astype(np.int64)
    by_unit = leniency(judge, experts)
    clustered = leniency(judge, experts, clusters=np.arange(40) // 4)  # 10 responses
    assert clustered.difference == by_unit.difference
    assert (clustered.n_items, clustered.n_responses) == (40, 10)
    assert clustered.low is None and clustered.high is None
    assert clustered.unreliable_reason == (
        "interval unreliable: 10 responses (coverage checked from 15)"
    )
    assert by_unit.low is not None


# ----------------------------------------------------------------------------- alt-test


def alt_test_oracle(
    judge: list[int], experts: list[dict[int, int]], epsilon: float, q: float = 0.05
) -> tuple[float, float]:
    """Loop transcription of the paper's procedure (dicts of item -> label per expert)."""
    p_values, rhos = [], []
    for h, own in enumerate(experts):
        d, w_f_all = [], []
        for item, label in own.items():
            others = [e[item] for k, e in enumerate(experts) if k != h and item in e]
            if not others:
                continue
            s_f = sum(judge[item] == o for o in others) / len(others)
            s_h = sum(label == o for o in others) / len(others)
            w_f, w_h = int(s_f >= s_h), int(s_h >= s_f)
            d.append(w_h - w_f)
            w_f_all.append(w_f)
        n = len(d)
        mean = sum(d) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
        t = (mean - epsilon) / (sd / math.sqrt(n))
        p_values.append(student_t_cdf(t, n - 1))
        rhos.append(sum(w_f_all) / n)
    rejected = benjamini_yekutieli(p_values, q)
    return sum(rejected) / len(experts), sum(rhos) / len(rhos)


def simulated_panel(
    n_items: int, n_experts: int, expert_accuracy: float, judge_accuracy: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    experts = np.where(rng.random((n_experts, n_items)) < expert_accuracy, truth, 1 - truth)
    judge = np.where(rng.random(n_items) < judge_accuracy, truth, 1 - truth)
    return truth, experts.astype(np.float64), judge


def test_alt_test_matches_loop_oracle() -> None:
    _, experts, judge = simulated_panel(80, 4, 0.8, 0.85, seed=3)
    experts[0, :10] = np.nan  # missing grades
    result = alternative_annotator_test(judge, experts, epsilon=0.2)
    dicts = [{i: int(v) for i, v in enumerate(row) if not np.isnan(v)} for row in experts]
    omega, rho = alt_test_oracle(judge.tolist(), dicts, 0.2)
    assert result.winning_rate == pytest.approx(omega)
    assert result.advantage_probability == pytest.approx(rho)
    assert result.experts[0].n_items == 70


def test_alt_test_good_judge_passes_and_random_judge_fails() -> None:
    truth, experts, _ = simulated_panel(150, 5, 0.75, 1.0, seed=4)
    good = alternative_annotator_test(truth, experts)  # judge = the latent truth
    assert good.judge_can_replace is True
    assert good.verdict == "judge can replace an expert"
    assert good.winning_rate is not None and good.winning_rate >= 0.5
    rng = np.random.default_rng(9)
    random_judge = rng.integers(0, 2, truth.size)
    bad = alternative_annotator_test(random_judge, experts)
    assert bad.judge_can_replace is False
    assert bad.advantage_probability is not None and good.advantage_probability is not None
    assert bad.advantage_probability < good.advantage_probability


def test_alt_test_not_enough_data() -> None:
    truth, experts, _ = simulated_panel(100, 2, 0.8, 1.0, seed=5)
    two = alternative_annotator_test(truth, experts)
    assert two.judge_can_replace is None and two.winning_rate is None
    assert two.undefined_reason is not None and two.undefined_reason.startswith("not enough data")
    truth, experts, _ = simulated_panel(20, 4, 0.8, 1.0, seed=5)
    few_items = alternative_annotator_test(truth, experts)
    assert few_items.judge_can_replace is None
    assert all(row.skipped_reason == "fewer than 30 items" for row in few_items.experts)


def test_alt_test_neg_rmse_for_scores() -> None:
    rng = np.random.default_rng(6)
    truth = rng.integers(1, 6, 120).astype(np.float64)
    experts = np.clip(truth + rng.integers(-1, 2, (4, 120)), 1, 5)
    result = alternative_annotator_test(truth, experts, scoring="neg_rmse")
    assert result.scoring == "neg_rmse"
    assert result.judge_can_replace is True


def test_alt_test_takes_negative_scores_as_ratings_and_only_nan_as_missing() -> None:
    rng = np.random.default_rng(6)
    truth = rng.integers(-2, 3, 120).astype(np.float64)  # a signed scale, -2 to 2
    experts = np.clip(truth + rng.integers(-1, 2, (4, 120)), -2, 2)
    signed = alternative_annotator_test(truth, experts, scoring="neg_rmse")
    shifted = alternative_annotator_test(truth + 3, experts + 3, scoring="neg_rmse")
    assert [row.n_items for row in signed.experts] == [120] * 4
    assert signed.advantage_probability == pytest.approx(shifted.advantage_probability)
    assert signed.winning_rate == pytest.approx(shifted.winning_rate)
    judge = truth.copy()
    judge[:10] = np.nan
    assert alternative_annotator_test(judge, experts, scoring="neg_rmse").experts[0].n_items == 110


# ----------------------------------------------------------------------------- ordinal


def test_bland_altman_summary() -> None:
    a = np.array([3.0, 4.0, 5.0, 2.0, np.nan])
    b = np.array([2.0, 4.0, 4.0, 3.0, 1.0])
    result = bland_altman(a, b)
    diff = np.array([1.0, 0.0, 1.0, -1.0])
    assert result.n == 4
    assert result.mean_difference == pytest.approx(diff.mean())
    assert result.sd_difference == pytest.approx(diff.std(ddof=1))
    assert result.upper_limit == pytest.approx(diff.mean() + 1.96 * diff.std(ddof=1))
    assert bland_altman([1.0], [2.0]).lower_limit is None


def test_ordinal_calibration_uses_weighted_kappa_and_expert_mean() -> None:
    experts = np.array([[0, 1, 2, 3, 4, 4], [0, 1, 3, 3, 4, 3], [1, 1, 2, 3, np.nan, 4]])
    judge = np.array([0, 2, 2, 3, 4, 4])
    result = ordinal_calibration(judge, experts, n_values=5)
    assert result.n_items == 6
    assert result.quadratic_kappa.value is not None and result.linear_kappa.value is not None
    assert result.quadratic_kappa.value >= result.linear_kappa.value  # near misses only
    mean = np.nanmean(experts, axis=0)
    assert result.bland_altman.mean_difference == pytest.approx((judge - mean).mean())


def test_level_match_counts_exact_and_neighbouring_levels_where_both_have_one() -> None:
    judge = np.array([0.0, 1.0, 3.0, 2.0, np.nan, 1.0, 0.0])
    gold = np.array([0.0, 2.0, 1.0, 2.0, 3.0, np.nan, 3.0])
    result = level_match(judge, gold)
    # Compared: items 0 (0 vs 0), 1 (1 vs 2), 2 (3 vs 1), 3 (2 vs 2), 6 (0 vs 3).
    assert result.n == 5
    assert (result.exact.numerator, result.exact.value) == (2, pytest.approx(2 / 5))
    assert (result.within_one.numerator, result.within_one.value) == (3, pytest.approx(3 / 5))


def test_level_match_of_nothing_in_common_has_no_value() -> None:
    result = level_match([1.0, np.nan], [np.nan, 2.0])
    assert result.n == 0 and result.exact.value is None and result.within_one.value is None


def test_level_match_refuses_arrays_of_other_lengths_or_fractional_levels() -> None:
    with pytest.raises(ValueError, match="same length"):
        level_match([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="whole numbers"):
        level_match([1.5], [1.0])


@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(-3, 6)), st.one_of(st.none(), st.integers(-3, 6))
        ),
        max_size=30,
    )
)
@settings(max_examples=60, deadline=None)
def test_level_match_agrees_with_a_loop(pairs: list[tuple[int | None, int | None]]) -> None:
    judge = np.array([np.nan if a is None else a for a, _ in pairs], dtype=float)
    gold = np.array([np.nan if b is None else b for _, b in pairs], dtype=float)
    both = [(a, b) for a, b in pairs if a is not None and b is not None]
    result = level_match(judge, gold)
    assert result.n == len(both)
    assert result.exact.numerator == sum(a == b for a, b in both)
    assert result.within_one.numerator == sum(abs(a - b) <= 1 for a, b in both)
    assert result.exact.numerator <= result.within_one.numerator <= result.n
