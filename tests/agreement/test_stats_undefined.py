"""Undefined cases are explicit (value None + reason), never NaN or 0."""

from __future__ import annotations

import numpy as np
import pytest
from krippendorff_reference import krippendorff_alpha

from core.stats import (
    FEWER_THAN_TWO_PAIRABLE,
    NO_VARIATION,
    Coefficient,
    alpha_from_counts,
    binary_summary,
    bootstrap_alpha,
    cohen_kappa_from_table,
    counts_from_pairs,
    cronbach_alpha,
    fleiss_kappa,
    gwet_ac,
    percent_agreement,
)


@pytest.mark.parametrize("impl", [alpha_from_counts, krippendorff_alpha])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_undefined_reasons(impl, level: str) -> None:
    single = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    result = impl(single, level)
    assert result.value is None
    assert result.undefined_reason == FEWER_THAN_TWO_PAIRABLE
    constant = np.array([[0, 3, 0], [0, 2, 0], [0, 1, 0]])
    result = impl(constant, level)
    assert result.value is None
    assert result.undefined_reason == NO_VARIATION
    assert not result.is_defined


def test_kappa_and_fleiss_undefined() -> None:
    assert cohen_kappa_from_table([[0, 0], [0, 0]]).undefined_reason == FEWER_THAN_TWO_PAIRABLE
    assert cohen_kappa_from_table([[7, 0], [0, 0]]).undefined_reason == NO_VARIATION
    unequal = np.array([[2, 1], [1, 1], [0, 3]])
    assert fleiss_kappa(unequal).undefined_reason == "unequal number of raters per unit"
    modal = fleiss_kappa(unequal, unequal="modal")
    assert modal.is_defined and modal.n_units == 2  # the two units with 3 ratings
    assert fleiss_kappa(np.array([[3, 0], [3, 0]])).undefined_reason == NO_VARIATION


def test_ac1_stays_defined_when_everyone_agrees_on_one_value() -> None:
    """Gwet 2008: AC1 does not collapse at extreme prevalence; alpha is undefined there."""
    counts = np.array([[0, 3]] * 20)
    assert gwet_ac(counts).value == pytest.approx(1.0)
    assert alpha_from_counts(counts).undefined_reason == NO_VARIATION
    assert gwet_ac(np.array([[1, 0], [0, 1]])).undefined_reason == FEWER_THAN_TWO_PAIRABLE
    assert percent_agreement(np.zeros((3, 2), dtype=int)).value is None


def test_a_criterion_everyone_failed_keeps_its_pass_column() -> None:
    """The scale comes from the caller, never from the data: with a guessed scale the all-fail
    criterion would be one category and AC1's chance term would be computed on one value."""
    units = np.repeat(np.arange(20), 3)
    counts = counts_from_pairs(units, np.zeros(60, dtype=np.int64), n_values=2)
    assert counts.shape == (20, 2) and counts[:, 1].sum() == 0
    assert gwet_ac(counts).value == pytest.approx(1.0)
    with pytest.raises(TypeError):
        counts_from_pairs(units, np.zeros(60, dtype=np.int64))
    with pytest.raises(ValueError, match="size of the scale"):
        counts_from_pairs(units, np.zeros(60, dtype=np.int64), n_values=0)


def test_cronbach_undefined() -> None:
    assert cronbach_alpha(np.ones((5, 1))).undefined_reason == "fewer than two items"
    assert cronbach_alpha(np.ones((1, 4))).undefined_reason == "fewer than two respondents"
    assert (
        cronbach_alpha(np.full((16, 3), 2.0)).undefined_reason == "zero variance of the total score"
    )
    # Totals constant while items vary: also zero total variance.
    opposite = np.array([[1.0, 4.0], [2.0, 3.0], [4.0, 1.0]])
    assert cronbach_alpha(opposite, minimum_respondents=2).value is None


def test_cronbach_is_undefined_below_its_minimum_of_respondents_not_minus_eight() -> None:
    two = np.array([[1.0, 5.0, 2.0], [2.0, 1.0, 3.0]])  # alpha would be -5.25 on these
    assert cronbach_alpha(two, minimum_respondents=2).value == pytest.approx(-5.25)
    found = cronbach_alpha(two)
    assert found.value is None
    assert found.undefined_reason == "too few respondents (n = 2; 15 needed)"
    rng = np.random.default_rng(0)
    assert cronbach_alpha(rng.integers(1, 6, (15, 3)).astype(float)).value is not None


def test_coefficient_rejects_nan_and_ambiguous_states() -> None:
    with pytest.raises(ValueError):
        Coefficient("x", float("nan"), None, 1, 2)
    with pytest.raises(ValueError):
        Coefficient("x", None, None, 1, 2)
    with pytest.raises(ValueError):
        Coefficient("x", 0.5, "reason", 1, 2)


def test_binary_summary_flags_extreme_prevalence() -> None:
    """95% pass with one disagreement: raw agreement high, alpha low -> flagged unstable."""
    counts = np.array([[0, 3]] * 18 + [[1, 2]] + [[0, 3]])
    summary = binary_summary(counts)
    assert summary.n_units == 20 and summary.n_ratings == 60
    assert summary.prevalence.value == pytest.approx(59 / 60)
    assert summary.alpha_unstable_prevalence is True
    assert summary.percent_agreement.value == pytest.approx((19 + 1 / 3) / 20)
    assert summary.alpha.value is not None and summary.alpha.value < 0.1
    assert summary.ac1.value is not None and summary.ac1.value > 0.9
    assert summary.negative_agreement.value == 0.0
    balanced = binary_summary(np.array([[3, 0], [0, 3], [1, 2], [2, 1]]))
    assert balanced.alpha_unstable_prevalence is False
    empty = binary_summary(np.zeros((2, 2), dtype=int))
    assert empty.prevalence.value is None and empty.alpha.value is None
    assert empty.alpha_unstable_prevalence is False


def test_the_textbook_paradox_is_flagged() -> None:
    """Feinstein & Cicchetti (1990): two raters, 100 units, 80 both pass, 15 split, 5 both
    fail: pass rate 0.875, 85% agreement, kappa 0.32 against AC1 0.81."""
    counts = np.array([[0, 2]] * 80 + [[1, 1]] * 15 + [[2, 0]] * 5)
    summary = binary_summary(counts)
    assert summary.prevalence.value == pytest.approx(0.875)
    assert summary.alpha.value == pytest.approx(0.32, abs=0.005)
    assert summary.ac1.value == pytest.approx(0.81, abs=0.005)
    assert summary.alpha_unstable_prevalence is True
    mirrored = binary_summary(counts[:, ::-1])
    assert mirrored.prevalence.value == pytest.approx(0.125)
    assert mirrored.alpha_unstable_prevalence is True
    assert binary_summary(np.array([[0, 2]] * 8 + [[2, 0]] * 2)).alpha_unstable_prevalence is False


@pytest.mark.parametrize("clusters", [None, np.empty(0, dtype=np.int64)])
def test_bootstrap_of_no_units_is_undefined_with_a_reason(clusters):
    interval = bootstrap_alpha(np.zeros((0, 2), dtype=np.int64), n_resamples=50, clusters=clusters)
    assert interval.low is None and interval.high is None
    assert interval.estimate.undefined_reason is not None
    assert interval.undefined_reason == interval.estimate.undefined_reason
