"""A study's pool holds active annotators only, however a person is added: the new-study and
pool pages, the API's study creation, preview and add-annotators, and the Django admin all
refuse a viewer, an author, a maintainer, an admin or a deactivated annotator, by name
(grading.models.check_graders)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.roles import Role
from grading import services
from grading.models import PoolMember, Study
from tests import factories

pytestmark = pytest.mark.django_db

NOT_GRADERS = [Role.VIEWER, Role.AUTHOR, Role.MAINTAINER, Role.ADMIN]


@pytest.fixture
def study(make_user) -> Study:
    return factories.study([make_user(Role.ANNOTATOR, "ana")], responses=1, overlap=1)


@pytest.mark.parametrize("role", NOT_GRADERS)
def test_the_api_adds_no_one_but_annotators_to_a_pool(api_as, make_user, study, role):
    outsider = make_user(role, "outsider")
    url = reverse("api:study-add-annotators", args=[study.pk])
    answer = api_as(Role.MAINTAINER).post(url, {"annotators": ["outsider"]}, format="json")
    assert answer.status_code == 400
    assert "outsider cannot join its pool" in str(answer.json()["errors"]["annotators"])
    assert not PoolMember.objects.filter(annotator=outsider).exists()


@pytest.mark.parametrize("role", NOT_GRADERS)
def test_the_api_creates_no_study_with_anyone_but_annotators(api_as, make_user, study, role):
    make_user(role, "outsider")
    body = {
        "name": "Second",
        "framework": study.framework.code,
        "annotators": ["ana", "outsider"],
        "responses": [study.items.get().response_id],
    }
    answer = api_as(Role.MAINTAINER).post(reverse("api:study-list"), body, format="json")
    assert answer.status_code == 400
    assert "outsider cannot join" in str(answer.json()["errors"]["annotators"])
    assert not Study.objects.filter(name="Second").exists()


def test_the_api_previews_no_pool_but_annotators(api_as, make_user, study):
    make_user(Role.VIEWER, "outsider")
    body = {"responses": [study.items.get().response_id], "annotators": ["ana", "outsider"]}
    answer = api_as(Role.MAINTAINER).post(reverse("api:study-preview"), body, format="json")
    assert answer.status_code == 400
    assert "outsider cannot join" in str(answer.json()["errors"]["annotators"])


def test_a_deactivated_annotator_joins_no_pool(make_user, study):
    gone = make_user(Role.ANNOTATOR, "gone")
    gone.is_active = False
    gone.save()
    with pytest.raises(ValidationError, match="gone cannot join"):
        services.add_annotators(study, [gone], by=None)


def test_the_django_admin_adds_no_one_but_annotators_to_a_pool(client_as, make_user, study):
    viewer = make_user(Role.VIEWER, "outsider")
    url = reverse("admin:grading_poolmember_add")
    answer = client_as(Role.ADMIN).post(url, {"study": study.pk, "annotator": viewer.pk})
    assert answer.status_code == 200  # the form again, with the refusal
    assert "outsider cannot join its pool" in answer.text
    assert not PoolMember.objects.filter(annotator=viewer).exists()


def test_an_annotator_joins_through_every_way(api_as, client_as, make_user, study):
    make_user(Role.ANNOTATOR, "bo")
    cy = make_user(Role.ANNOTATOR, "cy")
    url = reverse("api:study-add-annotators", args=[study.pk])
    answer = api_as(Role.MAINTAINER).post(url, {"annotators": ["bo"]}, format="json")
    assert answer.status_code == 200
    added = client_as(Role.ADMIN).post(
        reverse("admin:grading_poolmember_add"), {"study": study.pk, "annotator": cy.pk}
    )
    assert added.status_code == 302
    assert set(study.pool.values_list("annotator__username", flat=True)) == {"ana", "bo", "cy"}
