"""The second factor: set up from the account page, asked for at login (a code from the app or
a recovery code, each once), under the login lockout, and required of admins and maintainers
when the deployment says so (TWO_FACTOR_REQUIRED)."""

import re
import time
from unittest import mock

import pytest
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from accounts import signin
from accounts.models import RecoveryCode, SecondFactor, User
from accounts.roles import Role
from tests.conftest import htmx
from tests.factories import totp_code, turned_on_second_factor

pytestmark = pytest.mark.http


@pytest.fixture
def person(make_user) -> User:
    return make_user(Role.ANNOTATOR, "nadia")


def password_step(client: Client, user: User, next_url: str = ""):
    data = {"username": user.username, "password": f"pw-{user.username}", "next": next_url}
    return client.post(reverse("login"), data)


def signed_in(client: Client) -> User | None:
    user = client.get(reverse("profile")).wsgi_request.user
    return user if user.is_authenticated else None


def test_a_person_sets_it_up_from_their_account_page_and_sees_recovery_codes_once(client, person):
    client.force_login(person)
    assert "off" in client.get(reverse("profile")).content.decode()
    started = htmx(client).post(reverse("two_factor_setup"))
    page = started.content.decode()
    factor = SecondFactor.objects.get(user=person)
    assert factor.confirmed is None and factor.secret in page
    assert 'src="data:image/svg+xml' in page  # the QR code, no request of its own
    assert f"otpauth://totp/L2%20Annot:nadia?secret={factor.secret}" in page
    assert page.strip().startswith('<section id="two-factor"')  # the part htmx swaps

    answer = client.post(reverse("two_factor_confirm"), {"code": totp_code(factor)})
    codes = re.findall(r"<code>(\w{4}-\w{4}-\w{4})</code>", answer.content.decode())
    assert len(codes) == 10 and answer["Cache-Control"] == "no-store"
    factor.refresh_from_db()
    assert factor.confirmed is not None
    stored = set(RecoveryCode.objects.values_list("code_hash", flat=True))
    assert len(stored) == 10 and not any(code.replace("-", "") in stored for code in codes)
    again = client.get(reverse("two_factor")).content.decode()
    assert codes[0] not in again and "10 unused recovery codes" in again


def test_a_wrong_first_code_turns_nothing_on(client, person):
    client.force_login(person)
    client.post(reverse("two_factor_setup"))
    answer = client.post(reverse("two_factor_confirm"), {"code": "000000"})
    assert answer.status_code == 422
    assert "This code is not right" in answer.content.decode()
    assert SecondFactor.objects.get(user=person).confirmed is None


def test_a_password_alone_no_longer_logs_in(client, person):
    factor, _codes = turned_on_second_factor(person)
    answer = password_step(client, person, "/taxonomy/")
    assert answer.url == reverse("two_factor_verify")
    assert signed_in(client) is None
    assert client.get(reverse("two_factor_verify")).status_code == 200
    done = client.post(reverse("two_factor_verify"), {"code": totp_code(factor)})
    assert done.status_code == 302 and done.url == "/taxonomy/"
    assert signed_in(client) == person


def test_a_code_is_accepted_once(client, person):
    factor, _codes = turned_on_second_factor(person)
    code = totp_code(factor)
    password_step(client, person)
    assert client.post(reverse("two_factor_verify"), {"code": code}).status_code == 302
    other = Client()
    password_step(other, person)
    assert other.post(reverse("two_factor_verify"), {"code": code}).status_code == 422
    assert signed_in(other) is None


def test_a_recovery_code_logs_in_once(client, person):
    _factor, codes = turned_on_second_factor(person)
    password_step(client, person)
    assert client.post(reverse("two_factor_verify"), {"code": codes[3].upper()}).status_code == 302
    other = Client()
    password_step(other, person)
    assert other.post(reverse("two_factor_verify"), {"code": codes[3]}).status_code == 422


def test_the_second_step_waits_only_a_few_minutes(client, person):
    factor, _codes = turned_on_second_factor(person)
    password_step(client, person)
    later = time.time() + signin.PENDING_SECONDS + 1
    with mock.patch("accounts.signin.time.time", return_value=later):
        answer = client.post(reverse("two_factor_verify"), {"code": totp_code(factor)})
    assert answer.url == reverse("login") and signed_in(client) is None


