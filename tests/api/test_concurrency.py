"""ETag / If-Match (412) and the `revision` field (409): the same stale-save refusal as the
browser, through audit.editing."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import Competency, ContextVariable

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(api_as):
    return api_as(Role.AUTHOR)


@pytest.fixture
def competency(framework) -> Competency:
    return Competency.objects.get(framework=framework, code="01")


def url(obj: Competency) -> str:
    return reverse("api:competency-detail", args=[obj.pk])


def test_a_read_carries_the_revision_as_etag(author, competency):
    response = author.get(url(competency))
    assert response.headers["ETag"] == f'"{competency.revision}"'
    assert response.json()["revision"] == competency.revision


def test_a_change_with_the_current_etag_is_saved_and_bumps_the_etag(author, competency):
    etag = author.get(url(competency)).headers["ETag"]
    response = author.patch(url(competency), {"name": "Lesson planning"}, HTTP_IF_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["name"] == "Lesson planning"
    assert response.headers["ETag"] == f'"{competency.revision + 1}"'


def test_a_change_with_a_stale_etag_is_412_and_changes_nothing(author, competency):
    etag = author.get(url(competency)).headers["ETag"]
    author.patch(url(competency), {"name": "First"}, HTTP_IF_MATCH=etag)
    response = author.patch(url(competency), {"name": "Second"}, HTTP_IF_MATCH=etag)
    assert response.status_code == 412
    assert response.json()["current"]["name"] == "First"
    competency.refresh_from_db()
    assert competency.name == "First"


def test_a_change_with_a_stale_revision_is_409_with_the_current_object(author, competency):
    stale = competency.revision
    author.patch(url(competency), {"name": "First", "revision": stale})
    response = author.put(
        url(competency),
        {"framework": competency.framework.code, "code": "01", "name": "Second", "revision": stale},
    )
    assert response.status_code == 409
    body = response.json()
    assert "changed by someone else" in body["detail"]
    assert body["current"]["name"] == "First"
    assert body["current"]["revision"] == stale + 1
    assert response.headers["ETag"] == f'"{stale + 1}"'


def test_an_invalid_body_is_400_even_with_a_stale_etag(author, competency):
    response = author.patch(url(competency), {"name": 41}, HTTP_IF_MATCH='"999"')
    assert response.status_code == 400
    assert "name" in response.json()["errors"]


def test_a_change_that_says_no_revision_is_428(author, competency):
    response = author.patch(url(competency), {"name": "Blind write"})
    assert response.status_code == 428
    competency.refresh_from_db()
    assert competency.name == "Planning"


def test_if_match_star_accepts_any_revision(author, competency):
    response = author.patch(url(competency), {"name": "Overwritten"}, HTTP_IF_MATCH="*")
    assert response.status_code == 200


def test_a_delete_with_a_stale_etag_is_412(author, framework):
    variable = ContextVariable.objects.get(key="class_size")
    target = reverse("api:contextvariable-detail", args=[variable.pk])
    response = author.delete(target, HTTP_IF_MATCH=f'"{variable.revision + 1}"')
    assert response.status_code == 412
    assert ContextVariable.objects.filter(pk=variable.pk).exists()
    assert author.delete(target, HTTP_IF_MATCH=f'"{variable.revision}"').status_code == 204


def test_a_delete_something_depends_on_is_409_naming_it(author, competency):
    response = author.delete(url(competency))
    assert response.status_code == 409
    assert "cannot be deleted" in response.json()["detail"]
    assert "Sequencing" in response.json()["detail"]
    assert Competency.objects.filter(pk=competency.pk).exists()
