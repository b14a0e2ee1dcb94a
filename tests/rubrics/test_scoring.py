import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.scoring import (
    Judgement,
    TaskScore,
    model_score,
    ordinal_fraction,
    task_score,
    turn_outcome,
    turn_verdict,
)


def test_scoring_md_example_with_a_penalty_scores_75_percent():
    score = task_score([Judgement(5, True), Judgement(3, True), Judgement(-2, True)])
    assert score.value == pytest.approx(0.75)
    assert (score.earned, score.possible) == (6, 8)


def test_unmet_criteria_earn_nothing_but_keep_their_positive_weight_in_the_denominator():
    score = task_score([Judgement(5, True), Judgement(3, False), Judgement(-2, False)])
    assert score.value == pytest.approx(5 / 8)


def test_not_applicable_criteria_leave_both_sums():
    with_na = task_score([Judgement(5, True), Judgement(3, None), Judgement(-2, None)])
    assert (with_na.value, with_na.possible) == (1.0, 5)


def test_score_is_undefined_with_a_reason_when_no_positive_weight_applies():
    for judgements in ([], [Judgement(4, None)], [Judgement(-3, True), Judgement(-1, False)]):
        score = task_score(judgements)
        assert score.value is None
        assert "positive weight" in score.reason


def test_penalties_can_make_a_task_score_negative_and_aggregation_clips_it_to_zero():
    negative = task_score([Judgement(2, False), Judgement(-5, True)])
    assert negative.value == pytest.approx(-2.5)
    assert negative.clipped == 0.0
    assert model_score([negative, TaskScore(1.0, 2, 2)]).mean == pytest.approx(0.5)


def test_model_score_is_the_mean_with_its_standard_error_and_counts_undefined_scores():
    scores = [TaskScore(v, v, 1) for v in (0.5, 0.7, 0.9)] + [TaskScore(None, 0, 0, "none")]
    result = model_score(scores)
    assert result.mean == pytest.approx(0.7)
    assert result.standard_error == pytest.approx(0.2 / math.sqrt(3))
    assert (result.scored, result.undefined) == (3, 1)


def test_standard_error_needs_two_scores_and_mean_needs_one():
    assert model_score([TaskScore(0.4, 0.4, 1)]).standard_error is None
    assert model_score([]).mean is None


def test_ordinal_outcome_earns_its_fraction_of_the_weight():
    fraction = ordinal_fraction(3, 1, 5)
    assert fraction == 0.5
    assert task_score([Judgement(4, fraction), Judgement(4, True)]).value == pytest.approx(0.75)


def test_ordinal_values_outside_the_scale_are_refused():
    with pytest.raises(ValueError, match="outside"):
        ordinal_fraction(6, 1, 5)
    with pytest.raises(ValueError, match="fraction"):
        task_score([Judgement(1, 1.5)])


judgements = st.lists(
    st.builds(
        Judgement,
        weight=st.integers(-10, 10).filter(bool),
        outcome=st.one_of(st.none(), st.booleans(), st.floats(0, 1)),
    ),
    max_size=30,
)


@given(judgements)
def test_a_task_score_never_exceeds_one(items):
    score = task_score(items)
    assert score.value is None or score.value <= 1 + 1e-12


@given(st.lists(judgements, max_size=10))
def test_aggregate_scores_lie_between_zero_and_one(runs):
    result = model_score(task_score(items) for items in runs)
    assert result.mean is None or 0 <= result.mean <= 1 + 1e-12


def test_scoring_module_imports_without_django_settings():
    code = "import sys, core.scoring; assert 'django' not in sys.modules"
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root, env={"PYTHONPATH": root})


# ----- turn-level criteria ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("outcomes", "rule", "share", "expected"),
    [
        ([True, True, True], "all", None, True),
        ([True, False, True], "all", None, False),
        ([False, False, True], "any", None, True),
        ([False, False, False], "any", None, False),
        ([True, True, False], "share", 66, True),  # 2 of 3 is 66.7%
        ([True, True, False], "share", 67, False),
        ([True, False, None], "share", 50, True),  # N/A turns take no part
        ([True, False, False], "share", 34, False),
        ([None, None], "all", None, None),
        ([], "any", None, None),
    ],
)
def test_turn_rules_decide_a_turn_level_criterion_for_the_response(outcomes, rule, share, expected):
    assert turn_outcome(outcomes, rule, share) is expected


def test_turn_verdicts_follow_the_rule_and_wait_for_every_turn():
    assert turn_verdict(["pass", "fail"], "any") == "pass"
    assert turn_verdict(["pass", "fail"], "all") == "fail"
    assert turn_verdict(["na", "na"], "all") == "na"
    assert turn_verdict(["pass", ""], "any") == ""
    assert turn_verdict([], "any") == ""


def test_a_share_rule_without_a_share_or_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="percentage"):
        turn_outcome([True], "share", None)
    with pytest.raises(ValueError, match="percentage"):
        turn_outcome([True], "share", 0)
    with pytest.raises(ValueError, match="Unknown turn rule"):
        turn_outcome([True], "most")


def test_a_stored_answer_becomes_the_outcome_the_formula_reads():
    from core.scoring import outcome

    assert (outcome("pass"), outcome("fail"), outcome("na"), outcome("")) == (
        True,
        False,
        None,
        None,
    )
    # weight x (level - min) / (max - min): level 2 of 0..4 earns half the weight
    assert outcome("", 2, (0, 4)) == 0.5
    assert task_score([Judgement(4, outcome("", 2, (0, 4)))]).earned == 2.0
    with pytest.raises(ValueError, match="outside"):
        outcome("", 5, (0, 4))
    with pytest.raises(ValueError, match="scale"):
        outcome("", 1)
