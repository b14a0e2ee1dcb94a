"""Judge-run benchmark: the app's own run path (`start_run`, then `judging.running.execute_run`,
the job's body: units planned, prompts filled, the judge's calls made through Inspect AI's model
API, the `.eval` log written and read back by the importer) against the loopback OpenAI server
of the tests, in a process of its own (`tests.llm_server.llm_server_process`), beside a plain
asyncio OpenAI client sending the same prompts to the same server. No network is reached.

    .venv/bin/python -m bench.bench_judge                   # 6,000 calls per configuration
    .venv/bin/python -m bench.bench_judge --calls 300       # a smoke run

Three configurations, each with a fresh model cache (every call is made):

- answers at once (0 s), 32 connections: the judge's calls per second over the plain client's
  (the better of a plain run before and one after the judge's), target >= 0.35;
- answers after 1 s, 32 and 128 connections: the judge's calls per second over the ideal
  (connections / latency), target >= 80%.

The judge's calls per second are counted over its evaluation (from the first call to the log
written, `JudgeRun.duration`); the whole job's (planning the units and reading the log back
included) is printed beside it, with the CPU time of this process per call, and the tool's own
cost per stored unit (planning and storing) against a bare bulk insert of the same rows
(target <= 5 ms a unit). 6,000 calls, as the targets were set: a run has a few seconds of
fixed cost (its processes started, its log closed) that 2,000 calls at 128 connections (16 s
at best) cannot hide. A run of 2,000 calls or more makes them in JUDGE_PROCESSES processes
(docs/deploy.md), whose CPU is not counted in this process's. Then how long a queued run waits
for the worker: `manage.py db_worker` started on a database file, a run queued after it is
idle, timed to "running" (target <= 5 s); `--no-pickup` leaves it out.

A fresh database: SQLite (in memory; a file for the worker's part), or test_bench_<pid> on the
PostgreSQL server DATABASE_URL names. Exit status 1 if a target is missed.
"""

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from bench.harness import (
    is_postgres,
    migrate,
    postgres_url,
    server_of,
    setup_django,
    throwaway_database,
    timed,
)

TARGET_RATIO, TARGET_SHARE, TARGET_MS_PER_UNIT, TARGET_PICKUP_S = 0.35, 0.80, 5.0, 5.0
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Setup:
    """The server's latency (seconds before each answer) and the connections used."""

    delay: float
    connections: int


SETUPS = (Setup(0.0, 32), Setup(1.0, 32), Setup(1.0, 128))


def database_url() -> str:
    """A database the worker's process can share: a file for SQLite."""
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgres(configured):
        return postgres_url(f"test_bench_{os.getpid()}", server_of(configured))
    return f"sqlite:///{tempfile.gettempdir()}/bench-judge-{os.getpid()}.sqlite3"


def seed(n_tasks: int):  # type: ignore[no-untyped-def]
    """A benchmark of `n_tasks` tasks x 30 criteria, one response each, in a one-grader study."""
    from pathlib import Path

    from accounts.roles import Role
    from accounts.services import create_user_with_role, sync_roles
    from core.formats.synthetic import (
        synthetic_responses,
        synthetic_tasks,
        write_benchmark,
        write_jsonl,
    )
    from grading import services as grading
    from interchange.importers import import_l2bench, import_responses
    from rubrics.models import Response
    from taxonomy import services as taxonomy_services
    from taxonomy.models import SubCompetency
    from taxonomy.seedfile import read_context_variables, read_scales, read_taxonomy

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    framework, _ = taxonomy_services.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
    taxonomy_services.load_scales(framework, read_scales(fixtures / "proficiency_scales.json"))
    taxonomy_services.load_context_variables(
        framework, read_context_variables(fixtures / "context_variables.json")
    )
    subs = list(
        SubCompetency.objects.filter(competency__framework=framework).values_list("code", flat=True)
    )
    records = synthetic_tasks(
        n_tasks, subs, task_criteria=10, consensus_per_sub=12, universal=8,
        context={"cefr_level": ["A1", "B1", "C1"]},
    )  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="bench-judge-"))
    write_benchmark(work / "bench", records)
    write_jsonl(work / "responses.jsonl", synthetic_responses(records, ["tutor-1"]))
    assert import_l2bench(work / "bench", framework).ok
    assert import_responses(work / "responses.jsonl", framework).ok
    sync_roles()
    grader = create_user_with_role("grader", "pw-grader-bench", Role.ANNOTATOR)
    return grading.create_study(
        name="Judge bench",
        framework=framework,
        responses=list(Response.objects.order_by("pk")),
        annotators=[grader],
        overlap=1,
        seed=1,
    )


