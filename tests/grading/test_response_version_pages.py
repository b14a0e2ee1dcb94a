"""Pages that show a graded response say which version of it the study grades once a newer one
exists (grading, adjudication, flags), without a query more; the task page shows a response's
earlier versions."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from grading import flags
from grading.models import Assignment
from rubrics.responses import ResponseSpec, save_responses
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.http]

NOTICE = "Version 1 of 2: this study grades version 1."


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]


@pytest.fixture
def study(graders):
    return factories.graded_imported_study(graders)


def change(study, text="The **second** text."):
    task = study.items.get().response.task
    (saved,) = save_responses([ResponseSpec(task, "model-a", "r1", "family-a", "1.0", text=text)])
    assert saved.version == 2


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def queries(client, url) -> tuple[int, str]:
    client.get(url)  # sessions and caches warmed
    with CaptureQueriesContext(connection) as captured:
        reply = client.get(url)
    assert reply.status_code == 200
    return len(captured), reply.content.decode()


def test_the_grading_page_says_the_study_grades_an_earlier_version(study, graders):
    mine = Assignment.objects.get(study_item__study=study, annotator=graders[0])
    client = client_for(graders[0])
    url = reverse("grading:assignment", args=[mine.pk])
    before, html = queries(client, url)
    assert "Version 1 of" not in html

    change(study)

    after, html = queries(client, url)
    assert NOTICE in html
    assert "<strong>Version one</strong>" in html and "<strong>second</strong>" not in html
    assert after == before


def test_the_adjudication_page_says_which_version_the_graders_graded(study, client_as):
    item = study.items.get()
    version = item.rubric_version.items.first().criterion_version
    change(study)
    url = reverse("grading:adjudicate", args=[study.pk, item.pk, version.pk])
    html = client_as(Role.MAINTAINER).get(url).content.decode()
    assert NOTICE in html and "<strong>Version one</strong>" in html


def test_the_flags_page_says_which_version_each_flag_is_on_in_the_same_queries(
    study, graders, client_as
):
    for grader in graders:
        mine = Assignment.objects.get(study_item__study=study, annotator=grader)
        flags.raise_flag(mine, kind="response_broken", comment="Odd", by=grader)
    client = client_as(Role.MAINTAINER)
    url = reverse("grading:study_flags", args=[study.pk])
    before, html = queries(client, url)
    assert "Version 1 of" not in html

    change(study)

    after, html = queries(client, url)
    assert html.count(NOTICE) == 2
    assert after == before


def test_the_task_page_shows_the_current_version_and_the_earlier_ones(study, client_as):
    task = study.items.get().response.task
    change(study)
    html = client_as(Role.MAINTAINER).get(reverse("rubrics:task_detail", args=[task.pk])).text
    assert "· version 2" in html and "1 earlier version, kept as it was graded or judged" in html
    assert html.index("<strong>second</strong>") < html.index("<strong>Version one</strong>")
    assert "Version 1, superseded on" in html
