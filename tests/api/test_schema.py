import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from accounts.roles import Role

pytestmark = pytest.mark.django_db


def test_the_schema_validates_without_a_warning(tmp_path):
    # SystemExit or SchemaGenerationError on any warning or invalid schema
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
    assert "/api/v1/competencies/" in (tmp_path / "s.yml").read_text()


def operations():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_operation_describes_its_errors():
    expected = {
        "get": {"401", "403", "404"},
        "post": {"400", "401", "403", "409"},
        "put": {"400", "401", "403", "404", "409", "412", "428"},
        "patch": {"400", "401", "403", "404", "409", "412", "428"},
        "delete": {"401", "403", "404", "409", "412"},
    }
    for path, method, operation in operations():
        wanted = set(expected[method])
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        if method in ("put", "patch") and "If-Match" not in headers:
            wanted -= {"412", "428"}  # no revision (grades): nothing to be stale against
        assert wanted <= set(operation["responses"]), (method, path)


def test_every_field_is_typed():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for name, component in schema["components"]["schemas"].items():
        for field, spec in component.get("properties", {}).items():
            assert {"type", "$ref", "allOf", "oneOf"} & set(spec), (name, field)


def test_the_docs_page_loads_only_local_assets_under_the_csp(client_as):
    response = client_as(Role.VIEWER).get(reverse("api:docs"))
    body = response.content.decode()
    policy = response.headers["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    assert response.status_code == 200
    assert "http://" not in body and "https://" not in body
    assert "<style" not in body and "style=" not in body
    assert body.count("<script") == body.count(f'nonce="{nonce}"') == 3
    for src in re.findall(r'(?:src|href)="([^"]+)"', body):
        assert src.startswith("/"), src


def test_the_docs_start_up_script_is_served_as_a_file(client_as):
    response = client_as(Role.VIEWER).get(reverse("api:docs"), {"script": ""})
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/javascript")
    assert reverse("api:schema") in response.content.decode()
