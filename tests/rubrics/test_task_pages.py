import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from rubrics.models import TaskResource
from rubrics.models.tasks import IMPORTED_EXCLUSION_REASON
from rubrics.services import TurnSpec

pytestmark = pytest.mark.django_db


def detail_url(task):
    return reverse("rubrics:task_detail", args=[task.pk])


def test_annotators_may_not_see_the_task_page(client_as, published):
    assert client_as(Role.ANNOTATOR).get(detail_url(published.task)).status_code == 403


def test_anonymous_visitors_are_sent_to_log_in(client, published):
    response = client.get(detail_url(published.task))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("role", [Role.VIEWER, Role.AUTHOR, Role.MAINTAINER, Role.ADMIN])
def test_readers_of_the_benchmark_see_the_task_page(client_as, published, role):
    assert client_as(role).get(detail_url(published.task)).status_code == 200


def test_task_page_shows_the_rubric_by_layer_with_weights_and_exclusions(
    client_as, task, universal, author
):
    services.exclude_universal(task, universal[1], "Printed cards only.", author)
    page = client_as(Role.VIEWER).get(detail_url(task)).content.decode()
    for text in ("Universal criteria", "Consensus criteria", "Task criteria", "t101-02"):
        assert text in page
    assert "Not applicable: Printed cards only." in page
    assert "÷ 13" in page  # 4 + 5 + 3 + 1: the excluded and negative weights do not count


def test_the_reason_an_import_excludes_a_criterion_reads_in_the_readers_language(
    client_as, task, universal, author
):
    """The import's reason is stored in English and read in Spanish; a person's as written."""
    services.exclude_universal(task, universal[0], IMPORTED_EXCLUSION_REASON, author)
    services.exclude_universal(task, universal[1], "Printed cards only.", author)
    client = client_as(Role.VIEWER)
    client.cookies["django_language"] = "es"
    page = client.get(detail_url(task), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "No aplicable: No figura para esta tarea en el archivo L2-Bench importado." in page
    assert "No aplicable: Printed cards only." in page and "Not listed" not in page


def test_task_page_shows_versions_reviews_and_responses_with_safe_markdown(
    client_as, published, maintainer
):
    task = published.task
    services.record_response(task, "model-a", text="**Bold** <script>alert(1)</script>")
    services.record_response(
        task, "model-b", turns=[TurnSpec("user", "Hi"), TurnSpec("assistant", "*Hello*")]
    )
    page = client_as(Role.VIEWER).get(detail_url(task)).content.decode()
    assert "Version 1: 6 criteria" in page
    assert f"Approved and published by {maintainer}" in page
    assert "<strong>Bold</strong>" in page and "<em>Hello</em>" in page
    assert "<script>alert" not in page


def test_task_page_query_count_does_not_grow_with_responses(client_as, published):
    client = client_as(Role.VIEWER)

    def queries_after_adding_a_conversation(n: int) -> int:
        services.record_response(
            published.task, f"m{n}", turns=[TurnSpec("user", "Hi"), TurnSpec("assistant", "Yo")]
        )
        with CaptureQueriesContext(connection) as queries:
            assert client.get(detail_url(published.task)).status_code == 200
        return len(queries)

    assert queries_after_adding_a_conversation(1) == queries_after_adding_a_conversation(2)


def test_task_list_links_each_task_for_viewers_and_is_closed_to_annotators(client_as, task):
    url = reverse("rubrics:task_list")
    assert detail_url(task) in client_as(Role.VIEWER).get(url).content.decode()
    assert client_as(Role.ANNOTATOR).get(url).status_code == 403


def test_a_task_with_more_resources_than_the_l2bench_layout_carries_says_so(client_as, task):
    for n in range(1, 4):
        TaskResource.objects.create(task=task, order=n, title=f"r{n}.md", text="A sheet.")
    notice = "the L2-Bench layout carries 3 per task"
    assert notice not in client_as(Role.VIEWER).get(detail_url(task)).content.decode()
    TaskResource.objects.create(task=task, order=4, title="r4.md", text="A fourth sheet.")
    assert notice in client_as(Role.VIEWER).get(detail_url(task)).content.decode()
    editor = client_as(Role.AUTHOR).get(reverse("rubrics:task_edit", args=[task.pk]))
    assert "This task has 4 resources" in editor.content.decode()
