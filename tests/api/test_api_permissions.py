"""Every API route, every method, every role: the answer follows accounts.roles, read through
the viewset's `read_action` / `write_action`. A new API route must be added to RESOURCES (or,
for an action on one object, to ACTIONS)."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.permissions import user_can
from accounts.roles import Action, Role, roles_allowed
from grading.models import Assignment, Flag, GoldVerdict, Grade, Study, TurnGrade
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

pytestmark = pytest.mark.django_db

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


# basename -> (read action, write action, how to find an object to address[, methods offered:
# every method by default]). A write action of None: read-only, a change needs the read action.
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
    "proficiencyscale": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda: a_level().scale),
    "proficiencylevel": (Action.VIEW_TAXONOMY, Action.EDIT_TAXONOMY, lambda: a_level()),
    "task": (Action.VIEW_BENCHMARK, Action.EDIT_RUBRICS, lambda: first(Task), NO_DELETE),
    "criterion": (Action.VIEW_BENCHMARK, None, lambda: first(Criterion), NO_CHANGES),
    "response": (Action.VIEW_BENCHMARK, Action.IMPORT_DATA, lambda: first(Response), BULK_POST),
    # Created through the judge's services, never changed here (a used prompt is frozen).
    "promptversion": (
        Action.VIEW_BENCHMARK,
        Action.MANAGE_STUDIES,
        lambda: first(PromptVersion),
        BULK_POST,
    ),
    "judgeconfig": (Action.VIEW_BENCHMARK, Action.MANAGE_STUDIES, a_judge_config, BULK_POST),
    "judgerun": (
        Action.VIEW_BENCHMARK,
        Action.MANAGE_STUDIES,
        lambda: JudgeRun.objects.get(),
        BULK_POST,
    ),
    "judgeverdict": (
        Action.VIEW_BENCHMARK,
        Action.IMPORT_DATA,
        lambda: JudgeVerdict.objects.get(),
        BULK_POST,
    ),
    # Grading: the requesting user is the study's only grader when their role grades, so the
    # objects are theirs; blindness (others' work) is tested in test_grading_resources.
    "study": (STUDY_READERS, Action.MANAGE_STUDIES, lambda: first(Study), NO_PUT),
    "assignment": (GRADING_READERS, None, lambda: first(Assignment), NO_CHANGES),
    "grade": (GRADING_READERS, Action.GRADE, lambda: first(Grade), NO_PUT),
    "goldverdict": (
        Action.MANAGE_STUDIES,
        Action.MANAGE_STUDIES,
        lambda: first(GoldVerdict),
        NO_DELETE,
    ),
    "person": (Action.MANAGE_PEOPLE, Action.MANAGE_PEOPLE, lambda: first(User), NO_PUT),
    "flag": (GRADING_READERS, Action.GRADE, lambda: first(Flag), BULK_POST),
    "turngrade": (GRADING_READERS, Action.GRADE, lambda: first(TurnGrade), BULK_POST),
}
# Actions on one object: route name -> (method, action needed, the URL's arguments).
ACTIONS = {
    "api:task-submit": ("post", Action.EDIT_RUBRICS, lambda: [first(Task).pk]),
    "api:task-approve": ("post", Action.REVIEW_RUBRICS, lambda: [first(Task).pk]),
    "api:task-return": ("post", Action.REVIEW_RUBRICS, lambda: [first(Task).pk]),
    "api:study-claim": ("post", Action.GRADE, lambda: [first(Study).pk]),
    "api:study-agreement": ("get", Action.VIEW_BENCHMARK, lambda: [first(Study).pk]),
    "api:study-drift": ("get", Action.VIEW_BENCHMARK, lambda: [first(Study).pk]),
    "api:study-leaderboard": ("get", Action.VIEW_BENCHMARK, lambda: [first(Study).pk]),
    "api:study-final-labels": ("get", Action.EXPORT_DATA, lambda: [first(Study).pk]),
    "api:study-calibration": (
        "get",
        Action.VIEW_BENCHMARK,
        lambda: [first(Study).pk, JudgeRun.objects.get().pk],
    ),
    "api:assignment-submit": ("post", Action.GRADE, lambda: [first(Assignment).pk]),
    "api:assignment-rate": ("post", Action.GRADE, lambda: [first(Assignment).pk]),
    "api:study-close": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-reopen": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-add-annotators": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-remove-annotators": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-questions": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-preview": ("post", Action.MANAGE_STUDIES, lambda: []),
    "api:study-plan": ("get", Action.MANAGE_STUDIES, lambda: []),
    "api:study-from-filters": ("post", Action.MANAGE_STUDIES, lambda: []),
    "api:study-gold-checks": ("get", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-add-gold-checks": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-gold-accuracy": ("get", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-remove-gold-checks": ("post", Action.MANAGE_STUDIES, lambda: [first(Study).pk]),
    "api:study-grades-csv": ("get", Action.EXPORT_DATA, lambda: [first(Study).pk]),
    "api:study-grades-xlsx": ("get", Action.EXPORT_DATA, lambda: [first(Study).pk]),
    "api:person-invitation": ("post", Action.MANAGE_PEOPLE, lambda: [first(User).pk]),
    "api:flag-resolve": ("post", Action.MANAGE_STUDIES, lambda: [first(Flag).pk]),
    "api:study-criterion-times": ("get", Action.VIEW_BENCHMARK, lambda: [first(Study).pk]),
    "api:framework-rubrics-xlsx": (
        "get",
        Action.EXPORT_DATA,
        lambda: [Framework.objects.get().code],
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


@pytest.fixture
def api_with_objects(framework, make_user):
    """api_with_objects(role) -> a client with a token of a new user of that role (anonymous
    for None), with one object of every resource (grading ones graded by them)."""

    def client(role: Role | None) -> APIClient:
        user = make_user(role) if role else None
        grades = user is not None and user_can(user, Action.GRADE)
        grading_objects(user if grades else make_user(Role.ANNOTATOR))
        api = APIClient()
        if user is not None:
            api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 'tests')[1]}")
        return api

    return client


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
# The scales' resources share the taxonomy's viewset and actions, tried above with every role:
# one role that may only read, one that may write, and no login are enough for them.
SAME_AS_TAXONOMY = {"proficiencyscale", "proficiencylevel"}
CASES = [
    (basename, method, kind, access, role)
    for basename in RESOURCES
    for method, kind, access in CALLS
    for role in (
        [Role.VIEWER, Role.MAINTAINER, None] if basename in SAME_AS_TAXONOMY else [*Role, None]
    )
]


@pytest.mark.parametrize(
    ("basename", "method", "kind", "access", "role"),
    CASES,
    ids=[f"{b}-{m}-{k}-{r or 'anonymous'}" for b, m, k, _, r in CASES],
)
def test_api_answers_each_role_as_the_table_says(
    basename, method, kind, access, role, framework, api_with_objects
):
    client = api_with_objects(role)
    read, write, _, *offered = RESOURCES[basename]
    action = read if access == "read" or write is None else write
    url = detail_url(basename) if kind == "detail" else reverse(f"api:{basename}-list")
    response = getattr(client, method)(url, {}, format="json")
    if role is None:
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith("Token")
    elif role in allowed(action) and offered and method not in offered[0]:
        assert response.status_code == 405, response.content[:300]
    elif role in allowed(action):
        assert response.status_code in (200, 400, 428), response.content[:300]
    else:
        assert response.status_code == 403
        assert "role does not allow" in response.json()["detail"]


ACTION_CASES = [(name, role) for name in ACTIONS for role in [*Role, None]]


@pytest.mark.parametrize(
    ("name", "role"), ACTION_CASES, ids=[f"{n}-{r or 'anonymous'}" for n, r in ACTION_CASES]
)
def test_actions_answer_each_role_as_the_table_says(name, role, framework, api_with_objects):
    client = api_with_objects(role)
    method, action, args = ACTIONS[name]
    response = getattr(client, method)(reverse(name, args=args()), {}, format="json")
    if role is None:
        assert response.status_code == 401
    elif role in roles_allowed(action):
        # allowed: refused by the domain (409: not in that state) or the body (400), not 403
        assert response.status_code in (200, 204, 400, 409), response.content[:300]
    else:
        assert response.status_code == 403


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
