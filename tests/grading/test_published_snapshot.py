"""Graders see a task exactly as it was published: an author's later draft edits (the
instruction through the API, a new resource file, a changed context value, a removed resource)
reach no grader, on the grading page, in the API assignment or in the offline workbook, until
the task is published again."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from grading import services
from grading.models import Assignment, Study
from interchange import offline
from rubrics import publishing
from rubrics import services as rubric_services
from rubrics.models import Task, TaskResource
from taxonomy.models import ContextVariable
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.http]

PUBLISHED = "Plan a five-minute warm-up for beginners."
DRAFT = "DRAFT: plan a forty-minute reading lesson."


@pytest.fixture
def task(settings, tmp_path) -> Task:
    """A task published with a text resource, a file resource and two context values."""
    settings.MEDIA_ROOT = tmp_path
    task = factories.published_task()
    rubric_services.edit_task(task, {"instruction": PUBLISHED}, task.revision, None)
    rubric_services.add_resource(task, "Published notes", None, text="Say hello in pairs.")
    handout = SimpleUploadedFile("handout.txt", b"published handout", "text/plain")
    rubric_services.add_resource(task, "Published handout", None, file=handout)
    variables = {v.key: v for v in ContextVariable.objects.filter(framework=task.framework)}
    rubric_services.set_context_values(
        task, {variables["cefr_level"]: "A1", variables["class_size"]: 12}, None
    )
    publishing.publish([Task.objects.get(pk=task.pk)], None)
    return Task.objects.get(pk=task.pk)


@pytest.fixture
def grader(make_user):
    return make_user(Role.ANNOTATOR)


def study_of(task: Task, grader) -> Study:
    study = services.create_study(
        name=f"Study {Study.objects.count() + 1} of {task.key}",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=[grader],
        overlap=1,
    )
    services.assign_study(study)
    return study


def edit_as_author(task: Task, author) -> None:
    """What the issue's author did: the instruction through the API, a new resource file, and
    (for good measure) a changed context value and the text resource removed."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(author, 'tests')[1]}")
    answer = api.patch(
        reverse("api:task-detail", args=[task.pk]),
        {"instruction": DRAFT, "revision": task.revision},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    draft_file = SimpleUploadedFile("draft.txt", b"draft handout", "text/plain")
    rubric_services.add_resource(task, "Draft handout", author, file=draft_file)
    level = ContextVariable.objects.get(framework=task.framework, key="cefr_level")
    rubric_services.set_context_value(task, level, "B1", author)
    notes = TaskResource.objects.get(task=task, title="Published notes")
    rubric_services.delete_resource(notes, author)


def grading_page(grader, assignment: Assignment) -> str:
    client = Client()
    client.force_login(grader)
    page = client.get(reverse("grading:assignment", args=[assignment.pk]))
    assert page.status_code == 200
    return page.content.decode()


def test_graders_see_the_published_task_not_the_authors_draft(task, grader, make_user):
    study = study_of(task, grader)
    assignment = Assignment.objects.get(study_item__study=study)
    edit_as_author(task, make_user(Role.AUTHOR))
    assert Task.objects.get(pk=task.pk).status == Task.Status.DRAFT

    page = grading_page(grader, assignment)
    assert PUBLISHED in page and DRAFT not in page
    assert "Published notes" in page and "Say hello in pairs." in page
    assert "Published handout" in page and "Draft handout" not in page
    assert "A1" in page and "B1" not in page

    api = APIClient()
    api.force_authenticate(grader)
    detail = api.get(reverse("api:assignment-detail", args=[assignment.pk])).json()
    assert detail["response"]["instruction"] == PUBLISHED
    assert [r["title"] for r in detail["resources"]] == ["Published notes", "Published handout"]
    assert {c["variable"]: c["value"] for c in detail["context_values"]} == {
        "cefr_level": "A1",
        "class_size": "12",
    }
    listed = api.get(reverse("api:assignment-list")).json()["results"]
    assert listed[0]["response"]["instruction"] == PUBLISHED

    [item] = offline.grading_sheet(study, grader).items
    assert PUBLISHED in item.task_text and DRAFT not in item.task_text
    assert "Published notes" in item.task_text and "Draft handout" not in item.task_text
    assert "CEFR level: A1" in item.task_text


def test_a_grader_downloads_the_published_file_and_never_the_draft_one(task, grader, make_user):
    study = study_of(task, grader)
    assignment = Assignment.objects.get(study_item__study=study)
    frozen = assignment.study_item.rubric_version.resources.get(title="Published handout")
    edit_as_author(task, make_user(Role.AUTHOR))
    client = Client()
    client.force_login(grader)

    url = reverse("grading:assignment_resource", args=[assignment.pk, frozen.pk])
    answer = client.get(url)
    assert answer.status_code == 200
    assert b"".join(answer.streaming_content) == b"published handout"
    # Published again, the draft file has a copy of its own; it stays out of the earlier study.
    publishing.publish([Task.objects.get(pk=task.pk)], None)
    newer = task.rubric_versions.latest().resources.get(title="Draft handout")
    url = reverse("grading:assignment_resource", args=[assignment.pk, newer.pk])
    assert client.get(url).status_code == 404


def test_once_published_again_a_new_study_shows_the_new_version(task, grader, make_user):
    study_of(task, grader)
    edit_as_author(task, make_user(Role.AUTHOR))
    publishing.publish([Task.objects.get(pk=task.pk)], None)

    later = study_of(task, grader)
    page = grading_page(grader, Assignment.objects.get(study_item__study=later))
    assert DRAFT in page and "Draft handout" in page and "Published notes" not in page
    assert "B1" in page
