"""Grades on an ordinal criterion: a level of its scale, never beside a verdict."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from grading import adjudication, services
from grading.models import GoldVerdict, Grade
from tests import factories
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded(make_user):
    """(grader, assignment, ordinal criterion version, binary criterion version)."""
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(scale=(1, 4))
    study = services.create_study(
        name="Ordinal",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=[grader],
        overlap=1,
    )
    services.assign_study(study)
    assignment = study.items.get().assignments.get()
    versions = factories.rubric_of(assignment)
    ordinal = next(v for v in versions if v.is_ordinal)
    binary = next(v for v in versions if not v.is_ordinal)
    return grader, assignment, ordinal, binary


def test_a_level_within_the_scale_is_saved_and_n_a_replaces_it(graded):
    grader, assignment, ordinal, _ = graded
    grade = services.save_grade(
        assignment, ordinal.pk, verdict=None, level=3, rationale=None, by=grader
    )
    assert (grade.verdict, grade.level, grade.answered) == ("", 3, True)
    grade = services.save_grade(assignment, ordinal.pk, verdict="na", rationale=None, by=grader)
    assert (grade.verdict, grade.level) == ("na", None)


@pytest.mark.parametrize(
    ("verdict", "level", "message"),
    [(None, 5, "outside its scale 1 to 4"), (None, 0, "outside"), ("pass", None, "choose a level")],
)
def test_an_ordinal_criterion_refuses_a_level_off_its_scale_or_a_pass(
    graded, verdict, level, message
):
    grader, assignment, ordinal, _ = graded
    with pytest.raises(services.GradingError, match=message):
        services.save_grade(
            assignment, ordinal.pk, verdict=verdict, level=level, rationale=None, by=grader
        )


def test_a_binary_criterion_takes_no_level(graded):
    grader, assignment, _, binary = graded
    with pytest.raises(services.GradingError, match="takes no level"):
        services.save_grade(assignment, binary.pk, verdict=None, level=1, rationale=None, by=grader)


def test_the_lowest_level_asks_a_rationale_and_a_submitted_level_is_kept_as_a_revision(graded):
    grader, assignment, ordinal, _ = graded
    factories.complete(assignment, grader, verdict="na")
    services.save_grade(assignment, ordinal.pk, verdict=None, level=1, rationale="", by=grader)
    problems = [p.message for p in services.missing_answers(assignment)]
    assert any("1 (Level 1) needs a rationale" in p for p in problems)
    services.save_grade(assignment, ordinal.pk, verdict=None, level=2, rationale=None, by=grader)
    services.submit(assignment, by=grader)
    grade = services.save_grade(
        assignment, ordinal.pk, verdict=None, level=4, rationale=None, by=grader
    )
    assert grade.level == 4
    assert list(grade.revisions.values_list("verdict", "level")) == [("", 2)]


def test_the_database_refuses_a_grade_with_both_a_verdict_and_a_level(graded):
    _, assignment, ordinal, _ = graded
    with pytest.raises(IntegrityError), transaction.atomic():
        Grade.objects.create(
            assignment=assignment, criterion_version=ordinal, verdict="pass", level=2
        )


def test_the_grading_page_shows_the_scale_with_keys_and_autosaves_a_level(graded, client):
    grader, assignment, ordinal, _ = graded
    client.force_login(grader)
    page = client.get(reverse("grading:assignment", args=[assignment.pk])).content.decode()
    assert f"Level on {ordinal.criterion.code}, 1 to 4" in page
    assert 'name="level" value="3" class="verdict" data-key="3"' in page
    assert "3 Level 3" in page
    url = reverse("grading:save_grade", args=[assignment.pk, ordinal.pk])
    saved = htmx(client).post(url, {"level": "3"})
    assert saved.status_code == 200
    fragment = saved.content.decode()
    assert (
        'name="level" value="3" class="verdict" data-key="3"\n              aria-pressed="true"'
        in fragment
    )
    assert Grade.objects.get(assignment=assignment, criterion_version=ordinal).level == 3
    refused = htmx(client).post(url, {"level": "9"})
    assert refused.status_code == 422 and "outside its scale 1 to 4" in refused.content.decode()


def test_the_api_takes_and_gives_a_level(graded):
    grader, assignment, ordinal, _ = graded
    _, key = ApiToken.issue(grader, "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    body = {"assignment": assignment.pk, "criterion_version": ordinal.pk, "level": 2}
    created = api.post("/api/v1/grades/", body, format="json")
    assert created.status_code == 201, created.json()
    assert (created.json()["level"], created.json()["verdict"]) == (2, "")
    refused = api.post("/api/v1/grades/", body | {"level": 7}, format="json")
    assert refused.status_code == 400 and "outside its scale" in str(refused.json())


def test_graders_who_chose_different_levels_go_to_adjudication_and_the_gold_is_a_level(
    make_user, client_as
):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    task = factories.published_task(scale=(1, 4))
    study = services.create_study(
        name="Gold levels",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=graders,
        overlap=2,
    )
    services.assign_study(study)
    for level, grader in zip((2, 3), graders, strict=True):
        assignment = study.items.get().assignments.get(annotator=grader)
        factories.complete(assignment, grader, verdict="pass")
        scaled = factories.rubric_of(assignment)[0]
        services.save_grade(
            assignment, scaled.pk, verdict=None, level=level, rationale=None, by=grader
        )
        services.submit(assignment, by=grader)
    (pair,) = adjudication.disagreements(study)
    assert pair["version"] == scaled.pk
    url = reverse("grading:adjudicate", args=[study.pk, pair["item"], scaled.pk])
    maintainer = client_as(Role.MAINTAINER)
    page = maintainer.get(url).content.decode()
    assert "3 Level 3" in page and 'value="3"' in page
    refused = maintainer.post(url, {"verdict": "pass", "note": "", "revision": 0})
    assert refused.status_code == 422
    maintainer.post(url, {"verdict": "3", "note": "Clearly 3.", "revision": 0})
    gold = GoldVerdict.objects.get(criterion_version=scaled)
    assert (gold.verdict, gold.level) == ("", 3)
    listed = maintainer.get(reverse("grading:adjudication", args=[study.pk])).content.decode()
    assert '<span class="badge verdict-level">3</span>' in listed
    maintainer.post(url, {"verdict": "na", "note": "", "revision": 1})
    gold.refresh_from_db()
    assert (gold.verdict, gold.level) == ("na", None)
    assert list(gold.revisions.values_list("level", flat=True)) == [3]
