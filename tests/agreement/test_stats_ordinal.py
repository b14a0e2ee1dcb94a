"""A judge's 1-5 scores against the experts': Bland-Altman and weighted kappa (pure).

Reference values: Bland & Altman (1986), "Statistical methods for assessing agreement between
two methods of clinical measurement", Lancet 327: 307-310, Table 1 (peak expiratory flow rate
of 17 subjects, first reading with the Wright and with the mini Wright peak flow meter) and
the figures the paper derives from it.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.stats import (
    FEWER_THAN_TWO_PAIRS,
    NO_VARIATION,
    bland_altman,
    ordinal_agreement,
    pooled_tables,
    student_t_cdf,
    student_t_quantile,
)
from core.stats.bootstrap import resample_index_blocks, rng_from_seed
from core.stats.ordinal import GAP_UNRELIABLE, MINIMUM_ITEMS

SETTINGS = settings(max_examples=80, deadline=None)

WRIGHT = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
MINI_WRIGHT = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]


# ------------------------------------------------------------------ Bland & Altman 1986


def test_bland_altman_reproduces_the_lancet_1986_worked_example():
    # The paper: mean difference -2.1 l/min, SD 38.8, limits -2.1 -/+ 2 SD = -79.7 to 75.5.
    result = bland_altman(WRIGHT, MINI_WRIGHT, multiplier=2.0)
    assert result.n == 17
    assert result.mean_difference == pytest.approx(-2.1, abs=0.05)
    assert result.sd_difference == pytest.approx(38.8, abs=0.05)
    assert result.lower_limit == pytest.approx(-79.7, abs=0.1)
    assert result.upper_limit == pytest.approx(75.5, abs=0.1)


def test_bland_altman_intervals_match_the_lancet_1986_worked_example():
    # The paper, t = 2.12 at 16 df: bias -22.0 to 17.8; lower limit -114.3 to -45.1; upper
    # limit 40.9 to 110.1 (computed from the rounded -2.1 and 38.8, hence the tolerance).
    result = bland_altman(WRIGHT, MINI_WRIGHT, multiplier=2.0)
    assert (result.bias_low, result.bias_high) == (
        pytest.approx(-22.0, abs=0.1),
        pytest.approx(17.8, abs=0.1),
    )
    assert result.lower_limit_low == pytest.approx(-114.3, abs=0.2)
    assert result.lower_limit_high == pytest.approx(-45.1, abs=0.2)
    assert result.upper_limit_low == pytest.approx(40.9, abs=0.2)
    assert result.upper_limit_high == pytest.approx(110.1, abs=0.2)


def test_bland_altman_uses_1_96_sd_by_default():
    result = bland_altman(WRIGHT, MINI_WRIGHT)
    assert result.upper_limit == pytest.approx(result.mean_difference + 1.96 * 38.765, abs=0.01)


@pytest.mark.parametrize("pairs", [([], []), ([3.0], [2.0]), ([3.0, np.nan], [2.0, 4.0])])
def test_bland_altman_is_undefined_below_two_pairs_and_says_why(pairs):
    result = bland_altman(*pairs)
    assert result.undefined_reason == FEWER_THAN_TWO_PAIRS
    assert result.mean_difference is None and result.bias_low is None


def test_a_constant_difference_is_an_exact_bias_with_collapsed_limits():
    result = bland_altman([4.0, 5.0, 3.0], [3.0, 4.0, 2.0])
    assert result.undefined_reason is None
    assert result.mean_difference == 1.0 and result.sd_difference == 0.0
    assert result.lower_limit == result.upper_limit == result.bias_low == result.bias_high == 1.0


@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.floats(1, 5, allow_nan=False)), min_size=2, max_size=40
    )
)
@SETTINGS
def test_bland_altman_equals_the_textbook_formulas(pairs):
    a = [float(x) for x, _ in pairs]
    b = [y for _, y in pairs]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    mean, sd = statistics.fmean(diffs), statistics.stdev(diffs)
    t = student_t_quantile(0.975, n - 1)
    result = bland_altman(a, b)
    assert result.mean_difference == pytest.approx(mean, abs=1e-9)
    assert result.sd_difference == pytest.approx(sd, abs=1e-9)
    assert result.lower_limit == pytest.approx(mean - 1.96 * sd, abs=1e-9)
    assert result.bias_high == pytest.approx(mean + t * sd / math.sqrt(n), abs=1e-9)
    assert result.upper_limit_high == pytest.approx(
        mean + 1.96 * sd + t * math.sqrt(3 * sd * sd / n), abs=1e-9
    )


# ------------------------------------------------------------------ Student's t quantile


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    # Standard t tables (e.g. Fisher & Yates): two-sided 95% and 99% critical values.
    [(0.975, 1, 12.706), (0.975, 9, 2.262), (0.975, 16, 2.120), (0.995, 30, 2.750)],
)
def test_t_quantiles_match_the_printed_tables(p, df, expected):
    assert student_t_quantile(p, df) == pytest.approx(expected, abs=5e-4)


@given(st.floats(0.001, 0.999), st.floats(0.5, 500))
@SETTINGS
def test_the_t_quantile_inverts_the_cdf(p, df):
    assert student_t_cdf(student_t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)


# ------------------------------------------------------------------ weighted kappa


def kappa_oracle(pairs: list[tuple[int, int]], weights: str, q: int = 5) -> float | None:
    """Cohen 1968 weighted kappa from a list of (row, column) pairs, plain loops."""
    n = len(pairs)
    if n == 0:
        return None

    def w(i: int, j: int) -> float:
        d = abs(i - j) / (q - 1)
        return 1 - d if weights == "linear" else 1 - d * d

    rows = [sum(1 for a, _ in pairs if a == i) / n for i in range(q)]
    cols = [sum(1 for _, b in pairs if b == j) / n for j in range(q)]
    p_o = sum(w(a, b) for a, b in pairs) / n
    p_e = sum(w(i, j) * rows[i] * cols[j] for i in range(q) for j in range(q))
    return None if p_e >= 1 - 1e-15 else (p_o - p_e) / (1 - p_e)


def pair_lists(judge, experts):
    """Judge pairs (expert, judge) and ordered expert pairs, on items with >= 2 experts."""
    judge_pairs, expert_pairs = [], []
    for item in range(len(judge)):
        scores = [int(e[item]) - 1 for e in experts if not math.isnan(e[item])]
        if math.isnan(judge[item]) or len(scores) < 2:
            continue
        judge_pairs += [(s, int(judge[item]) - 1) for s in scores]
        expert_pairs += [
            (a, b) for i, a in enumerate(scores) for k, b in enumerate(scores) if i != k
        ]
    return judge_pairs, expert_pairs


@st.composite
def scored_items(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n_items = draw(st.integers(1, 12))
    n_experts = draw(st.integers(2, 4))
    score = st.one_of(st.integers(1, 5).map(float), st.just(math.nan))
    judge = np.array(draw(st.lists(score, min_size=n_items, max_size=n_items)))
    experts = np.array(
        [draw(st.lists(score, min_size=n_items, max_size=n_items)) for _ in range(n_experts)]
    )
    return judge, experts


@given(scored_items(), st.sampled_from(["linear", "quadratic"]))
@SETTINGS
def test_pooled_kappas_equal_the_brute_force_pairs(data, weights):
    judge, experts = data
    result = ordinal_agreement(judge, experts, n_resamples=20, seed=1)
    comparison = result.linear if weights == "linear" else result.quadratic
    judge_pairs, expert_pairs = pair_lists(judge, experts)
    for found, pairs in ((comparison.judge, judge_pairs), (comparison.experts, expert_pairs)):
        expected = kappa_oracle(pairs, weights)
        if expected is None:
            assert found.estimate.value is None and found.estimate.undefined_reason
        else:
            assert found.estimate.value == pytest.approx(expected, abs=1e-12)


@given(scored_items())
@SETTINGS
def test_bootstrap_kappas_equal_kappa_recomputed_on_each_resample(data):
    judge, experts = data
    result = ordinal_agreement(judge, experts, n_resamples=30, seed=5, minimum_items=0)
    keep = ~np.isnan(judge) & ((~np.isnan(experts)).sum(axis=0) >= 2)
    judge, experts = judge[keep], experts[:, keep]
    if not keep.any():
        assert result.linear.judge.low is None
        return
    replay = np.concatenate(list(resample_index_blocks(keep.sum(), 30, rng_from_seed(5))))
    values = []
    for drawn in replay:
        judge_pairs, _ = pair_lists(judge[drawn], experts[:, drawn])
        kappa = kappa_oracle(judge_pairs, "linear")
        if kappa is not None:
            values.append(kappa)
    if result.linear.judge.estimate.value is None or len(values) < 2:
        assert result.linear.judge.low is None
        return
    low, high = np.quantile(values, [0.025, 0.975])
    assert result.linear.judge.low == pytest.approx(low, abs=1e-9)
    assert result.linear.judge.high == pytest.approx(high, abs=1e-9)
    assert result.linear.judge.n_undefined == 30 - len(values)


def test_pooled_tables_count_each_pair_once_per_item():
    judge = np.array([2.0, np.nan])
    experts = np.array([[0.0, 1.0], [0.0, np.nan], [4.0, 3.0]])
    judge_tables, expert_tables = pooled_tables(judge, experts, 5)
    assert judge_tables[0, 0, 2] == 2 and judge_tables[0, 4, 2] == 1
    assert judge_tables[1].sum() == 0  # no judge score
    assert expert_tables[0].sum() == 6  # 3 experts: 6 ordered pairs
    assert expert_tables[0, 0, 0] == 2 and expert_tables[0, 0, 4] == 2
    assert expert_tables[1].sum() == 2  # 2 experts on the second item


def test_when_every_score_is_the_same_kappa_is_undefined_and_the_bias_is_zero():
    judge = np.full(6, 4.0)
    experts = np.full((3, 6), 4.0)
    result = ordinal_agreement(judge, experts, n_resamples=20)
    assert result.quadratic.judge.estimate.undefined_reason == NO_VARIATION
    assert result.quadratic.gap is None
    assert result.bland_altman.mean_difference == 0.0


def test_scores_off_the_scale_are_refused():
    with pytest.raises(ValueError, match="whole numbers from 1 to 5"):
        ordinal_agreement(np.array([6.0]), np.array([[3.0]]))


# ------------------------------------------------------------------ a judge with a known bias


def synthetic(judge_shift: int, *, n_items: int = 300, seed: int = 3):
    """True score 1-5 per item; three experts each off by -1, 0 or +1 (clipped); the judge
    gives the true score plus `judge_shift`, clipped to 1-5."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    experts = np.clip(truth + rng.integers(-1, 2, (3, n_items)), 1, 5).astype(float)
    judge = np.clip(truth + judge_shift, 1, 5).astype(float)
    return truth, judge, experts


