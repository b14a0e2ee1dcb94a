"""Background imports: the upload page stores the file and an ImportJob, then enqueues
`run_import_job` through Django's tasks API (django-tasks-db's database backend in production:
`manage.py db_worker` runs the jobs). The job runs the same makers as the commands.

Each ImportJob has its `jobs.models.Job`: a running import's worker claims it (naming its
process) and, on PostgreSQL, a thread renews its heartbeat (`jobs.heartbeat.Heartbeat`). A job
whose worker is gone (killed, its machine restarted: `Job.is_alive`, the rule of every kind of
job) is marked failed, saying so, by `fail_abandoned_jobs()`, which the import pages and every
new job call.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from django.core.files import File
from django.db import (
    DatabaseError,
    DataError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.tasks import task
from django.utils import timezone, translation

from accounts.models import User
from core.formats.l2bench_csv import TASKS_FILE
from core.formats.problems import Text, gettext_noop, stored_message
from interchange import offline
from interchange.importers import (
    ImportReport,
    Progress,
    import_l2bench,
    import_responses,
)
from interchange.models import ImportJob
from interchange.problem_text import stage_message, stored_line, stored_problems
from jobs import heartbeat
from jobs.lease import this_worker
from jobs.models import Job
from taxonomy.models import Framework
from webhooks.models import Event
from webhooks.services import notify

logger = logging.getLogger(__name__)


class VerdictsImport(Protocol):
    def __call__(
        self,
        path: Path,
        framework: Framework,
        *,
        dry_run: bool,
        by: User | None,
        progress: Progress,
    ) -> ImportReport: ...


# A file of judge verdicts (ImportJob.Kind.VERDICTS, EVAL_LOG) is imported by the judge app,
# which sits above this one: it gives its importer when it loads (judging.apps).
_import_verdicts: VerdictsImport | None = None


def import_verdicts_with(importer: VerdictsImport) -> None:
    global _import_verdicts
    _import_verdicts = importer


MAX_UNPACKED_BYTES = 2 * 1024**3
MAX_MEMBERS = 20_000


class UnsafeArchive(ValueError):
    """A ZIP that cannot be unpacked safely or holds no L2-Bench folder; its one argument is
    the `Text` saying why."""


def import_again(job: ImportJob, *, by: User, dry_run: bool, create_missing: bool) -> ImportJob:
    """A new job importing `job`'s stored file again, into the same framework, with other
    options (for real after a dry run; creating the missing sub-competencies after a refusal),
    queued once the transaction commits: nobody uploads the same file twice. An offline
    workbook is not imported again this way (its page uploads it)."""
    if job.kind == ImportJob.Kind.OFFLINE:
        raise ValueError("an offline workbook is uploaded on its study's page")
    again = ImportJob(
        kind=job.kind,
        framework=job.framework,
        dry_run=dry_run,
        create_missing=create_missing and job.kind == ImportJob.Kind.BENCHMARK,
        original_name=job.original_name,
        token=secrets.token_hex(16),
        created_by=by,
        job=Job.objects.create(kind=Job.Kind.IMPORT, created_by=by),
    )
    with job.file.open("rb") as stored:
        again.file.save("upload", File(stored), save=False)
    again.save()
    enqueue(again)
    return again


def enqueue(job: ImportJob) -> None:
    """Start the job once the transaction that created it has committed."""
    transaction.on_commit(lambda: run_import_job.enqueue(job.pk))


@task()
def run_import_job(job_id: int) -> None:
    fail_abandoned_jobs()
    job = ImportJob.objects.select_related("job").get(pk=job_id)
    if job.status != ImportJob.Status.QUEUED or not job.job.claim(this_worker()):
        return  # already run (a worker retried it)
    job.status, job.started_at, job.stage = ImportJob.Status.RUNNING, job.job.started_at, "starting"
    job.save(update_fields=["status", "started_at", "stage"])
    try:
        # The import's own messages are stored to be translated where they are read; the few
        # the models and services translate as they refuse are stored in English.
        with Heartbeat(job.pk), translation.override("en"):
            report = _run(job, job_progress(job.pk))
        status = ImportJob.Status.SUCCEEDED if report.ok else ImportJob.Status.REFUSED
        counts = {name: counts.as_dict() for name, counts in report.counts.items()}
        # Problems name the stored file; the person knows it by the name they uploaded.
        stored = Path(job.file.name or "").name
        problems = stored_problems(report.problems, names={stored: job.original_name})
        notes = [stored_message(note) for note in report.notes]
        new_versions = [found.as_json() for found in report.new_versions]
        changed = [found.as_json() for found in report.changed_criteria]
        # The summary in English, for the admin; the page reads the counts and the notes.
        summary = " ".join([report.summary(), *report.notes]) if report.counts else report.summary()
    except UnsafeArchive as error:
        _finish(
            job, ImportJob.Status.REFUSED, [stored_line(job.original_name, error.args[0])], {}, ""
        )
        return
    except Exception as error:  # the job must end failed, never stay "running"
        logger.exception("import job %s stopped", job.pk)
        _finish_failed(
            job, [stored_line(job.original_name, stopped_by(error, job.pk))], repr(error)
        )
        raise
    _finish(job, status, problems, counts, summary, notes, new_versions, changed)


def stopped_by(error: BaseException, job_id: int) -> Text:
    """What stopped an import, in words a person can act on (never the exception's text: the
    details are in the worker's log, under the job's number)."""
    if isinstance(error, (InterfaceError, OperationalError)):
        return gettext_noop(
            "the connection to the database was lost during the import; the import is all or "
            "nothing and nothing was written: upload again"
        )
    if isinstance(error, DataError):
        return gettext_noop(
            "the database refused a value of the file (too long, too large, or a character it "
            "cannot store such as NUL); the import is all or nothing and nothing was written. "
            "The worker's log names it under job %(job)s",
            job=job_id,
        )
    if isinstance(error, RecursionError):
        return gettext_noop(
            "the file nests values too deeply to read; the import is all or nothing and "
            "nothing was written"
        )
    if isinstance(error, MemoryError):
        return gettext_noop(
            "the file is too large to read in the worker's memory; the import is all or "
            "nothing and nothing was written"
        )
    if isinstance(error, DatabaseError):
        return gettext_noop(
            "the database refused the import; the import is all or nothing and nothing was "
            "written. See the worker's log, job %(job)s",
            job=job_id,
        )
    return gettext_noop(
        "the import stopped on an error in L2 Annot itself; the import is all or nothing and "
        "nothing was written. Tell the administrator: the worker's log has the details under "
        "job %(job)s",
        job=job_id,
    )


def abandoned(stage: str) -> Text:
    return gettext_noop(
        "the worker running this import stopped before it finished (its process was killed or "
        "its machine restarted) while %(stage)s; the import is all or nothing and did not "
        "commit: upload the file again",
        stage=stage_message(stage),
    )


def fail_abandoned_jobs() -> int:
    """Mark failed every running import whose worker is gone (`Job.is_alive`); returns how
    many. Reads one small query when there is nothing to do, and writes nothing then."""
    return Job.objects.filter(kind=Job.Kind.IMPORT).fail_abandoned(
        "the worker is gone", then=_fail_abandoned
    )


def _fail_abandoned(gone: Job) -> None:
    job = ImportJob.objects.only("pk", "original_name", "stage").get(job=gone)
    ended = ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING).update(
        status=ImportJob.Status.FAILED,
        problems=[stored_line(job.original_name, abandoned(job.stage or "starting"))],
        summary="",
        finished_at=gone.finished_at,
        progress=100,
        stage="finished",
    )
    if ended:  # an import whose worker died ended too: failed
        notify(Event.IMPORT_FINISHED, import_payload(ImportJob.objects.get(pk=job.pk)))


class Heartbeat(heartbeat.Heartbeat):
    """The heartbeat of a running import's job (`jobs.heartbeat.Heartbeat`)."""

    def __init__(self, import_job_id: int) -> None:
        super().__init__(ImportJob.objects.values_list("job", flat=True).get(pk=import_job_id))


