"""Schemathesis generates requests from the OpenAPI schema and sends them, as an Admin with a
token, through the WSGI application: no answer may be a server error, and every answer must
match the schema (status code, body, headers). Bounded to a few examples per operation."""

import json

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import ApiToken
from accounts.roles import Role
from tests.factories import make_framework

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def keep_test_connection():  # type: ignore[no-untyped-def]
    """A WSGI request closes old database connections when it ends, which would close the test's
    transaction on PostgreSQL; Django's test client disconnects this handler the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def admin_key(keep_test_connection, make_user, settings) -> str:  # type: ignore[no-untyped-def]
    settings.ALLOWED_HOSTS = ["localhost"]  # schemathesis' WSGI client sends this Host
    make_framework()
    _, key = ApiToken.issue(make_user(Role.ADMIN), "schemathesis")
    return key


def openapi_document() -> dict:
    """The document /api/schema/ serves (same generator and renderer), built without a request:
    schemathesis' lazy fixture loader does not work with this pytest, and the test database
    does not exist yet when the module is collected."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


schema = schemathesis.openapi.from_dict(openapi_document())
schema.app = get_wsgi_application()


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=6,  # keeps the whole run under ~90 s on PostgreSQL as operations grow
    derandomize=True,  # the same examples on every run: CI does not flake
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_honours_its_schema(case, admin_key):  # type: ignore[no-untyped-def]
    case.call_and_validate(headers={"Authorization": f"Token {admin_key}"}, checks=CHECKS)


@pytest.mark.django_db
def test_the_served_schema_is_the_one_tested(client_as):
    served = client_as(Role.VIEWER).get("/api/schema/", {"format": "json"}).json()
    assert served == openapi_document()
