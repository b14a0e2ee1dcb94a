"""Every URL of the app, walked with every role: the server answers 403 to a role that may not,
never a hidden button alone. A new URL must be added to ROUTES (test_every_route_is_listed).

The API (namespace `api`) has its own table and walker, with its own status codes (401 for no
credentials): tests/api/test_api_permissions.py."""

import functools
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from audit import services as audit
from audit.models import AuditEvent
from judging.models import JudgeRun, PromptTemplate, PromptVersion
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from tests import factories
from tests.factories import disagreeing_run, make_framework

pytestmark = pytest.mark.http

ALL = frozenset(Role)
EDITORS = frozenset({Role.ADMIN, Role.MAINTAINER, Role.AUTHOR})
READERS = frozenset({Role.ADMIN, Role.MAINTAINER, Role.AUTHOR, Role.VIEWER})
GRADERS = frozenset({Role.ADMIN, Role.ANNOTATOR})
MANAGERS = frozenset({Role.ADMIN, Role.MAINTAINER})
ADMINS = frozenset({Role.ADMIN})
PUBLIC = None  # reachable without logging in


@dataclass(frozen=True)
class Route:
    method: str
    allowed: frozenset[Role] | None


ROUTES: dict[str, Route] = {
    "home": Route("GET", ALL),
    "profile": Route("GET", ALL),
    "language": Route("POST", ALL),
    "javascript-catalog": Route("GET", PUBLIC),
    "token_create": Route("POST", ALL),
    "token_revoke": Route("POST", ALL),
    "login": Route("GET", PUBLIC),
    "two_factor": Route("GET", ALL),
    "two_factor_setup": Route("POST", ALL),
    "two_factor_confirm": Route("POST", ALL),
    "two_factor_recovery_codes": Route("POST", ALL),
    "two_factor_off": Route("POST", ALL),
    "two_factor_verify": Route("GET", PUBLIC),  # the login's second step
    "oidc_authentication_init": Route("GET", PUBLIC),  # sign-on: back to login unless set up
    "oidc_authentication_callback": Route("GET", PUBLIC),
    "logout": Route("POST", PUBLIC),
    "password_change": Route("GET", ALL),
    "password_change_done": Route("GET", ALL),
    "password_reset": Route("GET", PUBLIC),
    "password_reset_done": Route("GET", PUBLIC),
    "password_reset_confirm": Route("GET", PUBLIC),
    "password_reset_complete": Route("GET", PUBLIC),
    "password_set_complete": Route("GET", PUBLIC),
    "audit:history": Route("GET", READERS),
    "taxonomy:index": Route("GET", ALL),
    "taxonomy:competencies": Route("GET", ALL),
    "taxonomy:competency_create": Route("POST", EDITORS),
    "taxonomy:competency_card": Route("GET", ALL),
    "taxonomy:competency_edit": Route("GET", EDITORS),
    "taxonomy:competency_delete": Route("POST", EDITORS),
    "taxonomy:competency_move": Route("POST", EDITORS),
    "taxonomy:subcompetency_create": Route("POST", EDITORS),
    "taxonomy:subcompetency_edit": Route("GET", EDITORS),
    "taxonomy:subcompetency_delete": Route("POST", EDITORS),
    "taxonomy:subcompetency_move": Route("POST", EDITORS),
    "taxonomy:context-variables": Route("GET", ALL),
    "taxonomy:contextvariable_create": Route("POST", EDITORS),
    "taxonomy:contextvariable_card": Route("GET", ALL),
    "taxonomy:contextvariable_edit": Route("GET", EDITORS),
    "taxonomy:contextvariable_delete": Route("POST", EDITORS),
    "taxonomy:contextvariable_move": Route("POST", EDITORS),
    "taxonomy:contextvalue_create": Route("POST", EDITORS),
    "taxonomy:contextvalue_edit": Route("GET", EDITORS),
    "taxonomy:contextvalue_delete": Route("POST", EDITORS),
    "taxonomy:contextvalue_move": Route("POST", EDITORS),
    "taxonomy:scales": Route("GET", ALL),
    "taxonomy:scale_create": Route("POST", EDITORS),
    "taxonomy:scale_card": Route("GET", ALL),
    "taxonomy:scale_edit": Route("GET", EDITORS),
    "taxonomy:scale_delete": Route("POST", EDITORS),
    "taxonomy:scale_move": Route("POST", EDITORS),
    "taxonomy:level_create": Route("POST", EDITORS),
    "taxonomy:level_edit": Route("GET", EDITORS),
    "taxonomy:level_delete": Route("POST", EDITORS),
    "taxonomy:level_move": Route("POST", EDITORS),
    "rubrics:task_list": Route("GET", READERS),
    "rubrics:task_detail": Route("GET", READERS),
    "rubrics:task_diff": Route("GET", READERS),
    "rubrics:task_create": Route("GET", EDITORS),
    "rubrics:task_edit": Route("GET", EDITORS),
    "rubrics:task_context": Route("POST", EDITORS),
    "rubrics:task_exclude": Route("POST", EDITORS),
    "rubrics:task_include": Route("POST", EDITORS),
    "rubrics:resource_create": Route("POST", EDITORS),
    "rubrics:resource_edit": Route("GET", EDITORS),
    "rubrics:resource_delete": Route("POST", EDITORS),
    "rubrics:resource_file": Route("GET", READERS),
    "rubrics:task_criteria": Route("GET", EDITORS),
    "rubrics:criterion_create": Route("POST", EDITORS),
    "rubrics:consensus": Route("GET", EDITORS),
    "rubrics:consensus_create": Route("POST", EDITORS),
    "rubrics:universal": Route("GET", EDITORS),
    "rubrics:universal_create": Route("POST", EDITORS),
    "rubrics:criterion_card": Route("GET", EDITORS),
    "rubrics:criterion_edit": Route("GET", EDITORS),
    "rubrics:criterion_delete": Route("POST", EDITORS),
    "rubrics:criterion_move": Route("POST", EDITORS),
    "rubrics:task_submit": Route("POST", EDITORS),
    "rubrics:task_approve": Route("POST", MANAGERS),
    "rubrics:task_return": Route("POST", MANAGERS),
    "rubrics:review_queue": Route("GET", MANAGERS),
    "grading:index": Route("GET", GRADERS),
    "grading:next": Route("POST", GRADERS),
    "grading:assignment": Route("GET", GRADERS),
    "grading:assignment_start": Route("POST", GRADERS),
    "grading:save_grade": Route("POST", GRADERS),
    "grading:save_turn_grade": Route("POST", GRADERS),
    "grading:save_likert": Route("POST", GRADERS),
    "grading:submit": Route("POST", GRADERS),
    "grading:assignment_resource": Route("GET", GRADERS),
    "grading:flag": Route("GET", GRADERS),
    "grading:study_flags": Route("GET", MANAGERS),
    "grading:flag_resolve": Route("POST", MANAGERS),
    "grading:study_times": Route("GET", READERS),
    "agreement:index": Route("GET", READERS),
    "agreement:study": Route("GET", READERS),
    "agreement:drift": Route("GET", READERS),
    "agreement:pool": Route("GET", READERS),
    "agreement:annotator": Route("GET", READERS),
    "judging:calibration": Route("GET", READERS),
    "judging:leaderboard": Route("GET", READERS),
    "agreement:settings": Route("GET", MANAGERS),
    "agreement:study_report": Route("GET", MANAGERS),
    "agreement:study_report_json": Route("GET", MANAGERS),
    "judging:calibration_family": Route("POST", MANAGERS),
    "judging:calibration_json": Route("GET", MANAGERS),
    "judging:calibration_xlsx": Route("GET", MANAGERS),
    "agreement:study_report_xlsx": Route("GET", MANAGERS),
    "agreement:labels_csv": Route("GET", MANAGERS),
    "agreement:labels_xlsx": Route("GET", MANAGERS),
    "agreement:labels_json": Route("GET", MANAGERS),
    "agreement:dataset": Route("GET", MANAGERS),
    "grading:studies": Route("GET", MANAGERS),
    "grading:study_create": Route("POST", MANAGERS),
    "grading:study_preview": Route("POST", MANAGERS),
    "grading:study": Route("GET", MANAGERS),
    "grading:study_assign": Route("POST", MANAGERS),
    "grading:study_status": Route("POST", MANAGERS),
    "grading:study_close": Route("GET", MANAGERS),
    "grading:study_manage": Route("GET", MANAGERS),
    "grading:study_pool_add": Route("POST", MANAGERS),
    "grading:study_pool_remove": Route("POST", MANAGERS),
    "grading:study_settings": Route("POST", MANAGERS),
    "grading:study_questions": Route("POST", MANAGERS),
    "grading:study_split_reasons": Route("POST", MANAGERS),
    "grading:study_gold_add": Route("POST", MANAGERS),
    "grading:study_gold_remove": Route("POST", MANAGERS),
    "grading:adjudication": Route("GET", MANAGERS),
    "grading:adjudicate": Route("GET", MANAGERS),
    "interchange:index": Route("GET", MANAGERS),
    "interchange:job": Route("GET", MANAGERS),
    "interchange:job_again": Route("POST", MANAGERS),
    "interchange:export_rubrics": Route("GET", MANAGERS),
    "interchange:export_benchmark": Route("GET", MANAGERS),
    "interchange:offline": Route("GET", MANAGERS),
    "interchange:offline_workbook": Route("GET", MANAGERS),
    "interchange:export_grades_csv": Route("GET", MANAGERS),
    "interchange:export_grades_xlsx": Route("GET", MANAGERS),
    "interchange:export_scores_csv": Route("GET", MANAGERS),
    "judging:compare": Route("GET", MANAGERS),
    "judging:triage": Route("GET", MANAGERS),
    "judging:triage_resolve": Route("POST", MANAGERS),
    "judging:triage_reopen": Route("POST", MANAGERS),
    "judging:judge": Route("GET", MANAGERS),
    "judging:run_estimate": Route("GET", MANAGERS),
    "judging:run": Route("GET", MANAGERS),
    "judging:run_cancel": Route("POST", MANAGERS),
    "judging:run_resume": Route("POST", MANAGERS),
    "judging:prompts": Route("GET", MANAGERS),
    "judging:prompt_preview": Route("POST", MANAGERS),
    "judging:prompt": Route("GET", MANAGERS),
    "judging:prompt_download": Route("GET", MANAGERS),
    "judging:prompts_download": Route("GET", MANAGERS),
    "judging:prompts_upload": Route("POST", MANAGERS),
    "people:people": Route("GET", ADMINS),
    "people:invite": Route("POST", ADMINS),
    "people:person": Route("GET", ADMINS),
    "people:person_role": Route("POST", ADMINS),
    "people:person_expertise": Route("POST", ADMINS),
    "people:person_active": Route("POST", ADMINS),
    "people:person_invite": Route("POST", ADMINS),
    "webhooks:hooks": Route("GET", ADMINS),
    "webhooks:hook_create": Route("POST", ADMINS),
    "webhooks:hook": Route("GET", ADMINS),
    "webhooks:hook_active": Route("POST", ADMINS),
    "webhooks:hook_delete": Route("POST", ADMINS),
    "webhooks:delivery_resend": Route("POST", ADMINS),
}