def _finish(
    job: ImportJob,
    status: str,
    problems: list[Any],
    counts: dict[str, Any],
    summary: str,
    notes: list[Any] | None = None,
    new_versions: list[Any] | None = None,
    changed_criteria: list[Any] | None = None,
    error: str | None = None,
) -> None:
    """Store how the import ended, and end its job: finished, or failed with `error` (for the
    log) when the import stopped on an exception."""
    job.status, job.problems, job.counts, job.summary = status, problems, counts, summary
    job.notes = notes or []
    succeeded = status == ImportJob.Status.SUCCEEDED
    job.new_versions = (new_versions or []) if succeeded else []
    job.changed_criteria = (changed_criteria or []) if succeeded else []
    job.finished_at, job.progress, job.stage = timezone.now(), 100, "finished"
    job.save(
        update_fields=[
            "status",
            "problems",
            "counts",
            "summary",
            "notes",
            "new_versions",
            "changed_criteria",
            "finished_at",
            "progress",
            "stage",
        ]
    )
    if error is None:
        job.job.finish()
    else:
        job.job.fail(error)
    notify(Event.IMPORT_FINISHED, import_payload(job))


def import_payload(job: ImportJob) -> dict[str, Any]:
    """What a webhook is told of a finished import: which, how it ended and its counts."""
    return {
        "import": job.pk,
        "kind": job.kind,
        "status": job.status,
        "dry_run": job.dry_run,
        "file": job.original_name,
        "counts": job.counts,
    }


