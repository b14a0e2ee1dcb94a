"""Background imports: the upload page stores the file and an ImportJob, then enqueues
`run_import_job` through Django's tasks API (django-tasks-db's database backend in production:
`manage.py db_worker` runs the jobs). The job runs the same makers as the commands."""

from __future__ import annotations

import tempfile
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from django.db import InterfaceError, OperationalError, connection, connections, transaction
from django.tasks import task
from django.utils import timezone

from interchange.formats.l2bench_csv import TASKS_FILE
from interchange.importers import (
    ImportReport,
    Progress,
    import_l2bench,
    import_responses,
    import_verdicts,
)
from interchange.models import ImportJob

MAX_UNPACKED_BYTES = 2 * 1024**3
MAX_MEMBERS = 20_000


class UnsafeArchive(ValueError):
    """A ZIP that cannot be unpacked safely or holds no L2-Bench folder."""


def enqueue(job: ImportJob) -> None:
    """Start the job once the transaction that created it has committed."""
    transaction.on_commit(lambda: run_import_job.enqueue(job.pk))


@task()
def run_import_job(job_id: int) -> None:
    job = ImportJob.objects.get(pk=job_id)
    if job.status != ImportJob.Status.QUEUED:
        return  # already run (a worker retried it)
    job.status, job.started_at, job.stage = ImportJob.Status.RUNNING, timezone.now(), "starting"
    job.save(update_fields=["status", "started_at", "stage"])
    try:
        report = _run(job, job_progress(job.pk))
    except UnsafeArchive as error:
        _finish(job, ImportJob.Status.FAILED, [f"{job.original_name}: {error}"], {}, "")
        return
    except Exception as error:  # the job must end failed, never stay "running"
        _finish_failed(job, [f"the import stopped: {error!r}"])
        raise
    status = ImportJob.Status.SUCCEEDED if report.ok else ImportJob.Status.FAILED
    counts = {name: counts.as_dict() for name, counts in report.counts.items()}
    # Problems name the stored file; the person knows it by the name they uploaded.
    stored = Path(job.file.name or "").name
    problems = [
        job.original_name + line[len(stored) :] if line.startswith(stored) else line
        for line in report.problem_lines()
    ]
    _finish(job, status, problems, counts, report.summary())


def _finish(job: ImportJob, status: str, problems: list[str], counts: dict, summary: str) -> None:
    job.status, job.problems, job.counts, job.summary = status, problems, counts, summary
    job.finished_at, job.progress, job.stage = timezone.now(), 100, "finished"
    job.save(
        update_fields=[
            "status",
            "problems",
            "counts",
            "summary",
            "finished_at",
            "progress",
            "stage",
        ]
    )


def _finish_failed(job: ImportJob, problems: list[str], attempts: int = 60) -> None:
    """Mark the job failed even when the import died because the database went away (a
    restart): the broken connection is dropped and the write retried once a second until the
    server answers again. Otherwise the job would stay "running" for good, and the worker,
    failing to record the task, would exit."""
    for attempt in range(attempts):
        try:
            _finish(job, ImportJob.Status.FAILED, problems, {}, "")
            return
        except (InterfaceError, OperationalError):
            if attempt == attempts - 1 or connection.in_atomic_block:
                raise
            connection.close()  # the next query connects again
            time.sleep(1)


def _run(job: ImportJob, progress: Progress) -> ImportReport:
    path = Path(job.file.path)
    dry_run, by = job.dry_run, job.created_by
    if job.kind == ImportJob.Kind.BENCHMARK:
        with tempfile.TemporaryDirectory(prefix="l2annot-import-") as workdir:
            folder = unpack_benchmark(path, Path(workdir))
            return import_l2bench(folder, job.framework, dry_run=dry_run, by=by, progress=progress)
    if job.kind == ImportJob.Kind.RESPONSES:
        return import_responses(path, job.framework, dry_run=dry_run, by=by, progress=progress)
    return import_verdicts(path, job.framework, dry_run=dry_run, by=by, progress=progress)


def unpack_benchmark(archive_path: Path, workdir: Path) -> Path:
    """Unpack a ZIP of the L2-Bench folder into `workdir`, refusing absolute paths, '..',
    links and archives too large; returns the folder holding l2-bench_tasks.csv (the archive's
    root or its single top folder)."""
    try:
        archive = zipfile.ZipFile(archive_path)
    except zipfile.BadZipFile:
        raise UnsafeArchive("not a ZIP archive") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise UnsafeArchive(f"holds more than {MAX_MEMBERS} files")
        if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
            raise UnsafeArchive("unpacks to more than 2 GiB")
        for member in members:
            name = PurePosixPath(member.filename)
            if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
                raise UnsafeArchive(f"member '{member.filename}' has an unsafe path")
            if (member.external_attr >> 16) & 0o170000 == 0o120000:
                raise UnsafeArchive(f"member '{member.filename}' is a symbolic link")
        archive.extractall(workdir)
    candidates = [workdir, *(p for p in workdir.iterdir() if p.is_dir())]
    for folder in candidates:
        if (folder / TASKS_FILE).is_file():
            return folder
    raise UnsafeArchive(f"has no {TASKS_FILE} at its root or in its top folder")


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
