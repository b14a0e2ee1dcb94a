"""The People pages: admins invite, set role, expertise and access, with the history."""

import re

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from accounts.services import role_of
from audit.models import AuditEvent
from grading import services as grading_services
from grading.models import Assignment, Expertise
from people import services
from taxonomy.models import SubCompetency
from tests import factories
from tests.factories import framework

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(make_user) -> User:
    return make_user(Role.ADMIN, "boss")


@pytest.fixture
def admin_client(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def signs_in(username: str, password: str) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def invite(client: Client, **fields: str):
    data = {"username": "ana", "email": "ana@example.org", "role": "Annotator"} | fields
    return client.post(reverse("people:invite"), data)


def test_people_is_in_the_navigation_of_admins_only(admin_client, client_as):
    assert reverse("people:people") in admin_client.get(reverse("home")).content.decode()
    page = client_as(Role.MAINTAINER).get(reverse("home")).content.decode()
    assert reverse("people:people") not in page


def test_an_invitation_creates_the_account_and_mails_a_set_password_link(
    admin_client, admin, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = invite(admin_client, display_name="Ana Ruiz")
    ana = User.objects.get(username="ana")
    assert response.status_code == 302
    assert response.url == reverse("people:person", args=[ana.pk])
    assert role_of(ana) is Role.ANNOTATOR
    assert not ana.has_usable_password() and not ana.is_staff
    [email] = mail.outbox
    assert email.to == ["ana@example.org"] and "boss invited you" in email.body
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", email.body)[1]

    visitor = Client()
    form_url = visitor.get(link).url  # Django moves the token into the session
    done = visitor.post(form_url, {"new_password1": "Ana-set-1t!", "new_password2": "Ana-set-1t!"})
    assert done.status_code == 302
    assert signs_in("ana", "Ana-set-1t!")
    [event] = AuditEvent.objects.for_object(ana)
    assert event.actor == admin and event.changes["role"] == [None, "Annotator"]


def test_the_email_leaves_only_once_the_account_is_committed(
    admin, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as waiting:
        services.invite(
            username="ana", email="ana@example.org", role=Role.ANNOTATOR,
            base_url="http://testserver", by=admin,
        )  # fmt: skip
        assert mail.outbox == []  # a rollback now would leave no account and no email
    assert len(waiting) == 1 and mail.outbox == []
    waiting[0]()
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_a_refused_invitation_creates_nothing_and_sends_nothing(
    admin, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(ValidationError) as refused,
    ):
        services.invite(
            username="ana", email="ana@example.org", role=Role.ANNOTATOR,
            base_url="http://testserver", by=admin, languages=["es", "Klingon"],
        )  # fmt: skip
    assert "Klingon" in str(refused.value.message_dict["languages"])
    assert not User.objects.filter(username="ana").exists() and mail.outbox == []


def test_a_taken_user_name_or_email_is_refused_and_nothing_is_sent(admin_client, make_user):
    make_user(Role.VIEWER, "ana")
    User.objects.filter(username="ana").update(email="ANA@example.org")
    response = invite(admin_client, username="ANA")
    assert response.status_code == 422
    page = response.content.decode()
    assert "This user name is already used" in page and "email address is already used" in page
    assert mail.outbox == [] and User.objects.filter(username__iexact="ana").count() == 1


def test_role_access_and_expertise_change_with_history(admin_client, admin, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    sub = SubCompetency.objects.create(
        competency=framework().competencies.first(), code="09x", name="Feedback on writing"
    )
    url = reverse("people:person", args=[ana.pk])

    admin_client.post(reverse("people:person_role", args=[ana.pk]), {"role": "Maintainer"})
    admin_client.post(
        reverse("people:person_expertise", args=[ana.pk]),
        {"sub_competencies": [sub.pk], "languages": "Spanish, French, Spanish"},
    )
    admin_client.post(reverse("people:person_active", args=[ana.pk]), {"active": "0"})

    ana.refresh_from_db()
    assert role_of(ana) is Role.MAINTAINER and not ana.is_active
    assert sorted(Expertise.objects.filter(annotator=ana).values_list("language", flat=True)) == [
        "",
        "es",
        "fr",
    ]
    changes = [e.changes for e in AuditEvent.objects.for_object(ana).order_by("at", "pk")]
    assert changes == [
        {"role": ["Annotator", "Maintainer"]},
        {"expertise": [[], ["09x", "es", "fr"]]},
        {"is_active": [True, False]},
    ]
    page = admin_client.get(url).content.decode()
    assert "Deactivated" in page and "Reactivate" in page and "09x" in page

    admin_client.post(reverse("people:person_active", args=[ana.pk]), {"active": "1"})
    ana.refresh_from_db()
    assert ana.is_active


def test_a_deactivated_person_cannot_sign_in(admin_client, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    admin_client.post(reverse("people:person_active", args=[ana.pk]), {"active": "0"})
    assert not signs_in("ana", "pw-ana")


def test_deactivating_takes_a_person_out_of_study_pools_keeping_what_they_submitted(
    admin_client, make_user
):
    ana, ben = make_user(Role.ANNOTATOR, "ana"), make_user(Role.ANNOTATOR, "ben")
    study = factories.study([ana, ben], responses=4, overlap=1, seed=4)
    grading_services.assign_study(study)
    done = Assignment.objects.filter(annotator=ana).first()
    factories.complete(done, ana)
    grading_services.submit(done, by=ana)
    admin_client.post(reverse("people:person_active", args=[ana.pk]), {"active": "0"})
    assert not study.pool.filter(annotator=ana).exists()
    assert list(Assignment.objects.filter(annotator=ana)) == [done]
    assert Assignment.objects.filter(annotator=ben).count() == 3  # ana's other response too
    removed = AuditEvent.objects.for_object(study).first()
    assert "ana removed" in removed.comment and removed.actor.is_superuser


def test_an_admin_cannot_change_their_own_role_or_access(admin_client, admin):
    role = admin_client.post(reverse("people:person_role", args=[admin.pk]), {"role": "Viewer"})
    access = admin_client.post(reverse("people:person_active", args=[admin.pk]), {"active": "0"})
    assert (role.status_code, access.status_code) == (409, 409)
    admin.refresh_from_db()
    assert role_of(admin) is Role.ADMIN and admin.is_active


def test_making_someone_admin_gives_them_the_django_admin_and_taking_it_away_removes_it(
    admin_client, make_user
):
    ana = make_user(Role.VIEWER, "ana")
    admin_client.post(reverse("people:person_role", args=[ana.pk]), {"role": "Admin"})
    ana.refresh_from_db()
    assert ana.is_staff and ana.is_superuser
    admin_client.post(reverse("people:person_role", args=[ana.pk]), {"role": "Author"})
    ana.refresh_from_db()
    assert not ana.is_staff and not ana.is_superuser


def test_the_invitation_can_be_sent_again(admin_client, make_user):
    ana = make_user(Role.ANNOTATOR, "ana")
    User.objects.filter(pk=ana.pk).update(email="ana@example.org")
    response = admin_client.post(reverse("people:person_invite", args=[ana.pk]))
    assert response.status_code == 302 and mail.outbox[0].to == ["ana@example.org"]


def test_the_list_takes_the_same_queries_for_many_people(admin_client, make_user):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(reverse("people:people")).status_code == 200
        return len(captured)

    make_user(Role.ANNOTATOR)
    few = queries()
    for _ in range(6):
        ana = make_user(Role.ANNOTATOR)
        Expertise.objects.create(annotator=ana, language="es")
    assert queries() == few


def test_htmx_gets_the_table_alone(admin_client):
    response = admin_client.get(reverse("people:people"), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="people-table"' in html and "<html" not in html and "Invite someone" not in html
