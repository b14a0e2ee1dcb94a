"""The judge page's calibration is cached, and computed again as soon as what it is computed
from changes: a gold verdict recorded by adjudication, or an assignment submitted."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication
from grading import services as grading
from grading.models import Assignment, Verdict
from tests.factories import complete, judge_run, rubric_of, study

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    found = study(graders, responses=1, overlap=3)
    grading.assign_study(found)
    for grader in graders[:2]:  # the third grader has not submitted yet
        assignment = Assignment.objects.get(study_item__study=found, annotator=grader)
        complete(assignment, grader, "pass")
        grading.submit(assignment, by=grader)
    run = judge_run(found, "v1", fails_universal=False)  # passes every unit
    return found, run, graders


LENIENCY = "experts pass rate)</dt><dd>"


def page(client, found, run) -> str:
    response = client.get(reverse("judging:calibration", args=[found.pk, run.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_gold_verdict_recorded_by_adjudication_shows_on_the_judge_page(world, client, make_user):
    found, run, _ = world
    maintainer = make_user(Role.MAINTAINER)
    client.force_login(maintainer)
    assert "(no gold verdict on any of the " in page(client, found, run)
    assert "(no gold verdict on any of the " in page(client, found, run)  # read from the cache
    item = found.items.get()
    version = rubric_of(item.assignments.first())[0]
    adjudication.record_gold_verdict(
        item, version.pk, verdict=Verdict.FAIL, note="", by=maintainer, base_revision=0
    )
    body = page(client, found, run)
    assert "(no gold verdict on any of the " not in body
    # The one adjudicated unit, which the judge got wrong; any other unit is said left out.
    assert "(n = 1)" in body or "(n = 1; " in body


def test_a_submitted_assignment_shows_on_the_judge_page(world, client_as):
    found, run, graders = world
    client = client_as(Role.MAINTAINER)
    before = page(client, found, run)
    assert LENIENCY + "0.00" in before  # both experts passed
    late = Assignment.objects.get(study_item__study=found, annotator=graders[2])
    complete(late, graders[2], "fail")
    grading.submit(late, by=graders[2])
    after = page(client, found, run)
    assert LENIENCY + "0.00" not in after
    assert LENIENCY + "0.33" in after  # 1 - 2/3
