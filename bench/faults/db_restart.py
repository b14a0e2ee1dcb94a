"""db-restart: PostgreSQL restarted under `manage.py import_l2bench` (while it writes, then
while it publishes) and under a background import run by `manage.py db_worker`."""

import argparse
import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from bench.faults.common import (
    FRAMEWORK,
    Checks,
    Supervisor,
    enqueue_import,
    fault_client,
    import_counts,
    zip_folder,
)
from bench.harness import HOST, ROOT, Client, admin_connection, log_in, starter_framework

PG_VERSION = sorted(os.listdir("/etc/postgresql"))[-1] if os.path.isdir("/etc/postgresql") else ""
PG_CTL = ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, "main"]


def other_clients(database: str) -> int:
    with admin_connection() as admin:
        return admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
            "AND datname <> %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchone()[0]


def wait_idle(args: argparse.Namespace, database: str) -> bool:
    if not args.wait_idle:
        return True
    start = time.monotonic()
    said = False
    while time.monotonic() - start < args.idle_timeout:
        busy = other_clients(database)
        if busy == 0:
            return True
        if not said:
            print(f"  waiting: {busy} other client(s) connected to PostgreSQL", flush=True)
            said = True
        time.sleep(1)
    return False


def pg_ready(timeout: float = 60) -> bool:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        ready = ["pg_isready", "-q", "-h", HOST, "-p", "5432"]
        if subprocess.run(ready, check=False).returncode == 0:
            return True
        time.sleep(0.1)
    return False


def restart_postgres() -> tuple[float, float]:
    """Restart the cluster (fast: open transactions are rolled back); returns the seconds of
    the restart command and until pg_isready answers."""
    start = time.monotonic()
    subprocess.run([*PG_CTL, "restart", "-m", "fast"], check=True, capture_output=True)
    command = time.monotonic() - start
    pg_ready()
    return command, time.monotonic() - start


def ensure_postgres() -> None:
    if subprocess.run(["pg_isready", "-q", "-h", HOST, "-p", "5432"]).returncode != 0:
        subprocess.run([*PG_CTL, "start"], check=False)
        if not pg_ready(120):
            print("PostgreSQL did not start again: start it by hand", file=sys.stderr)


