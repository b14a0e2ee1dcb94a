"""Grading through the API: annotators are blind (their own work only, no model names, no
judge), grades go through grading.services, gold verdicts refuse stale revisions."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from audit.models import AuditEvent
from core.scoring import adverse_verdict
from grading import services
from grading.models import Assignment, Grade, GradeRevision, Study
from judging.models import JudgeRating, JudgeRun, JudgeVerdict
from tests import factories
from tests.api.test_schemathesis import _names_only_unknown_objects

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]


@pytest.fixture
def study(framework, graders) -> Study:
    """Two responses, each graded by both annotators (overlap 2)."""
    new = factories.study(graders, responses=2, overlap=2)
    services.assign_study(new)
    return new


def token_client(user):

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 'tests')[1]}")
    return client


def own(study: Study, user) -> Assignment:
    return Assignment.objects.filter(study_item__study=study, annotator=user).first()


def grade_url(grade: Grade) -> str:
    return reverse("api:grade-detail", args=[grade.pk])


def test_an_annotator_lists_only_their_own_assignments(study, graders):
    me, other = graders
    rows = token_client(me).get(reverse("api:assignment-list")).json()["results"]
    assert {row["annotator"] for row in rows} == {me.username}
    assert len(rows) == 2
    theirs = own(study, other)
    response = token_client(me).get(reverse("api:assignment-detail", args=[theirs.pk]))
    assert response.status_code == 404


def test_an_assignment_never_shows_the_model(study, graders):
    me = graders[0]
    response = token_client(me).get(reverse("api:assignment-detail", args=[own(study, me).pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "secret-model-x" not in body
    assert not {"model_name", "model_family", "model_version"} & set(response.json()["response"])
    assert response.json()["response"]["text"].startswith("**Warm-up**")
    assert response.json()["rubric"][0]["code"].endswith("-01")


def test_an_annotator_reads_and_writes_only_their_own_grades(study, graders):
    me, other = graders
    version = factories.rubric_of(own(study, other))[0]
    theirs = services.save_grade(
        own(study, other), version.pk, verdict="fail", rationale="No.", by=other
    )
    client = token_client(me)
    assert client.get(reverse("api:grade-list")).json()["count"] == 0
    assert client.get(grade_url(theirs)).status_code == 404
    assert client.patch(grade_url(theirs), {"verdict": "pass"}, format="json").status_code == 404
    posted = client.post(
        reverse("api:grade-list"),
        {"assignment": own(study, other).pk, "criterion_version": version.pk, "verdict": "pass"},
        format="json",
    )
    assert posted.status_code == 400 and "assignment" in posted.json()["errors"]
    theirs.refresh_from_db()
    assert theirs.verdict == "fail"


def test_a_grade_is_saved_through_the_service_and_changed_after_submission_with_history(
    study, graders
):
    me = graders[0]
    assignment = own(study, me)
    client = token_client(me)
    version = factories.rubric_of(assignment)[0]
    body = {"assignment": assignment.pk, "criterion_version": version.pk, "verdict": "pass"}
    created = client.post(reverse("api:grade-list"), body, format="json")
    assert created.status_code == 201, created.json()
    assert client.post(reverse("api:grade-list"), body, format="json").status_code == 200
    factories.complete(assignment, me)
    submitted = client.post(reverse("api:assignment-submit", args=[assignment.pk]))
    assert submitted.status_code == 200 and submitted.json()["status"] == "submitted"
    grade = Grade.objects.get(pk=created.json()["id"])
    changed = client.patch(grade_url(grade), {"verdict": "na"}, format="json")
    assert changed.status_code == 200 and changed.json()["verdict"] == "na"
    assert GradeRevision.objects.get(grade=grade).verdict == "pass"


def test_a_grade_in_a_closed_study_is_refused_as_in_the_browser(study, graders):
    me = graders[0]
    Study.objects.filter(pk=study.pk).update(deadline=timezone.now() - timedelta(days=1))
    version = factories.rubric_of(own(study, me))[0]
    response = token_client(me).post(
        reverse("api:grade-list"),
        {"assignment": own(study, me).pk, "criterion_version": version.pk, "verdict": "pass"},
        format="json",
    )
    assert response.status_code == 409
    assert "closed" in response.json()["detail"]
    assert not Grade.objects.exists()


def test_a_criterion_outside_the_frozen_rubric_is_refused(study, graders):
    me = graders[0]
    mine = own(study, me)
    foreign = next(
        v
        for a in Assignment.objects.filter(annotator=me).exclude(study_item=mine.study_item)
        for v in factories.rubric_of(a)
    )
    response = token_client(me).post(
        reverse("api:grade-list"),
        {"assignment": mine.pk, "criterion_version": foreign.pk, "verdict": "pass"},
        format="json",
    )
    assert response.status_code == 400
    assert "not part of the rubric" in response.json()["errors"]["non_field_errors"][0]


def test_submitting_an_incomplete_assignment_lists_what_is_missing(study, graders):
    me = graders[0]
    assignment = own(study, me)
    response = token_client(me).post(reverse("api:assignment-submit", args=[assignment.pk]))
    assert response.status_code == 409  # the assignment's state, not the request, refuses it
    body = response.json()
    assert body["detail"] == "The assignment is not complete: see `problems`."
    assert body["problems"] == [p.message for p in services.missing_answers(assignment)]
    assert any("choose Pass" in m for m in body["problems"])
    assignment.refresh_from_db()
    assert assignment.status != Assignment.Status.SUBMITTED


def test_a_change_leaving_a_submitted_grade_without_its_rationale_is_a_conflict(study, graders):
    me = graders[0]
    mine = own(study, me)
    factories.complete(mine, me)
    services.submit(mine, by=me)
    version = next(v for v in factories.rubric_of(mine) if not (v.is_ordinal or v.per_turn))
    grade = Grade.objects.get(assignment=mine, criterion_version=version)
    adverse = adverse_verdict(penalty=version.is_penalty)
    answer = token_client(me).patch(
        grade_url(grade), {"verdict": adverse, "rationale": ""}, format="json"
    )
    assert answer.status_code == 409  # the submitted grade's state refuses it
    assert "write the rationale" in answer.json()["detail"]
    grade.refresh_from_db()
    assert (grade.verdict, grade.rationale) == ("pass", "ok")  # as factories.complete gave it


def test_a_maintainer_reads_every_grade_but_cannot_change_one(study, graders, api_as):
    me = graders[0]
    version = factories.rubric_of(own(study, me))[0]
    grade = services.save_grade(own(study, me), version.pk, verdict="pass", rationale="", by=me)
    maintainer = api_as(Role.MAINTAINER)
    assert maintainer.get(reverse("api:grade-list")).json()["count"] == 1
    assert maintainer.get(reverse("api:assignment-list")).json()["count"] == 4
    assert maintainer.patch(grade_url(grade), {"verdict": "fail"}, format="json").status_code == 403


def test_an_annotator_sees_only_their_studies_and_only_their_progress(study, graders, make_user):
    outsider = make_user(Role.ANNOTATOR)
    factories.study([outsider], responses=1, overlap=1)
    rows = token_client(graders[0]).get(reverse("api:study-list")).json()["results"]
    assert [row["id"] for row in rows] == [study.pk]
    assert rows[0]["my_assignments"] == 2
    assert not {"assignments", "submitted", "items"} & set(rows[0])


def test_an_annotator_cannot_read_verdicts_responses_or_reports(study, graders):
    client = token_client(graders[0])
    for url in (
        reverse("api:judgeverdict-list"),
        reverse("api:response-list"),
        reverse("api:study-agreement", args=[study.pk]),
        reverse("api:goldverdict-list"),
    ):
        assert client.get(url).status_code == 403, url


def test_claim_gives_the_next_unfinished_assignment_then_nothing(framework, make_user):
    me = make_user(Role.ANNOTATOR)
    new = factories.study([me], responses=1, overlap=1)
    services.assign_study(new)
    client = token_client(me)
    claimed = client.post(reverse("api:study-claim", args=[new.pk]))
    assert claimed.status_code == 200 and claimed.json()["status"] == "in_progress"
    assignment = Assignment.objects.get(pk=claimed.json()["id"])
    factories.complete(assignment, me)
    services.submit(assignment, by=assignment.annotator)
    assert client.post(reverse("api:study-claim", args=[new.pk])).status_code == 204


def test_a_study_is_created_and_assigned(framework, graders, api_as):
    answers = [factories.response(factories.published_task()) for _ in range(2)]
    response = api_as(Role.MAINTAINER).post(
        reverse("api:study-list"),
        {
            "name": "Pilot",
            "framework": framework.code,
            "overlap": 2,
            "annotators": [g.username for g in graders],
            "responses": [a.pk for a in answers],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert (response.json()["items"], response.json()["assignments"]) == (2, 4)


def test_a_second_study_of_the_same_name_in_any_case_is_refused(framework, graders, api_as):
    answer = factories.response(factories.published_task())
    api = api_as(Role.MAINTAINER)
    body = {
        "name": "Pilot",
        "framework": framework.code,
        "overlap": 1,
        "annotators": [graders[0].username],
        "responses": [answer.pk],
    }
    assert api.post(reverse("api:study-list"), body, format="json").status_code == 201
    again = api.post(reverse("api:study-list"), body | {"name": "PILOT"}, format="json")
    assert again.status_code == 400
    assert "already exists" in again.json()["errors"]["name"][0]
    assert Study.objects.count() == 1


# ----- gold verdicts ---------------------------------------------------------------------------
def test_a_stale_gold_verdict_is_409_with_the_current_one(study, graders, api_as):
    item = study.items.first()
    version = item.rubric_version.effective_rubric()[0].version
    client = api_as(Role.MAINTAINER)
    body = {"study_item": item.pk, "criterion_version": version.pk, "verdict": "pass"}
    created = client.post(reverse("api:goldverdict-list"), body, format="json")
    assert created.status_code == 201, created.json()
    url = reverse("api:goldverdict-detail", args=[created.json()["id"]])
    first = client.patch(url, {"verdict": "fail", "revision": 1}, format="json")
    assert first.status_code == 200 and first.json()["revision"] == 2
    stale = client.patch(url, {"verdict": "na", "revision": 1}, format="json")
    assert stale.status_code == 409
    assert stale.json()["current"]["verdict"] == "fail"
    again = client.post(reverse("api:goldverdict-list"), body, format="json")
    assert again.status_code == 409


def test_a_gold_verdict_says_why_the_experts_split_and_how_sure(study, api_as):
    item = study.items.first()
    version = item.rubric_version.effective_rubric()[0].version
    client = api_as(Role.MAINTAINER)
    body = {"study_item": item.pk, "criterion_version": version.pk, "verdict": "fail"}
    why = {"split_reason": "grader_slip", "confidence": "medium"}
    created = client.post(reverse("api:goldverdict-list"), body | why, format="json")
    assert created.status_code == 201, created.json()
    url = reverse("api:goldverdict-detail", args=[created.json()["id"]])
    client.patch(url, {"verdict": "pass", "revision": 1}, format="json")  # the reason stays
    [listed] = client.get(reverse("api:goldverdict-list"), {"study": study.pk}).json()["results"]
    assert (listed["split_reason"], listed["split_reason_label"]) == ("grader_slip", "Grader slip")
    assert (listed["confidence"], listed["revision"]) == ("medium", 2)
    refused = client.patch(url, {"split_reason": "the moon", "revision": 2}, format="json")
    assert refused.status_code == 400
    shown = client.get(reverse("api:study-detail", args=[study.pk])).json()
    assert "grader_slip" in shown["split_reasons"]


# ----- agreement -------------------------------------------------------------------------------
def test_the_agreement_report_is_the_json_download(framework, graders, api_as):
    graded = factories.graded_study(graders, ["pass", "fail"])
    body = api_as(Role.VIEWER).get(reverse("api:study-agreement", args=[graded.pk])).json()
    assert body["study"] == graded.name
    assert body["overall"]["items"] == 2
    assert body["overall"]["percent agreement"] == 0.0
    assert {c["code"] for c in body["criteria"]} == {
        v.criterion.code for item in graded.items.all() for v in _versions(item)
    }


def _versions(item):
    return [line.version for line in item.rubric_version.effective_rubric()]


def test_calibration_and_leaderboard_of_a_judge(framework, graders, api_as):
    graded = factories.graded_study(graders, ["pass", "pass"])
    run = JudgeRun.objects.create(judge_model="judge-1")
    for item in graded.items.all():
        for version in _versions(item):
            JudgeVerdict.objects.create(
                run=run, response=item.response, criterion_version=version, verdict=True
            )
    viewer = api_as(Role.VIEWER)
    report = viewer.get(reverse("api:study-calibration", args=[graded.pk, run.pk]))
    assert report.status_code == 200
    assert report.json()["judge_name"] == str(run)
    assert report.json()["overall"]["n_units"] == 6
    overall = report.json()["figures"][0]  # flat rows: every figure with its interval and n
    assert (overall["group"], overall["units with a verdict"]) == ("overall", 6)
    assert {"accuracy vs majority CI low", "alpha with judge CI high"} <= set(overall)
    board = viewer.get(reverse("api:study-leaderboard", args=[graded.pk]), {"judge": run.pk})
    [row] = board.json()["rows"]
    assert row["model"] == "secret-model-x"
    assert row["judge"]["mean"] is not None
    missing = viewer.get(reverse("api:study-calibration", args=[graded.pk, run.pk + 99]))
    assert missing.status_code == 404
    accuracy = report.json()["overall"]["vs_majority"]["accuracy"]
    assert accuracy["value"] == accuracy["numerator"] / accuracy["denominator"] == 1.0
    assert "mean_accuracy_gap" in report.json()["overall"]
    assert row["gap"] == pytest.approx(row["judge"]["mean"] - row["experts"]["mean"])


def test_calibration_carries_the_judges_1_to_5_scores_and_their_stability(graders, api_as):
    graded = factories.graded_study(graders, ["pass", "pass"], responses=3)
    key = graded.likert_items.order_by("order").first().key
    run = JudgeRun.objects.create(judge_model="judge-1")
    responses = [item.response for item in graded.items.order_by("pk")]
    JudgeRating.objects.bulk_create(
        JudgeRating(run=run, response=response, question=key, value=n + 2, epoch=epoch)
        for epoch in (1, 2)
        for n, response in enumerate(responses)
    )
    url = reverse("api:study-calibration", args=[graded.pk, run.pk])
    [scale] = api_as(Role.VIEWER).get(url).json()["scales"]
    assert scale["key"] == key and scale["n_judge_scores"] == 3
    assert scale["agreement"]["judge_mean"] == 3.0 and scale["agreement"]["experts_mean"] == 4.0
    stability = scale["stability"]
    assert stability["epochs"] == 2 and stability["n_responses"] == 3
    assert stability["identical"] == 1.0
    assert stability["alpha"]["value"] == 1.0 and stability["alpha"]["undefined_reason"] is None


# ----- ratings, a whole grading through the API, closing, exports ----------------------------
def test_an_annotator_grades_rates_and_submits_one_assignment_through_the_api(study, graders):
    me = graders[0]
    client = token_client(me)
    assignment_id = client.post(reverse("api:study-claim", args=[study.pk])).json()["id"]
    url = reverse("api:assignment-detail", args=[assignment_id])
    detail = client.get(url).json()
    assert detail["ratings"] and all(r["value"] is None for r in detail["ratings"])
    refused = client.post(reverse("api:assignment-submit", args=[assignment_id]))
    assert refused.status_code == 409 and refused.json()["problems"]
    for line in detail["rubric"]:
        if line["applicable"]:
            body = {"assignment": assignment_id, "criterion_version": line["criterion_version"]}
            verdict = "fail" if line["weight"] < 0 else "pass"  # all well: a penalty absent
            saved = client.post(reverse("api:grade-list"), body | {"verdict": verdict})
            assert saved.status_code == 201, saved.content
    for n, rating in enumerate(detail["ratings"]):
        answer = client.post(
            reverse("api:assignment-rate", args=[assignment_id]),
            {"item": rating["item"], "value": n + 4},
            format="json",
        )
        assert answer.status_code == 200, answer.content
        assert answer.json() == rating | {"value": n + 4}
    submitted = client.post(reverse("api:assignment-submit", args=[assignment_id]))
    assert submitted.status_code == 200, submitted.content
    assert submitted.json()["status"] == "submitted"
    assert [r["value"] for r in submitted.json()["ratings"]] == [4, 5]


def test_a_rating_is_checked_by_the_service(study, graders):
    me, other = graders
    assignment = own(study, me)
    client = token_client(me)
    url = reverse("api:assignment-rate", args=[assignment.pk])
    item = study.likert_items.first()
    assert client.post(url, {"item": item.pk, "value": 6}, format="json").status_code == 400
    unknown = client.post(url, {"item": 10**6, "value": 3}, format="json")
    # Named as an unknown object, the one 400 the Schemathesis check lets schema-valid input get.
    assert unknown.status_code == 400 and _names_only_unknown_objects(unknown.json())
    theirs = reverse("api:assignment-rate", args=[own(study, other).pk])
    assert client.post(theirs, {"item": item.pk, "value": 3}, format="json").status_code == 404
    services.set_status(study, Study.Status.CLOSED)
    closed = client.post(url, {"item": item.pk, "value": 3}, format="json")
    assert closed.status_code == 409
    assert "closed" in closed.json()["detail"]
    assert not assignment.likert_ratings.exists()


def test_a_maintainer_closes_and_reopens_a_study(study, graders, api_as):
    maintainer = api_as(Role.MAINTAINER)
    closed = maintainer.post(reverse("api:study-close", args=[study.pk]))
    assert closed.status_code == 200
    assert closed.json()["status"] == "closed"
    assert closed.json()["items"] == 2
    version = factories.rubric_of(own(study, graders[0]))[0]
    body = {"assignment": own(study, graders[0]).pk, "criterion_version": version.pk}
    refused = token_client(graders[0]).post(reverse("api:grade-list"), body | {"verdict": "pass"})
    assert refused.status_code == 409
    assert maintainer.post(reverse("api:study-close", args=[study.pk])).status_code == 200
    reopened = maintainer.post(reverse("api:study-reopen", args=[study.pk]))
    assert reopened.json()["status"] == "open"
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN
    changes = AuditEvent.objects.for_object(study).filter(kind=AuditEvent.Kind.STATUS)
    assert changes.count() == 2  # the second close changed nothing


def test_a_maintainer_downloads_grades_and_rubrics(framework, graders, api_as):
    graded = factories.graded_study(graders, ["pass", "fail"])
    maintainer = api_as(Role.MAINTAINER)
    csv = maintainer.get(reverse("api:study-grades-csv", args=[graded.pk]))
    assert csv.status_code == 200
    assert csv["Content-Type"].startswith("text/csv")
    assert "attachment" in csv["Content-Disposition"]
    lines = b"".join(csv.streaming_content).decode().splitlines()
    assert len(lines) == 1 + Grade.objects.filter(assignment__study_item__study=graded).count()
    for name, args in [
        ("api:study-grades-xlsx", [graded.pk]),
        ("api:framework-rubrics-xlsx", [framework.code]),
    ]:
        answer = maintainer.get(reverse(name, args=args))
        assert answer.status_code == 200
        assert answer["Content-Type"] == (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        )
        assert b"".join(answer.streaming_content)[:2] == b"PK"  # a zip: an .xlsx
    assert (
        api_as(Role.VIEWER).get(reverse("api:study-grades-csv", args=[graded.pk])).status_code
        == 403
    )


def test_the_schema_describes_downloads_as_binary(client_as):
    document = client_as(Role.VIEWER).get("/api/schema/", {"format": "json"}).json()
    content = document["paths"]["/api/v1/studies/{id}/grades-csv/"]["get"]["responses"]["200"][
        "content"
    ]
    assert content == {"text/csv": {"schema": {"type": "string", "format": "binary"}}}


def test_someone_who_sees_every_assignment_still_changes_only_their_own_as_in_the_browser(
    study, graders, make_user
):
    """An admin grades and reads every assignment; writing to another grader's is refused by
    the service with the pages' answer, a 404."""
    other = graders[0]
    assignment = own(study, other)
    version = factories.rubric_of(assignment)[0]
    grade = services.save_grade(assignment, version.pk, verdict="fail", rationale="No.", by=other)
    admin = token_client(make_user(Role.ADMIN))
    assert admin.get(grade_url(grade)).status_code == 200
    patched = admin.patch(grade_url(grade), {"verdict": "pass"}, format="json")
    assert patched.status_code == 404
    assert "No such assignment" in patched.json()["detail"]
    item = study.likert_items.first()
    rate = reverse("api:assignment-rate", args=[assignment.pk])
    assert admin.post(rate, {"item": item.pk, "value": 3}, format="json").status_code == 404
    submit = reverse("api:assignment-submit", args=[assignment.pk])
    assert admin.post(submit).status_code == 404
    grade.refresh_from_db()
    assert grade.verdict == "fail" and not assignment.likert_ratings.exists()
