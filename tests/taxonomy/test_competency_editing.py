"""Editing the competency tree through the inline (htmx) views."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from taxonomy.models import Competency, SubCompetency
from tests.conftest import htmx
from tests.factories import make_framework

pytestmark = pytest.mark.django_db


@pytest.fixture
def framework():
    return make_framework()


@pytest.fixture
def author(client_as):
    return htmx(client_as(Role.AUTHOR))


def planning(framework):
    return Competency.objects.get(framework=framework, code="01")


def add_sub(client, competency, **data):
    url = reverse("taxonomy:subcompetency_create", args=[competency.pk])
    prefix = f"new-{competency.pk}"
    return client.post(url, {f"{prefix}-{k}": v for k, v in data.items()})


def test_adding_a_sub_competency_returns_the_updated_card(author, framework):
    response = add_sub(author, planning(framework), code="01c", name="Course planning")
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<li class="card" id="item-')
    assert "Course planning" in body and "<html" not in body
    sub = SubCompetency.objects.get(code="01c")
    assert sub.order == 3
    assert AuditEvent.objects.for_object(sub).get().kind == AuditEvent.Kind.CREATED


def test_a_duplicate_code_in_the_framework_is_refused_with_a_message(author, framework):
    other = Competency.objects.get(framework=framework, code="02")
    response = add_sub(author, other, code="01a", name="Clash")
    assert response.status_code == 422
    assert "Code 01a is already used in this framework." in response.content.decode()
    assert not SubCompetency.objects.filter(name="Clash").exists()


def test_an_empty_name_is_refused_with_a_message(author, framework):
    response = add_sub(author, planning(framework), code="01z", name="")
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()


def test_editing_a_sub_competency_records_what_changed(author, framework, make_user):
    sub = SubCompetency.objects.get(code="01a")
    url = reverse("taxonomy:subcompetency_edit", args=[sub.pk])
    response = author.post(
        url, {"code": "01a", "name": "Setting objectives", "description": "", "revision": 1}
    )
    assert response.status_code == 200
    sub.refresh_from_db()
    assert (sub.name, sub.revision) == ("Setting objectives", 2)
    event = AuditEvent.objects.for_object(sub).get(kind=AuditEvent.Kind.UPDATED)
    assert event.changes == {"name": ["Objectives", "Setting objectives"]}
    assert event.actor is not None


def test_second_save_of_a_stale_sub_competency_is_a_conflict(author, framework):
    sub = SubCompetency.objects.get(code="01a")
    url = reverse("taxonomy:subcompetency_edit", args=[sub.pk])
    first = {"code": "01a", "name": "First editor", "description": "", "revision": 1}
    second = {"code": "01a", "name": "Second editor", "description": "", "revision": 1}
    assert author.post(url, first).status_code == 200
    response = author.post(url, second)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Someone else saved this" in body and "First editor" in body and "Second editor" in body
    sub.refresh_from_db()
    assert sub.name == "First editor"


def test_deleting_a_competency_with_sub_competencies_is_refused_naming_them(author, framework):
    competency = planning(framework)
    response = author.post(reverse("taxonomy:competency_delete", args=[competency.pk]))
    assert response.status_code == 409
    body = response.content.decode()
    assert "is used by 2 sub-competencies (01a Objectives, 01b Sequencing)" in body
    assert Competency.objects.filter(pk=competency.pk).exists()
    assert not AuditEvent.objects.filter(kind=AuditEvent.Kind.DELETED).exists()


def test_deleting_an_unused_sub_competency_removes_it_and_keeps_history(author, framework):
    sub = SubCompetency.objects.get(code="01b")
    events = AuditEvent.objects.for_object(sub)
    response = author.post(reverse("taxonomy:subcompetency_delete", args=[sub.pk]))
    assert response.status_code == 200
    assert not SubCompetency.objects.filter(pk=sub.pk).exists()
    assert events.filter(kind="deleted").exists()


def test_moving_a_sub_competency_up_renumbers_its_siblings(author, framework):
    sub = SubCompetency.objects.get(code="01b")
    author.post(reverse("taxonomy:subcompetency_move", args=[sub.pk, "up"]))
    codes = list(
        planning(framework).sub_competencies.order_by("order").values_list("code", flat=True)
    )
    assert codes == ["01b", "01a"]


def test_a_plain_form_post_without_htmx_redirects_back_to_the_tree(client_as, framework):
    client = client_as(Role.AUTHOR)
    response = add_sub(client, planning(framework), code="01c", name="Course planning")
    assert response.status_code == 302
    assert response.url.endswith(f"/taxonomy/test-fw/competencies/#item-{planning(framework).pk}")


def test_the_tree_page_runs_a_constant_number_of_queries(
    client_as, framework, django_assert_max_num_queries
):
    client = client_as(Role.VIEWER)
    url = reverse("taxonomy:competencies", args=[framework.code])
    with django_assert_max_num_queries(8):
        client.get(url)
    for n in range(3, 10):
        Competency.objects.create(framework=framework, code=f"{n:02}", name=f"C{n}", order=n)
    with django_assert_max_num_queries(8):
        assert client.get(url).status_code == 200


def test_a_viewer_sees_the_tree_without_edit_buttons(client_as, framework):
    response = client_as(Role.VIEWER).get(reverse("taxonomy:competencies", args=[framework.code]))
    body = response.content.decode()
    assert "Objectives" in body
    assert "Add competency" not in body and ">Delete<" not in body
