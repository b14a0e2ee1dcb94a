"""Judge runs side by side (pure: no database): the shared units, unparseable answers as
exclusions, and McNemar's test per criterion, Holm-corrected, said in a sentence."""

import numpy as np
import pytest
from django.utils import translation

from core.analysis.calibration import MISSING, experts_matrix
from core.analysis.comparison import UNPARSEABLE, RunVerdicts, compare_runs
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.stats import majority_reference
from l2annot.shown import message_text

N_ITEMS, N_CRITERIA, N_EXPERTS = 120, 3, 3


def study(seed=3):
    """Truth passes with p = 0.5; each expert flips it with p = 0.05."""
    rng = np.random.default_rng(seed)
    criteria = [CriterionInfo(i, f"c{i}", "", "task", "01a", "01") for i in range(N_CRITERIA)]
    items = [ItemInfo(i, f"t{i}", "01a", "01", ("acme", "other")[i % 2]) for i in range(N_ITEMS)]
    truth = (rng.random((N_ITEMS, N_CRITERIA)) < 0.5).astype(int)
    rows = []
    for expert in range(N_EXPERTS):
        flips = rng.random(truth.shape) < 0.05
        for (item, crit), value in np.ndenumerate(np.where(flips, 1 - truth, truth)):
            rows.append((item, crit, expert, int(value)))
    ratings = ratings_from_rows(rows, criteria, items, [f"E{n}" for n in range(N_EXPERTS)])
    unit_truth = truth[ratings.unit_item, ratings.unit_criterion].astype(np.int64)
    families = tuple(item.model_family for item in items)
    return ratings, unit_truth, families, rng


def compare(ratings, runs, families, gold=None):
    gold = np.full(ratings.n_units, MISSING) if gold is None else gold
    return compare_runs(ratings, runs, gold, families, n_resamples=200, seed=1)


def test_a_judge_that_follows_the_truth_beats_a_coin_on_every_criterion():
    ratings, truth, families, rng = study()
    coin = (rng.random(truth.size) < 0.5).astype(np.int64)
    result = compare(
        ratings, [RunVerdicts("coin", coin), RunVerdicts("v2", truth.copy())], families
    )
    pair = result.pairs[0]
    assert (pair.first, pair.second) == ("coin", "v2")
    assert (pair.more, pair.less, pair.no_difference) == (3, 0, 0)
    assert pair.sentence == (
        "v2 agrees with the experts more than coin on 3 criteria, less on 0, "
        "no detectable difference on 0 (McNemar's test per criterion, p-values "
        "Holm-corrected for the 3 criteria tested, 5% family-wise level)"
    )
    with translation.override("es"):  # written in English, read in the reader's language
        assert message_text(pair.sentence) == (
            "v2 concuerda con los expertos más que coin en 3 criterios, menos en 0, sin "
            "diferencia detectable en 0 (prueba de McNemar por criterio, valores p corregidos "
            "por Holm para los 3 criterios contrastados, nivel por familia 5%)"
        )
    assert pair.overall.direction == 1
    coin_run, good_run = result.runs
    assert good_run.overall.calibration.vs_majority.accuracy.value > 0.95
    assert good_run.overall.alpha.estimate.value > coin_run.overall.alpha.estimate.value
    assert good_run.overall.alpha.low is not None and good_run.overall.ac1.high is not None


def test_two_identical_runs_show_no_detectable_difference():
    ratings, truth, families, _ = study()
    result = compare(ratings, [RunVerdicts("v1", truth), RunVerdicts("v2", truth)], families)
    pair = result.pairs[0]
    assert (pair.more, pair.less, pair.no_difference) == (0, 0, 3)
    assert all(test.test.discordant == 0 for test in pair.criteria)