def named_routes(patterns=None, namespace=""):
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace in ("admin", "api"):
                continue
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from named_routes(entry.url_patterns, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", entry


@functools.cache
def route_patterns() -> dict[str, URLPattern]:
    return dict(named_routes())


CREATE_UNDER = {
    "subcompetency": lambda: Competency.objects.get(code="01"),
    "contextvalue": lambda: ContextVariable.objects.get(key="cefr_level"),
    "level": lambda: ProficiencyScale.objects.get(code="cefr"),
    **factories.RUBRIC_CREATE_UNDER,
}


GRADING_PARAMS = {
    "resource_id",
    "study_id",
    "study_item_id",
    "assignment_id",
    "criterion_version_id",
    "likert_item_id",
    "user_id",
    "flag_id",
    "turn_id",
}


@pytest.fixture(scope="module")
def route_objects(module_db: None) -> dict[str, int]:
    """The objects the routes address, by the names the routes use, built once for the module
    (what a test changes is rolled back after it): the ids, read again by each test."""
    framework = make_framework()
    sub = SubCompetency.objects.get(code="01b")
    audit.record(sub, AuditEvent.Kind.CREATED)
    scale = ProficiencyScale.objects.create(framework=framework, code="cefr", name="CEFR")
    objects = {
        "competency": Competency.objects.get(code="02"),
        "subcompetency": sub,
        "contextvariable": ContextVariable.objects.get(key="class_size"),
        "contextvalue": ContextValue.objects.get(code="b1"),
        "scale": scale,
        "level": ProficiencyLevel.objects.create(scale=scale, code="a1", label="A1"),
        **factories.rubric_route_objects(sub),
        "person": User.objects.create(username="invitee", email="invitee@example.org"),
        **factories.webhook_route_objects(),
    }
    return {kind: obj.pk for kind, obj in objects.items()}


@dataclass(frozen=True)
class Walker:
    """Who asks for a route: a user of one role (none: an anonymous visitor), logged in once
    (the session's key), and the grading work the grading routes address, theirs (an anonymous
    visitor's: an annotator's)."""

    user_id: int | None
    session_key: str | None
    grading: dict[str, int]  # their assignment in a study (factories.grading_route_values)
    judged: dict[str, int]  # the same in another study, a judge run disagreeing with the grades


@pytest.fixture(scope="module")
def walkers(route_objects: dict[str, int]) -> dict[Role | None, Walker]:
    """A walker of each role and an anonymous one, built once for the module after the objects
    the routes address (what a test changes is rolled back after it)."""
    if not Group.objects.exists():
        sync_roles()
    walkers: dict[Role | None, Walker] = {}
    for role in [*Role, None]:
        user = create_user_with_role(f"walker-{role}", "pw", role) if role else None
        grader = user or create_user_with_role("anonymous-grader", "pw", Role.ANNOTATOR)
        judged = factories.grading_route_values(grader)
        # a run that disagrees with the grades, made from the study's judge page
        run = disagreeing_run(judged["study_id"], f"judge of {grader}")
        JudgeRun.objects.filter(pk=run.pk).update(parameters={"study": judged["study_id"]})
        client = Client()
        if user is not None:
            client.force_login(user)
        walkers[role] = Walker(
            user_id=user and user.pk,
            session_key=user and client.session.session_key,
            grading=factories.grading_route_values(grader),
            judged={**judged, "run_id": run.pk},
        )
    return walkers


def url_for(name: str, pattern: URLPattern, objects: dict[str, int], walker: Walker) -> str:
    converters = set(pattern.pattern.converters)
    grading = GRADING_PARAMS & converters
    if grading:  # the user's own assignment: another's would rightly be a 404
        values = walker.judged if "run_id" in converters else walker.grading
        kwargs = factories.grading_route_kwargs(grading, values)
        if "run_id" in converters:
            kwargs["run_id"] = values["run_id"]
        return reverse(name, kwargs=kwargs)
    if "prompt_id" in pattern.pattern.converters:
        return reverse(name, kwargs={"prompt_id": PromptTemplate.objects.first().pk})
    if "version_id" in pattern.pattern.converters:
        return reverse(name, kwargs={"version_id": PromptVersion.objects.first().pk})
    framework = Framework.objects.get()
    if name in ("interchange:job", "interchange:job_again"):
        return reverse(name, kwargs={"pk": factories.make_job(framework).pk})
    kwargs = {}
    for param in pattern.pattern.converters:
        if param == "framework_code":
            kwargs[param] = framework.code
        elif param == "direction":
            kwargs[param] = "up"
        elif param == "uidb64":  # a reset link that does not work: the page says so
            kwargs.update(uidb64="MQ", token="not-a-token")
        elif param == "app_label":
            kwargs.update(app_label="taxonomy", model="subcompetency", pk=objects["subcompetency"])
        elif param == "pk" and "pk" not in kwargs:
            kind = name.split(":")[-1].rsplit("_", 1)[0]
            if name.endswith("_create"):
                kwargs[param] = CREATE_UNDER[kind]().pk
            elif kind == "token":  # a person can revoke only their own tokens; anonymous
                owner = (  # visitors log in
                    User.objects.get(pk=walker.user_id)
                    if walker.user_id is not None
                    else User.objects.create(username="someone")
                )
                kwargs[param] = ApiToken.issue(owner, "script")[0].pk
            else:
                kwargs[param] = objects[kind]
    kwargs = {k: v for k, v in kwargs.items() if k in pattern.pattern.converters}
    return reverse(name, kwargs=kwargs)


def ask(name: str, walker: Walker, objects: dict[str, int]) -> HttpResponse:
    """The answer to `walker` asking for the route `name` (ROUTES says how)."""
    url = url_for(name, route_patterns()[name], objects, walker)
    client = Client()
    if walker.session_key is not None:
        client.cookies[settings.SESSION_COOKIE_NAME] = walker.session_key
    return client.post(url) if ROUTES[name].method == "POST" else client.get(url)


def mismatch(route: Route, role: Role | None, response: HttpResponse) -> str | None:
    """How the answer to `role` differs from what the table says, or None if it does not."""
    status, show = response.status_code, False
    if route.allowed is PUBLIC:
        expected = "200 or 302"
        agrees = status in (200, 302)
    elif role is None:
        expected = "a redirect to the login page"
        agrees = status == 302 and response.url.startswith(reverse("login"))
    elif role in route.allowed:
        expected = "200, 204, 302, 409 or 422"
        agrees = status in (200, 204, 302, 409, 422)
        show = True  # what refused an allowed role
    else:
        expected = "403"
        agrees = status == 403
    if agrees:
        return None
    shown = f": {response.content[:300]!r}" if show else ""
    return f"{role or 'anonymous'} got {status}, not {expected}{shown}"


def test_every_route_is_listed():
    assert {name for name, _ in named_routes()} == set(ROUTES)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ROUTES)
def test_route_answers_each_role_as_the_table_says(name, route_objects, walkers):
    """Every role and an anonymous visitor ask in turn, each in a savepoint rolled back after
    its answer (a POST by one never changes what the next meets); every answer that differs
    from the table is reported."""
    mismatches = []
    for role in [*Role, None]:
        try:
            with transaction.atomic():
                response = ask(name, walkers[role], route_objects)
                transaction.set_rollback(True)
        except Exception as error:
            error.add_note(f"asking for {name} as {role or 'anonymous'}")
            raise
        if (difference := mismatch(ROUTES[name], role, response)) is not None:
            mismatches.append(difference)
    assert not mismatches, f"{name}: " + "; ".join(mismatches)
