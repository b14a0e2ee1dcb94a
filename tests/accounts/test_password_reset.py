"""Password reset by email: the link works once, requests are limited, and the answer never
tells which addresses have an account."""

import json
import os
import re
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.urls import reverse

from accounts.roles import Role
from people.services import invitation_link

pytestmark = pytest.mark.django_db

RESET = reverse("password_reset")
NEW_PASSWORD = "a-new-and-long-pass-2026"


@pytest.fixture
def person(make_user):
    user = make_user(Role.ANNOTATOR)
    user.email = "grader@example.org"
    user.set_password("the-old-password-42")
    user.save()
    return user


def ask(client, email, address="192.0.2.1"):
    return client.post(RESET, {"email": email}, REMOTE_ADDR=address)


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S+)", message.body).group(1)


def test_the_login_page_links_to_the_reset_form(client):
    assert RESET in client.get(reverse("login")).content.decode()


def test_the_reset_email_carries_a_link_that_sets_a_new_password(client, person):
    response = ask(client, "Grader@Example.org")
    assert response.status_code == 302 and response.url == reverse("password_reset_done")
    assert [m.to for m in mail.outbox] == [[person.email]]
    assert person.username in mail.outbox[0].body

    form = client.get(link_in(mail.outbox[0]), follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done.url == reverse("password_reset_complete")
    person.refresh_from_db()
    assert person.check_password(NEW_PASSWORD)
    login = {"username": person.username, "password": NEW_PASSWORD}
    assert client.post(reverse("login"), login).url == reverse("home")


def test_a_used_link_does_not_work_again(client, person):
    ask(client, person.email)
    link = link_in(mail.outbox[0])
    form = client.get(link, follow=True)
    passwords = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    client.post(form.redirect_chain[-1][0], passwords)
    again = client.get(link, follow=True)
    assert "This link does not work" in again.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_email(client, person):
    known, unknown = ask(client, person.email), ask(client, "nobody@example.org")
    assert (unknown.status_code, unknown.url) == (known.status_code, known.url)
    assert len(mail.outbox) == 1
    page = client.get(unknown.url).content.decode()
    assert "If an account has this address" in page and "nobody@example.org" not in page


def test_requests_for_one_address_are_limited_and_answered_the_same(client, person, settings):
    settings.PASSWORD_RESET_LIMIT_PER_EMAIL = 3
    answers = [ask(client, person.email, address=f"192.0.2.{n}") for n in range(1, 6)]
    assert len(mail.outbox) == 3
    assert {(a.status_code, a.url) for a in answers} == {(302, reverse("password_reset_done"))}


def test_requests_from_one_client_are_limited_across_addresses(client, make_user, settings):
    settings.PASSWORD_RESET_LIMIT_PER_CLIENT = 2
    for n in range(4):
        user = make_user(Role.VIEWER)
        user.email = f"person{n}@example.org"
        user.save()
        assert ask(client, user.email).status_code == 302
    assert len(mail.outbox) == 2
    ask(client, "person3@example.org", address="198.51.100.7")  # another client still may
    assert len(mail.outbox) == 3


def mailer_under(env: dict[str, str]) -> dict:
    """MAILERS["default"] as settings.py builds it from `env`, in a fresh process."""
    script = (
        "import json, django; from django.conf import settings; django.setup(); "
        "print(json.dumps([settings.MAILERS['default'], settings.DEFAULT_FROM_EMAIL]))"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith(("EMAIL_", "DEBUG"))}
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=django_settings.BASE_DIR,
        env=base | {"DJANGO_SETTINGS_MODULE": "l2annot.settings"} | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout)


def test_development_prints_email_and_production_sends_it_over_smtp_from_the_environment():
    console, _ = mailer_under({"DEBUG": "1"})
    assert console["BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    smtp, sender = mailer_under(
        {
            "DEBUG": "0",
            "EMAIL_HOST": "smtp.example.org",
            "EMAIL_PORT": "587",
            "EMAIL_HOST_USER": "annot",
            "EMAIL_HOST_PASSWORD": "s3cret",
            "EMAIL_USE_TLS": "1",
            "DEFAULT_FROM_EMAIL": "L2 Annot <annot@example.org>",
        }
    )
    assert smtp["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert {k: smtp["OPTIONS"][k] for k in ("host", "port", "username", "password", "use_tls")} == {
        "host": "smtp.example.org",
        "port": 587,
        "username": "annot",
        "password": "s3cret",
        "use_tls": True,
    }
    assert sender == "L2 Annot <annot@example.org>"


def test_a_new_password_from_the_link_lifts_the_login_lockout(client, person):
    for _ in range(django_settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": person.username, "password": "wrong"})
    login = {"username": person.username, "password": NEW_PASSWORD}
    assert client.post(reverse("login"), login).status_code == 429  # locked out

    ask(client, person.email)
    form = client.get(link_in(mail.outbox[0]), follow=True)
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302

    signed_in = client.post(reverse("login"), login)
    assert signed_in.status_code == 302 and signed_in.url == reverse("home")


def test_an_invitation_link_asks_for_a_first_password_not_a_new_one(client, person):
    person.set_unusable_password()
    person.save()
    form = client.get(invitation_link(person, "http://testserver"), follow=True)
    page = form.content.decode()
    assert "Choose your password" in page and "Choose a new password" not in page


def test_an_invitation_sets_a_password_not_a_new_one_and_says_it_is_set(client, person):
    person.set_unusable_password()
    person.save()
    form = client.get(invitation_link(person, "http://testserver"), follow=True)
    page = form.content.decode()
    assert ">Password:</label>" in page and ">Password (again):</label>" in page
    assert "New password" not in page
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done.url == reverse("password_set_complete")
    page = client.get(done.url).content.decode()
    assert "Your password is set: sign in with it." in page and "new password" not in page
    person.refresh_from_db()
    assert person.check_password(NEW_PASSWORD)


def test_a_reset_keeps_asking_for_a_new_password(client, person):
    ask(client, person.email)
    form = client.get(link_in(mail.outbox[0]), follow=True)
    page = form.content.decode()
    assert ">New password:</label>" in page and ">New password confirmation:</label>" in page
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert "Your new password works now." in client.get(done.url).content.decode()
