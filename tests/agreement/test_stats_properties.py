"""Property tests: every coefficient equals an independent brute-force oracle.

The oracles (``agreement_oracles``) enumerate rater pairs with plain Python loops, so they
share no code path with the vectorised implementations.
"""

from __future__ import annotations

import agreement_oracles as oracle
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from krippendorff_reference import krippendorff_alpha

from core.stats import (
    alpha_from_counts,
    alpha_stack,
    brennan_prediger,
    cohen_kappa,
    counts_from_dense,
    counts_from_pairs,
    cronbach_alpha,
    fleiss_kappa,
    gwet_ac,
    percent_agreement,
    scott_pi,
    specific_agreement,
)

SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def reliability_data(
    draw: st.DrawFn, max_values: int = 5, max_raters: int = 6, max_units: int = 15
) -> tuple[int, list[list[int]]]:
    q = draw(st.integers(2, max_values))
    units = draw(
        st.lists(
            st.lists(st.integers(0, q - 1), max_size=max_raters), min_size=1, max_size=max_units
        )
    )
    return q, units


def to_pairs(units: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    u = [i for i, ratings in enumerate(units) for _ in ratings]
    v = [x for ratings in units for x in ratings]
    return np.array(u, dtype=np.int64), np.array(v, dtype=np.int64)


def build_counts(q: int, units: list[list[int]]) -> np.ndarray:
    u, v = to_pairs(units)
    return counts_from_pairs(u, v, n_units=len(units), n_values=q)


@SETTINGS
@given(reliability_data())
def test_counts_from_pairs_matches_loop(data: tuple[int, list[list[int]]]) -> None:
    q, units = data
    assert build_counts(q, units).tolist() == oracle.counts(units, q)


@SETTINGS
@given(reliability_data(), st.randoms())
def test_counts_from_dense_matches_pairs(data: tuple[int, list[list[int]]], rnd) -> None:
    q, units = data
    raters = max((len(r) for r in units), default=0) + 1
    dense = np.full((raters, len(units)), np.nan)
    for u, ratings in enumerate(units):
        slots = rnd.sample(range(raters), len(ratings))
        for slot, value in zip(slots, ratings, strict=True):
            dense[slot, u] = 10.0 * value - 3.0  # arbitrary numeric labels
    domain = [10.0 * v - 3.0 for v in range(q)]
    assert counts_from_dense(dense, domain).tolist() == oracle.counts(units, q)


@SETTINGS
@given(reliability_data(), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_matches_brute_force_and_reference(
    data: tuple[int, list[list[int]]], level: str
) -> None:
    q, units = data
    domain = [float(v * v + 1) for v in range(q)]  # uneven spacing exercises interval
    counts = build_counts(q, units)
    expected = oracle.alpha(units, level, domain)
    ours = alpha_from_counts(counts, level, domain)
    ref = krippendorff_alpha(counts, level, domain)
    if expected is None:
        assert ours.value is None and ours.undefined_reason
        assert ref.value is None and ref.undefined_reason
        return
    assert ours.value == pytest.approx(expected, abs=1e-9)
    assert ref.value == pytest.approx(expected, abs=1e-9)
    stacked = alpha_stack(np.stack([counts, counts[::-1]]), level, domain)
    np.testing.assert_allclose(stacked, [expected, expected], atol=1e-9)


@SETTINGS
@given(reliability_data(), st.sampled_from(["identity", "linear", "quadratic", "ordinal"]))
def test_gwet_ac_matches_brute_force(data: tuple[int, list[list[int]]], weights: str) -> None:
    q, units = data
    domain = [float(2 * v + 1) for v in range(q)]
    expected = oracle.gwet_ac(units, weights, domain)
    result = gwet_ac(build_counts(q, units), weights=weights, value_domain=domain)
    if expected is None:
        assert result.value is None
    else:
        assert result.value == pytest.approx(expected, abs=1e-9)


@SETTINGS
@given(reliability_data(), st.sampled_from(["identity", "linear", "quadratic", "ordinal"]))
def test_brennan_prediger_and_scott_pi_match_brute_force(
    data: tuple[int, list[list[int]]], weights: str
) -> None:
    q, units = data
    domain = [float(2 * v + 1) for v in range(q)]
    counts = build_counts(q, units)
    for ours, expected in [
        (brennan_prediger, oracle.brennan_prediger(units, weights, domain)),
        (scott_pi, oracle.scott_pi(units, weights, domain)),
    ]:
        result = ours(counts, weights=weights, value_domain=domain)
        if expected is None:
            assert result.value is None and result.undefined_reason
        else:
            assert result.value == pytest.approx(expected, abs=1e-9)


@SETTINGS
@given(reliability_data())
def test_percent_agreement_matches_brute_force(data: tuple[int, list[list[int]]]) -> None:
    q, units = data
    expected = oracle.percent_agreement(units)
    result = percent_agreement(build_counts(q, units))
    assert (result.value is None) == (expected is None)
    if expected is not None:
        assert result.value == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(
    st.integers(2, 5).flatmap(
        lambda q: st.tuples(
            st.just(q),
            st.integers(2, 6).flatmap(
                lambda m: st.lists(
                    st.lists(st.integers(0, q - 1), min_size=m, max_size=m),
                    min_size=1,
                    max_size=12,
                )
            ),
        )
    )
)
def test_fleiss_matches_brute_force(data: tuple[int, list[list[int]]]) -> None:
    q, units = data
    expected = oracle.fleiss(units, q)
    result = fleiss_kappa(build_counts(q, units))
    if expected is None:
        assert result.value is None
    else:
        assert result.value == pytest.approx(expected, abs=1e-9)
        # Fleiss 1971 generalises Scott's pi: with every unit fully rated they coincide.
        assert scott_pi(build_counts(q, units)).value == pytest.approx(expected, abs=1e-9)


@SETTINGS
@given(
    st.integers(2, 5).flatmap(
        lambda q: st.tuples(
            st.just(q),
            st.lists(st.tuples(st.integers(0, q - 1), st.integers(0, q - 1)), min_size=1),
        )
    ),
    st.sampled_from(["none", "linear", "quadratic"]),
)
def test_cohen_kappa_matches_brute_force(
    data: tuple[int, list[tuple[int, int]]], weights: str
) -> None:
    q, pairs = data
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    expected = oracle.cohen(a, b, weights, q)
    result = cohen_kappa(a, b, n_values=q, weights=weights)
    if expected is None:
        assert result.value is None
    else:
        assert result.value == pytest.approx(expected, abs=1e-9)


@SETTINGS
@given(reliability_data(max_values=2))
def test_specific_agreement_matches_brute_force(data: tuple[int, list[list[int]]]) -> None:
    _, units = data
    positive, negative = specific_agreement(build_counts(2, units))
    assert positive.value == pytest.approx(oracle.specific_agreement(units, 1))
    assert negative.value == pytest.approx(oracle.specific_agreement(units, 0))


@SETTINGS
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(1, 5).map(float), min_size=k, max_size=k),
            min_size=2,
            max_size=20,
        )
    )
)
def test_cronbach_matches_brute_force(rows: list[list[float]]) -> None:
    expected = oracle.cronbach(rows)
    result = cronbach_alpha(np.array(rows), minimum_respondents=2)
    if expected is None:
        assert result.value is None and result.undefined_reason
    else:
        assert result.value == pytest.approx(expected, abs=1e-9)


def test_two_rater_specific_agreement_reduces_to_cicchetti_feinstein() -> None:
    """Cicchetti & Feinstein 1990: p_pos = 2a / (2a + b + c), p_neg = 2d / (2d + b + c)."""
    a, b, c, d = 40, 6, 4, 10
    units = [[1, 1]] * a + [[1, 0]] * b + [[0, 1]] * c + [[0, 0]] * d
    positive, negative = specific_agreement(build_counts(2, units))
    assert positive.value == pytest.approx(2 * a / (2 * a + b + c))
    assert negative.value == pytest.approx(2 * d / (2 * d + b + c))
