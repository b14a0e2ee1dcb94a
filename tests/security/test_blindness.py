"""Grading stays blind however an annotator asks: another grader's assignment (page, htmx
fragments, resources), the study's agreement, adjudication and judge pages, the exports and the
API's grades, verdicts and responses all answer 403 or 404, and never carry the secrets; and no
page or endpoint an annotator reaches names another grader."""

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import services
from grading.adjudication import record_gold_verdict
from grading.flags import raise_flag, resolve_flag
from grading.models import Assignment, Flag, Grade, Study
from judging.models import JudgeRun, JudgeVerdict, PromptTemplate, PromptVersion
from rubrics import services as rubric_services
from tests import factories
from tests.url_walk import api_model, body, every_pattern, fill, first_pk, parameters

pytestmark = [pytest.mark.django_db, pytest.mark.http]

MODEL = "secret-model-x"
JUDGE = "secret-judge-y"
RATIONALE = "secret-rationale-of-ben"
GOLD_NOTE = "secret-gold-note"
SECRETS = (MODEL, JUDGE, RATIONALE, GOLD_NOTE)
BEN_NAME, CARLA_NAME = "Benedikt Geheim", "Carlota Secreta"
# Other graders, as a page could name them: by user name or by the name shown.
OTHER_GRADERS = ("benedikt-grader", BEN_NAME, "carlota-grader", CARLA_NAME)


@pytest.fixture(scope="module")
def built(module_db):
    """Ada and Ben grade the same response; Ben has submitted, with a rationale; a judge ran on
    it and a maintainer recorded a gold verdict. Built once for the module."""
    sync_roles()
    ada = create_user_with_role("ada", "pw-ada", Role.ANNOTATOR)
    ben = create_user_with_role("benedikt-grader", "pw", Role.ANNOTATOR, display_name=BEN_NAME)
    response = factories.response(factories.published_task(), model=MODEL)
    study = services.create_study(
        name="Blind study",
        framework=response.task.framework,
        responses=[response],
        annotators=[ada, ben],
        overlap=2,
    )
    services.assign_study(study)
    theirs = Assignment.objects.get(study_item__study=study, annotator=ben)
    mine = Assignment.objects.get(study_item__study=study, annotator=ada)
    versions = factories.rubric_of(theirs)
    for version in versions:
        services.save_grade(theirs, version.pk, verdict="fail", rationale=RATIONALE, by=ben)
    for item in study.likert_items.all():
        services.save_likert(theirs, item.pk, 2, by=ben)
    services.submit(theirs, by=theirs.annotator)
    run = JudgeRun.objects.create(judge_model=JUDGE, parameters={"study": study.pk})
    verdict = JudgeVerdict.objects.create(
        run=run, response=response, criterion_version=versions[0], verdict=False, rationale=JUDGE
    )
    record_gold_verdict(
        theirs.study_item, versions[0].pk, verdict="fail", note=GOLD_NOTE, by=ben, base_revision=0
    )
    resource = rubric_services.add_resource(response.task, "Handout", None, text="Read this.")
    flag = raise_flag(
        theirs,
        kind="criterion_unclear",
        comment=RATIONALE,
        criterion_version_id=versions[0].pk,
        by=ben,
    )
    # Ada sets a response of another study aside; a maintainer gives it to Carlota.
    carla = create_user_with_role("carlota-grader", "pw", Role.ANNOTATOR, display_name=CARLA_NAME)
    maintainer = create_user_with_role("maintainer", "pw", Role.MAINTAINER)
    other = factories.study([ada], responses=1, overlap=1)
    services.assign_study(other)
    other.pool.create(annotator=carla)
    set_aside = raise_flag(
        Assignment.objects.get(study_item__study=other, annotator=ada),
        kind="response_broken",
        comment="Cut off.",
        skip=True,
        by=ada,
    )
    resolve_flag(
        set_aside,
        note="Given to another grader.",
        outcome="reassigned",
        reassign_to=carla,
        by=maintainer,
    )
    return {
        "flag": flag,
        "own_flag": set_aside,
        "ada": ada,
        "study": study,
        "mine": mine,
        "theirs": theirs,
        "version": versions[0],
        "likert": study.likert_items.first(),
        "grade": Grade.objects.filter(assignment=theirs).first(),
        "run": run,
        "verdict": verdict,
        "response": response,
        "resource": resource,
    }


@pytest.fixture
def world(built, db):
    return factories.fresh(built)


