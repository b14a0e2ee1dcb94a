import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import SubCompetency
from tests.conftest import htmx
from tests.factories import make_framework

pytestmark = pytest.mark.django_db


def test_the_history_page_shows_who_changed_what(client_as):
    make_framework()
    sub = SubCompetency.objects.get(code="01a")
    author = htmx(client_as(Role.AUTHOR))
    author.post(
        reverse("taxonomy:subcompetency_edit", args=[sub.pk]),
        {"code": "01a", "name": "Objectives and outcomes", "description": "", "revision": 1},
    )
    response = client_as(Role.VIEWER).get(
        reverse("audit:history", args=["taxonomy", "subcompetency", sub.pk])
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "Updated" in body and "author" in body
    assert "Objectives and outcomes" in body


def test_history_of_an_account_is_not_published(client_as, make_user):
    user = make_user(Role.VIEWER)
    response = client_as(Role.ADMIN).get(
        reverse("audit:history", args=["accounts", "user", user.pk])
    )
    assert response.status_code == 404