def test_a_judge_one_point_too_generous_shows_as_a_bias_of_about_one():
    truth, judge, experts = synthetic(+1)
    result = ordinal_agreement(judge, experts, n_resamples=200)
    built_in = float((judge - truth).mean())  # below 1: a true 5 cannot go higher
    ba = result.bland_altman
    assert ba.bias_low < built_in < ba.bias_high
    assert 0.7 < ba.mean_difference < 0.9
    assert result.judge_mean - result.experts_mean == pytest.approx(ba.mean_difference)
    # Limits of agreement: the experts' scatter (mean of three, SD about 0.47) around a shift.
    assert ba.lower_limit < built_in < ba.upper_limit
    assert ba.upper_limit - ba.lower_limit < 2.5


def test_an_honest_judge_has_no_bias_and_agrees_like_an_expert():
    _, judge, experts = synthetic(0)
    result = ordinal_agreement(judge, experts, n_resamples=300)
    ba = result.bland_altman
    assert ba.bias_low < 0 < ba.bias_high
    # The judge knows the true score the experts scatter around: at least as good as them.
    assert result.quadratic.gap > 0
    # The gap's interval is withheld: none reached 90% coverage in simulation.
    assert result.quadratic.gap_low is None
    assert result.quadratic.gap_unreliable_reason == GAP_UNRELIABLE
    assert len(result.quadratic.leave_one_out) == 3