def _url(name: str, w: dict, **kwargs: str) -> str:
    values = {
        "assignment_id": w["theirs"].pk,
        "criterion_version_id": w["version"].pk,
        "likert_item_id": w["likert"].pk,
        "resource_id": w["resource"].pk,
        "study_id": w["study"].pk,
        "study_item_id": w["theirs"].study_item_id,
        "run_id": w["run"].pk,
        "pk": w["response"].task.pk,
        "prompt_id": PromptTemplate.objects.first().pk,
        "version_id": PromptVersion.objects.first().pk,
        "flag_id": w["flag"].pk,
    }
    return reverse(name, kwargs={k: values[k] for k in kwargs.values()})


# (method, url name, its arguments by name): every browser route that touches another's work.
PAGES = [
    ("get", "grading:assignment", ("assignment_id",)),
    ("post", "grading:save_grade", ("assignment_id", "criterion_version_id")),
    ("post", "grading:save_likert", ("assignment_id", "likert_item_id")),
    ("post", "grading:submit", ("assignment_id",)),
    ("get", "grading:assignment_resource", ("assignment_id", "resource_id")),
    ("post", "grading:flag", ("assignment_id",)),
    ("get", "grading:study_flags", ("study_id",)),
    ("post", "grading:flag_resolve", ("flag_id",)),
    ("get", "grading:study_times", ("study_id",)),
    ("get", "grading:study", ("study_id",)),
    ("get", "grading:adjudication", ("study_id",)),
    ("get", "grading:adjudicate", ("study_id", "study_item_id", "criterion_version_id")),
    ("get", "agreement:study", ("study_id",)),
    ("get", "judging:calibration", ("study_id", "run_id")),
    ("post", "judging:calibration_family", ("study_id", "run_id")),
    ("get", "judging:calibration_json", ("study_id", "run_id")),
    ("get", "judging:calibration_xlsx", ("study_id", "run_id")),
    ("get", "judging:leaderboard", ("study_id",)),
    ("get", "agreement:settings", ("study_id",)),
    ("get", "agreement:study_report_json", ("study_id",)),
    ("get", "agreement:study_report_xlsx", ("study_id",)),
    ("get", "agreement:labels_csv", ("study_id",)),
    ("get", "agreement:labels_xlsx", ("study_id",)),
    ("get", "agreement:labels_json", ("study_id",)),
    ("get", "interchange:export_grades_csv", ("study_id",)),
    ("get", "interchange:export_grades_xlsx", ("study_id",)),
    ("get", "interchange:export_scores_csv", ("study_id",)),
    ("get", "interchange:offline", ("study_id",)),
    ("get", "interchange:offline_workbook", ("study_id",)),
    ("get", "interchange:export_rubrics", ()),
    ("get", "interchange:export_benchmark", ()),
    ("get", "rubrics:task_detail", ("pk",)),
    ("get", "rubrics:task_list", ()),
    ("get", "agreement:index", ()),
    ("get", "judging:compare", ("study_id",)),
    ("get", "judging:triage", ("study_id", "run_id")),
    (
        "post",
        "judging:triage_resolve",
        ("study_id", "run_id", "study_item_id", "criterion_version_id"),
    ),
    (
        "post",
        "judging:triage_reopen",
        ("study_id", "run_id", "study_item_id", "criterion_version_id"),
    ),
    ("get", "judging:judge", ("study_id",)),
    ("post", "judging:judge", ("study_id",)),
    ("get", "judging:run", ("study_id", "run_id")),
    ("post", "judging:run_cancel", ("study_id", "run_id")),
    ("post", "judging:run_resume", ("study_id", "run_id")),
    ("get", "judging:prompts", ()),
    ("get", "judging:prompt", ("prompt_id",)),
    ("post", "judging:prompt_preview", ()),
]


def _assert_refused(response) -> None:
    assert response.status_code in (403, 404), response.status_code
    body = response.content.decode(errors="replace")
    for secret in SECRETS:
        assert secret not in body


@pytest.mark.parametrize("as_htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize(("method", "name", "params"), PAGES, ids=[p[1] for p in PAGES])
def test_annotator_cannot_open_others_work(world, method, name, params, as_htmx) -> None:
    client = Client(HTTP_HX_REQUEST="true") if as_htmx else Client()
    client.force_login(world["ada"])
    url = _url(name, world, **{p: p for p in params})
    data = {"verdict": "pass", "rationale": "x", "value": 4, "revision": 0}

    _assert_refused(getattr(client, method)(url, data))


def test_own_grading_page_shows_no_secret(world) -> None:
    client = Client()
    client.force_login(world["ada"])

    response = client.get(reverse("grading:assignment", args=[world["mine"].pk]))

    assert response.status_code == 200
    for secret in SECRETS:
        assert secret not in response.text


def _api(world) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(world['ada'], 'script')[1]}")
    return client