def files_under(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


class Import:
    """`manage.py import_l2bench` in a subprocess, its progress stages read from stderr."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        command = [sys.executable, "manage.py", "import_l2bench", str(folder)]
        command += ["--framework", FRAMEWORK]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.stderr = b""
        self.reader = threading.Thread(target=self.read)
        self.reader.start()

    def read(self) -> None:
        while chunk := self.process.stderr.read1(4096):
            self.stderr += chunk

    def reached(self, stage: str, timeout: float) -> bool:
        start = time.monotonic()
        while time.monotonic() - start < timeout and self.process.poll() is None:
            if stage.encode() in self.stderr:
                return True
            time.sleep(0.02)
        return False

    def finish(self, timeout: float = 300) -> tuple[int, str, str]:
        code = self.process.wait(timeout)
        self.reader.join()
        out = self.process.stdout.read().decode()
        lines = [line.rsplit("\r", 1)[-1].strip() for line in self.stderr.decode().splitlines()]
        return code, out.strip(), "\n".join(line for line in lines if line)


def db_restart(
    args: argparse.Namespace,
    checks: Checks,
    port: int,
    env: dict[str, str],
    database: str,
    login: tuple[str, str],
    work: Path,
) -> None:
    from django.db import connections

    from core.formats.synthetic import synthetic_tasks, write_benchmark

    scenario = "db-restart"
    print(f"\n== db-restart: PostgreSQL {PG_VERSION} restarted under imports of {args.tasks} tasks")
    _, subs = starter_framework()
    records = synthetic_tasks(
        args.tasks,
        subs,
        task_criteria=10,
        consensus_per_sub=12,
        universal=8,
        context={"cefr_level": ["A1", "B1", "C1"]},
        resources_every=10,
    )
    # Every 10th task also gets an image: stored as a file in MEDIA_ROOT, unlike markdown.
    records = [
        dataclasses.replace(r, resource_files=(*r.resource_files, f"figure_{r.task_key}.png"))
        if r.resource_files
        else r
        for r in records
    ]
    folder = write_benchmark(work / "bench", records)
    media = Path(env["MEDIA_ROOT"])
    client = fault_client(port)
    log_in(client, *login, retry_until=time.monotonic() + 60)

    worker = Supervisor(env, work)
    try:
        before = import_counts()
        files_before = files_under(media)
        for stage in ("writing", "publishing"):
            restart_under_command(args, checks, database, env, folder, stage, client, before)
            checks.check(
                scenario,
                f"no file of the import left in MEDIA_ROOT ({files_under(media) - files_before})",
                files_under(media) == files_before,
            )
        ended = worker.ensure()
        print(f"  idle db_worker after the restarts: {ended or 'still running'}")
        restart_under_job(args, checks, database, folder, work, worker, before)
    finally:
        worker.stop()
        connections.close_all()

    print("  re-running the import after the restarts")
    start = time.monotonic()
    code, out, err = Import(env, folder).finish()
    seconds = time.monotonic() - start
    after = import_counts()
    print(f"  exit {code} in {seconds:.1f} s: {out or err[-300:]}")
    expected_criteria = len({c.id for r in records for c in r.criteria})
    checks.check(
        scenario,
        f"re-run succeeds with the whole benchmark (exit {code}; {after['tasks']}/{len(records)} "
        f"tasks, {after['criteria']}/{expected_criteria} criteria)",
        code == 0 and after["tasks"] == len(records) and after["criteria"] == expected_criteria,
    )


def serves_after_restart(client: Client, count: int) -> list[int | None]:
    """Logged-in, database-backed pages right after the restart: no pause, no retry."""
    return [client.request("GET", "/grading/")[0] for _ in range(count)]


def restart_under_command(
    args: argparse.Namespace,
    checks: Checks,
    database: str,
    env: dict[str, str],
    folder: Path,
    stage: str,
    client: Client,
    before: dict[str, int],
) -> None:
    scenario = "db-restart"
    print(f"  import_l2bench, PostgreSQL restarted while {stage}:")
    deadline = time.monotonic() + args.idle_timeout
    while True:
        if not wait_idle(args, database):
            checks.check(scenario, f"({stage}) PostgreSQL idle for the restart: gave up", False)
            return
        job = Import(env, folder)
        if not job.reached(stage, 120):
            code, out, err = job.finish()
            checks.check(scenario, f"({stage}) import reached '{stage}' (exit {code})", False)
            print(err[-1000:])
            return
        if not args.wait_idle or other_clients(database) == 0:
            break
        # Someone connected meanwhile: stop this import (it rolls back) and wait again.
        job.process.send_signal(signal.SIGINT)
        job.finish()
        if time.monotonic() > deadline:
            checks.check(scenario, f"({stage}) PostgreSQL idle for the restart: gave up", False)
            return
    restart_s, ready_s = restart_postgres()
    statuses = serves_after_restart(client, 3 * args.workers * args.threads)
    code, out, err = job.finish()
    last = err.splitlines()[-1] if err else out
    print(f"    restart {restart_s:.1f} s, accepting connections after {ready_s:.1f} s")
    print(f"    import exit {code}; last line: {last[:300]}")
    after = import_counts()
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    checks.check(scenario, f"({stage}) the import exits non-zero (exit {code})", code != 0)
    clear = "Traceback" not in err and last.startswith("CommandError: ")
    checks.check(scenario, f"({stage}) with a one-line message, no traceback", clear)
    checks.check(
        scenario, f"({stage}) the database holds none of the import {changed or ''}", not changed
    )
    shown = Counter(statuses)
    checks.check(
        scenario,
        f"({stage}) gunicorn, never restarted, answers the first requests after the restart "
        f"with 200 ({dict(shown)})",
        shown == Counter({200: len(statuses)}),
    )


def restart_under_job(
    args: argparse.Namespace,
    checks: Checks,
    database: str,
    folder: Path,
    work: Path,
    worker: Supervisor,
    before: dict[str, int],
) -> None:
    """The upload page's path: an ImportJob run by `manage.py db_worker`."""
    from django.db import close_old_connections

    from interchange.models import ImportJob

    scenario = "db-restart"
    print("  background import (db_worker), PostgreSQL restarted while writing:")
    archive = zip_folder(folder, work / "bench.zip")

    def wait(job: ImportJob, timeout: float, stage: str = "") -> ImportJob:
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            try:
                close_old_connections()
                job.refresh_from_db()
            except Exception:  # the database is restarting
                time.sleep(0.2)
                continue
            if job.status in {"succeeded", "failed"} or (stage and job.stage == stage):
                return job
            worker.ensure()
            time.sleep(0.1)
        return job

    if not wait_idle(args, database):
        checks.check(scenario, "(job) PostgreSQL idle for the restart: gave up", False)
        return
    job = wait(enqueue_import(archive, False), 180, stage="writing")
    if job.stage != "writing" or (args.wait_idle and other_clients(database)):
        checks.check(scenario, f"(job) reached 'writing', no other client ({job.status})", False)
        return
    restart_s, ready_s = restart_postgres()
    print(f"    restart {restart_s:.1f} s, accepting connections after {ready_s:.1f} s")
    time.sleep(2)
    ended = worker.ensure()
    print(f"    db_worker: {ended or 'still running'}")
    job = wait(job, 60)
    print(f"    job {job.status}: {job.problems[:1]}")
    checks.check(
        scenario,
        f"(job) the job ends failed, not left running ({job.status})",
        job.status == "failed",
    )
    changed = {k: v for k, v in import_counts().items() if before[k] != v}
    checks.check(
        scenario, f"(job) the database holds none of the import {changed or ''}", not changed
    )
    follow = wait(enqueue_import(archive, True), 180)
    checks.check(
        scenario,
        f"(job) the next job runs with no manual step (dry run: {follow.status}; "
        f"db_worker exits during the test: {len(worker.exits)})",
        follow.status == "succeeded",
    )
