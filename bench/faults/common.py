"""What the fault scenarios share: the checks they report, the client, the import they queue
and count, and the supervised background worker."""

import secrets
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from bench.harness import ROOT, Client

if TYPE_CHECKING:
    from interchange.models import ImportJob

FRAMEWORK = "l2bench-starter"  # the taxonomy in fixtures/, into which the benchmark is imported


class Checks:
    def __init__(self) -> None:
        self.results: list[tuple[str, str, bool]] = []

    def check(self, scenario: str, label: str, ok: bool) -> bool:
        self.results.append((scenario, label, bool(ok)))
        print(f"  [{'x' if ok else ' '}] {label}", flush=True)
        return bool(ok)

    def report(self) -> int:
        print("\nSummary")
        for scenario, label, ok in self.results:
            print(f"  [{'x' if ok else ' '}] {scenario}: {label}")
        failed = sum(not ok for _, _, ok in self.results)
        print(f"{len(self.results) - failed} checks passed, {failed} failed")
        return 1 if failed or not self.results else 0


def fault_client(port: int) -> Client:
    """A client that opens one connection per request and never retries, so a request a killed
    worker held shows up as a connection error (status None)."""
    return Client(port, keep_alive=False, timeout=60)


def import_counts() -> dict[str, int]:
    from django.db import close_old_connections

    from audit.models import AuditEvent
    from rubrics.models import Criterion, CriterionVersion, RubricVersion, Task, TaskResource

    close_old_connections()
    return {
        "tasks": Task.objects.filter(framework__code=FRAMEWORK).count(),
        "criteria": Criterion.objects.filter(framework__code=FRAMEWORK).count(),
        "criterion versions": CriterionVersion.objects.filter(
            criterion__framework__code=FRAMEWORK
        ).count(),
        "rubric versions": RubricVersion.objects.filter(task__framework__code=FRAMEWORK).count(),
        "resources": TaskResource.objects.filter(task__framework__code=FRAMEWORK).count(),
        "audit events": AuditEvent.objects.count(),
    }


def zip_folder(folder: Path, archive: Path) -> Path:
    """The benchmark folder as the zip file a maintainer uploads."""
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in folder.rglob("*"):
            zipped.write(path, path.relative_to(folder))
    return archive


def enqueue_import(archive: Path, dry_run: bool) -> "ImportJob":
    """A benchmark import of the archive, queued for `manage.py db_worker` as the upload page
    queues it."""
    from django.core.files import File
    from django.db import close_old_connections

    from interchange import jobs
    from interchange.models import ImportJob
    from jobs.models import Job
    from taxonomy.models import Framework

    close_old_connections()
    job = ImportJob(
        kind=ImportJob.Kind.BENCHMARK,
        framework=Framework.objects.get(code=FRAMEWORK),
        dry_run=dry_run,
        original_name=archive.name,
        token=secrets.token_hex(16),
        job=Job.objects.create(kind=Job.Kind.IMPORT),
    )
    with archive.open("rb") as handle:
        job.file.save("upload", File(handle), save=False)
    job.save()
    jobs.enqueue(job)  # at once: the script runs in autocommit
    return job


class Supervisor:
    """Runs `manage.py db_worker` and starts it again when it exits, as systemd's
    Restart=always does; records each exit."""

    def __init__(self, env: dict[str, str], work: Path) -> None:
        self.env, self.work = env, work
        self.exits: list[str] = []
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.log = self.work / f"db_worker-{len(self.exits)}.log"
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--interval", "0.5"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("wb"),
        )

    def ensure(self) -> str:
        """'' if the worker is running, else how it ended (and it is started again)."""
        if self.process.poll() is None:
            return ""
        lines = [line for line in self.log.read_text().splitlines() if line.strip()]
        ended = f"exited with status {self.process.returncode}: {(lines or ['-'])[-1][:200]}"
        self.exits.append(ended)
        self.start()
        return ended

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
