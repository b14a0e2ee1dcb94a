"""The API's response writes go through the importer's one path: a changed response that a
study or the judge holds gets a new version, named in the answer, never a silent overwrite;
the responses, verdicts and assignments say which version they are."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Assignment, Grade
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db

RESPONSES = reverse("api:response-list")
VERDICTS = reverse("api:judgeverdict-list")


@pytest.fixture
def study(framework, make_user):
    graders = [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]
    return factories.graded_imported_study(graders, name="Pilot study")


def item(task, text):
    return {"task_key": task.key, "model": "model-a", "family": "family-a", "version": "1.0",
            "id": "r1", "response": text}  # fmt: skip


def post(client, url, body, **params):
    query = "&".join(f"{k}={v}" for k, v in {"framework": "test-fw", **params}.items())
    return client.post(f"{url}?{query}", body, format="json")


@pytest.mark.parametrize("dry_run", [False, True])
def test_posting_a_changed_graded_response_makes_a_new_version_and_says_so(study, api_as, dry_run):
    graded = study.items.get().response
    grades = list(Grade.objects.values_list("pk", "assignment__study_item__response__text"))

    answer = post(
        api_as(Role.MAINTAINER), RESPONSES, [item(graded.task, "New text.")], dry_run=dry_run
    )

    assert answer.status_code == (200 if dry_run else 201), answer.json()
    assert answer.json()["counts"] == {"responses": {"created": 0, "updated": 1, "unchanged": 0}}
    assert answer.json()["new_versions"] == [
        {"item": 0, "task_key": graded.task.key, "response_id": "r1", "version": 2,
         "previous_version": 1, "changed": ["text"], "studies": ["Pilot study"]}
    ]  # fmt: skip
    assert list(Grade.objects.values_list("pk", "assignment__study_item__response__text")) == grades
    assert Response.objects.count() == (1 if dry_run else 2)
    assert Response.objects.get(pk=graded.pk).text == factories.TEXT_V1


def test_posting_an_unchanged_graded_response_writes_nothing(study, api_as):
    graded = study.items.get().response
    answer = post(api_as(Role.MAINTAINER), RESPONSES, [item(graded.task, factories.TEXT_V1)])
    assert answer.json()["counts"]["responses"] == {"created": 0, "updated": 0, "unchanged": 1}
    assert answer.json()["new_versions"] == []
    assert Response.objects.count() == 1


def test_the_responses_list_names_each_version_and_filters_the_current_ones(study, api_as):
    graded = study.items.get().response
    post(api_as(Role.MAINTAINER), RESPONSES, [item(graded.task, "New text.")])
    reader = api_as(Role.VIEWER)
    rows = reader.get(RESPONSES, {"external_id": "r1"}).json()["results"]
    assert [(r["response_version"], r["current"], r["superseded_at"] is None) for r in rows] == [
        (1, False, False),
        (2, True, True),
    ]
    current = reader.get(RESPONSES, {"external_id": "r1", "current": "true"}).json()["results"]
    assert [(r["response_version"], r["text"]) for r in current] == [(2, "New text.")]
    old = reader.get(RESPONSES, {"current": "false", "response_version": 1}).json()["results"]
    assert [r["id"] for r in old] == [graded.pk]


def test_a_study_created_over_the_api_refuses_a_superseded_version(study, api_as):
    graded = study.items.get().response
    post(api_as(Role.MAINTAINER), RESPONSES, [item(graded.task, "New text.")])
    body = {"name": "Later", "framework": "test-fw", "annotators": [], "responses": [graded.pk]}
    answer = api_as(Role.MAINTAINER).post(reverse("api:study-list"), body, format="json")
    assert answer.status_code == 400
    assert "version 1 of response 'r1'" in answer.json()["errors"]["responses"][0]


def test_verdicts_and_assignments_name_the_version_they_read(study, api_as):
    graded = study.items.get().response
    post(api_as(Role.MAINTAINER), RESPONSES, [item(graded.task, "New text.")])
    version = graded.task.rubric_versions.get().items.first().criterion_version
    run = JudgeRun.objects.create(judge_model="judge", prompt_version="p1")
    JudgeVerdict.objects.create(run=run, response=graded, criterion_version=version, verdict=True)
    [row] = api_as(Role.VIEWER).get(VERDICTS).json()["results"]
    assert (row["response"], row["response_version"]) == (graded.pk, 1)
    assignment = Assignment.objects.filter(study_item__study=study).first()
    client = api_as(Role.ANNOTATOR)
    client.force_authenticate(assignment.annotator)
    detail = client.get(reverse("api:assignment-detail", args=[assignment.pk])).json()
    assert (detail["response"]["text"], detail["response"]["response_version"]) == (
        factories.TEXT_V1,
        1,
    )
