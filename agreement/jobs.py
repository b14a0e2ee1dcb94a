"""Background work of the agreement app, run by the tasks worker (`manage.py db_worker`).

A large study's report is asked of the worker once per study state: the request is a
`jobs.models.Job` keyed by the report's cache key. While that job is queued (for up to
PENDING_SECONDS: a worker may be down) or its worker alive (`Job.is_alive`, the rule of every
job), the report is not asked again; a worker killed while computing it is found the way a
killed import's is, and the next reader's request asks again at once.

A report download whose results are not all cached yet (`services.download_parts`) is asked of
the worker the same way, keyed by those results' keys, while its page shows how many are
ready.
"""

import hashlib
from collections.abc import Callable, Sequence
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.tasks import task
from django.utils import timezone

from agreement import cache
from agreement.models import AnalysisSettings
from agreement.services import prepare_download, study_report
from grading.models import Study
from jobs.heartbeat import Heartbeat
from jobs.lease import this_worker
from jobs.models import Job

PENDING_SECONDS = 600  # a report asked of the worker but not taken by one by then is asked again


def _run(job_id: int | None, study_id: int, work: Callable[[Study], object]) -> None:
    """Do `work` on the study as the worker does any job: claimed, kept alive, ended."""
    job = Job.objects.filter(pk=job_id).first() if job_id is not None else None
    if job is not None and not job.claim(this_worker()):
        return  # asked again since, or already computed by another worker
    study = Study.objects.filter(pk=study_id).first()
    try:
        if study is not None:
            if job is None:
                work(study)
            else:
                with Heartbeat(job.pk):
                    work(study)
    except BaseException as error:
        if job is not None:
            job.fail(repr(error))
        raise
    if job is not None:
        job.finish()


@task()
def compute_study_report(study_id: int, job_id: int | None = None) -> None:
    """Compute and cache a study's agreement report so its page opens at once."""
    _run(job_id, study_id, study_report)


@task()
def prepare_study_download(study_id: int, job_id: int | None = None) -> None:
    """Compute and cache every result of a study's report download (services.download_parts)."""
    _run(job_id, study_id, prepare_download)


def request_study_download(study: Study, parts: Sequence[str]) -> None:
    """Ask the worker for the results of a report download, once per state of them all."""
    key = "download:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()
    job = request_job(key)
    if job is not None:
        transaction.on_commit(lambda: prepare_study_download.enqueue(study.pk, job.pk))


def request_study_report(study: Study) -> None:
    """Ask the worker for the report, once per study state."""
    key = cache.report_key(study, AnalysisSettings.for_study(study))
    job = request_job(key)
    if job is not None:
        transaction.on_commit(lambda: compute_study_report.enqueue(study.pk, job.pk))


def request_job(key: str) -> Job | None:
    """A new job for the report under `key`, or None while an earlier request still stands."""
    mine = Job.objects.filter(kind=Job.Kind.REPORT, key=key)
    mine.fail_abandoned("the worker is gone")
    stale = timezone.now() - timedelta(seconds=PENDING_SECONDS)
    mine.filter(state=Job.State.QUEUED, created_at__lt=stale).update(
        state=Job.State.FAILED, error="no worker took it", finished_at=timezone.now()
    )
    if mine.filter(state__in=Job.LIVE_STATES).exists():
        return None
    try:
        with transaction.atomic():  # a request made at the same moment wins, or this one
            return Job.objects.create(kind=Job.Kind.REPORT, key=key)
    except IntegrityError:
        return None
