"""Maintainers' study pages: list with progress, creation from published tasks, closing."""

import re

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import flags, services
from grading.models import Assignment, Study
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_study_list_shows_progress_in_a_fixed_number_of_queries(
    client_as, make_user, django_assert_max_num_queries
):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    for _ in range(4):
        study = factories.study(graders, responses=2, overlap=2)
        services.assign_study(study)
    first = Assignment.objects.first()
    factories.complete(first, first.annotator)
    services.submit(first, by=first.annotator)
    client = client_as(Role.MAINTAINER)
    with django_assert_max_num_queries(6):
        html = client.get(reverse("grading:studies")).content.decode()
    assert html.count('<progress max="4"') == 4
    assert 'value="1"></progress> 1 / 4' in html


def test_a_maintainer_creates_a_study_from_published_tasks_and_assigns_it(client_as, make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    tasks = [factories.published_task() for _ in range(2)]
    for task in tasks:
        factories.response(task, model="m1")
        factories.response(task, model="m2")
    reply = client_as(Role.MAINTAINER).post(
        reverse("grading:study_create"),
        {
            "name": "Pilot",
            "framework": tasks[0].framework_id,
            "overlap": 2,
            "tasks": [t.pk for t in tasks],
            "annotators": [g.pk for g in graders],
            "require_rationale_on_fail": "on",
            "assign_now": "on",
        },
    )
    study = Study.objects.get(name="Pilot")
    assert reply.status_code == 302
    assert study.items.count() == 4
    assert Assignment.objects.filter(study_item__study=study).count() == 8
    assert study.likert_items.count() == len(services.DEFAULT_LIKERT_PROMPTS)


def test_a_study_name_already_taken_in_another_case_is_refused_on_the_page(client_as, make_user):
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task()
    factories.response(task)
    taken = factories.study([grader], responses=1, overlap=1)
    Study.objects.filter(pk=taken.pk).update(name="Pilot")
    reply = client_as(Role.MAINTAINER).post(
        reverse("grading:study_create"),
        {
            "name": "pilot",
            "framework": task.framework_id,
            "overlap": 1,
            "tasks": [task.pk],
            "annotators": [grader.pk],
        },
    )
    assert reply.status_code == 422
    assert "already exists" in reply.content.decode()
    assert Study.objects.count() == 1


def test_the_study_page_shows_each_annotators_completion(client_as, make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=2, overlap=1)
    services.assign_study(study)
    done = Assignment.objects.filter(annotator=graders[0]).first()
    factories.complete(done, graders[0])
    services.submit(done, by=done.annotator)
    html = (
        client_as(Role.MAINTAINER).get(reverse("grading:study", args=[study.pk])).content.decode()
    )
    assert f"<td>{graders[0].username}</td><td>1</td><td>0</td><td>1</td>" in html
    assert f"<td>{graders[1].username}</td><td>1</td><td>0</td><td>0</td>" in html


def test_closing_a_study_stops_annotators_from_claiming(client_as, make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    url = reverse("grading:study_status", args=[study.pk])
    assert client_as(Role.MAINTAINER).post(url, {"status": "closed"}).status_code == 302
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert services.claim_next(study, grader) is None


def test_close_study_asks_first_on_a_page_of_its_own(client_as, make_user):
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    client = client_as(Role.MAINTAINER)
    confirm = reverse("grading:study_close", args=[study.pk])
    status = reverse("grading:study_status", args=[study.pk])
    for page in ("grading:study", "grading:study_manage"):
        html = client.get(reverse(page, args=[study.pk])).content.decode()
        assert f'href="{confirm}"' in html
        assert 'value="closed"' not in html  # no button that closes at once
    asked = client.get(confirm)
    assert asked.status_code == 200
    html = asked.content.decode()
    assert "Close the study? Grades can no longer change." in html
    assert f'action="{status}"' in html and 'value="closed"' in html
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN
    client.post(status, {"status": "closed"})
    assert client.get(confirm).url == reverse("grading:study", args=[study.pk])


def test_maintainers_pages_name_an_annotator_one_way(client_as, make_user):
    grader = make_user(Role.ANNOTATOR, username="aruiz")
    grader.display_name = "Ana Ruiz"
    grader.save()
    study = factories.study([grader], responses=1, overlap=1, gold_rate=30)
    services.assign_study(study)
    mine = services.claim_next(study, grader)
    flags.raise_flag(mine, kind="other", comment="The audio is missing.", by=grader)
    client = client_as(Role.MAINTAINER)
    for page in ("grading:study", "grading:study_manage", "grading:study_flags"):
        html = client.get(reverse(page, args=[study.pk])).content.decode()
        cells = re.findall(r"<td>([^<]*aruiz[^<]*)</td>", html)
        named = re.findall(r"Ana Ruiz[^<]*", html)
        assert all(cell == "Ana Ruiz (aruiz)" for cell in cells), (page, cells)
        assert named and all(text.startswith("Ana Ruiz (aruiz)") for text in named), (page, named)
