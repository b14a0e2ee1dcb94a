"""Flags through the API: a grader raises them on their own assignment and reads only their own;
a maintainer lists and resolves them. Time per criterion as JSON for researchers."""

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import services
from grading.models import Assignment
from tests import factories
from tests.api.conformance import mismatches

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    sync_roles()
    ana, ben = (create_user_with_role(n, "pw", Role.ANNOTATOR) for n in ("ana", "ben"))
    boss = create_user_with_role("boss", "pw", Role.MAINTAINER)
    reader = create_user_with_role("reader", "pw", Role.VIEWER)
    study = factories.study([ana, ben], responses=1, overlap=2)
    services.assign_study(study)
    done = Assignment.objects.get(annotator=ben)
    for version in factories.rubric_of(done):
        services.save_grade(done, version.pk, verdict="pass", rationale="", by=ben, active_ms=3000)
    factories.complete(done, ben)
    services.submit(done, by=ben)
    return {"study": study.pk, "ana": ana.pk, "ben": ben.pk, "boss": boss.pk, "reader": reader.pk}


def api(world: dict[str, int], name: str) -> APIClient:
    client = APIClient()
    key = ApiToken.issue(User.objects.get(pk=world[name]), "tests")[1]
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_grader_flags_their_assignment_and_only_they_and_maintainers_read_it(world):
    mine = Assignment.objects.get(annotator=world["ana"])
    version = factories.rubric_of(mine)[0]
    body = {"assignment": mine.pk, "kind": "criterion_unclear", "criterion_version": version.pk}
    created = api(world, "ana").post("/api/v1/flags/", body | {"skip": True}, format="json")
    assert created.status_code == 201, created.content
    flag = created.json()
    assert (flag["code"], flag["skipped"], flag["by"]) == (version.criterion.code, True, "ana")
    assert api(world, "ana").post("/api/v1/flags/", body, format="json").status_code == 409
    ben = api(world, "ben")
    assert ben.get("/api/v1/flags/").json()["results"] == []
    assert ben.get(f"/api/v1/flags/{flag['id']}/").status_code == 404
    theirs = {"assignment": mine.pk, "kind": "other", "comment": "x"}
    assert ben.post("/api/v1/flags/", theirs, format="json").status_code == 400
    assert ben.post(f"/api/v1/flags/{flag['id']}/resolve/", {"note": "n"}).status_code == 403
    boss = api(world, "boss")
    assert [f["id"] for f in boss.get("/api/v1/flags/?status=open").json()["results"]] == [
        flag["id"]
    ]
    refused = boss.post(f"/api/v1/flags/{flag['id']}/resolve/", {"note": "ok"}, format="json")
    assert refused.status_code == 400 and "outcome" in refused.json()["errors"]
    resolved = boss.post(
        f"/api/v1/flags/{flag['id']}/resolve/",
        {"note": "Reworded", "outcome": "returned", "open_draft": True},
        format="json",
    )
    assert resolved.status_code == 200, resolved.content
    data = resolved.json()
    assert (data["status"], data["resolved_by"], data["outcome"]) == (
        "resolved",
        "boss",
        "returned",
    )
    assert data["draft"] is not None
    again = boss.post(f"/api/v1/flags/{flag['id']}/resolve/", {"note": "x"}, format="json")
    assert again.status_code == 409


def test_researchers_read_the_time_per_criterion_and_graders_do_not(world):
    url = f"/api/v1/studies/{world['study']}/criterion-times/"
    data = api(world, "reader").get(url).json()
    assert data["n"] == len(data["per_criterion"]) and data["overall_median_seconds"] == 3.0
    assert {row["annotator"] for row in data["per_pair"]} == {"ben"}
    assert api(world, "ana").get(url).status_code == 403


def test_setting_aside_a_submitted_response_is_a_conflict(world):
    done = Assignment.objects.get(annotator=world["ben"])
    body = {"assignment": done.pk, "kind": "other", "comment": "Broken", "skip": True}
    refused = api(world, "ben").post("/api/v1/flags/", body, format="json")
    assert refused.status_code == 409, refused.content
    assert refused.json()["detail"] == (
        "This response is submitted: it can be flagged but no longer set aside."
    )
    assert not done.study_item.flags.exists()
    flagged = api(world, "ben").post("/api/v1/flags/", body | {"skip": False}, format="json")
    assert flagged.status_code == 201, flagged.content


def test_setting_aside_a_response_set_aside_already_is_a_conflict(world):
    mine = Assignment.objects.get(annotator=world["ana"])
    first, second = factories.rubric_of(mine)[:2]
    body = {"assignment": mine.pk, "kind": "criterion_unclear", "skip": True}
    ana = api(world, "ana")
    created = ana.post("/api/v1/flags/", body | {"criterion_version": first.pk}, format="json")
    assert created.status_code == 201, created.content
    refused = ana.post("/api/v1/flags/", body | {"criterion_version": second.pk}, format="json")
    assert refused.status_code == 409, refused.content
    assert refused.json()["detail"] == "This response is already set aside."
    assert mine.study_item.flags.count() == 1


def test_an_open_flag_on_a_whole_response_reads_as_the_schema_says(world):
    """Its `code`, `resolved_by` and `reassigned_to` are null and its `outcome` empty until it
    is resolved; a maintainer's flag holds every field of a grader's, and fits both shapes."""
    mine = Assignment.objects.get(annotator=world["ana"])
    body = {"assignment": mine.pk, "kind": "response_broken"}
    created = api(world, "ana").post("/api/v1/flags/", body, format="json")
    assert mismatches(created, "/api/v1/flags/", "post") == []
    flag = created.json()
    assert (flag["code"], flag["outcome"], flag["resolved_by"]) == (None, "", None)
    for reader in ("ana", "boss"):
        listed = api(world, reader).get("/api/v1/flags/")
        assert listed.json()["count"] == 1
        assert mismatches(listed, "/api/v1/flags/") == [], reader
        read = api(world, reader).get(f"/api/v1/flags/{flag['id']}/")
        assert mismatches(read, "/api/v1/flags/{id}/") == [], reader
    assert api(world, "boss").get(f"/api/v1/flags/{flag['id']}/").json()["reassigned_to"] is None