API_REFUSED = [
    ("api:grade-detail", lambda w: [w["grade"].pk]),
    ("api:assignment-detail", lambda w: [w["theirs"].pk]),
    ("api:assignment-submit", lambda w: [w["theirs"].pk]),
    ("api:assignment-rate", lambda w: [w["theirs"].pk]),
    ("api:response-list", lambda w: []),
    ("api:response-detail", lambda w: [w["response"].pk]),
    ("api:judgerun-list", lambda w: []),
    ("api:judgerun-detail", lambda w: [w["run"].pk]),
    ("api:judgeverdict-list", lambda w: []),
    ("api:judgeverdict-detail", lambda w: [w["verdict"].pk]),
    ("api:goldverdict-list", lambda w: []),
    ("api:study-agreement", lambda w: [w["study"].pk]),
    ("api:study-leaderboard", lambda w: [w["study"].pk]),
    ("api:study-final-labels", lambda w: [w["study"].pk]),
    ("api:study-calibration", lambda w: [w["study"].pk, w["run"].pk]),
    ("api:study-grades-csv", lambda w: [w["study"].pk]),
    ("api:study-grades-xlsx", lambda w: [w["study"].pk]),
    ("api:task-list", lambda w: []),
    ("api:criterion-list", lambda w: []),
]


@pytest.mark.parametrize(("name", "args"), API_REFUSED, ids=[n for n, _ in API_REFUSED])
def test_annotator_api_refuses_others_work(world, name, args) -> None:
    client = _api(world)
    method = "post" if name.endswith(("-submit", "-rate")) else "get"

    _assert_refused(getattr(client, method)(reverse(name, args=args(world)), {}, format="json"))


@pytest.mark.parametrize("name", ["api:grade-list", "api:assignment-list", "api:study-list"])
def test_annotator_api_lists_hold_only_their_own_work(world, name) -> None:
    response = _api(world).get(reverse(name))

    assert response.status_code == 200
    for secret in SECRETS:
        assert secret not in response.content.decode()
    if name == "api:assignment-list":
        assert {row["id"] for row in response.json()["results"]} == {world["mine"].pk}


def _own_values(world, name: str, route: str, pattern) -> dict:
    """URL values naming Ada's own work (another's is refused above); 0 for what she has none
    of, which answers 404 or, for what her role may not open, 403."""
    mine = world["mine"]
    values = {
        "study_id": world["study"].pk,
        "assignment_id": mine.pk,
        "study_item_id": mine.study_item_id,
        "criterion_version_id": world["version"].pk,
        "likert_item_id": world["likert"].pk,
        "resource_id": world["resource"].pk,
        "flag_id": world["own_flag"].pk,
        "run_id": world["run"].pk,
        "run": world["run"].pk,
        "prompt_id": PromptTemplate.objects.first().pk,
        "version_id": PromptVersion.objects.first().pk,
        "user_id": world["ada"].pk,
        "id": world["ada"].pk,
        "framework_code": world["study"].framework.code,
        "code": world["study"].framework.code,
        "direction": "up",
        "uidb64": "MQ",
        "token": "not-a-token",
        "url": "no/such/page/",
        "app_label": "grading",
        "model": "flag",
    } | dict.fromkeys(("pk", "turn_id", "object_id", "content_type_id"), 0)
    if name.startswith("api:") and "pk" in parameters(route):
        own = {Flag: world["own_flag"], Assignment: mine, Study: world["study"]}
        model = api_model(pattern)
        values["pk"] = own[model].pk if model in own else first_pk(model)
    return values


def test_no_page_or_endpoint_an_annotator_reaches_names_another_grader(world) -> None:
    client = Client()
    client.force_login(world["ada"])
    named: dict[str, list[str]] = {}
    reached = 0
    for name, route, pattern in every_pattern():
        url = fill(route, _own_values(world, name, route, pattern))
        # A page may answer htmx with a fragment of its own; the API and the admin do not.
        page = not name.startswith(("api:", "admin:"))
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}) if page else ({},):
            response = client.get(url, **headers)
            reached += response.status_code == 200
            text = body(response).lower()
            found = [who for who in OTHER_GRADERS if who.lower() in text]
            if found:
                named[f"{url} {headers}"] = found
    assert named == {}
    assert reached > 40  # her pages, her grading, the taxonomy, her API lists: not only refusals


def test_a_grader_reads_their_flag_without_who_took_their_response_over(world) -> None:
    mine = _api(world).get(reverse("api:flag-detail", args=[world["own_flag"].pk])).json()
    assert mine["outcome"] == "reassigned" and "reassigned_to" not in mine
    listed = _api(world).get(reverse("api:flag-list")).json()["results"]
    assert [flag["id"] for flag in listed] == [world["own_flag"].pk]
    assert all("reassigned_to" not in flag for flag in listed)
