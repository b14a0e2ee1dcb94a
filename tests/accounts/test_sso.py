"""Single sign-on against a real OpenID provider on the loopback (tests/oidc_provider: a Django
project with django-oidc-provider in its own process): the whole authorization-code flow, the
test client as the browser on our side and requests as the person at the provider."""

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from axes.models import AccessAttempt
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.models import SignOnIdentity, User
from accounts.roles import Role
from accounts.services import create_user_with_role, role_of
from audit.models import AuditEvent
from tests.app_processes import free_port
from tests.factories import totp_code, turned_on_second_factor
from tests.oidc_provider.people import CLIENT_ID, CLIENT_SECRET, ROLE_CLAIM
from tests.oidc_provider.running import log_in_at_provider, running_provider

CALLBACK = "http://testserver/accounts/sso/callback/"


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory):
    with running_provider(tmp_path_factory.mktemp("oidc"), CALLBACK) as issuer:
        yield issuer


@pytest.fixture
def sign_on(provider: str, settings, db: None) -> str:
    settings.OIDC_ISSUER = provider
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_ROLE_CLAIM = ROLE_CLAIM
    settings.OIDC_PROVIDER_NAME = "Uni Example"
    return provider


def sign_on_as(client: Client, username: str, *, allow: bool = True, state: str | None = None):
    """The browser's round trip: our start page, the provider, back to our callback."""
    start = client.get(reverse("oidc_authentication_init"), {"next": "/taxonomy/"})
    assert start.status_code == 302
    back = log_in_at_provider(start.url, username, allow=allow)
    if state is not None:
        query = parse_qs(urlsplit(back).query)
        query["state"] = [state]
        back = f"{CALLBACK}?{urlencode(query, doseq=True)}"
    return client.get(back)


def signed_in(client: Client) -> User | None:
    user = client.get(reverse("profile")).wsgi_request.user
    return user if user.is_authenticated else None


