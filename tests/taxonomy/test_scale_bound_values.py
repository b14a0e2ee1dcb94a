"""The values of a variable that takes a proficiency scale's levels follow the levels: the
pages and the admin (the API: tests/api/test_proficiency_scales_api.py) refuse to add, change,
move or delete one by hand (the next sync would undo it), naming the scale and where its levels
are edited."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import ContextValue, ContextVariable
from tests.conftest import htmx
from tests.factories import scale_bound_variable

pytestmark = pytest.mark.django_db

WHERE = "Proficiency scales page or through /api/v1/proficiency-levels/"


@pytest.fixture
def bound(db: None) -> ContextVariable:
    return scale_bound_variable()


def tied(variable: ContextVariable) -> ContextValue:
    return variable.values.get(code="a1")  # the value of the level A1


# ----- pages ---------------------------------------------------------------------------------
def test_the_page_refuses_a_new_value_of_a_scale_bound_variable(bound, client_as):
    client = htmx(client_as(Role.MAINTAINER))
    url = reverse("taxonomy:contextvalue_create", args=[bound.pk])
    response = client.post(url, {f"new-{bound.pk}-code": "c1", f"new-{bound.pk}-label": "C1"})
    assert response.status_code == 409
    assert "scale CEFR" in response.content.decode()
    assert not bound.values.filter(code="c1").exists()


@pytest.mark.parametrize("action", ["edit", "delete", "move"])
def test_the_page_refuses_to_change_a_value_tied_to_a_level(bound, client_as, action):
    client = htmx(client_as(Role.MAINTAINER))
    value = tied(bound)
    args = [value.pk, "down"] if action == "move" else [value.pk]
    data = {"code": "x", "label": "X", "revision": value.revision}
    response = client.post(reverse(f"taxonomy:contextvalue_{action}", args=args), data)
    assert response.status_code == 409
    assert "level a1 of the proficiency scale CEFR" in response.content.decode()
    value.refresh_from_db()
    assert (value.label, value.order) == ("A1", 1)


def test_the_page_still_deletes_a_value_no_level_holds(bound, client_as):
    client = htmx(client_as(Role.MAINTAINER))
    untied = bound.values.get(code="b1")
    response = client.post(reverse("taxonomy:contextvalue_delete", args=[untied.pk]))
    assert response.status_code == 200
    assert not ContextValue.objects.filter(pk=untied.pk).exists()


# ----- admin ---------------------------------------------------------------------------------
def test_the_admin_shows_a_value_tied_to_a_level_read_only(bound, client_as):
    client = client_as(Role.ADMIN)
    value = tied(bound)
    url = reverse("admin:taxonomy_contextvalue_change", args=[value.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'name="label"' not in page.content.decode()
    data = {"variable": bound.pk, "code": "a1", "label": "Beginner", "order": 1}
    assert client.post(url, data).status_code == 403
    delete = reverse("admin:taxonomy_contextvalue_delete", args=[value.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    value.refresh_from_db()
    assert value.label == "A1"


def test_the_admin_refuses_a_new_value_of_a_scale_bound_variable(bound, client_as):
    client = client_as(Role.ADMIN)
    data = {"variable": bound.pk, "code": "c1", "label": "C1", "order": 9}
    response = client.post(reverse("admin:taxonomy_contextvalue_add"), data)
    assert response.status_code == 200
    assert "scale CEFR" in response.content.decode()
    assert not bound.values.filter(code="c1").exists()


def test_the_admins_delete_selected_stops_at_a_value_tied_to_a_level(bound, client_as):
    client = client_as(Role.ADMIN)
    value = tied(bound)
    url = reverse("admin:taxonomy_contextvalue_changelist")
    data = {"action": "delete_selected", "_selected_action": [value.pk]}
    assert "scale CEFR" in client.post(url, data).content.decode()  # the confirmation says why
    assert client.post(url, data | {"post": "yes"}).status_code == 403
    assert ContextValue.objects.filter(pk=value.pk).exists()


def test_the_admin_shows_a_bound_variables_values_read_only(bound, client_as):
    client = client_as(Role.ADMIN)
    page = client.get(reverse("admin:taxonomy_contextvariable_change", args=[bound.pk]))
    assert page.status_code == 200
    assert 'name="values-0-label"' not in page.content.decode()