def tell_command_import(
    kind: str, file: str, report: ImportReport | offline.OfflineImport | None
) -> None:
    """Tell the webhooks of an import a command ran (in a shell, with no import job) as of one
    from the page: the same event and data, `import` null; failed without a report (the import
    stopped on an error)."""
    if report is None:
        status, counts, dry_run = ImportJob.Status.FAILED, {}, False
    else:
        status = ImportJob.Status.SUCCEEDED if report.ok else ImportJob.Status.REFUSED
        counts = {name: found.as_dict() for name, found in report.counts.items()}
        dry_run = bool(getattr(report, "dry_run", False))
    notify(
        Event.IMPORT_FINISHED,
        {
            "import": None,
            "kind": kind,
            "status": status.value,
            "dry_run": dry_run,
            "file": file,
            "counts": counts,
        },
    )


def _finish_failed(job: ImportJob, problems: list[Any], error: str, attempts: int = 60) -> None:
    """Mark the job failed even when the import died because the database went away (a
    restart): the broken connection is dropped and the write retried once a second until the
    server answers again. Otherwise the job would stay "running" for good, and the worker,
    failing to record the task, would exit."""
    for attempt in range(attempts):
        try:
            _finish(job, ImportJob.Status.FAILED, problems, {}, "", error=error)
            return
        except (InterfaceError, OperationalError):
            if attempt == attempts - 1 or connection.in_atomic_block:
                raise
            connection.close()  # the next query connects again
            time.sleep(1)


def _run(job: ImportJob, progress: Progress) -> ImportReport | offline.OfflineImport:
    path = Path(job.file.path)
    dry_run, by = job.dry_run, job.created_by
    if job.kind == ImportJob.Kind.BENCHMARK:
        with tempfile.TemporaryDirectory(prefix="l2annot-import-") as workdir:
            folder = unpack_benchmark(path, Path(workdir))
            return import_l2bench(
                folder,
                job.framework,
                dry_run=dry_run,
                create_missing=job.create_missing,
                by=by,
                progress=progress,
            )
    if job.kind == ImportJob.Kind.OFFLINE:
        assert job.study is not None and job.annotator is not None
        return offline.import_workbook(
            path, job.study, job.annotator, submit=job.submit, filename=job.original_name
        )
    if job.kind == ImportJob.Kind.RESPONSES:
        return import_responses(path, job.framework, dry_run=dry_run, by=by, progress=progress)
    assert _import_verdicts is not None, "the judge app gives its importer as it loads"
    return _import_verdicts(path, job.framework, dry_run=dry_run, by=by, progress=progress)


def unpack_benchmark(archive_path: Path, workdir: Path) -> Path:
    """Unpack a ZIP of the L2-Bench folder into `workdir`, refusing absolute paths, '..',
    links and archives too large; returns the folder holding l2-bench_tasks.csv (the archive's
    root or its single top folder)."""
    try:
        archive = zipfile.ZipFile(archive_path)
    except zipfile.BadZipFile:
        raise UnsafeArchive(gettext_noop("not a ZIP archive")) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise UnsafeArchive(gettext_noop("holds more than %(count)s files", count=MAX_MEMBERS))
        if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
            raise UnsafeArchive(gettext_noop("unpacks to more than 2 GiB"))
        for member in members:
            name = PurePosixPath(member.filename)
            if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
                raise UnsafeArchive(
                    gettext_noop("member '%(name)s' has an unsafe path", name=member.filename)
                )
            if (member.external_attr >> 16) & 0o170000 == 0o120000:
                raise UnsafeArchive(
                    gettext_noop("member '%(name)s' is a symbolic link", name=member.filename)
                )
        archive.extractall(workdir)
    candidates = [workdir, *(p for p in workdir.iterdir() if p.is_dir())]
    for folder in candidates:
        if (folder / TASKS_FILE).is_file():
            return folder
    raise UnsafeArchive(
        gettext_noop("has no %(file)s at its root or in its top folder", file=TASKS_FILE)
    )


def job_progress(job_id: int) -> Callable[[int, int, str], None]:
    """Store progress on the job at most twice a second. Inside the import's transaction the
    write goes through another connection (a short thread) so the page sees it at once; on
    SQLite, whose single writer is the import itself, progress inside it is skipped."""
    last = {"at": 0.0}

    def progress(done: int, total: int, stage: str) -> None:
        now = time.monotonic()
        if now - last["at"] < 0.5 and done < total:
            return
        last["at"] = now
        percent = int(100 * done / total) if total else 100
        if not connection.in_atomic_block:
            _store(job_id, percent, stage)
        elif connection.vendor == "postgresql":
            worker = threading.Thread(target=_store_elsewhere, args=(job_id, percent, stage))
            worker.start()
            worker.join()

    return progress


def _store(job_id: int, percent: int, stage: str) -> None:
    ImportJob.objects.filter(pk=job_id).update(progress=min(percent, 99), stage=stage[:100])


def _store_elsewhere(job_id: int, percent: int, stage: str) -> None:
    try:
        _store(job_id, percent, stage)
    finally:
        connections.close_all()  # this thread's own connection
