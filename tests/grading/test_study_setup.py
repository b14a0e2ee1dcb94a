"""Setting up a study over many published tasks: filters with response counts, one small page
of tasks, "all that match", and the preview of each annotator's load before creating."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading.models import Assignment, Study
from rubrics.models import Task
from tests import factories

TASKS = 30  # more than a page (25)


@pytest.fixture(scope="module")
def benchmark(module_db: None) -> dict[str, object]:
    """30 published tasks (20 English, 10 Spanish), each answered by two models; one task
    never published; three annotators and a maintainer."""
    sync_roles()
    fw = factories.framework()
    tasks = [
        factories.published_task(fw, criteria=1, language="es" if n % 3 == 0 else "en")
        for n in range(TASKS)
    ]
    for task in tasks:
        factories.response(task, model="model-a")
        factories.response(task, model="model-b")
    sub = tasks[0].sub_competency
    Task.objects.create(framework=fw, key="zz-draft", sub_competency=sub, instruction="Draft.")
    graders = [create_user_with_role(f"grader{n}", "pw", Role.ANNOTATOR) for n in range(3)]
    create_user_with_role("lead", "pw", Role.MAINTAINER)
    return {"framework": fw.pk, "graders": [g.pk for g in graders]}


@pytest.fixture
def maintainer(benchmark, db) -> Client:
    client = Client()
    client.force_login(User.objects.get(username="lead"))
    return client


def form(benchmark, **fields: object) -> dict[str, object]:
    return {
        "name": "Pilot",
        "framework": benchmark["framework"],
        "overlap": 2,
        "annotators": benchmark["graders"],
        "assign_now": "on",
    } | fields


def preview(client: Client, data: dict[str, object]) -> str:
    response = client.post(reverse("grading:study_preview"), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # the fragment alone
    return html


def test_the_page_shows_one_small_page_of_tasks_in_a_fixed_number_of_queries(
    maintainer, django_assert_max_num_queries
):
    with django_assert_max_num_queries(18):
        response = maintainer.get(reverse("grading:study_create"))
    html = response.content.decode()
    assert html.count('name="tasks"') == 25
    assert "zz-draft" not in html
    assert "30 tasks match, with 60 responses." in html
    assert len(response.content) < 40_000


def test_the_preview_takes_the_same_queries_on_every_page(
    maintainer, benchmark, django_assert_max_num_queries
):
    with django_assert_max_num_queries(18):
        first = preview(maintainer, form(benchmark))
    with django_assert_max_num_queries(18):
        second = preview(maintainer, form(benchmark, page=2))
    assert first.count('name="tasks"') == 25 and second.count('name="tasks"') == TASKS - 25


def test_filters_narrow_the_tasks_and_count_the_chosen_models_responses(maintainer, benchmark):
    html = preview(maintainer, form(benchmark, language="es", model="model-a"))
    assert "10 tasks match, with 10 responses." in html
    assert html.count('name="tasks"') == 10
    assert "Review status" not in html  # the filters stay outside the swapped part


def test_the_preview_gives_the_units_and_each_annotators_load(maintainer, benchmark):
    html = preview(maintainer, form(benchmark, language="es", model="model-a"))
    assert re.search(r"<strong>10</strong> responses to grade, 2 graders each: <strong>20", html)
    loads = sorted(int(n) for n in re.findall(r"<td>grader\d</td><td>(\d+)</td>", html))
    assert loads == [6, 7, 7]


def test_a_pool_smaller_than_k_is_announced(maintainer, benchmark):
    data = form(benchmark, language="es", overlap=3, annotators=benchmark["graders"][:2])
    html = preview(maintainer, data)
    assert "20 responses would get fewer than 3 graders: the pool is smaller" in html


def test_ticks_on_other_pages_are_kept(maintainer, benchmark):
    keys = list(Task.objects.exclude(key="zz-draft").order_by("key").values_list("pk", flat=True))
    data = form(benchmark, scope="chosen", tasks=[keys[0], keys[-1]], page=2)
    html = preview(maintainer, data)
    assert f'<input type="hidden" name="tasks" value="{keys[0]}">' in html
    assert f'value="{keys[-1]}" id="task-{keys[-1]}" checked' in html
    assert "<strong>4</strong> responses to grade" in html


def test_creating_with_all_that_match_takes_every_matching_response(maintainer, benchmark):
    data = form(benchmark, scope="matching", language="es", model="model-b")
    response = maintainer.post(reverse("grading:study_create"), data)
    study = Study.objects.get(name="Pilot")
    assert response.status_code == 302
    assert set(study.items.values_list("response__model_name", flat=True)) == {"model-b"}
    assert study.items.count() == 10
    assert Assignment.objects.filter(study_item__study=study).count() == 20


def test_creating_with_ticked_tasks_takes_only_theirs(maintainer, benchmark):
    ticked = list(Task.objects.filter(language="en").values_list("pk", flat=True)[:2])
    data = form(benchmark, scope="chosen", tasks=ticked, language="es")
    maintainer.post(reverse("grading:study_create"), data)
    study = Study.objects.get(name="Pilot")
    assert set(study.items.values_list("response__task", flat=True)) == set(ticked)


def test_a_selection_without_responses_is_refused(maintainer, benchmark):
    data = form(benchmark, scope="matching", language="es", q="no such words")
    response = maintainer.post(reverse("grading:study_create"), data)
    assert response.status_code == 422
    assert "No response is selected" in response.content.decode()
    assert not Study.objects.exists()
