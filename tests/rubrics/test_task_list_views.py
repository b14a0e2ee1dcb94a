"""The task list: filters (with and without htmx), pagination and a constant query count."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from taxonomy.models import ContextVariable, SubCompetency
from tests.conftest import htmx

pytestmark = pytest.mark.django_db
URL = reverse("rubrics:task_list")


@pytest.fixture
def tasks(starter_framework, author):
    """Three tasks that differ in every filtered field."""
    a = SubCompetency.objects.get(competency__framework=starter_framework, code="02a")
    b = SubCompetency.objects.exclude(competency=a.competency).first()
    first = services.create_task(a, "alpha", "Plan a diagnostic chat.", author)
    second = services.create_task(
        a, "beta", "Write a reading quiz.", author, reference_answer="Uses a picnic text."
    )
    third = services.create_task(b, "gamma", "Correct an essay.", author, language="es")
    level = ContextVariable.objects.get(framework=starter_framework, key="cefr_level")
    services.set_context_value(first, level, "B1", author)
    services.set_context_value(second, level, "A2", author)
    size = ContextVariable.objects.filter(framework=starter_framework, kind="number").first()
    services.set_context_value(third, size, size.minimum or 1, author)
    return {"alpha": first, "beta": second, "gamma": third, "level": level, "size": size}


def keys(response) -> set[str]:
    page = response.context["page"]
    return {task.key for task in page}


def test_no_filter_lists_every_task(client_as, tasks):
    assert keys(client_as(Role.VIEWER).get(URL)) == {"alpha", "beta", "gamma"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "PICNIC"}, {"beta"}),  # reference answer, any case
        ({"q": "essay"}, {"gamma"}),  # instruction
        ({"q": "alp"}, {"alpha"}),  # key
        ({"language": "es"}, {"gamma"}),
        ({"status": "in_review"}, set()),
        ({"status": "draft"}, {"alpha", "beta", "gamma"}),
    ],
)
def test_filters_narrow_the_list(client_as, tasks, params, expected):
    assert keys(client_as(Role.VIEWER).get(URL, params)) == expected


def test_filter_by_competency_and_sub_competency(client_as, tasks):
    client = client_as(Role.VIEWER)
    sub = tasks["alpha"].sub_competency
    assert keys(client.get(URL, {"sub_competency": sub.pk})) == {"alpha", "beta"}
    other = tasks["gamma"].sub_competency.competency
    assert keys(client.get(URL, {"competency": other.pk})) == {"gamma"}


def test_filter_by_a_listed_context_value_matches_label_or_code(client_as, tasks):
    client = client_as(Role.VIEWER)
    level = tasks["level"]
    assert keys(client.get(URL, {"variable": level.pk, "value": "b1"})) == {"alpha"}
    assert keys(client.get(URL, {"variable": level.pk, "value": "A2"})) == {"beta"}
    assert keys(client.get(URL, {"variable": level.pk})) == {"alpha", "beta"}


def test_filter_by_a_number_context_value(client_as, tasks):
    size = tasks["size"]
    client = client_as(Role.VIEWER)
    value = str(size.minimum or 1)
    assert keys(client.get(URL, {"variable": size.pk, "value": value})) == {"gamma"}
    response = client.get(URL, {"variable": size.pk, "value": "many"})
    assert keys(response) == set()
    assert f"{size.label} ({size.key}) takes a number." in response.content.decode()


def test_htmx_gets_the_results_fragment_and_plain_requests_the_page(client_as, tasks):
    client = client_as(Role.VIEWER)
    page = client.get(URL, {"q": "quiz"}).content.decode()
    assert "<html" in page and 'hx-push-url="true"' in page
    fragment = htmx(client).get(URL, {"q": "quiz"}).content.decode()
    assert "<html" not in fragment
    assert 'id="results"' in fragment and ">beta<" in fragment and ">alpha<" not in fragment


def test_pages_of_25_keep_the_filters_in_their_links(client_as, starter_framework, author):
    sub = SubCompetency.objects.filter(competency__framework=starter_framework).first()
    for n in range(30):
        services.create_task(sub, f"k{n:02d}", "Same task.", author)
    client = client_as(Role.VIEWER)
    first = client.get(URL, {"q": "same"})
    assert len(first.context["page"]) == 25
    assert "q=same&amp;page=2" in first.content.decode()
    assert len(client.get(URL, {"q": "same", "page": 2}).context["page"]) == 5


@pytest.mark.parametrize("count", [5, 40])
def test_query_count_does_not_grow_with_tasks(
    client_as, starter_framework, author, count, django_assert_max_num_queries
):
    subs = list(SubCompetency.objects.filter(competency__framework=starter_framework)[:5])
    for n in range(count):
        services.create_task(subs[n % len(subs)], f"q{n:02d}", "A task.", author)
    client = client_as(Role.VIEWER)
    client.get(URL)  # warm the session and permission caches
    with django_assert_max_num_queries(10):
        response = client.get(URL, {"q": "task", "status": "draft"})
    assert response.status_code == 200
    assert response.context["page"].paginator.count == count
