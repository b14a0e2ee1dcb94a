"""Every API route, every method, every role: the answer follows accounts.roles, read through
the viewset's `read_action` / `write_action`. A new API route must be added to RESOURCES."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.roles import Action, Role, roles_allowed
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency

pytestmark = pytest.mark.django_db

# basename -> (read action, write action, how to find an object to address)
RESOURCES = {
    "framework": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda: Framework.objects.get()),
    "competency": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda: Competency.objects.get(code="02"),
    ),
    "subcompetency": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda: SubCompetency.objects.get(code="01b"),
    ),
    "contextvariable": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda: ContextVariable.objects.get(key="class_size"),
    ),
    "contextvalue": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda: ContextValue.objects.get(code="b1"),
    ),
}
# Not resources: the schema and the docs page need a login, nothing more.
SERVICE_ROUTES = {"api:schema", "api:docs"}


def api_routes(patterns=None, namespace=""):
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from api_routes(entry.url_patterns, inner)
        elif isinstance(entry, URLPattern) and entry.name and namespace.startswith("api:"):
            yield f"{namespace}{entry.name}"


def test_every_api_route_is_listed():
    expected = {f"api:{basename}-{kind}" for basename in RESOURCES for kind in ("list", "detail")}
    assert set(api_routes()) == expected | SERVICE_ROUTES


def detail_url(basename: str) -> str:
    obj = RESOURCES[basename][2]()
    key = obj.code if basename == "framework" else obj.pk
    return reverse(f"api:{basename}-detail", args=[key])


# A write that the role may make must pass the permission check; the body is deliberately
# empty, so an allowed write answers 400 (invalid) or 428 (no If-Match), never 403.
CALLS = [
    ("get", "list", "read"),
    ("get", "detail", "read"),
    ("post", "list", "write"),
    ("patch", "detail", "write"),
    ("put", "detail", "write"),
]
CASES = [
    (basename, method, kind, access, role)
    for basename in RESOURCES
    for method, kind, access in CALLS
    for role in [*Role, None]
]


@pytest.mark.parametrize(
    ("basename", "method", "kind", "access", "role"),
    CASES,
    ids=[f"{b}-{m}-{k}-{r or 'anonymous'}" for b, m, k, _, r in CASES],
)
def test_api_answers_each_role_as_the_table_says(
    basename, method, kind, access, role, framework, api_as
):
    read, write, _ = RESOURCES[basename]
    action = read if access == "read" else write
    url = detail_url(basename) if kind == "detail" else reverse(f"api:{basename}-list")
    client = api_as(role) if role else APIClient()
    response = getattr(client, method)(url, {}, format="json")
    if role is None:
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith("Token")
    elif role in roles_allowed(action):
        assert response.status_code in (200, 400, 428), response.content[:300]
    else:
        assert response.status_code == 403
        assert "role does not allow" in response.json()["detail"]


@pytest.mark.parametrize("role", [*Role])
def test_delete_follows_the_write_action(role, framework, api_as):
    response = api_as(role).delete(detail_url("contextvalue"))
    expected = 204 if role in roles_allowed(Action.EDIT_TAXONOMY) else 403
    assert response.status_code == expected
    assert ContextValue.objects.filter(code="b1").exists() is (expected == 403)


@pytest.mark.parametrize("name", sorted(SERVICE_ROUTES))
def test_schema_and_docs_need_a_login(name, client, client_as):
    assert client.get(reverse(name)).status_code in (302, 401, 403)
    assert client_as(Role.ANNOTATOR).get(reverse(name)).status_code == 200
