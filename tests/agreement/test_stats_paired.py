"""McNemar's paired test (pure): exact binomial for few discordant units, continuity-corrected
chi-square from 25 on, checked against hand-computed textbook values."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.stats import Ratio, holm, mcnemar
from core.stats.paired import CHI_SQUARE, EXACT, EXACT_BELOW, chi_square_1df_p, wilson_interval


def test_no_discordant_unit_gives_p_of_one_and_no_winner():
    result = mcnemar(0, 0, n_pairs=40)
    assert (result.p_value, result.method, result.winner()) == (1.0, EXACT, 0)
    assert result.n_pairs == 40


def test_one_against_nine_is_the_exact_binomial_tail():
    # P(X <= 1 | n = 10, p = 1/2) = (1 + 10) / 1024; two-sided doubles it: 0.021484375.
    result = mcnemar(1, 9)
    assert result.p_value == pytest.approx(22 / 1024, abs=1e-15)
    assert result.statistic is None
    assert result.winner() == 1  # the second rater is right more often
    assert mcnemar(9, 1).winner() == -1


def test_zero_against_five_is_not_significant_at_five_percent():
    # 2 / 2^5 = 0.0625: five discordant units all one way are too few.
    result = mcnemar(0, 5)
    assert result.p_value == pytest.approx(0.0625)
    assert result.winner() == 0


def test_chi_square_p_value_of_the_95th_percentile_is_five_percent():
    # The 95th percentile of chi-square with 1 df is 1.959964^2 = 3.841459 (statistical tables).
    assert chi_square_1df_p(3.841459) == pytest.approx(0.05, abs=1e-6)
    assert chi_square_1df_p(6.634897) == pytest.approx(0.01, abs=1e-6)
    assert chi_square_1df_p(0.0) == 1.0


def test_large_counts_use_the_continuity_corrected_chi_square():
    # Agresti (2013, table 11.1): approval of the prime minister in two surveys, 150 changed
    # one way and 86 the other. Corrected statistic (|150 - 86| - 1)^2 / 236 = 16.818.
    result = mcnemar(150, 86, n_pairs=1600)
    assert result.method == CHI_SQUARE
    assert result.statistic == pytest.approx(3969 / 236)
    assert result.p_value == pytest.approx(math.erfc(math.sqrt(3969 / 236 / 2)))
    assert result.p_value < 1e-4
    assert result.winner() == -1


def test_the_switch_to_chi_square_happens_at_25_discordant_units():
    assert mcnemar(5, EXACT_BELOW - 6).method == EXACT
    assert mcnemar(5, EXACT_BELOW - 5).method == CHI_SQUARE


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_test_is_symmetric_and_a_probability(b, c):
    forward, backward = mcnemar(b, c), mcnemar(c, b)
    assert forward.p_value == pytest.approx(backward.p_value)
    assert 0.0 <= forward.p_value <= 1.0
    assert forward.winner() == -backward.winner()


@given(st.integers(EXACT_BELOW, 200), st.floats(0.0, 1.0))
def test_chi_square_is_close_to_the_exact_test_where_it_is_used(n, share):
    b = round(n * share)
    exact = min(1.0, 2 * sum(math.comb(n, k) for k in range(min(b, n - b) + 1)) / 2**n)
    assert mcnemar(b, n - b).p_value == pytest.approx(exact, abs=0.02)


def test_impossible_counts_are_refused():
    with pytest.raises(ValueError):
        mcnemar(-1, 3)
    with pytest.raises(ValueError):
        mcnemar(3, 3, n_pairs=5)


def test_equal_large_counts_are_no_evidence_at_all():
    assert mcnemar(13, 13).p_value == 1.0


def test_wilson_interval_of_textbook_proportions():
    # Newcombe (1998), table I: 81/263 gives 0.2553 to 0.3662; 15/148 gives 0.0624 to 0.1605.
    low, high = wilson_interval(Ratio(81, 263))
    assert (low, high) == (pytest.approx(0.2553, abs=1e-4), pytest.approx(0.3662, abs=1e-4))
    low, high = wilson_interval(Ratio(15, 148))
    assert (low, high) == (pytest.approx(0.0624, abs=1e-4), pytest.approx(0.1605, abs=1e-4))
    # 0 of 20: the upper bound is z^2 / (n + z^2) = 3.8415 / 23.8415.
    assert wilson_interval(Ratio(0, 20)) == (0.0, pytest.approx(1.959964**2 / (20 + 1.959964**2)))
    assert wilson_interval(Ratio(0, 0)) == (None, None)


# Reference values: statsmodels 0.14.4, `multipletests(p, method="holm")[1]`.
HOLM_CASES = [
    ([0.01, 0.04, 0.03, 0.005, 0.2, 0.04], [0.05, 0.12, 0.12, 0.03, 0.2, 0.12]),
    (
        [0.0001, 0.0215, 0.0625, 1.0, 0.3, 0.0123, 0.049, 0.5],
        [0.0008, 0.129, 0.25, 1.0, 0.9, 0.0861, 0.245, 1.0],
    ),
    ([0.02, 0.02, 0.02], [0.06, 0.06, 0.06]),
    ([0.5], [0.5]),
    ([], []),
]


@pytest.mark.parametrize(("p_values", "expected"), HOLM_CASES)
def test_holm_adjusted_p_values_equal_statsmodels(p_values, expected):
    assert holm(p_values) == pytest.approx(expected, abs=1e-12)


@given(st.lists(st.floats(0.0, 1.0), max_size=30))
def test_holm_lies_between_the_raw_p_value_and_bonferroni(p_values):
    adjusted = holm(p_values)
    m = len(p_values)
    for raw, corrected in zip(p_values, adjusted, strict=True):
        assert raw <= corrected <= min(1.0, m * raw) + 1e-12
    ranked = [adjusted[i] for i in sorted(range(m), key=lambda i: p_values[i])]
    assert ranked == sorted(ranked)  # a smaller p-value never gets a larger adjusted one


def test_holm_refuses_a_value_that_is_not_a_probability():
    with pytest.raises(ValueError):
        holm([0.1, 1.5])
    with pytest.raises(ValueError):
        holm([math.nan])
