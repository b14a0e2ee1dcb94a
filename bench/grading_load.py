"""Grading under load: gunicorn + PostgreSQL on 127.0.0.1, 50 graders saving grades at once.

    .venv/bin/python bench/grading_load.py                      # 120 s, 50 graders, 150 responses
    .venv/bin/python bench/grading_load.py --graders 20 --seconds 45 --responses 60  # earlier runs
    .venv/bin/python bench/grading_load.py --worker-class gthread --workers 3 --threads 4

Creates a fresh database (l2annot_bench_<pid>) on the local PostgreSQL, migrates it, collects
the static files (DEBUG is off, so pages name the hashed copies), seeds a study (generated
tasks, never L2-Bench data) with one annotator per grader, starts gunicorn on a free local
port, and runs one thread per grader for a bounded time. Each grader logs in through the
login form, claims responses, saves every criterion through the real htmx endpoint (CSRF
header included), answers the Likert questions and submits; when their own work is done they
go back to their dashboard and to submitted responses and change verdicts (each change keeps a
revision); a third of the submits are also followed by a look at the dashboard.

Reports p50/p95/p99 of grade saves and of page loads by kind (the grading page, the dashboard
that lists a grader's studies and submitted responses), the 5xx count, and ratios against a
baseline measured in the same run (the login page: the whole Django stack, no database query),
both unloaded before the graders start and under load. Then checks the database: every
acknowledged save must be there with the verdict last acknowledged, and every acknowledged
change of a submitted grade must have left one GradeRevision. Exits 1 if a target is missed.
The database is dropped at the end. Only 127.0.0.1 is ever contacted.
"""

import argparse
import http.client
import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PG_ADMIN = f"postgresql://postgres@{HOST}:5432/postgres"
TARGET_SAVE_P95_MS = 50.0

SAVE_URL = re.compile(r'action="(/grading/assignments/(\d+)/criteria/(\d+)/)"')
LIKERT_URL = re.compile(r'action="(/grading/assignments/\d+/likert/\d+/)"')
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120, help="how long the graders work")
    parser.add_argument("--graders", type=int, default=50)
    parser.add_argument(
        "--responses", type=int, help="responses in the study (default: 3 per grader)"
    )
    parser.add_argument("--criteria", type=int, default=10, help="criteria per task")
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument(
        "--think", type=float, default=0.5, help="mean pause between a grader's actions, s"
    )
    # `make serve` and docs/deploy.md: sync workers, 2 x cores + 1; on 2 cores five processes
    # beat 3 gthread workers x 4 threads (a render holds its process's GIL, saves wait behind it)
    parser.add_argument(
        "--workers", type=int, default=2 * (os.cpu_count() or 2) + 1, help="gunicorn processes"
    )
    parser.add_argument("--worker-class", default="sync", choices=["sync", "gthread"])
    parser.add_argument("--threads", type=int, default=4, help="threads per gthread worker")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    args = parser.parse_args()
    if args.responses is None:
        # with k = 3, nine responses per grader: at 0.5 s think they finish their own work
        # part-way through two minutes, so the run also covers revisions of submitted grades
        args.responses = 3 * args.graders
    return args


# ----- database and server ----------------------------------------------------------------------
def create_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(args: argparse.Namespace) -> tuple[int, list[tuple[str, str]]]:
    """Migrate and seed the study; returns its id and the graders' (username, password)."""
    from django.core.management import call_command

    from accounts.roles import Role
    from accounts.services import create_user_with_role, sync_roles
    from grading import services
    from tests.grading import factories

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    sync_roles()
    logins = [(f"grader{n:02d}", secrets.token_urlsafe(12)) for n in range(1, args.graders + 1)]
    graders = [create_user_with_role(name, pw, Role.ANNOTATOR) for name, pw in logins]
    responses = [
        factories.response(factories.published_task(criteria=args.criteria))
        for _ in range(args.responses)
    ]
    study = services.create_study(
        name="Load bench",
        framework=factories.framework(),
        responses=responses,
        annotators=graders,
        overlap=args.overlap,
        require_rationale_on_fail=True,
    )
    services.assign_study(study)
    return study.pk, logins


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_gunicorn(env: dict[str, str], port: int, args: argparse.Namespace) -> subprocess.Popen:
    worker_class = getattr(args, "worker_class", "gthread")
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "l2annot.wsgi:application",
        f"--bind={HOST}:{port}",
        f"--workers={args.workers}",
        f"--worker-class={worker_class}",
        "--log-level=warning",
    ]
    if worker_class == "gthread":  # gunicorn turns sync into gthread whenever --threads > 1
        command.append(f"--threads={args.threads}")
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    for _ in range(100):
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("gunicorn did not start")


