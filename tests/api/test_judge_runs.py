"""Judge runs in the API: the prompt a run sent, its parameters, counts and token usage; an
unparseable answer is a verdict of null with the judge's output."""

import pytest
from django.urls import reverse

from judging.models import JudgeRun, JudgeVerdict, PromptVersion
from judging.services import save_config
from rubrics.models import CriterionVersion, Response
from tests.factories import demo_benchmark_and_graders

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs(db):
    demo_benchmark_and_graders(0)
    prompt = PromptVersion.objects.get(template__name="reference-guided")
    config = save_config(
        name="local-llama", model="openai-api/local/llama3.1", prompt=prompt,
        model_family="llama", by=None,
    )  # fmt: skip
    made = JudgeRun.objects.create(
        config=config,
        model_family=config.model_family,
        judge_model="openai-api/local/llama3.1",
        prompt_version=str(prompt),
        prompt=prompt,
        parameters={"temperature": 0.0, "epochs": 1},
        status=JudgeRun.Status.SUCCEEDED,
        calls_total=2,
        calls_done=2,
        unparseable=1,
        input_tokens=120,
        output_tokens=4,
        total_tokens=124,
        duration=1.5,
    )
    imported = JudgeRun.objects.create(judge_model="judge-x", prompt_version="v4")
    response, version = Response.objects.first(), CriterionVersion.objects.first()
    JudgeVerdict.objects.create(
        run=made, response=response, criterion_version=version, verdict=None, rationale="Hmm."
    )
    return made, imported


def test_a_run_shows_the_prompt_it_sent_its_parameters_counts_and_usage(runs, viewer_api):
    made, imported = runs
    found = {r["id"]: r for r in viewer_api.get(reverse("api:judgerun-list")).json()["results"]}
    run = found[made.pk]
    assert run["prompt_template"] == made.prompt.text and "{{criterion}}" in run["prompt_template"]
    assert run["parameters"] == {"temperature": 0.0, "epochs": 1}
    assert (run["status"], run["calls_total"], run["unparseable"], run["errors"]) == (
        "succeeded",
        2,
        1,
        0,
    )
    assert run["usage"] == {"input_tokens": 120, "output_tokens": 4, "total_tokens": 124}
    assert (run["config"], run["model_family"]) == ("local-llama", "llama")
    assert found[imported.pk]["prompt_template"] is None
    assert (found[imported.pk]["config"], found[imported.pk]["model_family"]) == (None, "")


def test_an_unparseable_answer_is_a_null_verdict_with_the_judges_output(runs, viewer_api):
    (verdict,) = viewer_api.get(reverse("api:judgeverdict-list")).json()["results"]
    assert (verdict["verdict"], verdict["rationale"]) == (None, "Hmm.")
