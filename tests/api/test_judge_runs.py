"""Judge runs in the API: the prompt a run sent, its parameters, counts and token usage; an
unparseable answer is a verdict of null with the judge's output."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from judging.models import JudgeRun, JudgeVerdict, PromptVersion
from judging.services import save_config
from rubrics.models import CriterionVersion, Response
from tests import factories
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
    assert found[imported.pk]["heartbeat"] is None and found[imported.pk]["status"] == "imported"
    assert (found[imported.pk]["config"], found[imported.pk]["model_family"]) == (None, "")


def test_an_unparseable_answer_is_a_null_verdict_with_the_judges_output(runs, viewer_api):
    (verdict,) = viewer_api.get(reverse("api:judgeverdict-list")).json()["results"]
    assert (verdict["verdict"], verdict["rationale"]) == (None, "Hmm.")


def test_a_run_whose_worker_was_killed_reads_stalled_as_on_its_page(runs, viewer_api, client_as):
    made, _ = runs
    study = factories.study([], responses=1, overlap=1)
    killed_at = timezone.now() - timedelta(seconds=settings.JOB_LEASE_SECONDS + 5)
    JudgeRun.objects.filter(pk=made.pk).update(
        status=JudgeRun.Status.RUNNING, started=killed_at, parameters={"study": study.pk},
    )  # fmt: skip
    factories.worker_last_seen(made, killed_at)
    run = viewer_api.get(reverse("api:judgerun-detail", args=[made.pk])).json()
    assert run["status"] == "stalled"
    assert run["heartbeat"] is not None
    page = client_as(Role.MAINTAINER).get(reverse("judging:run", args=[study.pk, made.pk]))
    assert "Stopped (its worker gave no sign of life)" in page.text
    assert "Run it again" in page.text
    factories.worker_last_seen(made, timezone.now())
    alive = viewer_api.get(reverse("api:judgerun-detail", args=[made.pk])).json()
    assert alive["status"] == "running"


def test_a_runs_page_does_not_show_where_the_server_keeps_its_log(runs, client_as):
    made, _ = runs
    study = factories.study([], responses=1, overlap=1)
    secret_place = "/srv/l2annot/judge-logs/17/2026-01-01T00-00-00_judge.eval"
    JudgeRun.objects.filter(pk=made.pk).update(
        log_path=secret_place, parameters={"study": study.pk}
    )
    page = client_as(Role.MAINTAINER).get(reverse("judging:run", args=[study.pk, made.pk]))
    assert page.status_code == 200 and "Calibration of this run" in page.text
    assert "/srv/l2annot" not in page.text and "judge-logs" not in page.text


def test_a_run_cancelled_while_it_runs_reads_stopping_until_its_worker_ends_it(runs, viewer_api):
    made, _ = runs
    now = timezone.now()
    JudgeRun.objects.filter(pk=made.pk).update(
        status=JudgeRun.Status.CANCELLED, started=now, finished=None
    )
    factories.worker_last_seen(made, now)
    url = reverse("api:judgerun-detail", args=[made.pk])
    assert viewer_api.get(url).json()["status"] == "stopping"
    JudgeRun.objects.filter(pk=made.pk).update(finished=timezone.now())
    assert viewer_api.get(url).json()["status"] == "cancelled"


def test_a_run_gives_its_price_estimate_and_cost_at_the_price_it_started_with(runs, viewer_api):
    made, imported = runs
    JudgeRun.objects.filter(pk=made.pk).update(
        price_input_per_million=1000, price_output_per_million=2000, currency="USD",
        estimated_cost="0.30", estimated_input_tokens=250, estimated_output_tokens=10,
    )  # fmt: skip
    found = {r["id"]: r for r in viewer_api.get(reverse("api:judgerun-list")).json()["results"]}
    assert found[made.pk]["cost"] == {
        "currency": "USD",
        "input_per_million": "1000.0000",
        "output_per_million": "2000.0000",
        "estimated": "0.30",
        "actual": "0.13",  # 120 input and 4 output tokens
        "estimated_input_tokens": 250,
        "estimated_output_tokens": 10,
    }
    assert found[imported.pk]["cost"]["actual"] is None
