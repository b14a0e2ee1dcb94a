"""Faults: gunicorn workers killed mid-request, PostgreSQL restarted mid-import.

    .venv/bin/python -m bench.faults                          # both scenarios
    .venv/bin/python -m bench.faults --scenario worker-kill   # safe beside other test runs
    .venv/bin/python -m bench.faults --scenario db-restart    # restarts the local cluster
    .venv/bin/python -m bench.faults --scenario job-kill      # safe beside other test runs

Creates a fresh database (l2annot_faults_<pid>) on the local PostgreSQL, seeds a study (the
same generated study as bench.grading_load) and starts gunicorn on a free loopback port.

worker-kill: graders save grades, rate and submit over HTTP while the script SIGKILLs a
gunicorn worker (a child of the master) several times, then every worker at once. Checks:
every save a client saw acknowledged is stored with that value; no grade is half-saved
(an empty grade row, a submitted assignment with a verdict missing, a change of a submitted
grade without its revision); the master respawns the workers and the app answers again
without any manual step (time to recovery measured); a request that died got a connection
error, never a 2xx for something not stored.

db-restart: runs `manage.py import_l2bench` on a generated benchmark (1,000 tasks) and
restarts PostgreSQL (`pg_ctlcluster ... restart -m fast`) while it writes, then while it
publishes; then runs a background import (the upload page's path, `manage.py db_worker`) and
restarts PostgreSQL under it. Checks: the command exits non-zero with a clear message, the
database and MEDIA_ROOT hold none of the import, the running gunicorn serves logged-in pages
again at once (no 500, no restart), the background job ends "failed" (never stuck "running")
and the worker keeps taking jobs, and a re-run of the import gives the whole benchmark.

job-kill: queues a benchmark import as the upload page does, SIGKILLs `manage.py db_worker` in
the middle of it, and follows the job's page as a maintainer. Checks: the job ends "failed"
within the lease (JOB_LEASE_SECONDS) with a message saying its worker stopped, never
"running" for ever; the database holds none of the import; a worker started again runs the next
job.

**db-restart restarts the whole local cluster: never run it beside the test suite.** With
--wait-idle (the default) it waits, before each restart, until no other client is connected to
any other database, and gives up (a failed check) after --idle-timeout seconds. Whatever
happens, PostgreSQL is started again at the end and the database is dropped. Exits 1 if any
check fails. Only 127.0.0.1 is ever contacted.
"""

import argparse
import dataclasses
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import (
    HOST,
    LIKERT_URL,
    ROOT,
    SAVE_URL,
    Client,
    Server,
    admin_connection,
    csrf_token,
    gunicorn,
    htmx_headers,
    log_in,
    migrate,
    postgres_url,
    seed_study,
    server_environment,
    setup_django,
    starter_framework,
    throwaway_database,
)

PG_VERSION = sorted(os.listdir("/etc/postgresql"))[-1] if os.path.isdir("/etc/postgresql") else ""
PG_CTL = ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, "main"]
FRAMEWORK = "l2bench-starter"  # the taxonomy in fixtures/, into which the benchmark is imported


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--scenario", choices=["worker-kill", "db-restart", "job-kill", "all"], default="all"
    )
    parser.add_argument("--seconds", type=float, default=30, help="worker-kill: grading time")
    parser.add_argument("--graders", type=int, default=10)
    parser.add_argument("--responses", type=int, default=10, help="responses in the study")
    parser.add_argument("--criteria", type=int, default=10, help="criteria per task")
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.05, help="mean pause between actions, s")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--kills", type=int, default=6, help="single-worker kills")
    parser.add_argument("--tasks", type=int, default=1000, help="db-restart: benchmark tasks")
    parser.add_argument(
        "--wait-idle",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="before each restart wait until no other client is connected (default on)",
    )
    parser.add_argument("--idle-timeout", type=float, default=300)
    parser.add_argument("--lease", type=float, default=10, help="job-kill: job lease, seconds")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    return parser.parse_args()


