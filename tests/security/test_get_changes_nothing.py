"""A GET never changes anything: every URL pattern of the project (pages, htmx endpoints, the
API, the Django admin), opened by an admin, leaves every row of the database as it was, and
every view that changes data answers a GET with 405. A link or a Markdown image (`![](...)` in
a task or a response) makes whoever opens the page send a GET: it must never cancel a judge
run, spend a provider's money or start someone's work.

One walk over every pattern, with one data set for the module. Each request's writes are
caught as they happen (every INSERT, UPDATE or DELETE the request sends that touches a row,
named with its URL), and the whole database's rows are compared before and after the walk."""

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.urls import URLPattern

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from audit import services as audit
from audit.models import AuditEvent
from jobs.models import Job
from judging.models import JudgeRun, PromptTemplate, PromptVersion
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from tests import factories
from tests.accounts.test_route_permissions import CREATE_UNDER, GRADING_PARAMS, ROUTES
from tests.url_walk import admin_model, api_model, every_pattern, fill, first_pk, parameters

pytestmark = pytest.mark.http

# Written by reading, on purpose: the cache of computed reports, and the session a request
# keeps (its CSRF token, its messages). A report the cache lacks is asked of the worker as a job
# (kind "report", keyed by the report's cache key) by the page that shows it or its download:
# filling the cache, as a page computing it itself would.
NOT_STATE = ("l2annot_cache", "django_session")
WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def walk_data(module_db: None) -> dict[str, Any]:
    """One object of every kind a URL addresses, the grading ones the admin's own work (an
    admin may grade), and a judge run of the admin's study that disagrees with the grades."""
    sync_roles()
    admin_user = create_user_with_role("walker", "pw-walker", Role.ADMIN)
    framework = factories.make_framework()
    sub = SubCompetency.objects.get(code="01b")
    audit.record(sub, AuditEvent.Kind.CREATED)
    scale = ProficiencyScale.objects.create(framework=framework, code="cefr", name="CEFR")
    factories.benchmark_objects()
    page_objects = {
        "competency": Competency.objects.get(code="02"),
        "subcompetency": sub,
        "contextvariable": ContextVariable.objects.get(key="class_size"),
        "contextvalue": ContextValue.objects.get(code="b1"),
        "scale": scale,
        "level": ProficiencyLevel.objects.create(scale=scale, code="a1", label="A1"),
        **factories.rubric_route_objects(sub),
        "person": User.objects.create(username="invitee", email="invitee@example.org"),
        "token": ApiToken.issue(admin_user, "script")[0],
        **factories.webhook_route_objects(),
    }
    grading = factories.grading_route_kwargs(
        GRADING_PARAMS, factories.grading_route_values(admin_user)
    )
    run = factories.disagreeing_run(grading["study_id"])
    JudgeRun.objects.filter(pk=run.pk).update(
        parameters={"study": grading["study_id"]}, status=JudgeRun.Status.RUNNING
    )
    # A grade, a gold verdict, a flag, a turn grade; the assignment is not started yet.
    unstarted = factories.grading_objects(admin_user)["assignment"]
    return {
        "admin": admin_user.pk,
        "pages": {kind: obj.pk for kind, obj in page_objects.items()},
        "grading": grading | {"run_id": run.pk, "assignment_id": unstarted.pk},
        "job": factories.make_job(framework).pk,
        "framework": framework.code,
    }