def test_the_biased_judge_agrees_less_than_the_honest_one():
    _, honest, experts = synthetic(0)
    _, biased, _ = synthetic(+1)
    fair = ordinal_agreement(honest, experts, n_resamples=50).linear.judge.estimate.value
    off = ordinal_agreement(biased, experts, n_resamples=50).linear.judge.estimate.value
    assert off < fair


def test_the_plot_points_are_means_and_differences():
    judge = np.array([5.0, 2.0])
    experts = np.array([[4.0, 2.0], [3.0, np.nan]])
    result = ordinal_agreement(judge, experts, n_resamples=10)
    assert result.differences_x == (4.25, 2.0)
    assert result.differences_y == (1.5, 0.0)
    assert result.n_items == 2 and result.n_kappa_items == 1


def test_below_its_minimum_of_items_the_kappas_intervals_are_withheld_with_the_reason():
    _, judge, experts = synthetic(0, n_items=MINIMUM_ITEMS)
    enough = ordinal_agreement(judge, experts, n_resamples=50)
    fewer = ordinal_agreement(judge[1:], experts[:, 1:], n_resamples=50)
    for comparison in enough.comparisons:
        assert comparison.judge.low is not None and comparison.experts.low is not None
    reason = (
        f"interval unreliable: {MINIMUM_ITEMS - 1} responses "
        f"(coverage checked from {MINIMUM_ITEMS})"
    )
    for comparison in fewer.comparisons:
        assert comparison.judge.estimate.value is not None
        assert (comparison.judge.low, comparison.judge.unreliable_reason) == (None, reason)
        assert (comparison.experts.low, comparison.experts.unreliable_reason) == (None, reason)
        assert (comparison.gap_low, comparison.gap_unreliable_reason) == (None, reason)