def test_the_second_step_without_a_password_first_is_the_login_page(client, db):
    assert client.get(reverse("two_factor_verify")).url == reverse("login")


def test_wrong_codes_count_for_the_lockout_and_a_right_password_does_not_reset_them(client, person):
    factor, _codes = turned_on_second_factor(person)
    limit = django_settings.AXES_FAILURE_LIMIT
    password_step(client, person)
    for _ in range(limit - 1):
        assert client.post(reverse("two_factor_verify"), {"code": "123456"}).status_code == 422
    password_step(client, person)  # the right password again: the count goes on
    assert client.post(reverse("two_factor_verify"), {"code": "123456"}).status_code == 429
    assert AccessAttempt.objects.get(username=person.username).failures_since_start == limit
    # Locked: the right code, and the password step, are refused too.
    assert client.post(reverse("two_factor_verify"), {"code": totp_code(factor)}).status_code == 429
    assert password_step(Client(), person).status_code == 429
    assert signed_in(client) is None


def test_a_completed_login_clears_the_count(client, person):
    factor, _codes = turned_on_second_factor(person)
    password_step(client, person)
    client.post(reverse("two_factor_verify"), {"code": "123456"})
    client.post(reverse("two_factor_verify"), {"code": totp_code(factor)})
    assert not AccessAttempt.objects.filter(username=person.username).exists()


def test_new_recovery_codes_replace_the_old_ones(client, person):
    factor, old = turned_on_second_factor(person)
    client.force_login(person)
    answer = client.post(reverse("two_factor_recovery_codes"), {"code": totp_code(factor)})
    new = re.findall(r"<code>(\w{4}-\w{4}-\w{4})</code>", answer.content.decode())
    assert len(new) == 10 and not set(new) & set(old)
    other = Client()
    password_step(other, person)
    assert other.post(reverse("two_factor_verify"), {"code": old[0]}).status_code == 422


def test_turning_it_off_takes_a_code(client, person):
    factor, _codes = turned_on_second_factor(person)
    client.force_login(person)
    assert client.post(reverse("two_factor_off"), {"code": "000000"}).status_code == 422
    assert client.post(reverse("two_factor_off"), {"code": totp_code(factor)}).status_code == 200
    assert not SecondFactor.objects.filter(user=person).exists()
    assert password_step(Client(), person).url == reverse("home")


@pytest.mark.parametrize("role", [Role.ADMIN, Role.MAINTAINER])
def test_when_required_an_admin_or_maintainer_sets_it_up_before_anything_else(
    role, make_user, settings
):
    settings.TWO_FACTOR_REQUIRED = True
    user = make_user(role)
    client = Client()
    answer = password_step(client, user)
    assert client.get(answer.url).url == reverse("two_factor")
    assert client.get(reverse("taxonomy:index")).url == reverse("two_factor")
    assert htmx(client).get(reverse("taxonomy:index"))["HX-Redirect"] == reverse("two_factor")
    assert client.get(reverse("api:framework-list")).status_code == 403
    page = client.get(reverse("two_factor")).content.decode()
    assert "Your role must log in with a second factor" in page
    client.post(reverse("two_factor_setup"))
    factor = SecondFactor.objects.get(user=user)
    client.post(reverse("two_factor_confirm"), {"code": totp_code(factor)})
    assert client.get(reverse("home")).status_code == 200
    # And it cannot be turned off while the role requires it.
    off = client.post(reverse("two_factor_off"), {"code": totp_code(factor, 1)})
    assert off.status_code == 409 and SecondFactor.objects.filter(user=user).exists()


def test_when_required_other_roles_go_on_as_before(make_user, settings):
    settings.TWO_FACTOR_REQUIRED = True
    client = Client()
    client.force_login(make_user(Role.AUTHOR))
    assert client.get(reverse("home")).status_code == 200


def test_the_pages_speak_spanish(client, person):
    turned_on_second_factor(person)
    password_step(client, person)
    page = client.get(reverse("two_factor_verify"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Introduzca su código" in page
