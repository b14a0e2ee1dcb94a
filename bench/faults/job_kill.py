"""job-kill: `manage.py db_worker` killed with SIGKILL in the middle of a background import."""

import argparse
import os
import re
import secrets
import signal
import time
from pathlib import Path

from bench.faults.common import (
    Checks,
    Supervisor,
    enqueue_import,
    fault_client,
    import_counts,
    zip_folder,
)
from bench.harness import csrf_token, starter_framework


def job_kill(
    args: argparse.Namespace, checks: Checks, port: int, env: dict[str, str], work: Path
) -> None:
    """A background import whose worker is killed with SIGKILL mid-import: followed on the job's
    page, it must end failed within the lease, saying why, and the next job must run."""
    from django.db import close_old_connections

    from accounts.roles import Role
    from accounts.services import create_user_with_role
    from core.formats.synthetic import synthetic_tasks, write_benchmark
    from interchange.models import ImportJob

    scenario = "job-kill"
    print(f"\n== job-kill: db_worker killed (SIGKILL) in an import of {args.tasks} tasks")
    _, subs = starter_framework()
    records = synthetic_tasks(args.tasks, subs, task_criteria=10, consensus_per_sub=12, universal=8)
    folder = write_benchmark(work / "job-kill", records)
    archive = zip_folder(folder, work / "job-kill.zip")
    password = secrets.token_urlsafe(16)
    create_user_with_role("faults-maintainer", password, Role.MAINTAINER)
    client = fault_client(port)
    # harness.log_in ends on the graders' page, which a maintainer may not open.
    _, _, login_page = client.request("GET", "/accounts/login/")
    form = {"username": "faults-maintainer", "password": password}
    form["csrfmiddlewaretoken"] = csrf_token(login_page)
    status, _, _ = client.request("POST", "/accounts/login/", form)
    if status != 302:
        checks.check(scenario, f"the maintainer logs in ({status})", False)
        return
    before = import_counts()

    def shown_status(job: ImportJob) -> tuple[str, str]:
        status, _, page = client.request("GET", f"/interchange/jobs/{job.pk}/")
        text = page if isinstance(page, str) else page.decode(errors="replace")
        found = re.search(r'<div id="job-status".*?<strong>(\w+)</strong>', text, re.S)
        return (found.group(1) if found else f"HTTP {status}"), text

    worker = Supervisor(env, work)
    try:
        job = enqueue_import(archive, False)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            close_old_connections()
            job.refresh_from_db()
            if job.status != ImportJob.Status.QUEUED:
                break
            time.sleep(0.02)
        running = job.status == ImportJob.Status.RUNNING
        checks.check(
            scenario, f"the import is running when the worker is killed ({job.status})", running
        )
        if not running:
            return
        time.sleep(0.5)  # into the import
        os.kill(worker.process.pid, signal.SIGKILL)
        killed = time.monotonic()
        worker.process.wait()
        status, page = shown_status(job)
        while status not in ("Failed", "Succeeded") and time.monotonic() - killed < args.lease + 30:
            time.sleep(0.2)
            status, page = shown_status(job)
        seconds = time.monotonic() - killed
        print(f"    job page after the kill: {status} in {seconds:.1f} s")
        checks.check(
            scenario,
            f"the job ends failed within the lease of {args.lease:g} s ({status}, {seconds:.1f} s)",
            status == "Failed" and seconds <= args.lease + 2,
        )
        checks.check(
            scenario,
            "its page says the worker stopped, with no traceback",
            "the worker running this import stopped" in page and "Traceback" not in page,
        )
        changed = {k: v for k, v in import_counts().items() if before[k] != v}
        checks.check(
            scenario, f"the database holds none of the import {changed or ''}", not changed
        )
        worker.ensure()  # started again, as a supervisor does
        follow = enqueue_import(archive, True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and follow.status not in ("succeeded", "failed"):
            time.sleep(0.2)
            close_old_connections()
            follow.refresh_from_db()
        checks.check(
            scenario,
            f"a worker started again runs the next job (dry run: {follow.status})",
            follow.status == "succeeded",
        )
    finally:
        worker.stop()
