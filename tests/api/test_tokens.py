import hashlib

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role

pytestmark = [pytest.mark.django_db, pytest.mark.http]

FRAMEWORKS = "/api/v1/frameworks/"


def api_with(key: str, keyword: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {key}")
    return client


def test_creating_a_token_shows_its_key_once_and_stores_only_its_hash(client_as):
    client = client_as(Role.VIEWER)
    response = client.post(reverse("token_create"), {"name": "nightly export"})
    assert response.status_code == 201
    key = response.context["new_key"]
    assert key in response.content.decode()
    token = ApiToken.objects.get(name="nightly export")
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {token.key_hash, token.hint, token.name}
    assert key not in client.get(reverse("profile")).content.decode()


def test_a_token_without_a_name_is_refused(client_as):
    response = client_as(Role.VIEWER).post(reverse("token_create"), {"name": ""})
    assert response.status_code == 422
    assert not ApiToken.objects.exists()


def test_a_token_authenticates_as_its_user_and_records_use(make_user):
    user = make_user(Role.VIEWER)
    token, key = ApiToken.issue(user, "script")
    assert api_with(key).get(FRAMEWORKS).status_code == 200
    token.refresh_from_db()
    assert token.last_used is not None


def test_bearer_works_like_token(make_user):
    _, key = ApiToken.issue(make_user(Role.VIEWER), "script")
    assert api_with(key, "Bearer").get(FRAMEWORKS).status_code == 200


def test_a_token_has_exactly_its_users_role(make_user):
    _, key = ApiToken.issue(make_user(Role.VIEWER), "script")
    response = api_with(key).post(FRAMEWORKS, {"code": "x", "name": "X"}, format="json")
    assert response.status_code == 403


def test_a_revoked_token_is_refused_with_401(client_as, make_user):
    user = make_user(Role.AUTHOR)
    token, key = ApiToken.issue(user, "script")
    client = client_as(Role.AUTHOR)
    client.force_login(user)
    response = client.post(reverse("token_revoke", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked is not None
    answer = api_with(key).get(FRAMEWORKS)
    assert answer.status_code == 401
    assert "revoked" in answer.json()["detail"]


def test_nobody_revokes_another_persons_token(client_as, make_user):
    token, _ = ApiToken.issue(make_user(Role.VIEWER), "theirs")
    response = client_as(Role.ADMIN).post(reverse("token_revoke", args=[token.pk]))
    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked is None


def test_a_token_of_a_deactivated_user_is_refused(make_user):
    user = make_user(Role.ADMIN)
    _, key = ApiToken.issue(user, "script")
    user.is_active = False
    user.save()
    assert api_with(key).get(FRAMEWORKS).status_code == 401


@pytest.mark.parametrize("header", ["Token", "Token a b", "Token l2a_not-a-key", "Bearer \u00e9"])
def test_a_malformed_or_unknown_token_is_401(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    assert client.get(FRAMEWORKS).status_code == 401


def test_the_profile_lists_tokens_with_their_hint_and_a_revoke_button(client_as, make_user):
    client = client_as(Role.VIEWER)
    client.post(reverse("token_create"), {"name": "grading sync"})
    body = client.get(reverse("profile")).content.decode()
    token = ApiToken.objects.get()
    assert "grading sync" in body and token.hint in body
    assert reverse("token_revoke", args=[token.pk]) in body
