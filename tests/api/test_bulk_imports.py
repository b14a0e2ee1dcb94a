"""Responses and judge verdicts created in bulk through the API: the importers' rules, all or
nothing, every problem keyed by item index and field."""

import json

import pytest
from django.urls import reverse

from accounts.roles import Role
from judging.models import JudgeVerdict
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db

RESPONSES = reverse("api:response-list")
VERDICTS = reverse("api:judgeverdict-list")


@pytest.fixture
def importer(api_as):
    return api_as(Role.MAINTAINER)


@pytest.fixture
def task(framework):
    return factories.published_task(framework)


def items(task, n: int = 3) -> list[dict]:
    return [
        {"task_key": task.key, "model": f"model-{i}", "family": "acme", "id": f"r{i}",
         "response": f"Answer {i}."}
        for i in range(n)
    ]  # fmt: skip


def post(client, url, body, **params):
    query = "&".join(f"{k}={v}" for k, v in {"framework": "test-fw", **params}.items())
    return client.post(f"{url}?{query}", body, format="json")


def test_a_list_of_responses_is_created(task, importer):
    response = post(importer, RESPONSES, items(task))
    assert response.status_code == 201, response.json()
    assert response.json() == {
        "dry_run": False,
        "counts": {"responses": {"created": 3, "updated": 0, "unchanged": 0}},
        "new_versions": [],
    }
    assert sorted(Response.objects.values_list("external_id", flat=True)) == ["r0", "r1", "r2"]


def test_posting_the_same_responses_again_changes_nothing(task, importer):
    post(importer, RESPONSES, items(task))
    again = post(importer, RESPONSES, items(task))
    assert again.json()["counts"]["responses"] == {"created": 0, "updated": 0, "unchanged": 3}
    assert Response.objects.count() == 3


