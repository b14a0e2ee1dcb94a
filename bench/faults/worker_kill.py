"""worker-kill: graders saving, rating and submitting over HTTP while gunicorn workers are
killed with SIGKILL, one at a time and then all at once."""

import argparse
import os
import random
import signal
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.faults.common import Checks, fault_client
from bench.harness import LIKERT_URL, SAVE_URL, Client, Server, csrf_token, htmx_headers, log_in


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
        if status == 409 and died_here:
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
