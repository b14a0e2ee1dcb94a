import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from taxonomy.models import Framework
from tests.factories import make_framework


@pytest.fixture
def framework(db: None) -> Framework:
    return make_framework()


@pytest.fixture
def api_as(make_user):
    """api_as(Role.AUTHOR) -> an API client sending a fresh token of a new user with that role."""

    def client(role: Role) -> APIClient:
        _, key = ApiToken.issue(make_user(role), "tests")
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return api

    return client


@pytest.fixture
def viewer_api(api_as):
    return api_as(Role.VIEWER)
