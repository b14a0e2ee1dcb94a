"""Every API route, every method, every role: the answer follows accounts.roles, read through
the viewset's `read_action` / `write_action`. A new API route must be added to RESOURCES (or,
for an action on one object, to ACTIONS)."""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import Model
from django.http import HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.permissions import user_can
from accounts.roles import Action, Role, roles_allowed
from accounts.services import create_user_with_role, sync_roles
from judging.models import JudgeConfig, JudgeRun, JudgeVerdict, PromptVersion
from judging.services import save_config
from rubrics.models import Criterion, Response, Task
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from tests.factories import benchmark_objects, first, grading_objects, make_framework

pytestmark = [pytest.mark.django_db, pytest.mark.http]

NO_CHANGES = frozenset({"get"})
BULK_POST = frozenset({"get", "post"})  # bulk creation, read otherwise
NO_DELETE = frozenset({"get", "post", "put", "patch"})
NO_PUT = frozenset({"get", "post", "patch"})
STUDY_READERS = (Action.VIEW_BENCHMARK, Action.GRADE, Action.MANAGE_STUDIES)
GRADING_READERS = (Action.GRADE, Action.MANAGE_STUDIES)


def a_level() -> ProficiencyLevel:
    scale, _ = ProficiencyScale.objects.get_or_create(
        framework=Framework.objects.get(), code="school", defaults={"name": "School"}
    )
    return ProficiencyLevel.objects.get_or_create(scale=scale, code="one", label="One")[0]


def a_judge_config() -> JudgeConfig:
    return JudgeConfig.objects.first() or save_config(
        model="openai-api/local/judge", prompt=first(PromptVersion), by=None
    )


Own = dict[str, Model]  # the caller's own objects (Caller.own)


def own(kind: str) -> Callable[[Own], Model]:
    """The caller's own object of that kind."""
    return lambda objects: objects[kind]


def own_pk(kind: str) -> Callable[[Own], list[object]]:
    """An action's URL arguments: the key of the caller's own object of that kind."""
    return lambda objects: [objects[kind].pk]


