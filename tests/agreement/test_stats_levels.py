"""A judge's levels against one reference level per item (pure): quadratic-weighted kappa
against scikit-learn's, exact and within-one agreement, Bland-Altman by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.stats import FEWER_THAN_TWO_PAIRS, NO_VARIATION, level_agreement
from tests.reference_packages import cohen_kappa_score

SCALE = (0, 3)
levels = st.one_of(st.none(), st.integers(min_value=SCALE[0], max_value=SCALE[1]))


def _array(values: list[int | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def test_quadratic_kappa_exact_within_one_and_limits_of_a_worked_example() -> None:
    judge = _array([0, 1, 2, 3, 3, 1, None])
    gold = _array([0, 2, 2, 1, 3, 1, 2])
    found = level_agreement(judge, gold, SCALE)
    assert found.n == 6  # the last item has no judge level
    assert (found.exact.numerator, found.within_one.numerator) == (4, 5)
    reference = cohen_kappa_score([0, 2, 2, 1, 3, 1], [0, 1, 2, 3, 3, 1], weights="quadratic")
    assert found.quadratic_kappa.value == pytest.approx(reference)
    # Differences judge - gold: 0, -1, 0, 2, 0, 0: mean 1/6, SD sqrt(29/30).
    limits = found.bland_altman
    assert limits.n == 6
    assert limits.mean_difference == pytest.approx(1 / 6)
    assert limits.sd_difference == pytest.approx((29 / 30) ** 0.5)
    assert limits.lower_limit == pytest.approx(1 / 6 - 1.96 * (29 / 30) ** 0.5)
    assert limits.upper_limit == pytest.approx(1 / 6 + 1.96 * (29 / 30) ** 0.5)


def test_a_scale_that_does_not_start_at_zero_gives_the_same_kappa_as_its_indices() -> None:
    judge, gold = _array([1, 2, 5, 4, 3]), _array([1, 3, 4, 4, 2])
    shifted = level_agreement(judge, gold, (1, 5))
    as_indices = level_agreement(judge - 1, gold - 1, (0, 4))
    assert shifted.quadratic_kappa.value == pytest.approx(as_indices.quadratic_kappa.value)
    assert shifted.bland_altman.mean_difference == pytest.approx(0.2)


def test_nothing_in_common_and_one_level_everywhere_are_undefined_with_the_reason() -> None:
    nothing = level_agreement(_array([1, None]), _array([None, 2]), SCALE)
    assert nothing.n == 0 and nothing.quadratic_kappa.value is None
    assert nothing.bland_altman.undefined_reason == FEWER_THAN_TWO_PAIRS
    same = level_agreement(_array([2, 2, 2]), _array([2, 2, 2]), SCALE)
    assert same.quadratic_kappa.undefined_reason == NO_VARIATION
    assert same.exact.value == 1.0 and same.bland_altman.mean_difference == 0.0


def test_a_level_off_the_scale_or_a_fraction_is_refused() -> None:
    with pytest.raises(ValueError, match="from 0 to 3"):
        level_agreement(_array([4]), _array([3]), SCALE)
    with pytest.raises(ValueError, match="whole numbers"):
        level_agreement(_array([1.5]), _array([1]), SCALE)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(levels, levels), min_size=1, max_size=40))
def test_level_agreement_equals_scikit_learn_and_a_loop(
    pairs: list[tuple[int | None, int | None]],
) -> None:
    judge = _array([j for j, _ in pairs])
    gold = _array([g for _, g in pairs])
    found = level_agreement(judge, gold, SCALE)
    both = [(j, g) for j, g in pairs if j is not None and g is not None]
    assert found.n == len(both)
    assert found.exact.numerator == sum(1 for j, g in both if j == g)
    assert found.within_one.numerator == sum(1 for j, g in both if abs(j - g) <= 1)
    if found.quadratic_kappa.value is not None:
        reference = cohen_kappa_score(
            [g for _, g in both], [j for j, _ in both], weights="quadratic", labels=[0, 1, 2, 3]
        )
        assert found.quadratic_kappa.value == pytest.approx(reference, abs=1e-9)
    if len(both) >= 2:
        differences = np.array([j - g for j, g in both], dtype=np.float64)
        assert found.bland_altman.mean_difference == pytest.approx(differences.mean())
