"""A study's results revision (grading.models.ResultsRevision) is counted up by every change to
its submitted data, and by nothing else: the agreement results are cached under it, so a write
path that forgot it would leave a stale report in the cache for a day."""

import pytest

from accounts.roles import Role
from agreement.cache import report_key
from agreement.models import AnalysisSettings
from agreement.services import study_report
from grading import services, tallies
from grading.models import Assignment, ResultsRevision, Study
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded(make_user):
    """A study of one response graded by two annotators: the first has submitted, the second
    has answered everything but not submitted."""
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=1, overlap=2)
    services.assign_study(study)
    first, second = (Assignment.objects.get(study_item__study=study, annotator=g) for g in graders)
    factories.complete(first, graders[0], "pass")
    services.submit(first, by=graders[0])
    factories.complete(second, graders[1], "fail")
    return study, first, second


def key(study: Study) -> str:
    return report_key(study, AnalysisSettings.for_study(study))


def test_a_study_without_a_change_is_at_revision_0_and_each_change_counts_one():
    study = factories.study([], responses=1)
    assert ResultsRevision.objects.of(study.pk) == 0
    ResultsRevision.objects.bump(study.pk)
    ResultsRevision.objects.bump(study.pk)
    assert ResultsRevision.objects.of(study.pk) == 2


def test_submitting_changes_the_key_and_drafts_do_not(graded):
    study, _, second = graded
    before = key(study)
    factories.complete(second, second.annotator, "na")  # a draft changed
    assert key(study) == before
    services.submit(second, by=second.annotator)
    assert key(study) != before


def test_a_changed_verdict_or_rationale_of_a_submitted_grade_changes_the_key(graded):
    study, first, _ = graded
    version = factories.rubric_of(first)[0]
    before = key(study)
    services.save_grade(first, version.pk, verdict="pass", rationale="ok", by=first.annotator)
    assert key(study) == before  # the same answer again
    services.save_grade(first, version.pk, verdict=None, rationale="clearer", by=first.annotator)
    after_rationale = key(study)
    assert after_rationale != before
    services.save_grade(first, version.pk, verdict="fail", rationale=None, by=first.annotator)
    assert key(study) != after_rationale


def test_the_report_shows_a_submitted_grade_changed_after_it_was_cached(graded):
    study, first, second = graded
    services.submit(second, by=second.annotator)
    cached = study_report(study)
    for version in factories.rubric_of(first):  # the first grader now agrees with the second
        services.save_grade(first, version.pk, verdict="fail", rationale="no", by=first.annotator)
    assert study_report(study) != cached
    assert study_report(study) == study_report(study)  # and is cached again


def test_a_changed_rating_of_a_submitted_assignment_changes_the_key(graded):
    study, first, _ = graded
    question = study.likert_items.first()
    before = key(study)
    services.save_likert(first, question.pk, 4, by=first.annotator)  # as complete() rated it
    assert key(study) == before
    services.save_likert(first, question.pk, 2, by=first.annotator)
    assert key(study) != before


def test_a_changed_turn_verdict_of_a_submitted_dialogue_changes_the_key(make_user):
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(turn_rule="share", turn_share=50)
    study = services.create_study(
        name="Dialogues",
        framework=task.framework,
        responses=[factories.response(task, turns=6)],
        annotators=[grader],
        overlap=1,
        likert_prompts=(),
    )
    services.assign_study(study)
    assignment = Assignment.objects.get(study_item__study=study)
    factories.complete(assignment, grader, "pass")
    services.submit(assignment, by=grader)
    share = next(v for v in factories.rubric_of(assignment) if v.per_turn)
    first_turn = services.tutor_turns(assignment.study_item.response_id)[0]
    before = key(study)
    # One turn of three failed: at least half pass, so the response's grade stays a pass.
    _, grade, _ = services.save_turn_grade(
        assignment, share.pk, first_turn.pk, verdict="fail", rationale="ok", by=grader
    )
    assert grade.verdict == "pass"
    assert key(study) != before


def test_counting_a_study_again_changes_the_key(graded):
    study, _, _ = graded
    before = key(study)
    tallies.rebuild(study)  # after data written around the services
    assert key(study) != before


def test_saving_a_study_read_before_a_change_keeps_the_newer_revision(graded):
    study, _, second = graded
    stale = Study.objects.get(pk=study.pk)
    services.submit(second, by=second.annotator)
    revision = ResultsRevision.objects.of(study.pk)
    stale.description = "Edited in the admin"
    stale.save()
    assert ResultsRevision.objects.of(study.pk) == revision
