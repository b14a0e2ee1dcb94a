import pytest
from django.urls import reverse

from accounts.roles import Role

pytestmark = pytest.mark.django_db


def test_pages_carry_a_strict_content_security_policy(client_as):
    response = client_as(Role.VIEWER).get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response.headers["X-Frame-Options"] == "DENY"


def test_every_script_on_a_page_is_local_and_carries_the_nonce(client_as):
    response = client_as(Role.VIEWER).get(reverse("home"))
    nonce = response.headers["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    body = response.content.decode()
    assert body.count("<script") == body.count(f'nonce="{nonce}"') == 2
    assert "http://" not in body and "https://" not in body


def test_the_profile_lists_what_the_role_allows(client_as):
    body = client_as(Role.ANNOTATOR).get(reverse("profile")).content.decode()
    assert "Grade assigned responses" in body
    assert "Edit the taxonomy" not in body


def test_login_page_works_without_an_account(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert 'name="username"' in response.content.decode()
