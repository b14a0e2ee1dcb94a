"""Studies, assignment and claiming on the database (SQLite and PostgreSQL)."""

from collections import Counter
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Expertise, Grade, GradeRevision, Study, StudyItem
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotators(make_user):
    return [make_user(Role.ANNOTATOR) for _ in range(4)]


def test_each_response_is_graded_against_its_tasks_latest_published_rubric(annotators):
    study = factories.study(annotators, responses=1)
    item = study.items.get()
    task = item.response.task
    newer = task.rubric_versions.create(number=2, instruction=task.instruction)
    late = factories.response(task, model="later-model")
    services.add_responses(study, [late])
    assert study.items.get(response=late).rubric_version == newer
    assert item.rubric_version.number == 1


def test_a_response_whose_task_has_no_published_rubric_is_left_out(annotators):
    study = factories.study(annotators, responses=0)
    task = factories.published_task()
    task.reviews.all().delete()  # the approval refers to the version
    task.rubric_versions.all().delete()
    skipped = services.add_responses(study, [factories.response(task)])
    assert [r.task for r in skipped] == [task]
    assert not study.items.exists()


def test_assign_study_gives_every_item_k_distinct_annotators_balanced(annotators):
    study = factories.study(annotators, responses=6, overlap=2)
    assert services.assign_study(study) == 12
    per_item = Counter(Assignment.objects.values_list("study_item", flat=True))
    assert set(per_item.values()) == {2}
    loads = Counter(Assignment.objects.values_list("annotator", flat=True))
    assert max(loads.values()) - min(loads.values()) <= 1


def test_rerunning_assignment_tops_up_only_new_items(annotators):
    study = factories.study(annotators, responses=2, overlap=2)
    services.assign_study(study)
    services.add_responses(study, [factories.response(factories.published_task())])
    assert services.assign_study(study) == 2
    assert services.assign_study(study) == 0
    assert set(Counter(Assignment.objects.values_list("study_item", flat=True)).values()) == {2}


def test_expertise_matching_gives_a_response_only_to_annotators_tagged_for_its_language(make_user):
    french, english = make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)
    Expertise.objects.create(annotator=french, language="fr")
    Expertise.objects.create(annotator=english, language="en")
    study = factories.study([french, english], responses=0, overlap=2, match_expertise=True)
    task = factories.published_task(language="fr")
    services.add_responses(study, [factories.response(task)])
    services.assign_study(study)
    assert list(Assignment.objects.values_list("annotator", flat=True)) == [french.pk]