def refusal_message(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def test_without_configuration_there_is_no_sign_on(client, db):
    page = client.get(reverse("login")).content.decode()
    assert reverse("oidc_authentication_init") not in page
    assert client.get(reverse("oidc_authentication_init")).url == reverse("login")
    assert client.get(reverse("oidc_authentication_callback")).url == reverse("login")


def test_the_login_page_offers_the_institutions_sign_on(client, sign_on):
    page = client.get(reverse("login")).content.decode()
    assert reverse("oidc_authentication_init") in page
    assert "Sign in with Uni Example" in page


def test_a_new_person_signs_on_with_the_role_their_claim_names(client, sign_on):
    answer = sign_on_as(client, "ana")
    assert answer.status_code == 302 and answer.url == "/taxonomy/"
    user = signed_in(client)
    assert user is not None and user.username == "ana" and user.email == "ana@uni.example"
    assert role_of(user) is Role.MAINTAINER
    assert not user.has_usable_password()
    assert SignOnIdentity.objects.get(user=user).issuer == sign_on
    client.post(reverse("logout"))
    sign_on_as(client, "ana")  # again: the same account
    assert signed_in(client) == user and User.objects.count() == 1


def test_without_a_role_claim_a_new_person_has_no_role_until_an_admin_gives_one(
    client, sign_on, settings
):
    settings.OIDC_ROLE_CLAIM = ""
    sign_on_as(client, "ana")
    user = signed_in(client)
    assert user is not None and role_of(user) is None
    assert client.get(reverse("taxonomy:index")).status_code == 403


def test_the_claim_does_not_take_the_role_of_the_last_admin(client, sign_on, settings):
    settings.OIDC_ROLE_CLAIM = ""
    sign_on_as(client, "ana")
    user = signed_in(client)
    create_user_with_role(user.username, "unused-pass-123", Role.ADMIN)  # made admin here
    client.post(reverse("logout"))
    settings.OIDC_ROLE_CLAIM = ROLE_CLAIM
    sign_on_as(client, "ana")  # the provider calls her a Maintainer
    assert role_of(signed_in(client)) is Role.ADMIN
    create_user_with_role("second-admin", "local-pass-123", Role.ADMIN)
    client.post(reverse("logout"))
    sign_on_as(client, "ana")
    assert role_of(signed_in(client)) is Role.MAINTAINER


def test_a_role_the_claim_changes_is_in_the_history_with_the_provider_as_source(
    client, sign_on, settings
):
    settings.OIDC_ROLE_CLAIM = ""
    sign_on_as(client, "ana")
    user = signed_in(client)
    assert user is not None and not AuditEvent.objects.for_object(user).exists()
    client.post(reverse("logout"))
    settings.OIDC_ROLE_CLAIM = ROLE_CLAIM
    sign_on_as(client, "ana")  # the provider calls her a Maintainer
    (event,) = AuditEvent.objects.for_object(user)
    assert event.changes == {"role": [None, Role.MAINTAINER.value]} and event.actor is None
    assert event.comment == f"single sign-on: {sign_on}, claim {ROLE_CLAIM}"
    client.post(reverse("logout"))
    sign_on_as(client, "ana")  # the same role again: nothing new
    assert AuditEvent.objects.for_object(user).count() == 1
    person = reverse("people:person", args=[user.pk])  # the person's page lists the history
    page = client_as_admin(client).get(person).content.decode()
    assert f"single sign-on: {sign_on}, claim {ROLE_CLAIM}" in page


def client_as_admin(client: Client) -> Client:
    client.post(reverse("logout"))
    client.force_login(create_user_with_role("admin-two", "local-pass-123", Role.ADMIN))
    return client


def test_a_local_account_with_the_same_email_is_not_taken_over(client, sign_on):
    local = create_user_with_role("ben", "local-pass-123", Role.ADMIN, email="ben@uni.example")
    sign_on_as(client, "ben")
    user = signed_in(client)
    assert user is not None and user != local
    assert user.username == "ben-2" and role_of(user) is None


def test_a_name_that_reads_like_another_accounts_is_not_given(client, sign_on):
    create_user_with_role("admin", "local-pass-123", Role.ADMIN)
    sign_on_as(client, "eve")  # her provider calls her "admin" with a Cyrillic a
    user = signed_in(client)
    assert user is not None and user.username != "admin"
    assert user.username_key != User.objects.get(username="admin").username_key
    assert role_of(user) is None


def test_declining_at_the_provider_logs_no_one_in(client, sign_on):
    answer = sign_on_as(client, "ana", allow=False)
    assert answer.url == reverse("login")
    assert "you did not allow it" in refusal_message(answer)
    assert signed_in(client) is None and not User.objects.exists()


def test_a_state_this_browser_was_not_given_is_refused(client, sign_on):
    answer = sign_on_as(client, "ana", state="forged-state")
    assert answer.url == reverse("login")
    assert "Sign-on failed" in refusal_message(answer)
    assert signed_in(client) is None and not User.objects.exists()


def test_an_expired_id_token_is_refused(client, sign_on, caplog):
    answer = sign_on_as(client, "late")  # the provider's token expired before it came
    assert answer.url == reverse("login")
    assert "Signature has expired" in caplog.text
    assert "Sign-on failed" in refusal_message(answer)
    assert signed_in(client) is None and not User.objects.exists()
    # A failed login for the lockout, from this address (a sign-on carries no user name).
    assert AccessAttempt.objects.get(ip_address="127.0.0.1").failures_since_start == 1


def test_a_token_for_another_client_is_refused(client, sign_on, caplog):
    answer = sign_on_as(client, "stranger")
    assert answer.url == reverse("login")
    assert "Audience doesn't match" in caplog.text
    assert signed_in(client) is None and not User.objects.exists()


def test_a_deactivated_account_is_signed_out_and_cannot_sign_on(client, sign_on):
    sign_on_as(client, "ana")
    user = signed_in(client)
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert signed_in(client) is None
    other = Client()
    answer = sign_on_as(other, "ana")
    assert answer.url == reverse("login") and signed_in(other) is None


def test_a_person_with_a_second_factor_gives_a_code_after_signing_on(client, sign_on):
    sign_on_as(client, "ana")
    factor, _codes = turned_on_second_factor(signed_in(client))
    client.post(reverse("logout"))
    answer = sign_on_as(client, "ana")
    assert answer.url == reverse("two_factor_verify")
    assert signed_in(client) is None
    done = client.post(reverse("two_factor_verify"), {"code": totp_code(factor)})
    assert done.url == "/taxonomy/"
    assert signed_in(client) == factor.user


def test_a_provider_that_does_not_answer_brings_the_person_back_with_a_message(
    client, sign_on, settings
):
    settings.OIDC_ISSUER = f"http://127.0.0.1:{free_port()}/openid"  # nothing listens there
    answer = client.get(reverse("oidc_authentication_init"))
    assert answer.url == reverse("login")
    assert "did not answer" in refusal_message(answer)


def test_a_person_without_a_role_sees_their_home_page(client, sign_on, settings):
    settings.OIDC_ROLE_CLAIM = ""
    sign_on_as(client, "ben")
    assert client.get(reverse("home")).status_code == 200
