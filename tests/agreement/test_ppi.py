"""Prediction-powered means (pure): equal to the authors' package ``ppi-python`` on random
data, the stratified and active forms against their formulas written out, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.stats.ppi import (
    MINIMUM_LABELED,
    active_ppi_mean,
    ppi_mean,
    ppi_mean_stack,
    stratified_ppi_mean,
)
from tests.reference_packages import calc_lam_glm, ppi_mean_ci, ppi_mean_pointestimate

TOLERANCE = 1e-8


def random_case(rng: np.random.Generator, kind: str):
    """Labels and judge values (verdicts or scores in [0, 1]) of a random size."""
    n, big_n = int(rng.integers(2, 120)), int(rng.integers(1, 600))
    if kind == "verdicts":
        y = (rng.random(n) < rng.random()).astype(float)
        accuracy = rng.uniform(0.5, 1.0)
        f = np.where(rng.random(n) < accuracy, y, 1 - y)
        f_u = (rng.random(big_n) < rng.random()).astype(float)
    else:
        y = rng.random(n)
        f = np.clip(y + rng.normal(rng.normal(0, 0.2), rng.uniform(0.01, 0.5), n), 0, 1)
        f_u = rng.random(big_n)
    return y, f, f_u


def ppi_python(y, f, f_u, lam, confidence, w=None, w_u=None):
    estimate = ppi_mean_pointestimate(y, f, f_u, lam=lam, w=w, w_unlabeled=w_u)
    low, high = ppi_mean_ci(y, f, f_u, alpha=1 - confidence, lam=lam, w=w, w_unlabeled=w_u)
    return float(np.squeeze(estimate)), float(np.squeeze(low)), float(np.squeeze(high))


@pytest.mark.parametrize("kind", ["verdicts", "scores"])
@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.37])
def test_the_mean_and_interval_equal_ppi_python_on_random_data(kind: str, lam: float | None):
    rng = np.random.default_rng(7 if lam is None else int(lam * 100) + 1)
    for _ in range(60):
        y, f, f_u = random_case(rng, kind)
        if len(set(f.tolist() + f_u.tolist())) < 2:
            continue  # ppi-python's lam is 0/0 there (NaN); ours is 0, tested below
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        ours = ppi_mean(y, f, f_u, confidence=confidence, lam=lam, interval="normal")
        theirs = ppi_python(y, f, f_u, lam, confidence)
        assert ours.estimate == pytest.approx(theirs[0], abs=TOLERANCE)
        assert ours.low == pytest.approx(theirs[1], abs=TOLERANCE)
        assert ours.high == pytest.approx(theirs[2], abs=TOLERANCE)
        assert (ours.n_labeled, ours.n_unlabeled) == (y.size, f_u.size)


def test_the_tuned_lambda_is_ppi_python_s_power_tuning():
    rng = np.random.default_rng(3)
    for _ in range(100):
        y, f, f_u = random_case(rng, str(rng.choice(["verdicts", "scores"])))
        if len(set(f.tolist() + f_u.tolist())) < 2:
            continue
        theta = ppi_mean(y, f, f_u, lam=1.0).estimate
        theirs = calc_lam_glm(y - theta, f - theta, f_u - theta, np.eye(1), coord=None, clip=True)
        assert ppi_mean(y, f, f_u).lam == pytest.approx(theirs, abs=TOLERANCE)


def test_weighted_samples_equal_ppi_python_with_w_and_w_unlabeled():
    rng = np.random.default_rng(11)
    for trial in range(80):
        y, f, f_u = random_case(rng, "verdicts" if trial % 2 else "scores")
        if len(set(f.tolist() + f_u.tolist())) < 2:
            continue
        w, w_u = rng.uniform(0.1, 5, y.size), rng.uniform(0.1, 5, f_u.size)
        for lam in (None, 1.0, 0.5):
            ours = ppi_mean(y, f, f_u, lam=lam, weights=w, unlabeled_weights=w_u, interval="normal")
            theirs = ppi_python(y, f, f_u, lam, 0.95, w, w_u)
            assert (ours.estimate, ours.low, ours.high) == pytest.approx(theirs, abs=TOLERANCE)


def test_lambda_zero_is_the_experts_mean_with_its_normal_interval():
    y = np.array([1, 0, 1, 1, 0, 1, 1, 1.0])
    found = ppi_mean(y, np.zeros(8), np.ones(30), lam=0.0, interval="normal")
    assert found.estimate == pytest.approx(0.75)
    assert found.standard_error == pytest.approx(np.sqrt(0.75 * 0.25 / 8))
    assert found.half_width == pytest.approx(1.959963984540054 * np.sqrt(0.75 * 0.25 / 8))


def test_plain_ppi_corrects_the_judges_mean_by_its_bias_on_the_experts_sample():
    # The judge passes everything; on the expert sample it is wrong on 2 of 4: the estimate is
    # the judge's mean (1) plus the mean rectifier (-0.5).
    found = ppi_mean([1, 0, 1, 0], [1, 1, 1, 1], np.ones(100), lam=1.0)
    assert found.estimate == pytest.approx(0.5)


@pytest.mark.parametrize("value", [0.0, 1.0, 0.5])
def test_a_judge_with_one_value_everywhere_gets_lambda_zero_and_the_experts_interval(value):
    # Lambda is 0/0 there (ppi-python may give NaN); every lambda gives this mean and interval.
    y = np.array([1, 0, 1, 1, 0, 1.0])
    found = ppi_mean(y, np.full(6, value), np.full(3, value))
    assert found.lam == 0.0
    assert found.estimate == pytest.approx(y.mean())
    assert found.standard_error == pytest.approx(y.std() / np.sqrt(6))


def test_below_fifty_expert_grades_the_interval_is_flagged_unreliable():
    rng = np.random.default_rng(0)
    y, f = (rng.random(49) < 0.6).astype(float), (rng.random(49) < 0.6).astype(float)
    assert ppi_mean(y, f, np.ones(10)).unreliable_reason == (
        "interval unreliable: 49 responses (coverage checked from 50)"
    )
    assert MINIMUM_LABELED == 50
    more = np.append(y, 1.0), np.append(f, 1.0)
    assert ppi_mean(*more, np.ones(10)).unreliable_reason is None


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (([1.0], [1.0], [0.0, 1.0]), "two expert-graded"),
        (([1.0, 0.0], [1.0], [0.0]), "same shape"),
        (([1.0, 0.0], [1.0, 0.0], []), "judge alone"),
        (([1.0, np.nan], [1.0, 0.0], [1.0]), "finite"),
    ],
)
def test_inputs_that_cannot_give_a_mean_are_refused_with_the_reason(arguments, message):
    with pytest.raises(ValueError, match=message):
        ppi_mean(*arguments)


def test_lambda_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="lam must be in"):
        ppi_mean([1, 0], [1, 0], [1], lam=1.5)


finite_unit = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.tuples(finite_unit, finite_unit), min_size=2, max_size=40),
    st.lists(finite_unit, min_size=1, max_size=40),
    st.floats(-3.0, 3.0),
    st.sampled_from([None, 0.0, 1.0, 0.5]),
)
def test_shifting_every_value_shifts_the_estimate_and_interval(pairs, unlabeled, shift, lam):
    y, f = (np.array(column) for column in zip(*pairs, strict=True))
    f_u = np.array(unlabeled)
    base = ppi_mean(y, f, f_u, lam=lam, interval="normal")
    moved = ppi_mean(y + shift, f + shift, f_u + shift, lam=lam, interval="normal")
    assert moved.lam == pytest.approx(base.lam, abs=1e-9)
    assert moved.estimate == pytest.approx(base.estimate + shift, abs=1e-9)
    assert moved.low == pytest.approx(base.low + shift, abs=1e-9)
    assert 0.0 <= base.lam <= 1.0
    assert base.low <= base.estimate <= base.high


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1.0])), min_size=2),
    st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=30),
)
def test_a_judge_that_always_agrees_with_plain_ppi_is_the_judges_mean(pairs, unlabeled):
    y = np.array([p[0] for p in pairs])
    found = ppi_mean(y, y, np.array(unlabeled), lam=1.0)
    assert found.estimate == pytest.approx(np.mean(unlabeled))


def test_the_score_interval_is_newcombe_s_paired_interval_added_to_the_judge_s_mean():
    """At lam = 1 the rectifier is the paired difference of the experts' and the judge's
    rates: its interval is intervals.paired_difference_bounds (Newcombe's method 10) at
    Student's t level; a judge-only mean of 1 over 10^8 responses adds next to nothing."""
    from statistics import NormalDist

    from core.stats.distributions import student_t_quantile
    from core.stats.intervals import paired_difference_bounds

    rng = np.random.default_rng(6)
    for n in (20, 50, 200):
        y = (rng.random(n) < 0.7).astype(float)
        f = np.where(rng.random(n) < 0.9, y, 1 - y)
        found = ppi_mean(y, f, np.ones(10**8 // n), lam=1.0)
        level = 2 * NormalDist().cdf(student_t_quantile(0.975, n - 1)) - 1
        difference, low, high = paired_difference_bounds(y, f, confidence=level)
        assert found.estimate == pytest.approx(1 + difference)
        assert (found.low, min(found.high, 1.0)) == pytest.approx(
            (1 + low, min(1 + high, 1.0)), abs=1e-5
        )


def test_the_score_interval_is_not_a_point_when_the_judge_never_errs_on_the_sample():
    y = (np.arange(60) % 3 > 0).astype(float)
    normal = ppi_mean(y, y, np.tile([0.0, 1.0, 1.0], 300), lam=1.0, interval="normal")
    score = ppi_mean(y, y, np.tile([0.0, 1.0, 1.0], 300), lam=1.0)
    assert normal.half_width < 0.035  # the judge-only mean's alone
    assert score.half_width > 0.035
    assert score.low <= score.estimate <= score.high
    assert score.method == "prediction-powered, score interval"


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.tuples(finite_unit, finite_unit), min_size=2, max_size=40),
    st.lists(finite_unit, min_size=1, max_size=40),
    st.sampled_from([None, 0.0, 1.0, 0.5]),
)
# Two variances so small that their product underflowed to 0: the labels' and the judge's
# correlation was infinite and the interval NaN.
@example(
    pairs=[(0.0, 0.0), (1.401298464324817e-45, 3.922173571717019e-131)], unlabeled=[0.0], lam=None
)
def test_the_score_interval_holds_its_estimate_within_zero_and_one(pairs, unlabeled, lam):
    y, f = (np.array(column) for column in zip(*pairs, strict=True))
    found = ppi_mean(y, f, np.array(unlabeled), lam=lam)
    assert 0.0 <= found.low <= 1.0 and 0.0 <= found.high <= 1.0
    assert found.low - 1e-12 <= min(max(found.estimate, 0.0), 1.0) <= found.high + 1e-12


def test_the_score_interval_refuses_values_outside_zero_and_one():
    with pytest.raises(ValueError, match=r"values in \[0, 1\]"):
        ppi_mean([2.0, 0.0], [1.0, 0.0], [1.0])


def test_each_row_of_a_stack_is_its_own_mean():
    rng = np.random.default_rng(5)
    y = (rng.random((6, 30)) < 0.7).astype(float)
    f = np.where(rng.random((6, 30)) < 0.8, y, 1 - y)
    f_u = (rng.random((6, 200)) < 0.7).astype(float)
    stack = ppi_mean_stack(y, f, f_u)
    for row in range(6):
        one = ppi_mean(y[row], f[row], f_u[row])
        assert (stack.estimate[row], stack.low[row], stack.lam[row]) == pytest.approx(
            (one.estimate, one.low, one.lam), abs=1e-12
        )


# ---------------------------------------------------------------- stratified


def strata_case(seed: int = 2):
    rng = np.random.default_rng(seed)
    labeled_strata = rng.choice(["01", "02", "03"], size=90, p=[0.5, 0.3, 0.2])
    unlabeled_strata = rng.choice(["01", "02", "03"], size=900, p=[0.2, 0.3, 0.5])
    rates = {"01": 0.9, "02": 0.6, "03": 0.3}
    y = (rng.random(90) < [rates[s] for s in labeled_strata]).astype(float)
    f = np.where(rng.random(90) < 0.8, y, 1 - y)
    f_u = (rng.random(900) < [rates[s] for s in unlabeled_strata]).astype(float)
    return y, f, labeled_strata, f_u, unlabeled_strata


def test_each_stratum_is_its_own_ppi_mean_and_the_strata_combine_by_population_share():
    y, f, ls, f_u, us = strata_case()
    found = stratified_ppi_mean(y, f, ls, f_u, us)
    assert found.strata == ("01", "02", "03")
    sizes = np.array([(ls == s).sum() + (us == s).sum() for s in found.strata], dtype=float)
    shares = sizes / sizes.sum()
    assert found.shares == pytest.approx(tuple(shares))
    for stratum, mean in zip(found.strata, found.per_stratum, strict=True):
        alone = ppi_mean(y[ls == stratum], f[ls == stratum], f_u[us == stratum])
        assert mean == alone
    estimates = np.array([m.estimate for m in found.per_stratum])
    errors = np.array([m.standard_error for m in found.per_stratum])
    assert found.combined.estimate == pytest.approx(float(shares @ estimates), abs=1e-12)
    assert found.combined.standard_error == pytest.approx(
        float(np.sqrt((shares**2) @ (errors**2))), abs=1e-12
    )
    below = np.array([m.estimate - m.low for m in found.per_stratum])
    assert found.combined.low == pytest.approx(
        found.combined.estimate - float(np.sqrt((shares**2) @ (below**2))), abs=1e-12
    )
    normal = stratified_ppi_mean(y, f, ls, f_u, us, interval="normal").combined
    assert normal.high - normal.estimate == pytest.approx(1.959964 * normal.standard_error)
    assert (found.combined.n_labeled, found.combined.n_unlabeled) == (90, 900)


def test_the_stratified_estimate_at_a_fixed_lambda_is_ppi_python_s_with_stratum_weights():
    """With one lam, sum_k W_k theta_k is ppi-python's weighted estimate where each labeled
    response weighs W_k / (n_k / n) and each unlabeled one W_k / (N_k / N)."""
    y, f, ls, f_u, us = strata_case(4)
    for lam in (1.0, 0.6, 0.0):
        found = stratified_ppi_mean(y, f, ls, f_u, us, lam=lam)
        share = dict(zip(found.strata, found.shares, strict=True))
        w = np.array([share[s] / ((ls == s).sum() / ls.size) for s in ls])
        w_u = np.array([share[s] / ((us == s).sum() / us.size) for s in us])
        theirs = ppi_mean_pointestimate(y, f, f_u, lam=lam, w=w, w_unlabeled=w_u)
        assert found.combined.estimate == pytest.approx(float(np.squeeze(theirs)), abs=TOLERANCE)


def test_known_shares_replace_the_sample_s_shares():
    y, f, ls, f_u, us = strata_case()
    found = stratified_ppi_mean(y, f, ls, f_u, us, shares={"01": 1, "02": 1, "03": 2})
    assert found.shares == pytest.approx((0.25, 0.25, 0.5))


def test_a_stratum_without_two_expert_grades_is_named_in_the_refusal():
    with pytest.raises(ValueError, match=r"stratum '02' has 1 expert-graded"):
        stratified_ppi_mean([1, 0, 1], [1, 0, 0], ["01", "01", "02"], [1, 0], ["01", "02"])


# ---------------------------------------------------------------- active


def active_case(seed: int = 8, size: int = 3000):
    rng = np.random.default_rng(seed)
    confidence = rng.beta(0.4, 0.4, size)  # the judge's stated pass probability
    truth = (rng.random(size) < confidence).astype(float)
    judge = (confidence > 0.5).astype(float)
    pi = np.clip(np.sqrt(confidence * (1 - confidence)) * 0.4, 0.02, 1.0)
    drawn = np.flatnonzero(rng.random(size) < pi)
    return judge, pi, drawn, truth


def test_the_active_mean_is_zrnic_and_candes_estimator_and_standard_error():
    judge, pi, drawn, truth = active_case()
    xi = np.zeros(judge.size)
    xi[drawn] = 1
    terms = judge + (truth - judge) * xi / pi  # their notebooks' lines, at lam = 1
    found = active_ppi_mean(judge, pi, drawn, truth[drawn], lam=1.0)
    assert found.estimate == pytest.approx(terms.mean(), abs=1e-12)
    assert found.standard_error == pytest.approx(terms.std() / np.sqrt(judge.size), abs=1e-12)
    assert (found.n_labeled, found.n_unlabeled) == (drawn.size, judge.size - drawn.size)


def test_the_tuned_active_lambda_minimises_the_variance_of_the_terms():
    judge, pi, drawn, truth = active_case(9)
    judge = np.clip(judge * 0.6 + 0.2, 0, 1)  # a judge worth shrinking
    xi = np.zeros(judge.size)
    xi[drawn] = 1
    found = active_ppi_mean(judge, pi, drawn, truth[drawn])
    grid = np.linspace(0, 1, 2001)
    variances = [(lam * judge + (truth - lam * judge) * xi / pi).var() for lam in grid]
    assert found.lam == pytest.approx(grid[int(np.argmin(variances))], abs=1e-3)


def test_the_active_mean_with_every_draw_adding_up_to_the_pool_is_ppi_python_s_weighted_one():
    """ppi-python scales the weights 1/pi of the drawn responses to average 1: where they add
    up to the pool (uniform probabilities, exactly the budget drawn) the two agree."""
    rng = np.random.default_rng(12)
    judge = (rng.random(400) < 0.6).astype(float)
    truth = np.where(rng.random(400) < 0.8, judge, 1 - judge)
    drawn = np.sort(rng.choice(400, size=80, replace=False))
    pi = np.full(400, 80 / 400)
    xi = np.zeros(400)
    xi[drawn] = 1
    for lam in (1.0, 0.4):
        found = active_ppi_mean(judge, pi, drawn, truth[drawn], lam=lam)
        theirs = ppi_mean_pointestimate(truth * xi, judge, judge, lam=lam, w=xi / pi)
        assert found.estimate == pytest.approx(float(np.squeeze(theirs)), abs=TOLERANCE)


def test_a_mask_of_drawn_responses_reads_like_their_indices():
    judge, pi, drawn, truth = active_case()
    mask = np.zeros(judge.size, dtype=bool)
    mask[drawn] = True
    assert active_ppi_mean(judge, pi, mask, truth[mask]) == active_ppi_mean(
        judge, pi, drawn, truth[drawn]
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"probabilities": np.zeros(5)}, "in \\(0, 1\\]"),
        ({"labels": [1.0]}, "2 responses were drawn but 1 labels"),
        ({"drawn": [1, 1]}, "at most once"),
    ],
)
def test_an_active_sample_that_does_not_add_up_is_refused(change, message):
    arguments = {
        "judge": np.ones(5),
        "probabilities": np.full(5, 0.5),
        "drawn": [1, 3],
        "labels": [1.0, 0.0],
    } | change
    with pytest.raises(ValueError, match=message):
        active_ppi_mean(**arguments)
