"""Adaptive overlap: k graders on p% of the responses (one on the rest), and escalation (one
more grader when the submitted graders disagree, up to a cap), recorded in the history."""

import pytest
from django.core.exceptions import ValidationError

from accounts.roles import Role
from audit.models import AuditEvent
from core.assignment import gold_wanted, mix_gold, overlapping
from grading import services
from grading.models import Assignment, Study
from tests import factories


def test_overlapping_takes_the_rounded_share_the_same_way_whatever_the_order():
    keys = list(range(1, 11))
    chosen = overlapping(keys, 30, seed=7)
    assert len(chosen) == 3
    assert overlapping(reversed(keys), 30, seed=7) == chosen
    assert overlapping(keys, 30, seed=8) != chosen or overlapping(keys, 30, seed=9) != chosen
    assert overlapping(keys, 100, seed=1) == frozenset(keys)
    with pytest.raises(ValueError, match="1 to 100"):
        overlapping(keys, 0, seed=1)


def test_gold_is_mixed_at_the_rate_after_the_qualification_round():
    real = [f"r{n}" for n in range(8)]
    queue = mix_gold(real, ["g1", "g2", "g3", "g4"], rate=20, qualification=1, seed=5)
    golds = [key for key, is_gold in queue if is_gold]
    assert queue[0][1] is True  # the qualification round comes first
    assert len(golds) == 1 + gold_wanted(8, 20) == 3
    assert [key for key, is_gold in queue if not is_gold] == real  # their order is kept
    again = mix_gold(real, ["g4", "g3", "g2", "g1"], rate=20, qualification=1, seed=5)
    assert again == queue
    # A re-run holding its share already adds none; gold checks that run out give fewer.
    assert mix_gold(["r9"], ["g9"], rate=20, held_real=8, held_gold=2, seed=5) == [("r9", False)]
    assert len(mix_gold(real, ["g1"], rate=50, seed=5)) == 9


@pytest.mark.django_db
def test_k_graders_on_a_share_of_the_responses_and_one_on_the_rest(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.study(graders, responses=4, overlap=2, overlap_percent=50, seed=11)
    services.assign_study(study)
    per_item = sorted(item.assignments.count() for item in study.items.all())
    assert per_item == [1, 1, 2, 2]
    single = study.items.filter(graders_wanted=1).count()
    assert single == 2
    preview = services.preview_assignment(
        [(pk, None, "", "m") for pk in range(4)], graders, overlap=2, match_expertise=False,
        overlap_percent=50,
    )  # fmt: skip
    assert (preview.overlapping, preview.single, preview.gradings) == (2, 2, 6)


def _escalating_study(make_user, **options: object) -> tuple[Study, list, list[Assignment]]:
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.study(graders[:2], responses=1, overlap=2, seed=3, **options)
    services.assign_study(study)
    study.pool.create(annotator=graders[2])
    first = list(Assignment.objects.filter(study_item__study=study).order_by("annotator"))
    return study, graders, first


def _submit(assignment: Assignment, verdict: str) -> None:
    factories.complete(assignment, assignment.annotator, verdict)
    services.submit(assignment, by=assignment.annotator)


@pytest.mark.django_db
def test_disagreeing_graders_get_one_more_up_to_the_cap(make_user):
    study, graders, (one, two) = _escalating_study(
        make_user, escalation=Study.Escalation.ANY, escalation_cap=3
    )
    _submit(one, "pass")
    assert Assignment.objects.count() == 2  # the other has not submitted yet
    _submit(two, "fail")
    third = Assignment.objects.get(annotator=graders[2])
    assert third.study_item.graders_wanted == 3
    event = AuditEvent.objects.for_object(study).get(changes__graders=[2, 3])
    assert "disagree" in event.comment and graders[2].username in event.comment
    assert services.claim_next(study, graders[2]) == third
    _submit(third, "na")
    assert Assignment.objects.count() == 3  # the cap


@pytest.mark.django_db
@pytest.mark.parametrize(("threshold", "escalates"), [(0.5, True), (0.0, False)])
def test_escalation_on_low_agreement_only_looks_at_criteria_below_the_threshold(
    make_user, threshold, escalates
):
    # One response graded pass and fail: each criterion's alpha is 0.
    _, graders, (one, two) = _escalating_study(
        make_user,
        escalation=Study.Escalation.LOW,
        escalation_threshold=threshold,
        escalation_cap=3,
    )
    _submit(one, "pass")
    _submit(two, "fail")
    assert Assignment.objects.filter(annotator=graders[2]).exists() is escalates


@pytest.mark.django_db
def test_escalation_needs_a_cap_above_k(make_user):
    with pytest.raises(ValidationError, match="cap"):
        factories.study([], overlap=2, escalation=Study.Escalation.ANY)
    with pytest.raises(ValidationError, match="above k"):
        factories.study([], overlap=2, escalation=Study.Escalation.ANY, escalation_cap=2)