# ----- checks -----------------------------------------------------------------------------------
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


# ----- worker-kill ------------------------------------------------------------------------------
@dataclass
class Attempt:
    key: tuple[int, int]  # (assignment, criterion version)
    verdict: str
    rationale: str  # unique per attempt: it names the attempt in the database
    status: int | None = None  # None: the connection died


@dataclass
class Ledger:
    attempts: list[Attempt] = field(default_factory=list)
    submits: dict[int, list[int | None]] = field(default_factory=lambda: defaultdict(list))
    outcomes: Counter = field(default_factory=Counter)  # (kind, "2xx"/"3xx"/"died"/status)

    def note(self, kind: str, status: int | None) -> None:
        if status is None:
            self.outcomes[(kind, "died")] += 1
        elif status == 0:
            self.outcomes[(kind, "refused")] += 1
        elif status < 400:
            self.outcomes[(kind, "ok")] += 1
        else:
            self.outcomes[(kind, str(status))] += 1


def grader(
    port: int,
    study_id: int,
    login: tuple[str, str],
    stop: list[float],
    ready: threading.Barrier,
    think: float,
    ledger: Ledger,
) -> None:
    username, password = login
    rng = random.Random(username)
    client = fault_client(port)
    token = log_in(client, username, password, retry_until=time.monotonic() + 120)
    ready.wait()
    submitted: set[int] = set()
    location = ""
    serial = 0

    def pause() -> None:
        time.sleep(rng.uniform(0, 2 * think))

    while time.monotonic() < stop[0]:
        if "/grading/assignments/" not in location:
            status, location, _ = client.request(
                "POST", f"/grading/studies/{study_id}/next/", {"csrfmiddlewaretoken": token}
            )
            ledger.note("claim", status)
            if status != 302:
                continue
            if "/grading/assignments/" not in location:
                if not submitted:
                    return  # nothing to grade and nothing to revise
                location = f"/grading/assignments/{rng.choice(sorted(submitted))}/"
        status, _, page = client.request("GET", location)
        ledger.note("page", status)
        if status != 200:
            continue
        token = csrf_token(page)
        saves = SAVE_URL.findall(page)
        assignment_id = int(saves[0][1])
        revising = assignment_id in submitted
        died_here = False
        for url, _, criterion in rng.sample(saves, 2) if revising else saves:
            if time.monotonic() >= stop[0]:
                return
            pause()
            serial += 1
            attempt = Attempt(
                (assignment_id, int(criterion)),
                rng.choice(["pass", "pass", "fail", "na"]),
                f"{username} attempt {serial}",
            )
            attempt.status, _, _ = client.request(
                "POST",
                url,
                {"verdict": attempt.verdict, "rationale": attempt.rationale},
                htmx_headers(token),
            )
            ledger.attempts.append(attempt)
            ledger.note("save", attempt.status)
            died_here |= attempt.status is None
        if revising:
            location = ""
            continue
        for url in LIKERT_URL.findall(page):
            pause()
            status, _, _ = client.request(
                "POST",
                url,
                {"value": str(rng.randint(1, 5))},
                htmx_headers(token),
            )
            ledger.note("likert", status)
            died_here |= status is None
        pause()
        status, following, _ = client.request(
            "POST", f"/grading/assignments/{assignment_id}/submit/", {"csrfmiddlewaretoken": token}
        )
        if status == 422 and died_here:
            status = 0  # refused, correctly: a save or rating of this page died
        ledger.note("submit", status)
        ledger.submits[assignment_id].append(status)
        if status == 302:
            submitted.add(assignment_id)
            location = following
        # otherwise the same page again: a died submit may have committed, which is fine


