"""Planning prediction-powered scores (pure): the expert grades a half-width needs, checked
against ``ppi-python``'s power analysis, and the probabilities and draw of active sampling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.stats.ppi import ppi_mean_stack
from core.stats.ppi_planning import (
    JudgeAgreement,
    assumed_judge_agreement,
    draw_for_experts,
    expert_grades_needed,
    measured_judge_agreement,
    response_uncertainty,
    sampling_probabilities,
    uncertainty_from_epochs,
    uncertainty_from_pass_probability,
)
from tests.reference_packages import ppi_mean_power, ppi_power

Z95 = 1.959963984540054
# ppi-python's power analysis with predictions (almost) free and the pool as its n_max: the
# cheapest pair reaching an effective sample size, which is our uniform plan before rounding.
FREE = 1e-12


def test_the_uniform_plan_is_ppi_python_s_cheapest_pair_for_the_same_effective_n():
    rng = np.random.default_rng(1)
    for _ in range(40):
        rho, pool = rng.uniform(0.05, 0.95), int(rng.integers(500, 20000))
        half_width, pass_rate = rng.uniform(0.02, 0.08), rng.uniform(0.2, 0.8)
        agreement = measured_agreement_with(rho, pass_rate)
        found = expert_grades_needed(agreement, half_width=half_width, pool=pool)
        n0 = (Z95 / half_width) ** 2 * agreement.label_variance
        theirs = ppi_power(rho, 0, 1, FREE, effective_n=n0, n_max=pool)
        assert found.without_judge == math.ceil(n0)
        assert found.uniform is not None
        # ppi-python rounds to the nearest; a plan rounds up.
        assert found.uniform - 1 <= theirs["n"] <= found.uniform
        assert theirs["n"] + theirs["N"] == pool


def measured_agreement_with(rho: float, pass_rate: float) -> JudgeAgreement:
    return JudgeAgreement(rho, pass_rate * (1 - pass_rate), 0.1, n=100)


def test_the_measured_agreement_is_ppi_python_s_ppi_correlation():
    rng = np.random.default_rng(2)
    for _ in range(20):
        y = (rng.random(200) < 0.7).astype(float)
        f = np.where(rng.random(200) < rng.uniform(0.6, 0.99), y, 1 - y)
        agreement = measured_judge_agreement(y, f)
        n0 = (Z95 / 0.03) ** 2 * agreement.label_variance
        theirs = ppi_mean_power(y, f, 1, FREE, effective_n=n0, n_max=5000)
        assert agreement.correlation == pytest.approx(theirs["ppi_corr"], abs=1e-12)
        assert agreement.label_variance == pytest.approx(y.var())
        assert agreement.mean_squared_error == pytest.approx(((y - f) ** 2).mean())
        found = expert_grades_needed(agreement, half_width=0.03, pool=5000)
        assert found.uniform is not None and found.uniform - 1 <= theirs["n"] <= found.uniform


def test_the_plan_reaches_its_half_width_when_experts_grade_that_many():
    """Simulated: a judge 85% accurate, pass rate 0.7, 4,000 responses; PPI++ on the planned
    number of expert grades gives the asked half-width on average."""
    rng = np.random.default_rng(3)
    agreement = assumed_judge_agreement(0.85, 0.7)
    plan = expert_grades_needed(agreement, half_width=0.04, pool=4000)
    assert plan.uniform is not None and plan.uniform < plan.without_judge
    studies, n = 400, plan.uniform
    y = (rng.random((studies, 4000)) < 0.7).astype(float)
    f = np.where(rng.random(y.shape) < 0.85, y, 1 - y)
    found = ppi_mean_stack(y[:, :n], f[:, :n], f[:, n:])
    assert np.mean(found.high - found.low) / 2 == pytest.approx(0.04, rel=0.05)


def test_an_assumed_judge_has_the_correlation_of_its_two_by_two_table():
    # Pass rates 0.7 and 0.7, 85% accuracy: P(both pass) = (0.7 + 0.7 - 0.15) / 2 = 0.625.
    found = assumed_judge_agreement(0.85, 0.7)
    assert found.correlation == pytest.approx((0.625 - 0.49) / 0.21)
    assert (found.label_variance, found.mean_squared_error) == pytest.approx((0.21, 0.15))
    assert assumed_judge_agreement(1.0, 0.4).correlation == pytest.approx(1.0)
    assert assumed_judge_agreement(0.5, 0.5).correlation == pytest.approx(0.0)


def test_an_impossible_judge_is_refused():
    with pytest.raises(ValueError, match="no judge has accuracy"):
        assumed_judge_agreement(0.99, 0.5, judge_pass_rate=0.9)


def test_a_useless_judge_needs_as_many_grades_as_the_experts_alone():
    found = expert_grades_needed(assumed_judge_agreement(0.5, 0.5), half_width=0.05, pool=10**6)
    assert found.uniform == pytest.approx(found.without_judge, abs=1)


def test_a_judge_worse_than_chance_is_planned_as_no_judge():
    # PPI++ clips lambda at 0: a negative correlation buys nothing.
    contrary = assumed_judge_agreement(0.2, 0.5)
    assert contrary.correlation == pytest.approx(-0.6)
    found = expert_grades_needed(contrary, half_width=0.05, pool=10**6)
    assert found.uniform == pytest.approx(found.without_judge, abs=1)


def test_a_half_width_beyond_the_pool_has_no_plan():
    found = expert_grades_needed(assumed_judge_agreement(0.6, 0.5), half_width=0.01, pool=3000)
    assert found.uniform is None


def test_the_active_plan_needs_fewer_grades_when_the_judge_knows_where_it_is_unsure():
    rng = np.random.default_rng(4)
    stated = rng.beta(0.3, 0.3, 10000)
    u = uncertainty_from_pass_probability(stated, judge=(stated > 0.5).astype(float))
    agreement = assumed_judge_agreement(1 - float(np.minimum(stated, 1 - stated).mean()), 0.5)
    found = expert_grades_needed(agreement, half_width=0.03, pool=10000, uncertainty=u)
    assert found.active is not None and found.uniform is not None
    assert found.active < 0.8 * found.uniform
    flat = expert_grades_needed(agreement, half_width=0.03, pool=10000, uncertainty=np.ones(10000))
    # No information on where the judge errs: uniform sampling with plain PPI (lam = 1),
    # whose variance is (sigma^2 + mse (M / n - 1)) / M.
    mse, sigma2, target = agreement.mean_squared_error, 0.25, (0.03 / Z95) ** 2
    assert flat.active == math.ceil(mse * 10000 / (10000 * target - sigma2 + mse))


def test_probabilities_add_up_to_the_budget_and_respect_the_floor():
    rng = np.random.default_rng(5)
    u = uncertainty_from_pass_probability(rng.beta(0.3, 0.3, 5000))
    pi = sampling_probabilities(u, 400, floor_share=0.2)
    assert pi.sum() == pytest.approx(400, rel=1e-9)
    assert pi.min() == pytest.approx(0.2 * 400 / 5000)
    assert pi.max() <= 1.0
    order = np.argsort(u)
    assert np.all(np.diff(pi[order]) >= -1e-15)  # more uncertain, more likely drawn


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=60),
    st.floats(0.01, 1.0),
    st.floats(0.001, 1.0),
)
def test_probabilities_are_valid_for_any_uncertainty_and_budget(values, fraction, floor_share):
    u = np.array(values)
    budget = fraction * u.size
    pi = sampling_probabilities(u, budget, floor_share=floor_share)
    assert pi.sum() == pytest.approx(budget, rel=1e-6)
    assert np.all(pi >= floor_share * budget / u.size - 1e-12)
    assert np.all(pi <= 1.0)
    assert np.all(pi > 0)


def test_tiny_uncertainties_still_add_up_to_the_budget():
    assert sampling_probabilities(np.array([5e-324, 5e-324]), 1.5).sum() == pytest.approx(1.5)
    assert sampling_probabilities(np.array([1e-300, 0.0, 3e-300]), 1.2).sum() == pytest.approx(1.2)


def test_equal_uncertainty_is_uniform_sampling():
    assert sampling_probabilities(np.full(10, 0.3), 4) == pytest.approx(np.full(10, 0.4))
    assert sampling_probabilities(np.zeros(10), 4) == pytest.approx(np.full(10, 0.4))


def test_the_draw_is_seeded_and_its_weights_are_the_inverse_probabilities():
    pi = sampling_probabilities(np.linspace(0, 1, 1000), 100)
    first, again = draw_for_experts(pi, seed=9), draw_for_experts(pi, seed=9)
    assert np.array_equal(first.drawn, again.drawn)
    assert not np.array_equal(first.drawn, draw_for_experts(pi, seed=10).drawn)
    assert first.weights == pytest.approx(1 / pi[first.drawn])
    assert abs(first.drawn.size - 100) < 40


def test_uncertainty_from_epochs_reads_unanimous_epochs_as_surer_than_split_ones():
    u = uncertainty_from_epochs([0, 1, 2, 3], [3, 3, 3, 3])
    assert u[0] == pytest.approx(u[3]) and u[1] == pytest.approx(u[2])
    assert u[0] < u[1]
    assert u[0] == pytest.approx(np.sqrt(0.5 / 4))  # three epochs agreeing leave some doubt
    assert np.unique(uncertainty_from_epochs([0, 1], [1, 1])).size == 1


def test_the_expected_error_depends_on_what_the_judge_answers():
    p = np.array([0.1, 0.5, 0.8])
    assert uncertainty_from_pass_probability(p) == pytest.approx(np.sqrt(p * (1 - p)))
    verdicts = uncertainty_from_pass_probability(p, judge=(p > 0.5).astype(float))
    assert verdicts == pytest.approx(np.sqrt([0.1, 0.5, 0.2]))
    wrong_way = uncertainty_from_pass_probability([0.9], judge=[0.0])
    assert wrong_way == pytest.approx([np.sqrt(0.9)])


def test_a_response_s_uncertainty_combines_its_criteria_by_their_weights():
    u = response_uncertainty([[0.5, 0.5, 0.0], [0.0, 0.0, 0.5]], [2, 1, -1])
    assert u == pytest.approx([np.sqrt(1.0 + 0.25) / 3, 0.5 / 3])
