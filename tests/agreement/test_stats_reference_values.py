"""Published reference values for every coefficient (sources cited per test)."""

from __future__ import annotations

import numpy as np
import pytest
from krippendorff_reference import krippendorff_alpha

from core.stats import (
    alpha_from_counts,
    brennan_prediger,
    cohen_kappa,
    cohen_kappa_from_table,
    coincidence_matrix,
    counts_from_dense,
    fleiss_kappa,
    gwet_ac,
    percent_agreement,
    scott_pi,
)

NAN = np.nan

# Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# (rows) x 12 units (columns), values 1-5, NaN = missing. The same table is Gwet 2014,
# Handbook of Inter-Rater Reliability, 4th ed., p. 120 (irrCAC dataset cac.raw4raters).
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
SCALE_1_5 = [1, 2, 3, 4, 5]


@pytest.fixture
def k2011() -> np.ndarray:
    return counts_from_dense(KRIPPENDORFF_2011, SCALE_1_5)


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_worked_example(k2011: np.ndarray, level: str, published: float) -> None:
    """Krippendorff 2011, sections C (nominal alpha = 0.743), E (ordinal 0.815, interval 0.849,
    ratio 0.797)."""
    ours = alpha_from_counts(k2011, level, SCALE_1_5)
    ref = krippendorff_alpha(k2011, level, SCALE_1_5)
    assert ours.value is not None and ref.value is not None
    assert round(ours.value, 3) == published
    assert round(ref.value, 3) == published
    assert ours.value == pytest.approx(ref.value, abs=1e-12)
    # Section C: 11 pairable units, n = 40 pairable values.
    assert ours.n_units == 11 and ours.n_ratings == 40


def test_krippendorff_2011_nominal_components(k2011: np.ndarray) -> None:
    """Krippendorff 2011, section C: n_c = (9, 13, 10, 5, 3), n = 40, 4 unordered disagreeing
    coincidences, alpha = 1 - (40 - 1) * 4 / 608 = 0.743."""
    o = coincidence_matrix(k2011)
    np.testing.assert_allclose(o.sum(axis=1), [9, 13, 10, 5, 3])
    assert (o.sum() - np.trace(o)) / 2 == pytest.approx(4.0)
    result = alpha_from_counts(k2011, "nominal", SCALE_1_5)
    assert result.observed == pytest.approx(8 / 40)
    # sum_{c != k} n_c n_k over ordered pairs = 40^2 - sum n_c^2 = 1216 (608 unordered).
    assert result.expected == pytest.approx(1216 / (40 * 39))
    assert result.value == pytest.approx(1 - 39 * 4 / 608)


def test_cohen_kappa_wikipedia_example() -> None:
    """Wikipedia "Cohen's kappa", worked example: 50 grant proposals, yes/yes 20, no/no 15,
    A-yes/B-no 5, A-no/B-yes 10 -> p_o = 0.7, p_e = 0.5, kappa = 0.4. Also the two
    prevalence/bias examples on the same page: kappa = 0.1304 and 0.2593."""
    result = cohen_kappa_from_table([[20, 5], [10, 15]])
    assert result.value == pytest.approx(0.4)
    assert result.observed == pytest.approx(0.7)
    assert result.expected == pytest.approx(0.5)
    assert cohen_kappa_from_table([[45, 15], [25, 15]]).value == pytest.approx(0.1304, abs=5e-5)
    assert cohen_kappa_from_table([[25, 35], [5, 35]]).value == pytest.approx(0.2593, abs=5e-5)


def test_cohen_kappa_from_raw_ratings_matches_table() -> None:
    """Same Wikipedia example expanded into 50 paired ratings (1 = yes, 0 = no)."""
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b, n_values=2).value == pytest.approx(0.4)


