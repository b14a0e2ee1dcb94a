"""Gold checks: adjudicated responses of another study mixed unannounced into the queues,
each annotator's accuracy on them (Wilson interval, n, warning), the qualification round, and
their grades left out of the study's data."""

import pytest
from django.core.exceptions import ValidationError
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat

from accounts.roles import Role
from agreement import data
from grading import adjudication, gold, services
from grading.models import Assignment, Study, StudyItem
from interchange.grades_export import GRADE_COLUMNS, grade_rows
from judging.units import study_units
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db


def _adjudicated(make_user, verdict: str = "pass") -> StudyItem:
    """An item of an earlier study whose every criterion has the gold verdict `verdict`."""
    earlier = factories.study([], responses=1, overlap=1)
    item = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER)
    for line in item.rubric_version.effective_rubric():
        if line.applicable:
            adjudication.record_gold_verdict(
                item, line.version.pk, verdict=verdict, note="", by=adjudicator, base_revision=0
            )
    return item


def _grade_all(study: Study, grader, verdict: str) -> None:
    while (assignment := services.claim_next(study, grader)) is not None:
        factories.complete(assignment, grader, verdict)
        services.submit(assignment, by=grader)


def test_gold_checks_are_mixed_in_scored_and_left_out_of_the_study_data(make_user):
    source = _adjudicated(make_user, "pass")
    right, wrong = make_user(Role.ANNOTATOR, "right"), make_user(Role.ANNOTATOR, "wrong")
    study = factories.study([right, wrong], responses=3, overlap=2, gold_rate=25, gold_warning=0.7)
    assert list(gold.gold_candidates(study)) == [source]
    assert gold.add_gold_checks(study, [source], by=None) == 1
    services.assign_study(study)
    check = study.items.gold_checks().get()
    assert check.assignments.count() == 2  # every annotator grades it
    _grade_all(study, right, "pass")
    _grade_all(study, wrong, "fail")
    rows = {row.username: row for row in gold.accuracy_per_annotator(study)}
    assert (rows["right"].correct, rows["right"].n) == (rows["right"].n, rows["right"].n)
    assert rows["right"].n > 0 and rows["right"].high == 1.0 and 0 < rows["right"].low < 1
    assert rows["wrong"].correct == 0 and rows["wrong"].below_warning
    assert not rows["right"].below_warning
    # The study's data: three responses, the gold check's grades nowhere.
    assert len(data.load_study_ratings(study).items) == 3
    graded_items = set(
        data.submitted_grades(study).values_list("assignment__study_item", flat=True)
    )
    assert check.pk not in graded_items
    exported = {row[GRADE_COLUMNS.index("study_item")] for row in grade_rows(study)}
    assert exported and check.pk not in exported


def test_a_judge_run_on_the_study_leaves_its_gold_checks_out(make_user):
    source = _adjudicated(make_user, "pass")
    study = factories.study([make_user(Role.ANNOTATOR)], responses=2, overlap=1, gold_rate=25)
    gold.add_gold_checks(study, [source], by=None)
    Response.objects.update(external_id=Concat(Value("r"), Cast("pk", CharField())))
    judged = {call.response_pk for call in study_units(study)}
    assert judged == set(study.items.data().values_list("response", flat=True))
    assert source.response_id not in judged and len(judged) == 2


def test_only_adjudicated_items_of_other_studies_become_gold_checks(make_user):
    study = factories.study([], responses=1, overlap=1)
    not_adjudicated = factories.study([], responses=1, overlap=1).items.get()
    with pytest.raises(ValidationError, match="Not a gold check"):
        gold.add_gold_checks(study, [not_adjudicated], by=None)
    with pytest.raises(ValidationError, match="Not a gold check"):
        gold.add_gold_checks(study, [study.items.get()], by=None)


def test_a_new_annotator_gets_real_responses_only_after_passing_the_qualification(make_user):
    source = _adjudicated(make_user, "pass")
    passes, fails = make_user(Role.ANNOTATOR, "passes"), make_user(Role.ANNOTATOR, "fails")
    study = factories.study(
        [passes, fails], responses=2, overlap=2, qualification_items=1, qualification_accuracy=0.9
    )
    gold.add_gold_checks(study, [source], by=None)
    services.assign_study(study)
    first = services.claim_next(study, fails)
    assert first is not None and first.study_item.gold_source_id == source.pk
    factories.complete(first, fails, "fail")
    services.submit(first, by=fails)
    assert gold.qualification(study, fails) == gold.Qualification.FAILED
    assert services.claim_next(study, fails) is None
    assert "did not reach" in services.why_nothing_to_grade(study, fails)
    _grade_all(study, passes, "pass")
    assert gold.qualification(study, passes) == gold.Qualification.PASSED
    done = Assignment.objects.filter(annotator=passes, status=Assignment.Status.SUBMITTED)
    assert done.count() == 3  # the gold check and both responses