# ----- client -----------------------------------------------------------------------------------
@dataclass
class Figures:
    timings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors_5xx: int = 0
    other_errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    errors_5xx_by_kind: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, kind: str, seconds: float, status: int, path: str) -> None:
        with self.lock:
            self.timings[kind].append(seconds)
            if status >= 500:
                self.errors_5xx += 1
                self.errors_5xx_by_kind[kind] += 1
            elif status >= 400:
                self.other_errors.append(f"{status} {path}")


class Browser:
    """One grader's cookie-keeping HTTP/1.1 connection to the local server."""

    def __init__(self, port: int, figures: Figures) -> None:
        self.connection = http.client.HTTPConnection(HOST, port, timeout=30)
        self.cookies: dict[str, str] = {}
        self.figures = figures

    def request(
        self,
        kind: str,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str, str]:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = urlencode(form) if form is not None else None
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=body, headers=headers)
            reply = self.connection.getresponse()
            text = reply.read().decode()
        except (http.client.HTTPException, OSError):
            self.connection.close()  # the server closed a kept-alive connection: retry once
            self.connection.request(method, path, body=body, headers=headers)
            reply = self.connection.getresponse()
            text = reply.read().decode()
        elapsed = time.perf_counter() - start
        for header, value in reply.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        self.figures.add(kind, elapsed, reply.status, path)
        return reply.status, reply.getheader("Location") or "", text


@dataclass
class Ledger:
    """What a grader's acknowledged requests say must be in the database."""

    verdicts: dict[tuple[int, int], str] = field(default_factory=dict)
    revisions: int = 0  # acknowledged changes of a submitted grade's verdict or rationale
    saves: int = 0


def grade(
    browser: Browser,
    study_id: int,
    username: str,
    password: str,
    window: list[float],
    ready: threading.Barrier,
    think: float,
    ledger: Ledger,
) -> None:
    rng = random.Random(username)

    def pause() -> None:
        if think:
            time.sleep(rng.uniform(0, 2 * think))

    _, _, page = browser.request("login", "GET", "/accounts/login/")
    token = CSRF_INPUT.search(page).group(1)
    status, _, _ = browser.request(
        "login",
        "POST",
        "/accounts/login/",
        {"username": username, "password": password, "csrfmiddlewaretoken": token},
    )
    if status != 302:
        raise RuntimeError(f"{username} could not log in ({status})")
    _, _, page = browser.request("login", "GET", "/grading/")
    token = CSRF_INPUT.search(page).group(1)  # logging in rotated the token
    ready.wait()  # the clock starts once everyone is in: logins hash passwords on purpose
    submitted: set[int] = set()
    rationales: dict[tuple[int, int], str] = {}
    _, location, _ = browser.request(
        "claim", "POST", f"/grading/studies/{study_id}/next/", {"csrfmiddlewaretoken": token}
    )
    stop = window[0]
    while time.monotonic() < stop:
        if "/grading/assignments/" not in location:  # own work done: revise submitted grades
            browser.request("dashboard", "GET", "/grading/")  # where the submitted are listed
            location = f"/grading/assignments/{rng.choice(sorted(submitted))}/"
        status, _, page = browser.request("grading page", "GET", location)
        token = CSRF_INPUT.search(page).group(1)
        saves = SAVE_URL.findall(page)
        assignment_id = int(saves[0][1])
        revising = assignment_id in submitted
        targets = rng.sample(saves, 2) if revising else saves
        for url, _, criterion in targets:
            if time.monotonic() >= stop:
                return
            pause()
            key = (assignment_id, int(criterion))
            verdict = rng.choice(["pass", "pass", "fail", "na"])
            rationale = f"{username}: reason {rng.randrange(10**6)}"
            status, _, _ = browser.request(
                "save",
                "POST",
                url,
                {"verdict": verdict, "rationale": rationale},
                {"HX-Request": "true", "X-CSRFToken": token},
            )
            if status == 200:
                ledger.saves += 1
                if revising and (ledger.verdicts.get(key), rationales.get(key)) != (
                    verdict,
                    rationale,
                ):
                    ledger.revisions += 1
                ledger.verdicts[key], rationales[key] = verdict, rationale
        if revising:
            continue
        for url in LIKERT_URL.findall(page):
            pause()
            browser.request(
                "likert",
                "POST",
                url,
                {"value": str(rng.randint(1, 5))},
                {"HX-Request": "true", "X-CSRFToken": token},
            )
        pause()
        status, location, _ = browser.request(
            "submit",
            "POST",
            f"/grading/assignments/{assignment_id}/submit/",
            {"csrfmiddlewaretoken": token},
        )
        if status == 302:
            submitted.add(assignment_id)
            if rng.random() < 1 / 3:
                browser.request("dashboard", "GET", "/grading/")


