"""The API creates judge prompt versions, judge configurations and runs through the services
the pages use: a maintainer may, an annotator may not; a used version is never changed; a run
is queued as the judge page queues it, with the allowed providers checked."""

import pytest
from django.urls import reverse
from django_tasks_db.models import DBTaskResult
from drf_spectacular.generators import SchemaGenerator

from accounts.roles import Role
from grading.models import Study
from judging.models import JudgeConfig, JudgeRun, PromptVersion
from tests.factories import demo_study
from tests.llm_server import model_name

pytestmark = pytest.mark.django_db

TEXT = "Response: {{response}}\nCriterion: {{criterion}}\nAnswer true or false."


@pytest.fixture(scope="module")
def built_study(module_db) -> int:
    return demo_study(2).pk


@pytest.fixture
def study(built_study, db) -> Study:
    return Study.objects.get(pk=built_study)


@pytest.fixture
def maintainer(api_as):
    return api_as(Role.MAINTAINER)


def post(client, name, body):
    return client.post(reverse(f"api:{name}-list"), body, format="json")


def test_a_maintainer_saves_a_new_prompt_then_its_next_version(maintainer):
    first = post(maintainer, "promptversion", {"name": "house", "text": TEXT, "note": "Ours."})
    assert first.status_code == 201
    assert {k: first.json()[k] for k in ("name", "number", "reference", "style", "frozen")} == {
        "name": "house", "number": 1, "reference": "house@1", "style": "binary", "frozen": False,
    }  # fmt: skip
    again = post(maintainer, "promptversion", {"name": "house", "text": TEXT})
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])
    second = post(maintainer, "promptversion", {"name": "house", "text": TEXT + " Be strict."})
    assert (second.status_code, second.json()["reference"]) == (201, "house@2")


def test_a_prompt_text_a_judge_cannot_use_is_a_400_naming_the_text(maintainer):
    answer = post(maintainer, "promptversion", {"name": "house", "text": "{{respons}}"})
    assert answer.status_code == 400
    assert "unknown slot {{respons}}" in answer.json()["errors"]["text"][0]
    assert not PromptVersion.objects.filter(template__name="house").exists()


def test_a_version_is_never_changed_or_deleted_through_the_api(maintainer):
    version = PromptVersion.objects.get(template__name="reference-guided", number=1)
    url = reverse("api:promptversion-detail", args=[version.pk])
    for method in ("put", "patch", "delete"):
        answer = getattr(maintainer, method)(url, {"text": TEXT}, format="json")
        assert answer.status_code == 405
    assert PromptVersion.objects.get(pk=version.pk).text == version.text


def test_an_annotator_may_neither_read_nor_write_prompts_configurations_or_runs(api_as, study):
    annotator = api_as(Role.ANNOTATOR)
    for name, body in [
        ("promptversion", {"name": "house", "text": TEXT}),
        ("judgeconfig", {"model": model_name()}),
        ("judgerun", {"study": study.pk, "model": model_name()}),
    ]:
        assert annotator.get(reverse(f"api:{name}-list")).status_code == 403
        assert post(annotator, name, body).status_code == 403
    assert not JudgeRun.objects.exists() and not JudgeConfig.objects.exists()


def test_a_viewer_reads_but_does_not_write(api_as):
    viewer = api_as(Role.VIEWER)
    listed = viewer.get(reverse("api:promptversion-list"), {"name": "reference-guided"})
    assert [v["reference"] for v in listed.json()["results"]] == ["reference-guided@1"]
    assert post(viewer, "judgeconfig", {"model": model_name()}).status_code == 403


def test_a_configuration_is_saved_by_name_and_a_name_holding_other_values_is_refused(maintainer):
    body = {"name": "strict", "model": model_name(), "prompt": "critique-then-verdict@1",
            "epochs": 2}  # fmt: skip
    made = post(maintainer, "judgeconfig", body)
    assert made.status_code == 201
    assert (made.json()["prompt"], made.json()["epochs"]) == ("critique-then-verdict@1", 2)
    assert post(maintainer, "judgeconfig", body).status_code == 200
    refused = post(maintainer, "judgeconfig", body | {"epochs": 3})
    assert (
        refused.status_code == 400 and "holds other values" in refused.json()["errors"]["name"][0]
    )
    assert JudgeConfig.objects.get(name="strict").epochs == 2