def test_weighted_kappa_sas_example() -> None:
    """SAS PROC FREQ AGREE example on a 3x3 table (Uebersax's SAS page, reproduced in the
    statsmodels test suite): simple kappa = 0.4842, weighted kappa with Cicchetti-Allison
    (linear) weights = 0.4701."""
    table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    assert cohen_kappa_from_table(table).value == pytest.approx(0.4842, abs=5e-5)
    assert cohen_kappa_from_table(table, "linear").value == pytest.approx(0.4701, abs=5e-5)


# Fleiss 1971, "Measuring nominal scale agreement among many raters", Table 1: 30 patients
# x 6 psychiatrists, 5 diagnoses (as distributed in R package irr, dataset `diagnoses`).
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ]
)


def test_fleiss_1971_example() -> None:
    """Fleiss 1971, p. 381: kappa = 0.430 for the 30 x 6 x 5 psychiatric diagnoses
    (R irr::kappam.fleiss(diagnoses) = 0.4302445)."""
    counts = counts_from_dense(FLEISS_1971.T, SCALE_1_5)
    result = fleiss_kappa(counts)
    assert result.value == pytest.approx(0.4302445, abs=1e-7)
    assert round(result.value, 3) == 0.430


def test_fleiss_wikipedia_example() -> None:
    """Wikipedia "Fleiss' kappa" worked example: 10 subjects x 14 raters x 5 categories
    (given directly as counts) -> P_bar = 0.378, P_e = 0.213, kappa = 0.210."""
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    result = fleiss_kappa(counts)
    assert round(result.value or 0.0, 3) == 0.210
    assert round(result.observed or 0.0, 3) == 0.378
    assert round(result.expected or 0.0, 3) == 0.213


def test_gwet_ac1_handbook_example(k2011: np.ndarray) -> None:
    """Gwet 2014, Handbook, 4th ed., p. 120 data (irrCAC gwet.ac1.raw(cac.raw4raters)):
    p_a = 0.818, p_e = 0.190, AC1 = 0.775; pa.coeff.raw gives percent agreement 0.818."""
    result = gwet_ac(k2011)
    assert round(result.value or 0.0, 3) == 0.775
    assert round(result.observed or 0.0, 3) == 0.818
    assert round(result.expected or 0.0, 3) == 0.190
    assert round(percent_agreement(k2011).value or 0.0, 3) == 0.818


def test_brennan_prediger_and_scott_pi_on_the_handbook_example(k2011: np.ndarray) -> None:
    """Gwet 2014 p. 120 data: p_a = 0.818 with q = 5 values, so Brennan-Prediger's chance term
    is 1/5 and the coefficient (0.818 - 0.2) / 0.8 = 0.773 (irrCAC bp.coeff.raw: 0.7727)."""
    bp = brennan_prediger(k2011)
    assert bp.expected == pytest.approx(0.2) and bp.observed == pytest.approx(9 / 11)
    assert bp.value == pytest.approx((9 / 11 - 0.2) / 0.8)
    assert round(bp.value or 0.0, 4) == 0.7727
    pi = scott_pi(k2011)
    assert pi.observed == pytest.approx(9 / 11)
    assert pi.value is not None and pi.value < (gwet_ac(k2011).value or 0.0)


@pytest.mark.parametrize(
    ("weights", "pa", "pe", "ac2"),
    [
        ("linear", 0.939, 0.571, 0.859),
        ("quadratic", 0.975, 0.714, 0.914),
        ("ordinal", 0.968, 0.685, 0.899),
    ],
)
def test_gwet_ac2_handbook_example(
    k2011: np.ndarray, weights: str, pa: float, pe: float, ac2: float
) -> None:
    """Gwet 2014 p. 120 data with weights (irrCAC gwet.ac1.raw(cac.raw4raters, weights=...);
    values as published in the irrCAC test-suite port)."""
    result = gwet_ac(k2011, weights=weights, value_domain=SCALE_1_5)
    assert round(result.value or 0.0, 3) == ac2
    assert round(result.observed or 0.0, 3) == pa
    assert round(result.expected or 0.0, 3) == pe