def baseline(port: int, figures: Figures, stop: float | None, count: int | None) -> None:
    """The login page, anonymously: a whole Django request with no database query."""
    browser = Browser(port, figures)
    done = 0
    while (stop is None or time.monotonic() < stop) and (count is None or done < count):
        browser.request("baseline", "GET", "/accounts/login/")
        browser.cookies.clear()
        done += 1
        if stop is not None:
            time.sleep(0.05)


# ----- report -----------------------------------------------------------------------------------
def percentiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[94] * 1000, cuts[98] * 1000


def server_environment(database: str, **overrides: str) -> dict[str, str]:
    """The environment the app runs under in these scripts: production settings (DEBUG off, a
    fresh secret key) against PostgreSQL database `database` on the loopback, plain HTTP."""
    return dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="l2annot.settings",
        DATABASE_URL=f"postgres://postgres@{HOST}:5432/{database}",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS=HOST,
        SECURE_COOKIES="0",  # plain HTTP on the loopback
        SECURE_HSTS_SECONDS="0",
        **overrides,
    )


def main() -> int:
    args = arguments()
    name = f"l2annot_bench_{os.getpid()}"
    env = server_environment(name, TASKS_BACKEND="django.tasks.backends.immediate.ImmediateBackend")
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    create_database(name)
    server = None
    try:
        django.setup()
        started = time.perf_counter()
        study_id, logins = seed(args)
        print(
            f"seeded {args.responses} responses x {args.criteria} criteria, k={args.overlap}, "
            f"{args.graders} graders in {time.perf_counter() - started:.1f} s"
        )
        port = free_port()
        server = start_gunicorn(env, port, args)

        quiet = Figures()
        baseline(port, quiet, None, 200)

        figures = Figures()
        ledgers = [Ledger() for _ in logins]
        failures: list[str] = []
        window = [0.0]  # when the graders stop; set once they are all logged in

        def open_window() -> None:
            window[0] = time.monotonic() + args.seconds

        ready = threading.Barrier(len(logins) + 1, action=open_window)

        def run(index: int) -> None:
            username, password = logins[index]
            browser = Browser(port, figures)
            try:
                grade(
                    browser, study_id, username, password, window, ready, args.think, ledgers[index]
                )
            except Exception as error:  # reported, and counted as a failed run
                ready.abort()
                failures.append(f"{username}: {error!r}")

        def measure_baseline() -> None:
            ready.wait()
            baseline(port, figures, window[0], None)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(logins))]
        threads.append(threading.Thread(target=measure_baseline))
        load_before = os.getloadavg()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        load = (load_before, os.getloadavg())
        return report(args, study_id, quiet, figures, ledgers, failures, load)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        if args.keep_db:
            print(f"kept database {name}")
        else:
            drop_database(name)


