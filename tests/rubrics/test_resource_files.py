"""Task resource files are downloaded through views that check who may see the task."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.roles import Role
from grading import services as grading
from rubrics import publishing, services
from rubrics.models import Task
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def handout(task):
    upload = SimpleUploadedFile("handout.html", b"<script>alert(1)</script>", "text/html")
    return services.add_resource(task, "Handout", None, file=upload)


def test_a_reader_downloads_a_file_as_an_attachment(client_as, task):
    resource = handout(task)
    response = client_as(Role.VIEWER).get(reverse("rubrics:resource_file", args=[resource.pk]))
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment")
    assert b"".join(response.streaming_content) == b"<script>alert(1)</script>"


def test_a_markdown_resource_downloads_as_a_markdown_file(client_as, task):
    resource = services.add_resource(task, "Reading list", None, text="# Read this")
    response = client_as(Role.VIEWER).get(reverse("rubrics:resource_file", args=[resource.pk]))
    assert response.content == b"# Read this"
    assert 'filename="reading-list.md"' in response.headers["Content-Disposition"]


def test_annotators_get_resources_only_through_their_own_assignment(client_as, make_user):
    grader, other = make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)
    task = factories.published_task()
    draft = handout(task)
    publishing.publish([Task.objects.get(pk=task.pk)], None)
    study = grading.create_study(
        name="Handouts",
        framework=task.framework,
        responses=[factories.response(task)],
        annotators=[grader, other],
        overlap=2,
    )
    grading.assign_study(study)
    mine = study.items.get().assignments.get(annotator=grader)
    theirs = study.items.get().assignments.get(annotator=other)
    resource = mine.study_item.rubric_version.resources.get()  # the copy published
    client = client_as(Role.ANNOTATOR)
    client.force_login(grader)
    own = reverse("grading:assignment_resource", args=[mine.pk, resource.pk])
    answer = client.get(own)
    assert answer.status_code == 200
    assert b"".join(answer.streaming_content) == b"<script>alert(1)</script>"
    not_mine = reverse("grading:assignment_resource", args=[theirs.pk, resource.pk])
    assert client.get(not_mine).status_code == 404
    assert client.get(reverse("rubrics:resource_file", args=[draft.pk])).status_code == 403


def test_a_resource_of_another_task_is_not_served_through_an_assignment(client_as, make_user, task):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    grading.assign_study(study)
    assignment = study.items.get().assignments.get()
    elsewhere = handout(task)
    client = client_as(Role.ANNOTATOR)
    client.force_login(grader)
    url = reverse("grading:assignment_resource", args=[assignment.pk, elsewhere.pk])
    assert client.get(url).status_code == 404