def baseline_insert(run) -> float:  # type: ignore[no-untyped-def]
    """Seconds to bulk-insert the run's verdict rows again (the same rows, nothing checked),
    rolled back: what storing them costs at the least. Median of 3."""
    from django.db import transaction

    from interchange.importers.writing import BATCH
    from judging.models import JudgeVerdict

    rows = list(
        run.verdicts.values_list("response_id", "criterion_version_id", "epoch", "verdict",
                                 "rationale", "turn_id")
    )  # fmt: skip

    def insert() -> None:
        with transaction.atomic():
            JudgeVerdict.objects.bulk_create(
                [
                    JudgeVerdict(run=run, response_id=r, criterion_version_id=v, epoch=e + 1,
                                 verdict=verdict, rationale=rationale, turn_id=turn)
                    for r, v, e, verdict, rationale, turn in rows
                ],
                batch_size=BATCH,
            )  # fmt: skip
            transaction.set_rollback(True)

    return timed(insert, repeats=3)[0]


def plain_client(base_url: str, prompts: list[str], connections: int) -> tuple[float, float]:
    """Wall and CPU seconds for a plain asyncio OpenAI client to send every prompt, at most
    `connections` at once: what the calls cost with no framework around them."""
    from openai import AsyncOpenAI

    from tests.llm_server import API_KEY

    async def send_all() -> None:
        client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=6)
        work = deque(prompts)

        async def worker() -> None:
            while work:
                prompt = work.popleft()
                reply = await client.chat.completions.create(
                    model="plain", messages=[{"role": "user", "content": prompt}], temperature=0
                )
                assert reply.choices[0].message.content

        await asyncio.gather(*(worker() for _ in range(connections)))
        await client.close()

    wall, cpu = time.perf_counter(), time.process_time()
    asyncio.run(send_all())
    return time.perf_counter() - wall, time.process_time() - cpu


