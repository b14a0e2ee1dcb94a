"""The judge on the tutor turns of dialogues against the experts' majority on each turn: the
figures of a hand-computed example, the turns left out by reason, intervals resampling
responses."""

import krippendorff
import numpy as np
import pytest

from core.analysis.calibration import FAIL, MISSING, PASS, UNPARSEABLE, turn_calibration
from core.analysis.ratings import CriterionInfo, ItemInfo, StudyRatings
from core.stats import alternative_annotator_test
from core.stats.clustered import clustered_calibration

P, F = PASS, FAIL


def turn_ratings(units, experts, criteria=1, na=()):
    """StudyRatings of tutor turns: `units` as (item, criterion, turn id), `experts` per unit
    the two experts' values (None: not graded); `na` (item, criterion) pairs graded N/A."""
    rating_unit, rating_rater, rating_value = [], [], []
    for unit, values in enumerate(experts):
        for rater, value in enumerate(values):
            if value is not None:
                rating_unit.append(unit)
                rating_rater.append(rater)
                rating_value.append(value)
    items = sorted({u[0] for u in units})
    return StudyRatings(
        criteria=tuple(
            CriterionInfo(
                key=10 + c,
                code=f"c{c}",
                wording=f"Criterion {c}",
                layer="task",
                sub_competency="",
                competency="",
            )
            for c in range(criteria)
        ),
        items=tuple(
            ItemInfo(key=i, task_key=f"t{i}", sub_competency="", competency="") for i in items
        ),
        raters=("Annotator 1", "Annotator 2"),
        unit_item=np.array([u[0] for u in units], dtype=np.int64),
        unit_criterion=np.array([u[1] for u in units], dtype=np.int64),
        rating_unit=np.array(rating_unit, dtype=np.int64),
        rating_rater=np.array(rating_rater, dtype=np.int64),
        rating_value=np.array(rating_value, dtype=np.int64),
        na_item=np.array([n[0] for n in na], dtype=np.int64),
        na_criterion=np.array([n[1] for n in na], dtype=np.int64),
        unit_turn=np.array([u[2] for u in units], dtype=np.int64),
    )


def test_accuracy_and_kappa_per_turn_against_the_majority_with_the_turns_left_out_by_reason():
    # Two dialogues: the first with tutor turns 1 and 3, the second with 1, 3, 5 and 7.
    units = [(0, 0, 1), (0, 0, 3), (1, 0, 11), (1, 0, 13), (1, 0, 15), (1, 0, 17)]
    experts = [(P, P), (F, F), (P, F), (F, F), (P, P), (P, P)]
    judge = np.array([P, P, P, F, MISSING, UNPARSEABLE])
    (found,) = turn_calibration(turn_ratings(units, experts, na=[(1, 0)]), judge)
    # Compared: turn 1 (P vs P), turn 3 (P vs F), the second's turn 3 (F vs F). By hand:
    # accuracy 2/3; p_o = 2/3, p_e = 2/3 * 1/3 + 1/3 * 2/3 = 4/9, kappa = (2/9) / (5/9) = 0.4.
    calibration = found.vs_majority.calibration
    assert (calibration.accuracy.numerator, calibration.accuracy.denominator) == (2, 3)
    assert calibration.kappa.value == pytest.approx(0.4)
    assert calibration.kappa.n_units == 3 and found.n_compared == 3
    assert calibration.confusion.tolist() == [[1, 1], [0, 1]]  # rows: the experts' majority
    assert (found.label, found.n_turns, found.n_responses) == ("c0", 6, 2)
    assert (found.not_judged, found.unparseable, found.tied, found.graded_na) == (1, 1, 1, 1)
    # Two dialogues are too few for an interval: estimated, its bounds withheld with the reason.
    assert found.vs_majority.accuracy.estimate.value == calibration.accuracy.value
    assert found.vs_majority.kappa.low is None
    assert "2 responses" in found.vs_majority.kappa.unreliable_reason


def test_two_turn_level_criteria_also_give_a_row_of_every_turn():
    units = [(0, 0, 1), (0, 1, 1), (1, 0, 5), (1, 1, 5)]
    experts = [(P, P), (F, F), (P, P), (P, P)]
    found = turn_calibration(turn_ratings(units, experts, criteria=2), np.array([P, P, P, F]))
    assert [(t.label, t.n_compared) for t in found] == [
        ("c0", 2),
        ("c1", 2),
        ("all turn-level criteria", 4),
    ]
    assert found[2].vs_majority.calibration.accuracy.numerator == 2


