"""Every URL of the app, walked with every role: the server answers 403 to a role that may not,
never a hidden button alone. A new URL must be added to ROUTES (test_every_route_is_listed).

The API (namespace `api`) has its own table and walker, with its own status codes (401 for no
credentials): tests/api/test_api_permissions.py."""

from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import ApiToken, User
from accounts.roles import Role
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


def url_for(
    name: str, pattern: URLPattern, objects: dict[str, int], user=None, make_user=None
) -> str:
    grading = GRADING_PARAMS & set(pattern.pattern.converters)
    if grading:  # the user's own assignment: another's would rightly be a 404
        kwargs = factories.grading_route_kwargs(grading, user, make_user)
        if "run_id" in pattern.pattern.converters:  # a run that disagrees with the grades,
            run = disagreeing_run(kwargs["study_id"])  # made from the study's judge page
            JudgeRun.objects.filter(pk=run.pk).update(parameters={"study": kwargs["study_id"]})
            kwargs["run_id"] = run.pk
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
                owner = user or User.objects.create(username="someone")  # visitors log in
                kwargs[param] = ApiToken.issue(owner, "script")[0].pk
            else:
                kwargs[param] = objects[kind]
    kwargs = {k: v for k, v in kwargs.items() if k in pattern.pattern.converters}
    return reverse(name, kwargs=kwargs)


def request(client: Client, route: Route, url: str):
    return client.post(url) if route.method == "POST" else client.get(url)


def test_every_route_is_listed():
    assert {name for name, _ in named_routes()} == set(ROUTES)


CASES = [(name, role) for name in ROUTES for role in [*Role, None]]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), CASES, ids=[f"{n}-{r or 'anonymous'}" for n, r in CASES])
def test_route_answers_each_role_as_the_table_says(name, role, route_objects, make_user):
    pattern = dict(named_routes())[name]
    route = ROUTES[name]
    user = make_user(role) if role is not None else None
    url = url_for(name, pattern, route_objects, user, make_user)
    client = Client()
    if user is not None:
        client.force_login(user)
    response = request(client, route, url)
    if route.allowed is PUBLIC:
        assert response.status_code in (200, 302)
    elif role is None:
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))
    elif role in route.allowed:
        assert response.status_code in (200, 204, 302, 409, 422), response.content[:300]
    else:
        assert response.status_code == 403