def url_of(name: str, route: str, pattern: URLPattern, data: dict[str, Any]) -> str:
    wanted = parameters(route)
    values: dict[str, Any] = {
        "framework_code": data["framework"],
        "code": data["framework"],
        "direction": "up",
        "uidb64": "MQ",  # a set-password link that does not work: the page says so
        "token": "not-a-token",
        "prompt_id": first_pk(PromptTemplate),
        "version_id": first_pk(PromptVersion),
        "url": "no/such/page/",
        "app_label": "taxonomy",
        "id": data["admin"],
        "run": data["grading"]["run_id"],
        **data["grading"],
    }
    if name == "audit:history":
        subcompetency = data["pages"]["subcompetency"]
        values.update(app_label="taxonomy", model="subcompetency", pk=subcompetency)
    elif name in ("interchange:job", "interchange:job_again"):
        values["pk"] = data["job"]
    elif name.startswith("api:") and "pk" in wanted:
        values["pk"] = first_pk(api_model(pattern))
    elif "pk" in wanted:
        kind = name.split(":")[-1].rsplit("_", 1)[0]
        values["pk"] = CREATE_UNDER[kind]().pk if name.endswith("_create") else data["pages"][kind]
    if "object_id" in wanted:
        model = admin_model(name) or User
        values["object_id"] = first_pk(model)
        values["content_type_id"] = ContentType.objects.get_for_model(model).pk
    return fill(route, values)


def asks_worker(sql: str, params: Any) -> bool:
    """The row of a report asked of the worker (a job of kind "report"; NOT_STATE above)."""
    return sql.startswith('INSERT INTO "jobs_job"') and Job.Kind.REPORT in (params or ())


@contextmanager
def writes_caught(found: list[str]) -> Iterator[None]:
    """Every statement that wrote a row while inside, but the cache's and the session's."""

    def catch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        wrote = WRITE.match(sql) and context["cursor"].rowcount != 0
        if wrote and not any(table in sql for table in NOT_STATE) and not asks_worker(sql, params):
            found.append(sql[:160])
        return result

    with connection.execute_wrapper(catch):
        yield


def database_rows() -> dict[str, str]:
    """A digest of every table's rows (but the session's), by model."""
    digests = {}
    for model in apps.get_models(include_auto_created=True):
        if not model._meta.managed or model._meta.proxy or model._meta.label == "sessions.Session":
            continue
        rows = model._base_manager.order_by("pk")
        if model is Job:
            rows = rows.exclude(kind=Job.Kind.REPORT)
        rows = rows.values_list()
        digests[model._meta.label] = hashlib.sha256(repr(list(rows)).encode()).hexdigest()
    return digests


def test_a_get_of_every_url_changes_nothing(walk_data: dict[str, Any], db: None) -> None:
    client = Client()
    client.force_login(User.objects.get(pk=walk_data["admin"]))
    patterns = list(every_pattern())
    urls = [(name, url_of(name, route, pattern, walk_data)) for name, route, pattern in patterns]
    # The pages again as htmx asks for them: a view may answer htmx with something else.
    requests = [(name, url, {}) for name, url in urls] + [
        (name, url, {"HTTP_HX_REQUEST": "true"})
        for name, url in urls
        if not name.startswith(("api:", "admin:"))
    ]
    before = database_rows()
    changed: dict[str, list[str]] = {}
    for name, url, headers in requests:
        found: list[str] = []
        with writes_caught(found):
            client.get(url, **headers)
        if found:
            changed[f"{name} {url} {headers}"] = found
    after = database_rows()
    assert not changed, "GET changed rows:\n" + "\n".join(
        f"{url}: {writes[0]}" for url, writes in changed.items()
    )
    assert [label for label in before if before[label] != after[label]] == []
    assert len(urls) > 500  # pages, API and admin: every pattern was walked


# The state-changing page routes of the route-by-role table: a GET of any is refused. The new
# study's page is tried there with a POST, but a GET shows its form.
POST_ONLY = sorted(
    name
    for name, route in ROUTES.items()
    if route.method == "POST" and name != "grading:study_create"
)


def test_every_state_changing_page_answers_405_to_a_get(
    walk_data: dict[str, Any], db: None
) -> None:
    client = Client()
    client.force_login(User.objects.get(pk=walk_data["admin"]))
    routes = {name: (route, pattern) for name, route, pattern in every_pattern()}
    answers = {}
    for name in POST_ONLY:
        route, pattern = routes[name]
        answers[name] = client.get(url_of(name, route, pattern, walk_data)).status_code
    assert {name: status for name, status in answers.items() if status != 405} == {}