def workers_of(master: int) -> list[int]:
    """The gunicorn worker processes: the master's children, from /proc."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == master:
            children.append(int(entry))
    return sorted(children)


@dataclass
class Probe:
    """A logged-in client requesting a database-backed page every 50 ms."""

    results: list[tuple[float, int | None]] = field(default_factory=list)
    running: bool = True

    def run(self, client: Client) -> None:
        while self.running:
            status, _, _ = client.request("GET", "/grading/")
            self.results.append((time.monotonic(), status))
            time.sleep(0.05)

    def first_ok_after(self, moment: float) -> float | None:
        for at, status in self.results:
            if at > moment and status == 200:
                return at - moment
        return None


def wait_for_workers(master: int, count: int, old: set[int], timeout: float) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        current = workers_of(master)
        if len(current) == count and not old & set(current):
            return time.monotonic() - start
        time.sleep(0.01)
    return None


def worker_kill(
    args: argparse.Namespace,
    checks: Checks,
    server: Server,
    study_id: int,
    logins: list[tuple[str, str]],
) -> None:
    print(
        f"\n== worker-kill: {len(logins) - 1} graders for {args.seconds:.0f} s, gunicorn "
        f"{args.workers} workers x {args.threads} threads, {args.kills} single kills then all"
    )
    scenario = "worker-kill"
    port, master = server.port, server.process
    graders = logins[:-1]
    ledgers = [Ledger() for _ in graders]
    stop = [0.0]
    failures: list[str] = []

    def open_window() -> None:
        stop[0] = time.monotonic() + args.seconds

    ready = threading.Barrier(len(graders) + 1, action=open_window)

    def run(index: int) -> None:
        try:
            grader(port, study_id, graders[index], stop, ready, args.think, ledgers[index])
        except Exception as error:
            ready.abort()
            failures.append(f"{graders[index][0]}: {error!r}")

    probe_client = fault_client(port)
    log_in(probe_client, *logins[-1], retry_until=time.monotonic() + 60)
    probe = Probe()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(graders))]
    for thread in threads:
        thread.start()
    ready.wait()
    prober = threading.Thread(target=probe.run, args=(probe_client,))
    prober.start()

    # Single kills spread over the first two thirds of the window, then every worker at once.
    respawns: list[float | None] = []
    spacing = args.seconds * 2 / 3 / max(args.kills, 1)
    rng = random.Random(0)
    for _ in range(args.kills):
        time.sleep(spacing)
        workers = workers_of(master.pid)
        victim = rng.choice(workers)
        os.kill(victim, signal.SIGKILL)
        respawns.append(wait_for_workers(master.pid, args.workers, {victim}, 30))
    time.sleep(max(stop[0] - time.monotonic(), 0) / 2)
    everyone = workers_of(master.pid)
    killed_all_at = time.monotonic()
    for pid in everyone:
        os.kill(pid, signal.SIGKILL)
    all_back = wait_for_workers(master.pid, args.workers, set(everyone), 60)
    time.sleep(2)  # the probe needs a moment to see the recovery
    for thread in threads:
        thread.join()
    probe.running = False
    prober.join()
    recovery = probe.first_ok_after(killed_all_at)

    # The app serves without a manual step: the same master, N workers, pages answer.
    after = [probe_client.request("GET", "/grading/")[0] for _ in range(3 * args.workers)]
    # The same kill with no load: how long a fresh worker takes to load the app and answer.
    everyone = workers_of(master.pid)
    quiet_at = time.monotonic()
    for pid in everyone:
        os.kill(pid, signal.SIGKILL)
    while probe_client.request("GET", "/grading/")[0] != 200 and time.monotonic() - quiet_at < 60:
        time.sleep(0.01)
    quiet_recovery = time.monotonic() - quiet_at
    outcomes: Counter = Counter()
    for ledger in ledgers:
        outcomes.update(ledger.outcomes)
    kinds = sorted({kind for kind, _ in outcomes})
    print(f"  {'requests':<8}{'ok':>7}{'died':>7}{'refused':>9}{'4xx/5xx':>9}")
    for kind in kinds:
        errors = sum(
            n for (k, o), n in outcomes.items() if k == kind and o not in {"ok", "died", "refused"}
        )
        print(
            f"  {kind:<8}{outcomes[(kind, 'ok')]:>7}{outcomes[(kind, 'died')]:>7}"
            f"{outcomes[(kind, 'refused')]:>9}{errors:>9}"
        )
    probe_died = sum(1 for _, status in probe.results if status is None)
    probe_5xx = sum(1 for _, status in probe.results if status is not None and status >= 500)
    print(
        f"  probe (GET /grading/ every 50 ms): {len(probe.results)} requests, "
        f"{probe_died} died, {probe_5xx} 5xx"
    )
    shown = ", ".join("-" if r is None else f"{r * 1000:.0f}" for r in respawns)
    print(f"  respawn after each single kill (ms): {shown}")
    print(
        f"  all {len(everyone)} workers killed: respawned in "
        f"{'-' if all_back is None else f'{all_back * 1000:.0f} ms'}, first 200 on the probe "
        f"after {'-' if recovery is None else f'{recovery * 1000:.0f} ms'} under load, "
        f"{quiet_recovery * 1000:.0f} ms with no load"
    )
    integrity = grade_integrity(study_id, ledgers)
    for failure in failures:
        print(f"  grader failed: {failure}")

    died = sum(n for (_, o), n in outcomes.items() if o == "died")
    errors_5xx = sum(
        n for (_, o), n in outcomes.items() if o not in {"ok", "died", "refused"} and int(o) >= 500
    )
    errors_4xx = sum(
        n for (_, o), n in outcomes.items() if o not in {"ok", "died", "refused"} and int(o) < 500
    )
    checks.check(scenario, f"every grader ran to the end ({len(failures)} failed)", not failures)
    checks.check(
        scenario,
        f"the kills hit requests in flight ({died} died with a connection error)",
        died > 0,
    )
    checks.check(
        scenario,
        f"no 5xx and no 4xx from a kill ({errors_5xx} 5xx, {errors_4xx} 4xx; "
        f"probe {probe_5xx} 5xx)",
        errors_5xx == 0 and errors_4xx == 0 and probe_5xx == 0,
    )
    checks.check(
        scenario,
        f"every acknowledged save stored with its value "
        f"({integrity['acknowledged']} acknowledged, {integrity['lost']} lost or wrong)",
        integrity["lost"] == 0 and integrity["acknowledged"] > 0,
    )
    checks.check(
        scenario,
        f"nothing stored that was never sent ({integrity['unknown']})",
        integrity["unknown"] == 0,
    )
    checks.check(
        scenario,
        f"no half-saved grade: empty grade rows {integrity['empty']}, submitted assignments "
        f"with an answer missing {integrity['incomplete']}, changes of a submitted grade "
        f"without their revision {integrity['revision_gaps']}",
        not (integrity["empty"] or integrity["incomplete"] or integrity["revision_gaps"]),
    )
    checks.check(
        scenario,
        f"every acknowledged submit stored ({integrity['submits_lost']} lost)",
        integrity["submits_lost"] == 0,
    )
    checks.check(
        scenario,
        "the master respawned every killed worker ("
        f"{sum(r is not None for r in respawns)}/{len(respawns)} single, "
        f"all-at-once {'yes' if all_back is not None else 'no'}; master pid unchanged)",
        all(r is not None for r in respawns) and all_back is not None and master.poll() is None,
    )
    checks.check(
        scenario,
        f"the app serves again with no manual step ({after.count(200)}/{len(after)} pages 200 "
        f"afterwards; first 200 {'-' if recovery is None else f'{recovery:.2f} s'} after "
        "killing every worker)",
        recovery is not None and after.count(200) == len(after),
    )


def grade_integrity(study_id: int, ledgers: list[Ledger]) -> dict[str, int]:
    """Compare the database with what the clients were told.

    Every attempt carries a unique rationale, so each stored value (the grade's and each
    revision's) names the attempt that wrote it. For each grade: the stored value must be the
    last acknowledged attempt or a later one (a request that died after its commit); the
    revisions and the current value must follow the attempts' order; and after the first value
    the revisions hold, every acknowledged attempt must appear (a change of a submitted grade
    always keeps the value it replaces)."""
    from grading.models import Assignment, Grade, GradeRevision
    from grading.services import missing_answers

    attempts: dict[tuple[int, int], list[Attempt]] = defaultdict(list)
    for ledger in ledgers:
        for attempt in ledger.attempts:
            attempts[attempt.key].append(attempt)
    grades = {
        (g.assignment_id, g.criterion_version_id): g
        for g in Grade.objects.filter(assignment__study_item__study=study_id)
    }
    chains: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for revision in GradeRevision.objects.filter(
        grade__assignment__study_item__study=study_id
    ).order_by("replaced_at", "pk"):
        chains[revision.grade_id].append((revision.verdict, revision.rationale))

    figures = Counter()
    for key, tried in attempts.items():
        index = {(a.verdict, a.rationale): n for n, a in enumerate(tried)}
        acknowledged = [n for n, a in enumerate(tried) if a.status == 200]
        figures["acknowledged"] += len(acknowledged)
        grade = grades.get(key)
        if grade is None:
            figures["lost"] += bool(acknowledged)
            continue
        values = [*chains[grade.pk], (grade.verdict, grade.rationale)]
        positions = [index.get(value) for value in values]
        if None in positions:
            figures["unknown"] += 1
            continue
        current = positions[-1]
        if acknowledged and current < acknowledged[-1]:
            figures["lost"] += 1
        if acknowledged and current > acknowledged[-1]:
            figures["stored_unacknowledged"] += 1
        if positions != sorted(set(positions)) or any(
            n > positions[0] and n not in positions for n in acknowledged
        ):
            figures["revision_gaps"] += 1
    figures["unknown"] += sum(1 for key in grades if key not in attempts)
    figures["empty"] = sum(1 for g in grades.values() if not g.verdict and not g.rationale)
    submitted = Assignment.objects.filter(
        study_item__study=study_id, status=Assignment.Status.SUBMITTED
    ).select_related("study_item__study", "study_item__rubric_version")
    figures["incomplete"] = sum(1 for a in submitted if missing_answers(a))
    stored_submitted = {a.pk for a in submitted}
    acked_submits = {a for ledger in ledgers for a, s in ledger.submits.items() if 302 in s}
    figures["submits_lost"] = len(acked_submits - stored_submitted)
    print(
        f"  grades: {len(grades)} rows, {sum(len(c) for c in chains.values())} revisions, "
        f"{figures['stored_unacknowledged']} stored by a request that died after its commit; "
        f"{len(stored_submitted)} assignments submitted ({len(acked_submits)} acknowledged)"
    )
    return figures


# ----- db-restart -------------------------------------------------------------------------------
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
    from django.core.files import File
    from django.db import close_old_connections

    from interchange import jobs
    from interchange.models import ImportJob
    from jobs.models import Job
    from taxonomy.models import Framework

    scenario = "db-restart"
    print("  background import (db_worker), PostgreSQL restarted while writing:")
    archive = work / "bench.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in folder.rglob("*"):
            zipped.write(path, path.relative_to(folder))

    def enqueue(dry_run: bool) -> ImportJob:
        close_old_connections()
        job = ImportJob(
            kind=ImportJob.Kind.BENCHMARK,
            framework=Framework.objects.get(code=FRAMEWORK),
            dry_run=dry_run,
            original_name="bench.zip",
            token=secrets.token_hex(16),
            job=Job.objects.create(kind=Job.Kind.IMPORT),
        )
        with archive.open("rb") as handle:
            job.file.save("upload", File(handle), save=False)
        job.save()
        jobs.run_import_job.enqueue(job.pk)
        return job

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
    job = wait(enqueue(False), 180, stage="writing")
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
    follow = wait(enqueue(True), 180)
    checks.check(
        scenario,
        f"(job) the next job runs with no manual step (dry run: {follow.status}; "
        f"db_worker exits during the test: {len(worker.exits)})",
        follow.status == "succeeded",
    )


def job_kill(
    args: argparse.Namespace, checks: Checks, port: int, env: dict[str, str], work: Path
) -> None:
    """A background import whose worker is killed with SIGKILL mid-import: followed on the job's
    page, it must end failed within the lease, saying why, and the next job must run."""
    from django.core.files import File
    from django.db import close_old_connections

    from accounts.roles import Role
    from accounts.services import create_user_with_role
    from core.formats.synthetic import synthetic_tasks, write_benchmark
    from interchange import jobs
    from interchange.models import ImportJob
    from jobs.models import Job
    from taxonomy.models import Framework

    scenario = "job-kill"
    print(f"\n== job-kill: db_worker killed (SIGKILL) in an import of {args.tasks} tasks")
    _, subs = starter_framework()
    records = synthetic_tasks(args.tasks, subs, task_criteria=10, consensus_per_sub=12, universal=8)
    folder = write_benchmark(work / "job-kill", records)
    archive = work / "job-kill.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in folder.rglob("*"):
            zipped.write(path, path.relative_to(folder))
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

    def enqueue(dry_run: bool) -> ImportJob:
        close_old_connections()
        job = ImportJob(
            kind=ImportJob.Kind.BENCHMARK,
            framework=Framework.objects.get(code=FRAMEWORK),
            dry_run=dry_run,
            original_name="job-kill.zip",
            token=secrets.token_hex(16),
            job=Job.objects.create(kind=Job.Kind.IMPORT),
        )
        with archive.open("rb") as handle:
            job.file.save("upload", File(handle), save=False)
        job.save()
        jobs.run_import_job.enqueue(job.pk)
        return job

    def shown_status(job: ImportJob) -> tuple[str, str]:
        status, _, page = client.request("GET", f"/interchange/jobs/{job.pk}/")
        text = page if isinstance(page, str) else page.decode(errors="replace")
        found = re.search(r'<div id="job-status".*?<strong>(\w+)</strong>', text, re.S)
        return (found.group(1) if found else f"HTTP {status}"), text

    worker = Supervisor(env, work)
    try:
        job = enqueue(False)
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
        follow = enqueue(True)
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


# ----- main -------------------------------------------------------------------------------------
def main() -> int:
    args = arguments()
    name = f"l2annot_faults_{os.getpid()}"
    work = Path(tempfile.mkdtemp(prefix="l2annot-faults-"))
    env = server_environment(
        postgres_url(name),
        MEDIA_ROOT=str(work / "media"),
        IMPORTS_ROOT=str(work / "imports"),
        TASKS_BACKEND="django_tasks_db.DatabaseBackend",
        JOB_LEASE_SECONDS=str(args.lease),
    )
    checks = Checks()
    try:
        with throwaway_database(env["DATABASE_URL"], keep=args.keep_db):
            try:
                setup_django(env)
                migrate(static_files=True)
                # the last login is the probe's
                study_id, logins = seed_study(
                    args.graders + 1, args.responses, args.criteria, args.overlap
                )
                with gunicorn(env, workers=args.workers, threads=args.threads) as server:
                    if args.scenario in ("worker-kill", "all"):
                        worker_kill(args, checks, server, study_id, logins)
                    if args.scenario in ("job-kill", "all"):
                        job_kill(args, checks, server.port, env, work)
                    if args.scenario in ("db-restart", "all"):
                        try:
                            db_restart(args, checks, server.port, env, name, logins[-1], work)
                        finally:
                            ensure_postgres()
            finally:
                ensure_postgres()  # before the database is dropped
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return checks.report()


if __name__ == "__main__":
    sys.exit(main())