# basename -> (read action, write action, how to find an object to address from the caller's
# own objects[, methods offered: every method by default]). A write action of None: read-only,
# a change needs the read action.
RESOURCES = {
    "framework": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda _: Framework.objects.get()),
    "competency": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda _: Competency.objects.get(code="02"),
    ),
    "subcompetency": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda _: SubCompetency.objects.get(code="01b"),
    ),
    "contextvariable": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda _: ContextVariable.objects.get(key="class_size"),
    ),
    "contextvalue": (
        Action.VIEW_TAXONOMY,
        Action.EDIT_TAXONOMY,
        lambda _: ContextValue.objects.get(code="b1"),
    ),
    "proficiencyscale": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda _: a_level().scale),
    "proficiencylevel": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda _: a_level()),
    "task": (Action.VIEW_BENCHMARK, Action.EDIT_RUBRICS, lambda _: first(Task), NO_DELETE),
    "criterion": (Action.VIEW_BENCHMARK, None, lambda _: first(Criterion), NO_CHANGES),
    "response": (Action.VIEW_BENCHMARK, Action.IMPORT_DATA, lambda _: first(Response), BULK_POST),
    # Created through the judge's services, never changed here (a used prompt is frozen).
    "promptversion": (
        Action.VIEW_BENCHMARK,
        Action.MANAGE_STUDIES,
        lambda _: first(PromptVersion),
        BULK_POST,
    ),
    "judgeconfig": (
        Action.VIEW_BENCHMARK,
        Action.MANAGE_STUDIES,
        lambda _: a_judge_config(),
        BULK_POST,
    ),
    "judgerun": (
        Action.VIEW_BENCHMARK,
        Action.MANAGE_STUDIES,
        lambda _: JudgeRun.objects.get(),
        BULK_POST,
    ),
    "judgeverdict": (
        Action.VIEW_BENCHMARK,
        Action.IMPORT_DATA,
        lambda _: JudgeVerdict.objects.get(),
        BULK_POST,
    ),
    # Grading: the requesting user is the study's only grader when their role grades, so the
    # objects are theirs; blindness (others' work) is tested in test_grading_resources.
    "study": (STUDY_READERS, Action.MANAGE_STUDIES, own("study"), NO_PUT),
    "assignment": (GRADING_READERS, None, own("assignment"), NO_CHANGES),
    "grade": (GRADING_READERS, Action.GRADE, own("grade"), NO_PUT),
    "goldverdict": (
        Action.MANAGE_STUDIES,
        Action.MANAGE_STUDIES,
        own("gold"),
        NO_DELETE,
    ),
    "person": (Action.MANAGE_PEOPLE, Action.MANAGE_PEOPLE, own("person"), NO_PUT),
    "flag": (GRADING_READERS, Action.GRADE, own("flag"), BULK_POST),
    "turngrade": (GRADING_READERS, Action.GRADE, own("turn_grade"), BULK_POST),
}
# Actions on one object: route name -> (method, action needed, the URL's arguments from the
# caller's own objects).
ACTIONS = {
    "api:task-submit": ("post", Action.EDIT_RUBRICS, lambda _: [first(Task).pk]),
    "api:task-approve": ("post", Action.REVIEW_RUBRICS, lambda _: [first(Task).pk]),
    "api:task-return": ("post", Action.REVIEW_RUBRICS, lambda _: [first(Task).pk]),
    "api:study-claim": ("post", Action.GRADE, own_pk("study")),
    "api:study-agreement": ("get", Action.VIEW_BENCHMARK, own_pk("study")),
    "api:study-drift": ("get", Action.VIEW_BENCHMARK, own_pk("study")),
    "api:study-leaderboard": ("get", Action.VIEW_BENCHMARK, own_pk("study")),
    "api:study-final-labels": ("get", Action.EXPORT_DATA, own_pk("study")),
    "api:study-calibration": (
        "get",
        Action.VIEW_BENCHMARK,
        lambda own: [own["study"].pk, JudgeRun.objects.get().pk],
    ),
    "api:assignment-submit": ("post", Action.GRADE, own_pk("assignment")),
    "api:assignment-rate": ("post", Action.GRADE, own_pk("assignment")),
    "api:study-close": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-reopen": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-add-annotators": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-remove-annotators": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-questions": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-preview": ("post", Action.MANAGE_STUDIES, lambda _: []),
    "api:study-plan": ("get", Action.MANAGE_STUDIES, lambda _: []),
    "api:study-from-filters": ("post", Action.MANAGE_STUDIES, lambda _: []),
    "api:study-gold-checks": ("get", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-add-gold-checks": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-gold-accuracy": ("get", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-remove-gold-checks": ("post", Action.MANAGE_STUDIES, own_pk("study")),
    "api:study-grades-csv": ("get", Action.EXPORT_DATA, own_pk("study")),
    "api:study-grades-xlsx": ("get", Action.EXPORT_DATA, own_pk("study")),
    "api:person-invitation": ("post", Action.MANAGE_PEOPLE, own_pk("person")),
    "api:flag-resolve": ("post", Action.MANAGE_STUDIES, own_pk("flag")),
    "api:study-criterion-times": ("get", Action.VIEW_BENCHMARK, own_pk("study")),
    "api:framework-rubrics-xlsx": (
        "get",
        Action.EXPORT_DATA,
        lambda _: [Framework.objects.get().code],
    ),
}


def allowed(actions: Action | tuple[Action, ...] | None) -> frozenset[Role]:
    """Roles holding the action, or any of the actions."""
    actions = actions if isinstance(actions, tuple) else (actions,)
    return frozenset().union(*(roles_allowed(action) for action in actions))


@pytest.fixture(scope="module")
def benchmark(module_db: None) -> None:
    """The test framework and one object of every benchmark resource, built once for the
    module (what a test changes is rolled back after it)."""
    make_framework()
    benchmark_objects()


@pytest.fixture
def framework(benchmark: None, db: None) -> Framework:
    return Framework.objects.get()


@dataclass(frozen=True)
class Caller:
    """Who calls the API: a user of one role with a token (none: no credentials), and the
    objects that are theirs: their own user (a caller without one: the grader's) and the
    grading objects (factories.grading_objects), graded by them when their role grades and
    otherwise by an annotator."""

    token: str | None
    own: Own


@pytest.fixture(scope="module")
def callers(benchmark: None) -> dict[Role | None, Caller]:
    """A caller of each role and one without credentials, built once for the module (what a
    test changes is rolled back after it)."""
    if not Group.objects.exists():
        sync_roles()
    annotator = create_user_with_role("an-annotator", "pw", Role.ANNOTATOR)
    annotators_work = grading_objects(annotator)
    callers: dict[Role | None, Caller] = {}
    for role in [*Role, None]:
        user = create_user_with_role(f"caller-{role}", "pw", role) if role else None
        if user is not None and user_can(user, Action.GRADE):
            work = grading_objects(user, name=f"{role}'s study")
        else:
            work = annotators_work
        callers[role] = Caller(
            token=user and ApiToken.issue(user, "tests")[1],
            own={**work, "person": user or annotator},
        )
    return callers


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
    assert set(api_routes()) == expected | set(ACTIONS) | SERVICE_ROUTES


def detail_url(basename: str, objects: Own) -> str:
    obj = RESOURCES[basename][2](objects)
    key = obj.code if basename == "framework" else obj.pk
    return reverse(f"api:{basename}-detail", args=[key])


def ask_in_turn(
    callers: dict[Role | None, Caller],
    roles: list[Role | None],
    method: str,
    url: Callable[[Own], str],
    mismatch: Callable[[Role | None, HttpResponse], str | None],
) -> list[str]:
    """Each role (None: no credentials) calls the URL (`url` of their own objects) with an empty
    body, in a savepoint rolled back after the answer, so that what one changes the next does
    not meet: how each answer differs from what `mismatch` expects."""
    mismatches = []
    for role in roles:
        caller = callers[role]
        api = APIClient()
        if caller.token is not None:
            api.credentials(HTTP_AUTHORIZATION=f"Token {caller.token}")
        try:
            with transaction.atomic():
                response = getattr(api, method)(url(caller.own), {}, format="json")
                transaction.set_rollback(True)
        except Exception as error:
            error.add_note(f"calling as {role or 'anonymous'}")
            raise
        if (difference := mismatch(role, response)) is not None:
            mismatches.append(f"{role or 'anonymous'} got {difference}")
    return mismatches


def differs(response: HttpResponse, agrees: bool, expected: str, show: bool = False) -> str | None:
    """None if the answer agrees, else its status and the one expected (and, if `show`, the
    start of its body)."""
    if agrees:
        return None
    shown = f": {response.content[:300]!r}" if show else ""
    return f"{response.status_code}, not {expected}{shown}"


# A write that the role may make must pass the permission check; the body is deliberately
# empty, so an allowed write answers 400 (invalid) or 428 (no If-Match), never 403.
CALLS = [
    ("get", "list", "read"),
    ("get", "detail", "read"),
    ("post", "list", "write"),
    ("patch", "detail", "write"),
    ("put", "detail", "write"),
]
# The scales' resources share the taxonomy's viewset and actions, tried above with every role:
# one role that may only read, one that may write, and no login are enough for them.
SAME_AS_TAXONOMY = {"proficiencyscale", "proficiencylevel"}
CASES = [
    (basename, method, kind, access) for basename in RESOURCES for method, kind, access in CALLS
]


@pytest.mark.parametrize(
    ("basename", "method", "kind", "access"),
    CASES,
    ids=[f"{b}-{m}-{k}" for b, m, k, _ in CASES],
)
def test_api_answers_each_role_as_the_table_says(basename, method, kind, access, callers):
    read, write, _, *offered = RESOURCES[basename]
    action = read if access == "read" or write is None else write

    def url(objects: Own) -> str:
        return (
            detail_url(basename, objects) if kind == "detail" else reverse(f"api:{basename}-list")
        )

    def mismatch(role: Role | None, response: HttpResponse) -> str | None:
        status = response.status_code
        if role is None:
            challenge = response.headers.get("WWW-Authenticate", "")
            return differs(response, status == 401 and challenge.startswith("Token"), "401")
        if role in allowed(action) and offered and method not in offered[0]:
            return differs(response, status == 405, "405", show=True)
        if role in allowed(action):
            return differs(response, status in (200, 400, 428), "200, 400 or 428", show=True)
        refused = status == 403 and "role does not allow" in response.json()["detail"]
        return differs(response, refused, "403 (the role does not allow)")

    roles = [Role.VIEWER, Role.MAINTAINER, None] if basename in SAME_AS_TAXONOMY else [*Role, None]
    mismatches = ask_in_turn(callers, roles, method, url, mismatch)
    assert not mismatches, f"{method.upper()} {basename} {kind}: " + "; ".join(mismatches)


@pytest.mark.parametrize("name", ACTIONS)
def test_actions_answer_each_role_as_the_table_says(name, callers):
    method, action, args = ACTIONS[name]

    def mismatch(role: Role | None, response: HttpResponse) -> str | None:
        status = response.status_code
        if role is None:
            return differs(response, status == 401, "401")
        if role in roles_allowed(action):
            # allowed: refused by the domain (409: not in that state) or the body (400), not 403
            return differs(
                response, status in (200, 204, 400, 409), "200, 204, 400 or 409", show=True
            )
        return differs(response, status == 403, "403")

    mismatches = ask_in_turn(
        callers, [*Role, None], method, lambda objects: reverse(name, args=args(objects)), mismatch
    )
    assert not mismatches, f"{name}: " + "; ".join(mismatches)


@pytest.mark.parametrize("role", [*Role])
def test_delete_follows_the_write_action(role, framework, api_as):
    response = api_as(role).delete(detail_url("contextvalue", {}))
    expected = 204 if role in roles_allowed(Action.EDIT_TAXONOMY) else 403
    assert response.status_code == expected
    assert ContextValue.objects.filter(code="b1").exists() is (expected == 403)


@pytest.mark.parametrize("name", sorted(SERVICE_ROUTES))
def test_schema_and_docs_need_a_login(name, client, client_as):
    assert client.get(reverse(name)).status_code in (302, 401, 403)
    assert client_as(Role.ANNOTATOR).get(reverse(name)).status_code == 200
