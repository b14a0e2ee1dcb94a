"""Setting up a study over many published tasks: filters with response counts, one small page
of tasks, "all that match", and the preview of each annotator's load before creating."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import services as grading_services
from grading.models import Assignment, Study
from rubrics.models import Response, Task
from rubrics.services import record_response
from tests import factories

pytestmark = pytest.mark.http

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
    with django_assert_max_num_queries(20):
        response = maintainer.get(reverse("grading:study_create"))
    html = response.content.decode()
    assert html.count('name="tasks"') == 25
    assert "zz-draft" not in html
    assert "30 tasks match, with 60 responses." in html
    assert len(response.content) < 40_000


def test_the_preview_takes_the_same_queries_on_every_page(
    maintainer, benchmark, django_assert_max_num_queries
):
    with django_assert_max_num_queries(20):
        first = preview(maintainer, form(benchmark))
    with django_assert_max_num_queries(20):
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


def hidden(html: str, name: str) -> str:
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)">', html)
    assert found, name
    return found.group(1).replace("&amp;", "&")


def checked_scope(html: str) -> str:
    found = re.search(r'name="scope" value="(\w+)" checked', html)
    assert found
    return found.group(1)


def test_choosing_only_ticked_tasks_before_ticking_keeps_that_scope_and_the_list(
    maintainer, benchmark
):
    html = preview(maintainer, form(benchmark, scope="chosen", language="es"))
    assert checked_scope(html) == "chosen"
    assert "Only the tasks ticked (0)" in html
    assert html.count('type="checkbox" name="tasks"') == 10
    assert "<strong>0</strong> responses to grade" in html


def test_ticking_keeps_the_page_shown_and_a_changed_filter_starts_at_page_one(
    maintainer, benchmark
):
    second = preview(maintainer, form(benchmark, page=2))
    assert "Page 2 of 2" in second
    shown = {"listed": hidden(second, "listed"), "shown_page": hidden(second, "shown_page")}
    tick = Task.objects.exclude(key="zz-draft").order_by("key").last()
    ticked = preview(maintainer, form(benchmark, scope="chosen", tasks=[tick.pk], **shown))
    assert "Page 2 of 2" in ticked
    assert f'value="{tick.pk}" id="task-{tick.pk}" checked' in ticked
    assert "Only the tasks ticked (1)" in ticked
    overlap = preview(maintainer, form(benchmark, overlap=1, tasks=[tick.pk], **shown))
    assert "Page 2 of 2" in overlap
    filtered = preview(maintainer, form(benchmark, model="model-a", tasks=[tick.pk], **shown))
    assert "Page 1 of 2" in filtered
    assert f'<input type="hidden" name="tasks" value="{tick.pk}">' in filtered


def test_a_mistake_in_the_filters_loses_neither_the_ticks_nor_the_scope(maintainer, benchmark):
    ticked = list(Task.objects.exclude(key="zz-draft").values_list("pk", flat=True)[:3])
    html = preview(maintainer, form(benchmark, scope="chosen", tasks=ticked, value="B1"))
    assert "Choose the variable this value belongs to." in html
    assert checked_scope(html) == "chosen"
    assert "Only the tasks ticked (3)" in html
    assert all(f'name="tasks" value="{pk}"' in html for pk in ticked), html


def test_the_study_holds_as_many_responses_as_the_preview_showed(maintainer, benchmark):
    ticked = list(Task.objects.filter(language="es").values_list("pk", flat=True)[:4])
    data = form(benchmark, scope="chosen", tasks=ticked, model="model-b")
    shown = int(hidden(preview(maintainer, data), "shown_responses"))
    assert shown == 4
    response = maintainer.post(reverse("grading:study_create"), data | {"shown_responses": shown})
    assert response.status_code == 302
    assert Study.objects.get(name="Pilot").items.count() == shown


def test_a_study_other_than_the_preview_showed_is_refused(maintainer, benchmark):
    ticked = list(Task.objects.filter(language="es").values_list("pk", flat=True)[:4])
    data = form(benchmark, scope="chosen", tasks=ticked, shown_responses=6)
    response = maintainer.post(reverse("grading:study_create"), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "The selection now holds 8 responses, not the 6 the preview showed" in html
    assert hidden(html, "shown_responses") == "8"  # the page now shows the true count
    assert not Study.objects.exists()


def test_only_ticked_tasks_without_a_tick_is_refused_on_creating(maintainer, benchmark):
    response = maintainer.post(reverse("grading:study_create"), form(benchmark, scope="chosen"))
    assert response.status_code == 422
    assert "Tick at least one task, or take all tasks that match." in response.content.decode()
    assert not Study.objects.exists()


def test_a_new_study_takes_the_current_version_of_a_response_changed_after_grading(
    maintainer, benchmark
):
    task = Task.objects.filter(language="es").order_by("key").first()
    graded = task.responses.get(model_name="model-a")
    Response.objects.filter(pk=graded.pk).update(external_id="r-es")
    grading_services.create_study(
        name="Earlier", framework=task.framework, responses=[graded], annotators=[]
    )
    current, _ = record_response(task, "model-a", text="Changed.", external_id="r-es")
    assert current.version == 2

    html = preview(maintainer, form(benchmark, language="es", model="model-a"))
    assert "10 tasks match, with 10 responses." in html
    maintainer.post(
        reverse("grading:study_create"), form(benchmark, scope="matching", language="es")
    )
    responses = set(Study.objects.get(name="Pilot").items.values_list("response", flat=True))
    assert current.pk in responses and graded.pk not in responses
    assert len(responses) == 20