def test_one_bad_item_writes_nothing_and_errors_name_each_item_and_field(task, importer):
    body = items(task)
    body[1]["task_key"] = "no-such-task"
    body[2]["response"] = "   "
    response = post(importer, RESPONSES, body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["1.task_key"] == ["no task 'no-such-task' in framework 'test-fw'"]
    assert list(errors) == ["1.task_key", "2.response"]
    assert not Response.objects.exists()


def test_an_item_that_is_not_an_object_is_named_by_its_index(task, importer):
    response = post(importer, RESPONSES, [items(task)[0], "hello"])
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["1.non_field_errors"]
    assert not Response.objects.exists()


def test_a_dry_run_counts_but_writes_nothing(task, importer):
    response = post(importer, RESPONSES, items(task), dry_run="true")
    assert response.status_code == 200
    assert response.json()["dry_run"] is True
    assert response.json()["counts"]["responses"]["created"] == 3
    assert not Response.objects.exists()


def test_json_lines_are_accepted_as_the_body(task, importer):
    body = "\n".join(json.dumps(item) for item in items(task, 2))
    response = importer.generic(
        "POST", f"{RESPONSES}?framework=test-fw", body, content_type="application/x-ndjson"
    )
    assert response.status_code == 201, response.json()
    assert Response.objects.count() == 2


def test_a_missing_or_unknown_framework_is_400(task, importer):
    assert "framework" in importer.post(RESPONSES, items(task), format="json").json()["errors"]
    response = importer.post(f"{RESPONSES}?framework=nope", items(task), format="json")
    assert response.status_code == 400 and "framework" in response.json()["errors"]


def test_a_nul_in_an_item_is_400_by_item(task, importer):
    body = items(task)
    body[2]["response"] = "a\x00b"
    response = post(importer, RESPONSES, body)
    assert list(response.json()["errors"]) == ["2.non_field_errors"]


def test_a_viewer_reads_responses_with_their_model_but_cannot_create_them(task, viewer_api):
    factories.response(task, model="secret-model-x", turns=2)
    row = viewer_api.get(RESPONSES, {"task_key": task.key}).json()["results"][0]
    assert row["model_name"] == "secret-model-x"
    assert [t["role"] for t in row["turns"]] == ["user", "assistant"]
    assert post(viewer_api, RESPONSES, items(task)).status_code == 403


@pytest.mark.parametrize("role", [Role.ANNOTATOR])
def test_an_annotator_reads_no_response_and_no_verdict(role, task, api_as):
    answer = factories.response(task)
    client = api_as(role)
    for url in (RESPONSES, reverse("api:response-detail", args=[answer.pk]), VERDICTS):
        assert client.get(url).status_code == 403


# ----- verdicts --------------------------------------------------------------------------------
def verdict_items(task) -> list[dict]:
    codes = [c.code for c in task.criteria.order_by("code")]
    return [
        {"response_id": "r0", "criterion_id": code, "verdict": n % 2 == 0,
         "judge_model": "judge-1", "rationale": f"Because {n}."}
        for n, code in enumerate(codes)
    ]  # fmt: skip


def test_a_verdict_naming_task_model_and_epoch_finds_a_response_posted_with_its_id(
    task, importer, viewer_api
):
    body = [item | {"epoch": 2} for item in items(task, 1)]
    assert post(importer, RESPONSES, body).status_code == 201
    listed = viewer_api.get(RESPONSES, {"framework": "test-fw", "epoch": 2}).json()["results"]
    assert [(r["external_id"], r["epoch"]) for r in listed] == [("r0", 2)]
    code = task.criteria.order_by("code").first().code
    verdict = {"task_key": task.key, "model": "model-0", "epoch": 2, "criterion_id": code,
               "verdict": True, "judge_model": "judge-1"}  # fmt: skip
    response = post(importer, VERDICTS, [verdict])
    assert response.status_code == 201, response.json()
    assert JudgeVerdict.objects.get().response.external_id == "r0"


def test_verdicts_are_created_for_imported_responses(task, importer):
    post(importer, RESPONSES, items(task))
    response = post(importer, VERDICTS, verdict_items(task))
    assert response.status_code == 201, response.json()
    assert response.json()["counts"]["verdicts"]["created"] == 3
    assert JudgeVerdict.objects.filter(run__judge_model="judge-1").count() == 3


def test_a_verdict_on_an_unknown_response_or_criterion_writes_no_verdict(task, importer):
    post(importer, RESPONSES, items(task))
    body = verdict_items(task)
    body[0]["response_id"] = "r404"
    body[2]["criterion_id"] = "zz-99"
    response = post(importer, VERDICTS, body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert set(errors) == {"0.response_id", "2.criterion_id"}
    assert not JudgeVerdict.objects.exists()


def test_a_verdict_with_the_wrong_weight_is_refused_like_in_a_file(task, importer):
    post(importer, RESPONSES, items(task))
    body = verdict_items(task)
    body[0]["weight"] = 99
    response = post(importer, VERDICTS, body)
    assert "the judge saw weight 99" in response.json()["errors"]["0.weight"][0]


def test_verdicts_filter_by_run_response_and_criterion(task, importer, viewer_api):
    post(importer, RESPONSES, items(task))
    post(importer, VERDICTS, verdict_items(task))
    code = task.criteria.order_by("code").first().code
    answer = Response.objects.get(external_id="r0")
    run = JudgeVerdict.objects.first().run_id
    params = {"run": run, "response": answer.pk, "criterion": code}
    [row] = viewer_api.get(VERDICTS, params).json()["results"]
    assert (row["criterion"], row["verdict"], row["judge_model"]) == (code, True, "judge-1")
    assert viewer_api.get(VERDICTS, {"criterion": "none"}).json()["count"] == 0
    runs = viewer_api.get(reverse("api:judgerun-list")).json()["results"]
    assert [(r["judge_model"], r["verdicts"]) for r in runs] == [("judge-1", 3)]


def test_a_body_over_the_servers_limit_is_refused_with_the_limit_and_writes_nothing(
    task, importer, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = [dict(item, response="x" * 5000) for item in items(task, 300)]
    response = post(importer, RESPONSES, body)
    assert response.status_code == 413
    assert "larger than the 1 MiB this server accepts" in response.json()["detail"]
    assert "Nothing was saved" in response.json()["detail"]
    assert not Response.objects.exists()