def test_no_turn_graded_gives_no_rows():
    assert turn_calibration(turn_ratings([], []), np.empty(0, dtype=np.int64)) == ()


def test_intervals_resample_responses_so_a_dialogue_of_identical_turns_counts_once():
    rng = np.random.default_rng(3)
    reference = rng.integers(0, 2, 20)
    judge = np.where(rng.random(20) < 0.8, reference, 1 - reference)
    # The same 20 judgements, each repeated on 5 turns of its dialogue: the responses, not the
    # turns, are what vary, so the interval is as wide as with one turn per dialogue.
    single = clustered_calibration(judge, reference, np.arange(20), n_resamples=400, seed=1)
    repeated = clustered_calibration(
        np.repeat(judge, 5), np.repeat(reference, 5), np.repeat(np.arange(20), 5),
        n_resamples=400, seed=1,
    )  # fmt: skip
    assert repeated.n_clusters == 20 and repeated.calibration.n_items == 100
    assert repeated.accuracy.method == "percentile bootstrap (clusters)"
    assert repeated.accuracy.n_resamples == 400
    assert repeated.accuracy.low == single.accuracy.low
    assert repeated.accuracy.high == single.accuracy.high
    assert repeated.kappa.low == single.kappa.low and repeated.kappa.high == single.kappa.high
    assert repeated.accuracy.low < repeated.accuracy.estimate.value < repeated.accuracy.high
    # Resampling the 100 turns as if independent would give a narrower interval.
    turns = clustered_calibration(
        np.repeat(judge, 5), np.repeat(reference, 5), np.arange(100), n_resamples=400, seed=1
    )
    assert turns.accuracy.high - turns.accuracy.low < repeated.accuracy.high - repeated.accuracy.low


def _gwet_ac1_loop(matrix):
    """Gwet's AC1 (Gwet 2008, eq. 14) of a (raters, units) 0/1 matrix with NaN, by a loop over
    the units with two ratings or more."""
    rows = []
    for column in matrix.T:
        given = column[~np.isnan(column)]
        if given.size >= 2:
            rows.append((given.size, int(given.sum())))
    p_a = np.mean([(p * (p - 1) + (n - p) * (n - p - 1)) / (n * (n - 1)) for n, p in rows])
    pi = np.mean([p / n for n, p in rows])
    p_e = 2 * pi * (1 - pi) / 1  # q - 1 = 1 for two values
    return (p_a - p_e) / (1 - p_e)


def test_per_turn_agreement_and_the_alternative_annotator_test_use_turns_as_units():
    rng = np.random.default_rng(7)
    n = 40  # ten dialogues of four tutor turns, three experts, every turn graded by all three
    truth = rng.integers(0, 2, n)
    experts = np.array([np.where(rng.random(n) < 0.85, truth, 1 - truth) for _ in range(3)])
    judge = np.where(rng.random(n) < 0.8, truth, 1 - truth)
    judge[0] = MISSING  # one turn not judged: out of every figure
    units = [(t // 4, 0, 100 + t) for t in range(n)]
    turns = turn_ratings(units, [tuple(experts[:, t]) for t in range(n)])
    turns = StudyRatings(**{**turns.__dict__, "raters": ("A", "B", "C")})
    (found,) = turn_calibration(turns, judge, epsilon=0.2, n_resamples=50)
    group = found.agreement
    judged = slice(1, None)
    assert group.n_units == n - 1
    matrix = experts[:, judged].astype(float)
    with_judge = np.vstack([matrix, judge[judged]])
    assert group.alpha_experts.value == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    )
    assert group.alpha_with_judge.value == pytest.approx(
        krippendorff.alpha(reliability_data=with_judge, level_of_measurement="nominal")
    )
    assert found.ac1_experts.value == pytest.approx(_gwet_ac1_loop(matrix))
    assert found.ac1_with_judge.value == pytest.approx(_gwet_ac1_loop(with_judge))
    expected = alternative_annotator_test(judge[judged].astype(float), matrix, epsilon=0.2)
    assert group.alt_test.winning_rate == expected.winning_rate
    assert group.alt_test.advantage_probability == expected.advantage_probability
    assert group.alt_test.n_tested == 3 and group.alt_test.min_items == n - 1