def report(
    args: argparse.Namespace,
    study_id: int,
    quiet: Figures,
    figures: Figures,
    ledgers: list[Ledger],
    failures: list[str],
    load: tuple[tuple[float, ...], tuple[float, ...]] | None = None,
) -> int:
    from grading.models import Grade, GradeRevision

    quiet_p50, quiet_p95, _ = percentiles(quiet.timings["baseline"])
    _, load_p95, _ = percentiles(figures.timings["baseline"])
    print(
        f"\n{args.graders} graders, {args.responses} responses, {args.seconds:.0f} s, think "
        f"{args.think} s, gunicorn {args.workers} {args.worker_class} workers"
        f"{f' x {args.threads} threads' if args.worker_class == 'gthread' else ''}, "
        f"PostgreSQL on {HOST}"
    )
    if load is not None:
        before, after = (" ".join(f"{x:.2f}" for x in values) for values in load)
        print(f"load average (1, 5, 15 min) as the graders started: {before}; at the end: {after}")
    print(f"baseline (login page) unloaded: p50 {quiet_p50:.1f} ms, p95 {quiet_p95:.1f} ms")
    print(
        f"{'requests':<14}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'5xx':>5}"
        f"{'p95 / base':>12}{'p95 / base loaded':>19}"
    )
    kinds = ("save", "likert", "submit", "claim", "grading page", "dashboard", "login", "baseline")
    for kind in kinds:
        values = figures.timings.get(kind, [])
        if len(values) < 2:
            continue
        p50, p95, p99 = percentiles(values)
        print(
            f"{kind:<14}{len(values):>7}{p50:>9.1f}{p95:>9.1f}{p99:>9.1f}"
            f"{figures.errors_5xx_by_kind.get(kind, 0):>5}"
            f"{p95 / quiet_p95:>11.1f}x{p95 / load_p95:>18.1f}x"
        )

    expected: dict[tuple[int, int], str] = {}
    for ledger in ledgers:
        expected.update(ledger.verdicts)
    stored = dict(
        ((a, c), v)
        for a, c, v in Grade.objects.filter(assignment__study_item__study=study_id)
        .exclude(verdict="")
        .values_list("assignment_id", "criterion_version_id", "verdict")
    )
    lost = [key for key, verdict in expected.items() if stored.get(key) != verdict]
    unacknowledged = len(set(stored) - set(expected))
    revisions = GradeRevision.objects.filter(grade__assignment__study_item__study=study_id).count()
    expected_revisions = sum(ledger.revisions for ledger in ledgers)
    acknowledged = sum(ledger.saves for ledger in ledgers)
    print(
        f"\nacknowledged saves {acknowledged}, distinct grades {len(expected)}, "
        f"grade rows with a verdict {len(stored)} ({unacknowledged} never acknowledged)"
    )
    print(
        f"lost or wrong grades: {len(lost)}; revisions expected {expected_revisions}, "
        f"stored {revisions}"
    )
    print(
        f"5xx responses: {figures.errors_5xx}; other 4xx: {len(figures.other_errors)} "
        f"{figures.other_errors[:5]}"
    )
    for failure in failures:
        print(f"grader failed: {failure}")

    save_p95 = percentiles(figures.timings["save"])[1] if figures.timings["save"] else 0.0
    checks = {
        f"grade-save p95 <= {TARGET_SAVE_P95_MS:.0f} ms ({save_p95:.1f} ms)": save_p95
        <= TARGET_SAVE_P95_MS,
        f"zero lost grades ({len(lost)})": not lost and acknowledged > 0,
        f"one revision per acknowledged change ({revisions}/{expected_revisions})": revisions
        == expected_revisions,
        f"zero 5xx ({figures.errors_5xx})": figures.errors_5xx == 0,
        f"every grader ran to the end ({len(failures)} failed)": not failures,
    }
    print()
    for label, ok in checks.items():
        print(f"[{'x' if ok else ' '}] {label}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
