"""Login lockout (django-axes): five wrong passwords for one username from one address lock it."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from accounts.roles import Role

pytestmark = pytest.mark.http


def _log_in(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


@pytest.fixture
def annotator(make_user):
    return make_user(Role.ANNOTATOR, username="ada")


def test_correct_password_after_five_wrong_ones_is_refused_with_a_message(annotator) -> None:
    client = Client()
    for _ in range(4):
        assert _log_in(client, "ada", "wrong").status_code == 200  # the form, with its error
    response = _log_in(client, "ada", "wrong")
    assert response.status_code == 429

    response = _log_in(client, "ada", "pw-ada")

    assert response.status_code == 429
    assert "Too many failed logins" in response.text
    assert "15 minutes" in response.text
    assert "_auth_user_id" not in client.session


def test_a_success_resets_the_count(annotator) -> None:
    client = Client()
    for _ in range(4):
        _log_in(client, "ada", "wrong")
    assert _log_in(client, "ada", "pw-ada").status_code == 302
    client.post(reverse("logout"))

    for _ in range(4):
        _log_in(client, "ada", "wrong")

    assert _log_in(client, "ada", "pw-ada").status_code == 302


def test_lockout_is_per_username_and_address(annotator, make_user) -> None:
    make_user(Role.ANNOTATOR, username="ben")
    for _ in range(5):
        _log_in(Client(), "ada", "wrong")

    assert _log_in(Client(), "ben", "pw-ben").status_code == 302
    assert _log_in(Client(REMOTE_ADDR="10.0.0.9"), "ada", "pw-ada").status_code == 302


def test_locked_out_user_keeps_api_token_and_existing_session(annotator) -> None:
    """The lockout guards password guessing; it does not cut off work already authenticated."""
    _, key = ApiToken.issue(annotator, "script")
    session = Client()
    session.force_login(annotator)
    for _ in range(5):
        _log_in(Client(), "ada", "wrong")

    assert Client().get("/api/v1/frameworks/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    assert session.get(reverse("home")).status_code == 200


def test_behind_the_proxy_the_address_is_the_one_the_proxy_appended(annotator, settings) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    for _ in range(5):
        _log_in(Client(HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.5"), "ada", "wrong")

    # A forged first entry does not escape the lockout; another real client is not locked out.
    forged = Client(HTTP_X_FORWARDED_FOR="9.9.9.9, 203.0.113.5")
    assert _log_in(forged, "ada", "pw-ada").status_code == 429
    other = Client(HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert _log_in(other, "ada", "pw-ada").status_code == 302
