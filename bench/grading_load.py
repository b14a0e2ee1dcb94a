"""Grading under load: gunicorn + PostgreSQL on 127.0.0.1, 50 graders saving grades at once.

    .venv/bin/python -m bench.grading_load                      # 120 s, 50 graders, 150 responses
    .venv/bin/python -m bench.grading_load --graders 20 --seconds 45 --responses 60  # earlier runs
    .venv/bin/python -m bench.grading_load --worker-class gthread --workers 3 --threads 4

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
import os
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from bench.harness import (
    HOST,
    LIKERT_URL,
    SAVE_URL,
    Client,
    csrf_token,
    gunicorn,
    htmx_headers,
    log_in,
    migrate,
    postgres_url,
    seed_study,
    server_environment,
    setup_django,
    throwaway_database,
)

TARGET_SAVE_P95_MS = 50.0


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


# ----- graders ----------------------------------------------------------------------------------
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


@dataclass
class Ledger:
    """What a grader's acknowledged requests say must be in the database."""

    verdicts: dict[tuple[int, int], str] = field(default_factory=dict)
    revisions: int = 0  # acknowledged changes of a submitted grade's verdict or rationale
    saves: int = 0


def grade(
    client: Client,
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

    token = log_in(client, username, password)
    ready.wait()  # the clock starts once everyone is in: logins hash passwords on purpose
    submitted: set[int] = set()
    rationales: dict[tuple[int, int], str] = {}
    _, location, _ = client.request(
        "POST", f"/grading/studies/{study_id}/next/", {"csrfmiddlewaretoken": token}, kind="claim"
    )
    stop = window[0]
    while time.monotonic() < stop:
        if "/grading/assignments/" not in location:  # own work done: revise submitted grades
            client.request("GET", "/grading/", kind="dashboard")  # where the submitted are listed
            location = f"/grading/assignments/{rng.choice(sorted(submitted))}/"
        status, _, page = client.request("GET", location, kind="grading page")
        token = csrf_token(page)
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
            status, _, _ = client.request(
                "POST",
                url,
                {"verdict": verdict, "rationale": rationale},
                htmx_headers(token),
                kind="save",
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
            client.request(
                "POST", url, {"value": str(rng.randint(1, 5))}, htmx_headers(token), kind="likert"
            )
        pause()
        status, location, _ = client.request(
            "POST",
            f"/grading/assignments/{assignment_id}/submit/",
            {"csrfmiddlewaretoken": token},
            kind="submit",
        )
        if status == 302:
            submitted.add(assignment_id)
            if rng.random() < 1 / 3:
                client.request("GET", "/grading/", kind="dashboard")


def baseline(port: int, figures: Figures, stop: float | None, count: int | None) -> None:
    """The login page, anonymously: a whole Django request with no database query."""
    client = Client(port, record=figures.add)
    done = 0
    while (stop is None or time.monotonic() < stop) and (count is None or done < count):
        client.request("GET", "/accounts/login/", kind="baseline")
        client.cookies.clear()
        done += 1
        if stop is not None:
            time.sleep(0.05)


# ----- report -----------------------------------------------------------------------------------
def percentiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[94] * 1000, cuts[98] * 1000


def main() -> int:
    args = arguments()
    url = postgres_url(f"l2annot_bench_{os.getpid()}")
    env = server_environment(url, TASKS_BACKEND="django.tasks.backends.immediate.ImmediateBackend")
    with throwaway_database(url, keep=args.keep_db):
        setup_django(env)
        started = time.perf_counter()
        migrate(static_files=True)
        study_id, logins = seed_study(args.graders, args.responses, args.criteria, args.overlap)
        print(
            f"seeded {args.responses} responses x {args.criteria} criteria, k={args.overlap}, "
            f"{args.graders} graders in {time.perf_counter() - started:.1f} s"
        )
        with gunicorn(
            env, workers=args.workers, worker_class=args.worker_class, threads=args.threads
        ) as server:
            quiet, figures, ledgers, failures, load = run(args, server.port, study_id, logins)
        return report(args, study_id, quiet, figures, ledgers, failures, load)


def run(
    args: argparse.Namespace, port: int, study_id: int, logins: list[tuple[str, str]]
) -> tuple[Figures, Figures, list[Ledger], list[str], tuple[tuple[float, ...], tuple[float, ...]]]:
    """The unloaded baseline, then the graders and the loaded baseline for args.seconds: the
    figures of both, the graders' ledgers and failures, and the load average before and after."""
    quiet = Figures()
    baseline(port, quiet, None, 200)

    figures = Figures()
    ledgers = [Ledger() for _ in logins]
    failures: list[str] = []
    window = [0.0]  # when the graders stop; set once they are all logged in

    def open_window() -> None:
        window[0] = time.monotonic() + args.seconds

    ready = threading.Barrier(len(logins) + 1, action=open_window)

    def run_grader(index: int) -> None:
        username, password = logins[index]
        client = Client(port, record=figures.add)
        try:
            grade(client, study_id, username, password, window, ready, args.think, ledgers[index])
        except Exception as error:  # reported, and counted as a failed run
            ready.abort()
            failures.append(f"{username}: {error!r}")

    def measure_baseline() -> None:
        ready.wait()
        baseline(port, figures, window[0], None)

    threads = [threading.Thread(target=run_grader, args=(i,)) for i in range(len(logins))]
    threads.append(threading.Thread(target=measure_baseline))
    load_before = os.getloadavg()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return quiet, figures, ledgers, failures, (load_before, os.getloadavg())


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
