"""/api/v1/people/: admins invite people and set their role, access and expertise."""

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import role_of
from audit.models import AuditEvent
from grading.models import Expertise
from taxonomy.models import SubCompetency
from tests.api.test_schemathesis import _names_only_unknown_objects, openapi_document

pytestmark = [pytest.mark.django_db, pytest.mark.http]

PEOPLE = reverse("api:person-list")


def person_url(person: User) -> str:
    return reverse("api:person-detail", args=[person.pk])


def test_an_admin_invites_someone_with_their_expertise(
    api_as, framework, django_capture_on_commit_callbacks
):
    sub = SubCompetency.objects.filter(competency__framework=framework).first()
    body = {
        "username": "ana",
        "email": "ana@example.org",
        "role": "Annotator",
        "sub_competencies": [sub.pk],
        "languages": ["Spanish"],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = api_as(Role.ADMIN).post(PEOPLE, body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["role"] == "Annotator" and data["invited"] is True and data["is_active"] is True
    assert data["invitation_unsent"] is False
    assert (data["sub_competencies"], data["languages"]) == ([sub.pk], ["es"])  # a name is read
    assert mail.outbox[0].to == ["ana@example.org"]
    assert "/accounts/password/reset/" in mail.outbox[0].body


def test_an_invitation_needs_a_role_and_a_free_user_name(api_as, make_user):
    make_user(Role.VIEWER, "ana")
    api = api_as(Role.ADMIN)
    no_role = api.post(PEOPLE, {"username": "bo", "email": "bo@example.org"}, format="json")
    null_role = api.post(
        PEOPLE, {"username": "bo", "email": "bo@example.org", "role": None}, format="json"
    )
    taken = api.post(
        PEOPLE, {"username": "Ana", "email": "x@example.org", "role": "Viewer"}, format="json"
    )
    assert no_role.status_code == 400 and "role" in no_role.json()["errors"]
    assert null_role.status_code == 400 and "role" in null_role.json()["errors"]
    assert taken.status_code == 400 and "username" in taken.json()["errors"]
    assert mail.outbox == []


def test_patch_changes_role_access_and_expertise_with_history(api_as, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    api = api_as(Role.ADMIN)
    response = api.patch(
        person_url(ana),
        {"role": "Author", "is_active": False, "languages": ["fr"]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    ana.refresh_from_db()
    assert role_of(ana) is Role.AUTHOR and not ana.is_active
    assert list(Expertise.objects.filter(annotator=ana).values_list("language", flat=True)) == [
        "fr"
    ]
    unknown = api.patch(person_url(ana), {"languages": ["fr", "Klingon"]}, format="json")
    assert unknown.status_code == 400 and "Klingon" in str(unknown.json())
    kinds = set(AuditEvent.objects.for_object(ana).values_list("kind", flat=True))
    assert kinds == {"updated", "status"}


def test_a_deactivated_persons_token_stops_working(api_as, make_user):
    ana = make_user(Role.MAINTAINER, "ana")
    theirs = APIClient()
    theirs.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(ana, 't')[1]}")
    assert theirs.get(reverse("api:study-list")).status_code == 200
    api_as(Role.ADMIN).patch(person_url(ana), {"is_active": False}, format="json")
    assert theirs.get(reverse("api:study-list")).status_code == 401


def test_the_user_name_is_not_changed_through_patch(api_as, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    response = api_as(Role.ADMIN).patch(person_url(ana), {"username": "bo"}, format="json")
    assert response.status_code == 400
    assert User.objects.filter(username="ana").exists()


def test_an_admin_cannot_deactivate_themself(make_user):
    admin = make_user(Role.ADMIN)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(admin, 't')[1]}")
    response = api.patch(person_url(admin), {"is_active": False}, format="json")
    assert response.status_code == 409
    admin.refresh_from_db()
    assert admin.is_active


@pytest.mark.parametrize("role", [Role.MAINTAINER, Role.AUTHOR, Role.ANNOTATOR, Role.VIEWER])
def test_only_admins_reach_people(api_as, role, make_user):
    api = api_as(role)
    ana = make_user(Role.ANNOTATOR, "ana")
    assert api.get(PEOPLE).status_code == 403
    assert api.patch(person_url(ana), {"role": "Admin"}, format="json").status_code == 403
    assert role_of(ana) is Role.ANNOTATOR


def test_the_schema_asks_an_invitation_for_a_role_and_reads_back_an_empty_address(
    api_as, make_user
):
    shapes = openapi_document()["components"]["schemas"]
    invitation = shapes["InvitationRequest"]
    assert "role" in invitation["required"] and "nullable" not in invitation["properties"]["role"]
    assert invitation["properties"]["email"]["format"] == "email"
    assert shapes["Person"]["properties"]["email"]["anyOf"] == [
        {"format": "email"},
        {"maxLength": 0},
    ]
    no_address = make_user(Role.VIEWER, "ana")
    no_address.email = ""
    no_address.save()
    assert api_as(Role.ADMIN).get(person_url(no_address)).json()["email"] == ""


def test_a_taken_email_is_named_as_taken(api_as, make_user):
    make_user(Role.VIEWER, "ana")
    User.objects.filter(username="ana").update(email="ana@example.org")
    body = {"username": "bo", "email": "ana@example.org", "role": "Viewer"}
    answer = api_as(Role.ADMIN).post(PEOPLE, body, format="json")
    assert answer.status_code == 400 and _names_only_unknown_objects(answer.json())


def test_an_invitation_to_an_account_without_an_email_address_is_a_conflict(
    api_as, make_user, client_as
):
    """The account's state refuses it, not the request (which has no body): 409 in the API;
    the People page shows the same refusal as a message."""
    nobody = make_user(Role.VIEWER, "nobody")  # made by an administrator, no address
    assert nobody.email == ""
    url = reverse("api:person-invitation", args=[nobody.pk])
    answer = api_as(Role.ADMIN).post(url)
    assert answer.status_code == 409
    assert answer.json() == {"detail": "This account has no email address to invite."}
    invite = reverse("people:person_invite", args=[nobody.pk])
    page = client_as(Role.ADMIN).post(invite, follow=True)
    assert page.status_code == 200 and "no email address to invite" in page.content.decode()
    assert mail.outbox == []


def test_an_invitation_refused_for_an_unknown_language_creates_nothing_and_sends_nothing(
    api_as, framework, django_capture_on_commit_callbacks
):
    body = {"username": "ana", "email": "ana@example.org", "role": "Annotator"}
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_as(Role.ADMIN).post(PEOPLE, body | {"languages": ["Klingon"]}, format="json")
    assert answer.status_code == 400 and "Klingon" in str(answer.json()["errors"]["languages"])
    assert not User.objects.filter(username="ana").exists()
    assert mail.outbox == []


def test_a_patch_refused_for_an_unknown_language_changes_nothing_else(api_as, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    answer = api_as(Role.ADMIN).patch(
        person_url(ana), {"role": "Author", "is_active": False, "languages": ["Klingon"]},
        format="json",
    )  # fmt: skip
    assert answer.status_code == 400 and "Klingon" in str(answer.json())
    ana.refresh_from_db()
    assert role_of(ana) is Role.ANNOTATOR and ana.is_active
    assert not AuditEvent.objects.for_object(ana).exists()