def test_runs_are_compared_on_the_units_they_share_only():
    ratings, truth, families, _ = study()
    partial = truth.copy()
    partial[: ratings.n_units // 2] = MISSING  # this run judged half the units
    result = compare(ratings, [RunVerdicts("v1", truth), RunVerdicts("v2", partial)], families)
    assert result.n_shared == ratings.n_units - ratings.n_units // 2
    assert result.runs[0].overall.n_shared == result.n_shared
    assert result.runs[0].overall.calibration.n_units == result.n_shared


def test_an_unparseable_answer_is_an_exclusion_not_a_pass_or_a_fail():
    ratings, truth, families, _ = study()
    garbled = truth.copy()
    garbled[::10] = UNPARSEABLE
    n_garbled = int((garbled == UNPARSEABLE).sum())
    result = compare(ratings, [RunVerdicts("v1", truth), RunVerdicts("v2", garbled)], families)
    clean, messy = result.runs
    # The unparseable units stay shared (the run did judge them) ...
    assert result.n_shared == ratings.n_units
    assert messy.overall.unparseable.numerator == n_garbled
    assert messy.overall.unparseable.denominator == ratings.n_units
    assert clean.overall.unparseable.numerator == 0
    # ... but enter no statistic: the accuracy of the rest is unchanged, n is smaller.
    assert messy.overall.calibration.n_units == ratings.n_units - n_garbled
    assert messy.overall.calibration.vs_majority.accuracy.value == pytest.approx(
        clean.overall.calibration.vs_majority.accuracy.value, abs=0.02
    )
    assert sum(c.unparseable.numerator for c in messy.criteria) == n_garbled
    # and the paired test counts only units both runs answered.
    assert result.pairs[0].overall.test.n_pairs <= ratings.n_units - n_garbled


def test_self_preference_gap_of_a_judge_lenient_to_its_own_family():
    ratings, truth, families, _ = study()
    unit_family = np.array([families[i] for i in ratings.unit_item])
    lenient = np.where((unit_family == "acme") & (truth == 0), 1, truth).astype(np.int64)
    result = compare(
        ratings,
        [RunVerdicts("fair", truth, family="acme"), RunVerdicts("biased", lenient, "acme")],
        families,
    )
    fair, biased = result.runs
    assert abs(fair.self_preference_gap) < 0.1
    assert biased.self_preference_gap > 0.3
    assert result.runs[0].tokens is None  # not recorded


def test_gold_verdicts_give_accuracy_against_gold():
    ratings, truth, families, _ = study()
    result = compare(
        ratings, [RunVerdicts("v1", truth), RunVerdicts("v2", 1 - truth)], families, truth
    )
    assert result.runs[0].overall.calibration.vs_gold.accuracy.value == 1.0
    assert result.runs[1].overall.calibration.vs_gold.accuracy.value == 0.0


def test_three_runs_make_three_pairs_later_run_second():
    ratings, truth, families, _ = study()
    runs = [RunVerdicts(name, truth) for name in ("a", "b", "c")]
    result = compare(ratings, runs, families)
    assert [(p.first, p.second) for p in result.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]


def test_a_difference_each_criterion_shows_at_five_percent_alone_does_not_survive_holm():
    ratings, _, families, _ = study()
    majority = majority_reference(experts_matrix(ratings, np.arange(ratings.n_units)))
    worse = majority.copy()
    for criterion in range(N_CRITERIA):  # wrong on six units of each criterion
        worse[np.flatnonzero(ratings.unit_criterion == criterion)[:6]] ^= 1
    result = compare(ratings, [RunVerdicts("v1", majority), RunVerdicts("v2", worse)], families)
    pair = result.pairs[0]
    for test in pair.criteria:
        assert (test.test.first_only, test.test.second_only) == (6, 0)
        assert test.test.p_value == pytest.approx(2 / 64)  # alone: v2 agrees less at 5%
        assert test.test.winner() == -1
        assert test.p_adjusted == pytest.approx(3 * 2 / 64)  # three tests: not any more
        assert test.direction == 0
    assert (pair.more, pair.less, pair.no_difference) == (0, 0, 3)
    assert pair.overall.direction == -1  # eighteen units all one way, one test