def test_the_same_annotator_cannot_hold_an_item_twice(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    item = StudyItem.objects.get(study=study)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(study_item=item, annotator=annotators[0], position=9)


def test_claim_next_follows_the_annotators_own_random_order_then_returns_none(annotators):
    study = factories.study(annotators[:1], responses=3, overlap=1)
    services.assign_study(study)
    seen = []
    while (assignment := services.claim_next(study, annotators[0])) is not None:
        assert assignment.status == Assignment.Status.IN_PROGRESS
        seen.append(assignment.position)
        factories.complete(assignment, annotators[0])
        services.submit(assignment, by=assignment.annotator)
    assert seen == [1, 2, 3]


def test_claim_next_never_lets_an_item_pass_k_graders(annotators):
    study = factories.study([], responses=3, overlap=2)
    for annotator in annotators:
        study.pool.create(annotator=annotator)
    for _ in range(4):  # more rounds than there is work
        for annotator in annotators:
            assignment = services.claim_next(study, annotator)
            if assignment is not None:
                factories.complete(assignment, annotator)
                services.submit(assignment, by=assignment.annotator)
    per_item = Counter(Assignment.objects.values_list("study_item", flat=True))
    assert sorted(per_item.values()) == [2, 2, 2]
    assert [services.claim_next(study, a) for a in annotators] == [None] * 4


def test_a_pool_member_at_capacity_claims_nothing_more(annotators):
    study = factories.study([], responses=3, overlap=1)
    study.pool.create(annotator=annotators[0], capacity=1)
    first = services.claim_next(study, annotators[0])
    factories.complete(first, annotators[0])
    services.submit(first, by=first.annotator)
    assert services.claim_next(study, annotators[0]) is None


def test_autosave_creates_then_updates_one_grade(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    version = factories.rubric_of(assignment)[0]
    services.save_grade(assignment, version.pk, verdict="pass", rationale=None, by=annotators[0])
    services.save_grade(assignment, version.pk, verdict=None, rationale="Clear", by=annotators[0])
    grade = Grade.objects.get()
    assert (grade.verdict, grade.rationale) == ("pass", "Clear")
    assert not GradeRevision.objects.exists()


def test_submit_refuses_an_incomplete_assignment_and_names_what_is_missing(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    first, *_ = factories.rubric_of(assignment)
    services.save_grade(assignment, first.pk, verdict="fail", rationale="", by=annotators[0])
    with pytest.raises(services.Incomplete) as error:
        services.submit(assignment, by=assignment.annotator)
    assert f"{first.criterion.code}: Fail needs a rationale." in error.value.problems
    assert any(m.startswith("Rate:") for m in error.value.problems)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS


def test_a_penalty_needs_a_rationale_when_present_not_when_absent(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    *ordinary, penalty = factories.rubric_of(assignment)
    assert penalty.is_penalty
    for version in ordinary:
        services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=annotators[0])
    services.save_grade(assignment, penalty.pk, verdict="pass", rationale="", by=annotators[0])
    code = penalty.criterion.code
    problems = [p.message for p in services.missing_answers(assignment)]
    assert f"{code}: Present needs a rationale." in problems
    services.save_grade(assignment, penalty.pk, verdict="fail", rationale="", by=annotators[0])
    problems = [p.message for p in services.missing_answers(assignment)]
    assert not any(m.startswith(code) for m in problems)  # Absent is the benign finding


def test_a_rationale_of_shortcut_keys_is_no_reason_and_submitting_says_so(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1, likert_prompts=())
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    first, *others = factories.rubric_of(assignment)
    for version in others:
        services.save_grade(assignment, version.pk, verdict="fail", rationale="", by=annotators[0])
        services.save_grade(
            assignment, version.pk, verdict=None, rationale="Pass 2 of 3: fine", by=annotators[0]
        )
    services.save_grade(assignment, first.pk, verdict="fail", rationale="kkkkps", by=annotators[0])
    with pytest.raises(services.Incomplete) as error:
        services.submit(assignment, by=assignment.annotator)
    code = first.criterion.code
    assert error.value.problems == [
        f"{code}: the rationale “kkkkps” is only shortcut keys; write why you chose Fail."
    ]
    # Kept as typed, never lost; a sentence, even of the same letters, is a reason.
    assert Grade.objects.get(assignment=assignment, criterion_version=first).rationale == "kkkkps"
    services.save_grade(assignment, first.pk, verdict=None, rationale="nn a pass", by=annotators[0])
    services.submit(assignment, by=assignment.annotator)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED


def test_a_change_after_submission_keeps_the_submitted_value_as_a_revision(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    factories.complete(assignment, annotators[0])
    services.submit(assignment, by=assignment.annotator)
    version = factories.rubric_of(assignment)[0]
    services.save_grade(assignment, version.pk, verdict="fail", rationale="No", by=annotators[0])
    revision = GradeRevision.objects.get()
    assert (revision.verdict, revision.rationale) == ("pass", "ok")
    assert (revision.grade.verdict, revision.grade.rationale) == ("fail", "No")


def test_a_closed_study_refuses_saves(annotators):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    study.status = study.Status.CLOSED
    study.save()
    version = factories.rubric_of(assignment)[0]
    with pytest.raises(services.StudyClosed, match="closed"):
        services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=annotators[0])
    assert not Grade.objects.exists()


def test_a_criterion_outside_the_rubric_version_is_refused(annotators):
    study = factories.study(annotators[:1], responses=2, overlap=1)
    services.assign_study(study)
    mine = services.claim_next(study, annotators[0])
    other = StudyItem.objects.exclude(pk=mine.study_item_id).get()
    stranger = other.rubric_version.items.first().criterion_version
    with pytest.raises(services.GradingError, match="not part of the rubric"):
        services.save_grade(mine, stranger.pk, verdict="pass", rationale="", by=annotators[0])


def test_time_spent_adds_gaps_between_actions_capped_at_the_idle_limit(annotators, monkeypatch):
    study = factories.study(annotators[:1], responses=1, overlap=1)
    services.assign_study(study)
    assignment = services.claim_next(study, annotators[0])
    version = factories.rubric_of(assignment)[0]
    start = assignment.last_activity_at
    for minutes in (2, 60):
        monkeypatch.setattr(timezone, "now", lambda m=minutes: start + timedelta(minutes=m))
        services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=annotators[0])
    assignment.refresh_from_db()
    assert assignment.time_spent_seconds == 2 * 60 + services.IDLE_CAP.total_seconds()


def test_only_its_grader_opens_grades_rates_or_submits_an_assignment(annotators):
    study = factories.study(annotators[:2], responses=1, overlap=1)
    services.assign_study(study)
    assignment = Assignment.objects.get()
    stranger = next(a for a in annotators[:2] if a.pk != assignment.annotator_id)
    version = factories.rubric_of(assignment)[0]
    item = study.likert_items.first()
    refused = [
        lambda: services.start(assignment, by=stranger),
        lambda: services.save_grade(
            assignment, version.pk, verdict="pass", rationale="", by=stranger
        ),
        lambda: services.save_likert(assignment, item.pk, 3, by=stranger),
        lambda: services.submit(assignment, by=stranger),
    ]
    for attempt in refused:
        with pytest.raises(services.NotYourAssignment):
            attempt()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED
    assert not Grade.objects.exists() and not assignment.likert_ratings.exists()


def test_why_nothing_to_grade_names_the_reason_and_what_to_do(annotators):
    me = annotators[0]
    study = factories.study([me], responses=1, overlap=1)
    factories.complete(services.claim_next(study, me), me)
    services.submit(Assignment.objects.get(annotator=me), by=me)
    assert services.claim_next(study, me) is None
    assert "You have graded every response assigned to you" in services.why_nothing_to_grade(
        study, me
    )
    services.set_status(study, Study.Status.CLOSED)
    assert "is closed" in services.why_nothing_to_grade(study, me)
