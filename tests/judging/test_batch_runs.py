"""A judge run sent through the provider's batch API, against the loopback server speaking
OpenAI's batch protocol (files, batches, JSONL in and out): the run completes through a batch,
shows it as it goes, and a run resumed while its batch is pending waits for that batch instead
of sending (and paying for) its calls again."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from grading.models import Study
from judging.models import JudgeBatch, JudgeRun, PromptVersion
from judging.running import execute_run
from judging.runs import cancel_run, resume_run, resume_stalled_batch_runs, start_run
from tests.conftest import htmx
from tests.factories import worker_last_seen
from tests.provider_servers import PROVIDERS

JUDGE = PROVIDERS["openai"].model  # Inspect's openai/ provider: the one with a batch API here


@pytest.fixture(autouse=True)
def quick_batches(judge_files, settings) -> None:
    settings.JUDGE_BATCH_CHECK_SECONDS = 0.05
    settings.JUDGE_BATCH_SEND_DELAY = 0.05


@pytest.fixture
def server(provider_servers):
    return provider_servers["openai"]


def test_a_batch_run_sends_its_calls_in_one_batch_and_stores_their_verdicts(study, server):
    server.queue("false")
    run = start_run(study, model=JUDGE, limit=4, batch=True, by=None, enqueue=False)
    assert run.parameters["batch"] is True and run.sends_batches
    run = execute_run(run.pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    (sent,) = server.batches.values()
    assert sent["request_counts"] == {"total": 4, "completed": 4, "failed": 0}
    assert len(server.completions) == 4
    assert {request.batch for request in server.completions} == {sent["id"]}
    assert run.verdicts.count() == 4 and run.verdicts.filter(verdict=False).count() == 1
    assert run.total_tokens > 0
    (kept,) = run.batches.all()
    assert (kept.batch_id, kept.size, kept.completed, kept.failed) == (sent["id"], 4, 4, 0)
    assert kept.ended_at is not None and kept.pending == 0
    assert len(kept.requests) == 4


def test_a_run_resumed_while_its_batch_is_pending_waits_for_that_batch(study, server):
    server.batch_seconds = 3600  # pending until told otherwise
    run = start_run(study, model=JUDGE, limit=3, batch=True, by=None, enqueue=False)

    def cancel_once_the_batch_is_sent(done, total):
        sent = JudgeBatch.objects.filter(run=run).exists()
        if sent and JudgeRun.objects.get(pk=run.pk).status == JudgeRun.Status.RUNNING:
            cancel_run(run, by=None)

    run = execute_run(run.pk, on_progress=cancel_once_the_batch_is_sent)
    assert run.status == JudgeRun.Status.CANCELLED
    (pending,) = run.batches.all()
    assert pending.ended_at is None and pending.size == 3
    assert len(server.batches) == 1 and server.completions == []

    server.batch_seconds = 0  # the provider answers now
    run = execute_run(resume_run(run, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert len(server.batches) == 1  # no second batch: the first one was waited for
    assert len(server.completions) == 3 and run.verdicts.count() == 3
    pending.refresh_from_db()
    assert pending.ended_at is not None and pending.completed == 3


def test_a_batch_run_of_a_provider_without_a_batch_api_is_refused(study):
    with pytest.raises(Exception, match="batch API"):
        start_run(study, model="openai-api/local/judge", batch=True, by=None, enqueue=False)


def stalled(study: Study, *, pending: bool) -> JudgeRun:
    """A batch run whose worker died, its batch pending at the provider or ended."""
    run = start_run(study, model=JUDGE, limit=2, batch=True, by=None, enqueue=False)
    JudgeRun.objects.filter(pk=run.pk).update(
        status=JudgeRun.Status.RUNNING, started=timezone.now()
    )
    worker_last_seen(run, timezone.now() - timedelta(hours=1))  # silent for longer than the lease
    JudgeBatch.objects.create(
        run=run,
        batch_id="batch-1",
        size=2,
        submitted_at=timezone.now(),
        ended_at=None if pending else timezone.now(),
    )
    return run


def test_a_run_whose_worker_died_with_its_batch_pending_is_queued_again(
    study, django_capture_on_commit_callbacks
):
    waiting = stalled(study, pending=True)
    answered = stalled(study, pending=False)
    with django_capture_on_commit_callbacks() as enqueued:
        assert [run.pk for run in resume_stalled_batch_runs()] == [waiting.pk]
    assert len(enqueued) == 1
    assert JudgeRun.objects.get(pk=waiting.pk).status == JudgeRun.Status.QUEUED
    assert JudgeRun.objects.select_related("job").get(pk=answered.pk).live_status == "stalled"
    assert resume_stalled_batch_runs() == []  # once


def test_the_run_form_sends_a_run_through_the_batch_api_when_asked(study, client_as):
    maintainer = client_as(Role.MAINTAINER)
    form = maintainer.get(reverse("judging:judge", args=[study.pk])).content.decode()
    assert "Send through the provider&#x27;s batch API" in form and "half the price" in form
    prompt = PromptVersion.objects.get(template__name="reference-guided")
    fields = {"model": JUDGE, "prompt": prompt.pk, "epochs": 1, "max_connections": 4, "limit": 2}
    maintainer.post(reverse("judging:judge", args=[study.pk]), fields | {"batch": "on"})
    maintainer.post(reverse("judging:judge", args=[study.pk]), fields)
    assert [run.parameters["batch"] for run in JudgeRun.objects.order_by("pk")] == [True, False]
    refused = maintainer.post(
        reverse("judging:judge", args=[study.pk]),
        fields | {"model": "openai-api/local/judge", "batch": "on"},
    )
    assert refused.status_code == 422 and b"cannot be sent through a batch API" in refused.content
    assert JudgeRun.objects.count() == 2


def test_the_run_page_shows_the_batch_status_as_it_goes(study, client_as):
    run = start_run(study, model=JUDGE, limit=3, batch=True, by=None, enqueue=False)
    page = htmx(client_as(Role.MAINTAINER))
    url = reverse("judging:run", args=[study.pk, run.pk])
    assert b"No batch sent yet" in page.get(url).content
    checked = timezone.now()
    JudgeBatch.objects.create(
        run=run, batch_id="batch-abc", size=3, completed=1, submitted_at=checked,
        checked_at=checked,
    )  # fmt: skip
    body = page.get(url).content.decode()
    assert "Batch submitted, 2 requests pending; last checked" in body and "batch-abc" in body
    JudgeBatch.objects.filter(run=run).update(completed=3, ended_at=timezone.now())
    assert "Every batch has ended." in page.get(url).content.decode()


def test_the_run_page_queues_again_a_run_whose_worker_died_with_its_batch_pending(
    study, client_as, django_capture_on_commit_callbacks
):
    run = stalled(study, pending=True)
    with django_capture_on_commit_callbacks() as enqueued:
        page = client_as(Role.MAINTAINER).get(reverse("judging:run", args=[study.pk, run.pk]))
    assert page.status_code == 200 and b"Queued" in page.content and len(enqueued) == 1
