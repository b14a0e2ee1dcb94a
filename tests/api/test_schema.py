import re
from functools import cache
from typing import Any

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


@cache
def generated() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations():
    for path, methods in generated()["paths"].items():
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
        if method == "post" and "requestBody" not in operation:
            wanted -= {"400"}  # an action without a body (submit): nothing in it to refuse
        assert wanted <= set(operation["responses"]), (method, path)


def test_a_change_of_a_revisioned_object_requires_its_revision_in_the_body():
    """The API takes `revision` or If-Match; the schema cannot say "one of", so it requires
    `revision` in a PUT/PATCH body (the one of a POST, which creates, does not)."""
    components = generated()["components"]["schemas"]

    def body(operation):
        reference = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        return components[reference.rsplit("/", 1)[1]]

    changes, creations = [], {}
    for path, method, operation in operations():
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        if method in ("put", "patch") and "If-Match" in headers:
            changes.append(path)
            assert operation["requestBody"]["required"], (method, path)
            assert "revision" in body(operation)["required"], (method, path)
            assert "If-Match" in body(operation)["properties"]["revision"]["description"]
        elif method == "post":
            creations[path] = operation
    # PUT and PATCH of frameworks, the taxonomy's six resources, tasks and gold verdicts
    assert len(changes) == 18
    for path in {path.split("{")[0] for path in changes}:
        assert "revision" not in body(creations[path]).get("required", []), path


def test_every_field_is_typed():
    for name, component in generated()["components"]["schemas"].items():
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


def test_the_schemathesis_run_takes_a_412_only_for_an_etag_other_than_the_current_one():
    """A stale If-Match is state, as a stale `revision` (409): the run lets it through, but not
    a 412 to the current ETag or to `*`, nor a 412 without If-Match."""
    from types import SimpleNamespace

    from tests.api.test_schemathesis import _names_a_stale_etag

    def answer(status: int, sent: str | None, current: str = '"3"') -> SimpleNamespace:
        request = SimpleNamespace(headers={} if sent is None else {"If-Match": sent})
        return SimpleNamespace(status_code=status, request=request, headers={"etag": [current]})

    assert _names_a_stale_etag(answer(412, '"2"'))
    assert _names_a_stale_etag(answer(412, 'W/"3", "x"'))  # If-Match compares strongly
    assert not _names_a_stale_etag(answer(412, '"3"'))
    assert not _names_a_stale_etag(answer(412, '"1", "3"'))
    assert not _names_a_stale_etag(answer(412, "*"))
    assert not _names_a_stale_etag(answer(412, None))
    assert not _names_a_stale_etag(answer(400, '"2"'))


def test_a_persons_languages_are_listed_as_the_codes_the_api_accepts():
    components = generated()["components"]["schemas"]
    items = components["PatchedPersonRequest"]["properties"]["languages"]["items"]
    (reference,) = items["allOf"]
    listed = components[reference["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert {"en", "es", "und"} <= set(listed)
    assert "Spanish" not in listed
