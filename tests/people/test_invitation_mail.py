"""An invitation without a mail server: the account is made and marked `invitation_unsent`,
the page and the API say so, and sending again is a clear refusal (503 in the API) until mail
works, never a server error.

Transactional: the email leaves once the account is committed (transaction.on_commit), which a
test's own transaction would postpone past the answer."""

import socket

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.roles import Role
from audit.models import AuditEvent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.http]

INVITATION = {"username": "ana", "email": "ana@example.org", "role": "Annotator"}


@pytest.fixture
def no_mail_server(settings):
    """SMTP to a local port nothing listens on: every connection is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5},
        }
    }
    return settings


@pytest.fixture
def admin(make_user) -> User:
    return make_user(Role.ADMIN, "boss")


def test_the_page_keeps_the_account_and_says_the_email_was_not_sent(admin, no_mail_server):
    client = Client()
    client.force_login(admin)
    response = client.post(reverse("people:invite"), INVITATION, follow=True)
    assert response.status_code == 200
    ana = User.objects.get(username="ana")
    assert ana.invitation_unsent
    page = response.content.decode()
    assert "could not be sent" in page and "send the link again" in page
    listed = client.get(reverse("people:people")).content.decode()
    assert "invited, email not sent" in listed
    [event] = AuditEvent.objects.for_object(ana).filter(kind="updated")
    assert event.changes == {"invitation_unsent": [False, True]}

    again = client.post(reverse("people:person_invite", args=[ana.pk]), follow=True)
    assert again.status_code == 200 and "could not be sent" in again.content.decode()

    no_mail_server.MAILERS = {
        "default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    }
    sent = client.post(reverse("people:person_invite", args=[ana.pk]), follow=True)
    assert "is on its way to ana@example.org" in sent.content.decode()
    ana.refresh_from_db()
    assert not ana.invitation_unsent and [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_the_api_keeps_the_account_and_answers_503_when_sending_again(admin, no_mail_server):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(admin, 'script')[1]}")
    made = api.post(reverse("api:person-list"), INVITATION, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["invitation_unsent"] is True

    again = api.post(reverse("api:person-invitation", args=[made.json()["id"]]))
    assert again.status_code == 503
    assert "could not be sent" in again.json()["detail"]

    no_mail_server.MAILERS = {
        "default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    }
    assert api.post(reverse("api:person-invitation", args=[made.json()["id"]])).status_code == 204
    person = api.get(reverse("api:person-detail", args=[made.json()["id"]])).json()
    assert person["invitation_unsent"] is False