def test_a_configuration_of_a_provider_the_server_does_not_allow_is_refused(maintainer, settings):
    settings.JUDGE_ALLOWED_PROVIDERS = ["anthropic"]
    answer = post(maintainer, "judgeconfig", {"model": model_name()})
    assert answer.status_code == 400
    assert "does not allow" in answer.json()["errors"]["model"][0]
    unknown = post(maintainer, "judgeconfig", {"model": "anthropic/x", "prompt": "nothing"})
    assert unknown.json()["errors"]["prompt"][0].startswith("No prompt version 'nothing'")


def test_a_run_is_queued_as_the_judge_page_queues_it(
    maintainer, study, django_capture_on_commit_callbacks
):
    body = {"study": study.pk, "model": model_name("judge-x"), "name": "api-judge",
            "prompt": "critique-then-verdict", "epochs": 2, "limit": 3}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(maintainer, "judgerun", body)
    assert answer.status_code == 201, answer.content
    run = JudgeRun.objects.get()
    assert answer.json()["id"] == run.pk and answer.json()["status"] == "queued"
    assert (run.calls_total, str(run.prompt), run.config.name) == (
        6,
        "critique-then-verdict@1",
        "api-judge",
    )
    assert run.parameters["study"] == study.pk and run.job is not None
    assert DBTaskResult.objects.get().args_kwargs["args"] == [run.pk]


def test_a_run_of_a_saved_configuration_takes_it_as_it_is(maintainer, study):
    post(maintainer, "judgeconfig", {"name": "local", "model": model_name()})
    answer = post(maintainer, "judgerun", {"study": study.pk, "config": "local", "limit": 1})
    assert answer.status_code == 201 and answer.json()["config"] == "local"
    both = post(maintainer, "judgerun", {"study": study.pk, "config": "local", "epochs": 3})
    assert both.status_code == 400 and list(both.json()["errors"]) == ["epochs"]


def test_a_run_needs_a_model_or_a_configuration_and_an_allowed_provider(
    maintainer, study, settings
):
    nothing = post(maintainer, "judgerun", {"study": study.pk})
    assert nothing.status_code == 400 and list(nothing.json()["errors"]) == ["model"]
    post(maintainer, "judgeconfig", {"name": "local", "model": model_name()})
    settings.JUDGE_ALLOWED_PROVIDERS = ["anthropic"]  # allowed when saved, no longer now
    refused = post(maintainer, "judgerun", {"study": study.pk, "config": "local"})
    assert refused.status_code == 400 and "does not allow" in refused.json()["errors"]["model"][0]
    assert not JudgeRun.objects.exists()


def test_a_run_on_a_study_with_nothing_to_judge_is_a_409(maintainer, study):
    empty = Study.objects.create(name="Empty", framework=study.framework)
    answer = post(maintainer, "judgerun", {"study": empty.pk, "model": model_name()})
    assert answer.status_code == 409 and "Empty" in answer.json()["detail"]
    assert not JudgeRun.objects.exists()


def test_the_schema_describes_the_new_writes():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path in ("/api/v1/judge-prompts/", "/api/v1/judge-configs/", "/api/v1/judge-runs/"):
        post_operation = paths[path]["post"]
        assert {"201", "400", "403"} <= set(post_operation["responses"]), path
        assert "requestBody" in post_operation
    assert "put" not in paths["/api/v1/judge-prompts/{id}/"]


def test_the_lists_of_prompt_versions_and_configurations_take_bounded_queries(
    maintainer, django_assert_max_num_queries
):
    for n in range(4):
        post(maintainer, "promptversion", {"name": f"p{n}", "text": TEXT})
        post(maintainer, "judgeconfig", {"model": model_name(f"judge-{n}"), "prompt": f"p{n}"})
    for name in ("promptversion", "judgeconfig"):
        with django_assert_max_num_queries(6):
            listed = maintainer.get(reverse(f"api:{name}-list"))
        assert listed.json()["count"] >= 4
