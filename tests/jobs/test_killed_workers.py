"""A worker killed in the middle of its job is found by one rule (`Job.is_alive`), whatever the
job: an import ends failed, a judge run reads stalled, an agreement report is asked again. On
the worker's own machine at once, not after the lease or a report's pending time."""

import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.db import transaction
from django.utils import timezone

from agreement.jobs import compute_study_report, request_job, request_study_report
from interchange import jobs as imports
from interchange.models import ImportJob
from jobs.lease import this_worker, worker_of
from jobs.models import Job
from judging.models import JudgeRun
from tests import factories
from tests.concurrency import run_together, threads_share_one_database

pytestmark = pytest.mark.django_db


@pytest.fixture
def killed() -> Iterator[str]:
    """The worker name of a process that ran, then was killed with SIGKILL."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        name = worker_of(process.pid)
        assert Job(worker=name).is_alive(timezone.now())  # alive while it runs
    finally:
        process.kill()
        process.wait()
    yield name


def test_a_killed_workers_job_is_not_alive_though_its_heartbeat_is_fresh(killed):
    now = timezone.now()
    assert not Job(worker=killed, heartbeat_at=now).is_alive(now)
    assert Job(worker=this_worker(), heartbeat_at=None).is_alive(now)


def test_an_import_whose_worker_was_killed_ends_failed(starter_framework, killed):
    job = factories.make_job(
        starter_framework,
        status=ImportJob.Status.RUNNING,
        original_name="bench.zip",
        stage="writing",
        worker=killed,
        heartbeat_at=timezone.now(),
    )
    assert imports.fail_abandoned_jobs() == 1
    job.refresh_from_db()
    assert (job.status, job.job.state) == ("failed", "failed")
    assert job.finished_at == job.job.finished_at is not None


def test_a_judge_run_whose_worker_was_killed_reads_stalled_at_once(killed):
    run = JudgeRun.objects.create(judge_model="judge", status=JudgeRun.Status.RUNNING)
    job = factories.worker_last_seen(run, timezone.now())
    Job.objects.filter(pk=job.pk).update(worker=this_worker())
    assert JudgeRun.objects.select_related("job").get(pk=run.pk).live_status == "running"
    Job.objects.filter(pk=job.pk).update(worker=killed)
    assert JudgeRun.objects.select_related("job").get(pk=run.pk).live_status == "stalled"


def test_a_report_whose_worker_was_killed_is_asked_again_at_once(killed):
    study = factories.study([], responses=1, overlap=1)
    request_study_report(study)
    request_study_report(study)  # asked once per study state
    (asked,) = Job.objects.filter(kind=Job.Kind.REPORT)
    Job.objects.filter(pk=asked.pk).update(
        state=Job.State.RUNNING, worker=this_worker(), heartbeat_at=timezone.now()
    )
    request_study_report(study)  # its worker is alive: still asked once
    assert Job.objects.filter(kind=Job.Kind.REPORT).count() == 1

    Job.objects.filter(pk=asked.pk).update(worker=killed)
    request_study_report(study)
    asked.refresh_from_db()
    again = Job.objects.filter(kind=Job.Kind.REPORT).exclude(pk=asked.pk).get()
    assert (asked.state, again.state, again.key) == ("failed", "queued", asked.key)


def test_the_worker_claims_a_reports_job_and_ends_it(settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    study = factories.study([], responses=1, overlap=1)
    request_study_report(study)
    job = Job.objects.get(kind=Job.Kind.REPORT)
    compute_study_report.call(study.pk, job.pk)
    job.refresh_from_db()
    assert (job.state, job.worker) == ("finished", this_worker())
    compute_study_report.call(study.pk, job.pk)  # taken already: nothing is done twice
    assert Job.objects.get(pk=job.pk).finished_at == job.finished_at


@pytest.mark.django_db(transaction=True)
def test_readers_asking_for_a_report_at_once_ask_the_worker_once():
    def ask() -> None:
        with transaction.atomic():  # as a page's request: its own transaction
            request_job("agreement:same-state")

    with threads_share_one_database():
        raised = run_together(*[ask] * 6)
    assert raised == [None] * 6
    assert Job.objects.filter(kind=Job.Kind.REPORT, state=Job.State.QUEUED).count() == 1