def judge(study, calls: int, setup: Setup, home: str, name: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """One judge run of `calls` units through the app's path, with an empty model cache."""
    from django.conf import settings

    from judging import running
    from judging.runs import start_run
    from tests.llm_server import model_name

    settings.JUDGE_LOG_DIR = f"{home}/logs"
    settings.JUDGE_CACHE_DIR = f"{home}/cache-{name}"  # empty: every call is made
    imported: list[float] = []
    import_verdicts = running.import_verdicts

    def timed_import(*args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return import_verdicts(*args, **kwargs)
        finally:
            imported.append(time.perf_counter() - start)

    running.import_verdicts = timed_import
    try:
        run = start_run(
            study, model=model_name(name), limit=calls, max_connections=setup.connections,
            by=None, enqueue=False,
        )  # fmt: skip
        wall, cpu = time.perf_counter(), time.process_time()
        run = running.execute_run(run.pk)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        running.import_verdicts = import_verdicts
    assert run.status == run.Status.SUCCEEDED, run.problems[:5]
    stored = run.verdicts.count()
    assert stored == run.calls_total == calls, (stored, run.calls_total, calls)
    own = wall - run.duration
    return {
        "run": run.pk,
        "evaluation s": run.duration,
        "calls/s": calls / run.duration,
        "job calls/s": calls / wall,
        "cpu ms per call": 1000 * cpu / calls,
        "own ms per unit": 1000 * own / stored,
        "import ms per unit": 1000 * sum(imported) / stored,
    }


def filled_prompts(study, calls: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The prompts a run of `calls` units sends (the shipped default prompt), for the plain
    client to send too."""
    from core.prompting import render
    from judging.runs import start_run
    from judging.units import study_units
    from tests.llm_server import model_name

    run = start_run(study, model=model_name("prompts"), limit=calls, by=None, enqueue=False)
    assert run.prompt is not None
    prompts = [render(run.prompt.text, p.unit) for p in study_units(study, limit=calls)]
    run.delete()
    return prompts


def throughput(study, calls: int, home: str) -> list[dict[str, float]]:  # type: ignore[no-untyped-def]
    from judging.running import prepare
    from tests.llm_server import llm_server_process

    prompts = filled_prompts(study, calls)
    prepare()  # what the worker does when it starts (`db_worker`, settings.WORKER_STARTUP)
    found = []
    for n, setup in enumerate(SETUPS):
        with llm_server_process(text="true", delay=setup.delay, home=home) as base_url:
            row: dict[str, float] = {"delay": setup.delay, "connections": setup.connections}
            row["ideal calls/s"] = setup.connections / setup.delay if setup.delay else 0.0
            plain = []
            if not setup.delay:  # the plain client before and after the judge, the better kept
                plain.append(plain_client(base_url, prompts, setup.connections))
            row |= judge(study, calls, setup, home, f"bench-judge-{n}")
            if not setup.delay:
                plain.append(plain_client(base_url, prompts, setup.connections))
                wall, cpu = min(plain)
                row["plain calls/s"] = calls / wall
                row["plain cpu ms per call"] = 1000 * cpu / calls
                row["plain runs calls/s"] = tuple(calls / w for w, _ in plain)  # type: ignore[assignment]
        found.append(row)
        print(describe(row), flush=True)
    return found


def describe(row: dict[str, float]) -> str:
    head = f"{row['delay']:g} s latency, {row['connections']:.0f} connections: "
    judge_part = (
        f"judge {row['calls/s']:.0f} calls/s over its evaluation ({row['evaluation s']:.1f} s), "
        f"{row['job calls/s']:.0f} over the whole job; {row['cpu ms per call']:.1f} ms CPU a call "
        "in this process (the calls' processes not counted)"
    )
    if "plain calls/s" in row:
        runs = " and ".join(f"{r:.0f}" for r in row["plain runs calls/s"])  # type: ignore[attr-defined]
        return (
            f"{head}{judge_part}; plain client {row['plain calls/s']:.0f} calls/s (runs {runs}), "
            f"{row['plain cpu ms per call']:.1f} ms CPU a call; ratio "
            f"{row['calls/s'] / row['plain calls/s']:.2f}"
        )
    share = row["calls/s"] / row["ideal calls/s"]
    return f"{head}{judge_part}; ideal {row['ideal calls/s']:.0f}, {share:.0%}"


def pickup(study, url: str, home: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Seconds from queueing a judge run to its worker marking it running: the worker's first
    judge run (started a moment before, idle, having run one other job), then a second."""
    from django.conf import settings
    from django.tasks import TaskResultStatus

    from bench.harness import server_environment
    from judging.models import JudgeRun
    from judging.runs import start_run
    from tests.llm_server import llm_server_process, model_name
    from webhooks.jobs import deliver

    settings.JUDGE_LOG_DIR, settings.JUDGE_CACHE_DIR = f"{home}/logs", f"{home}/cache-pickup"
    waits = []
    with llm_server_process(text="true", home=home):
        environment = server_environment(
            url, JUDGE_LOG_DIR=settings.JUDGE_LOG_DIR, JUDGE_CACHE_DIR=settings.JUDGE_CACHE_DIR
        )
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker"], cwd=ROOT, env=environment
        )
        try:
            probe = deliver.enqueue(0)  # no such delivery: done at once, once the worker runs
            while probe.status != TaskResultStatus.SUCCESSFUL:
                time.sleep(0.1)
                probe.refresh()
            time.sleep(2)  # idle, polling
            for n in range(2):
                run = start_run(
                    study, model=model_name(f"pickup-{n}"), limit=10, by=None, enqueue=True
                )
                queued = time.perf_counter()
                while JudgeRun.objects.get(pk=run.pk).status == JudgeRun.Status.QUEUED:
                    time.sleep(0.05)
                waits.append(time.perf_counter() - queued)
                while JudgeRun.objects.get(pk=run.pk).finished is None:
                    time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    return waits[0], waits[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=6000, help="judge calls per configuration")
    parser.add_argument("--no-pickup", action="store_true", help="leave out the worker's part")
    options = parser.parse_args()
    home = tempfile.mkdtemp(prefix="bench-judge-home-")
    with throwaway_database(database_url()) as url:
        setup_django({"DATABASE_URL": url})
        migrate()
        from django.db import connection

        load = os.getloadavg()
        study = seed(options.calls // 20 + 10)  # 20-30 units a response
        print(f"database: {connection.vendor}; {options.calls} calls per configuration; load "
              f"average {' '.join(f'{x:.1f}' for x in load)}", flush=True)  # fmt: skip
        rows = throughput(study, options.calls, home)
        from judging.models import JudgeRun

        first = JudgeRun.objects.get(pk=rows[0]["run"])
        baseline = 1000 * baseline_insert(first) / options.calls
        waits = None if options.no_pickup else pickup(study, url, home)
        print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    fast, slow32, slow128 = rows
    own = max(row["own ms per unit"] for row in rows)
    print(f"own cost: at most {own:.2f} ms per stored unit (reading the log and storing "
          f"{max(row['import ms per unit'] for row in rows):.2f}); a bare bulk insert of the "
          f"same rows {baseline:.2f} ms per unit")  # fmt: skip
    targets = {
        f"0 s, 32 connections: judge >= {TARGET_RATIO} x the plain client": (
            fast["calls/s"] / fast["plain calls/s"] >= TARGET_RATIO
        ),
        f"1 s, 32 connections: >= {TARGET_SHARE:.0%} of the ideal": (
            slow32["calls/s"] / slow32["ideal calls/s"] >= TARGET_SHARE
        ),
        f"1 s, 128 connections: >= {TARGET_SHARE:.0%} of the ideal": (
            slow128["calls/s"] / slow128["ideal calls/s"] >= TARGET_SHARE
        ),
        f"own cost <= {TARGET_MS_PER_UNIT:g} ms per unit": own <= TARGET_MS_PER_UNIT,
    }
    if waits is not None:
        print(f"queued to running: the worker's first judge run {waits[0]:.1f} s, the next "
              f"{waits[1]:.1f} s")  # fmt: skip
        targets[f"a queued run starts within {TARGET_PICKUP_S:g} s"] = max(waits) <= TARGET_PICKUP_S
    for name, met in targets.items():
        print(f"[{'x' if met else ' '}] {name}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
