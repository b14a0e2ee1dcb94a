"""Judge-run benchmark: the LLM judge run on a study of 1,000 responses x 30 criteria (one
response per task of a generated benchmark) against the loopback OpenAI server answering every
call after a fixed 50 ms, at 32 connections, through the same service, job body, Inspect AI task
and importer as the app (`judging.running.execute_run`). The server runs in a process of its
own (`tests.llm_server.llm_server_process`), as a real one would.

    .venv/bin/python -m bench.bench_judge                       # the full size: 30,000 calls
    .venv/bin/python -m bench.bench_judge --tasks 10            # a smoke run: 300 calls

Prints the figures and a target checklist, and exits 1 if a target is missed:

- calls per second as a share of the ideal (connections / delay: 640 calls/s at 32 and 50 ms),
  over the evaluation's wall time (Inspect's start-up and the log writing included), and from
  the first answer to the last; with the CPU time this process spent per call meanwhile, which
  bounds what Inspect's event loop, one thread, can do;
- the tool's own cost per stored unit: the wall time of the run outside the evaluation (planning
  the units and filling the prompts; reading the log back and writing the verdicts) over the
  verdicts stored, beside a baseline measured in the same run: a bare bulk insert of the same
  verdict rows, rolled back.

A fresh database: SQLite in memory, or test_bench_<pid> on the PostgreSQL server DATABASE_URL
names. Never a real model: no network is reached.
"""

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

from bench.harness import (
    is_postgres,
    migrate,
    postgres_url,
    server_of,
    setup_django,
    throwaway_database,
    timed,
)

TARGET_SHARE, TARGET_MS_PER_UNIT = 0.80, 5.0


def database_url() -> str:
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgres(configured):
        return postgres_url(f"test_bench_{os.getpid()}", server_of(configured))
    return "sqlite://:memory:"


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


@dataclass
class Progress:
    """The job's progress reports (every 0.5 s): wall clock, process CPU clock, calls done."""

    points: list[tuple[float, float, int]] = field(default_factory=list)

    def __call__(self, done: int, total: int) -> None:
        self.points.append((time.perf_counter(), time.process_time(), done))

    def steady(self) -> tuple[float, float, int]:
        """Wall seconds, CPU seconds and calls from the first call answered to the last: the
        evaluation without Inspect's start-up and the log written at its end."""
        started = next(p for p in self.points if p[2] > 0)
        ended = next(p for p in self.points if p[2] == self.points[-1][2])
        if ended[2] == started[2]:  # done between two reports: the run was too small to tell
            raise SystemExit("The run ended between two progress reports: make it larger.")
        return ended[0] - started[0], ended[1] - started[1], ended[2] - started[2]


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


def measure(n_tasks: int, delay: float, connections: int) -> dict[str, float]:
    from django.conf import settings

    from judging import running
    from judging.runs import start_run
    from tests.llm_server import llm_server_process, model_name

    study = seed(n_tasks)
    home = tempfile.mkdtemp(prefix="bench-judge-home-")
    settings.JUDGE_LOG_DIR = f"{home}/logs"
    settings.JUDGE_CACHE_DIR = f"{home}/cache"  # empty: every call is made
    imported: list[float] = []
    import_verdicts = running.import_verdicts

    def timed_import(*args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return import_verdicts(*args, **kwargs)
        finally:
            imported.append(time.perf_counter() - start)

    running.import_verdicts = timed_import
    progress = Progress()
    # The server runs in a process of its own, as a real one would: its threads do not compete
    # with Inspect's event loop for this interpreter.
    with llm_server_process(text="true", delay=delay, home=home):
        run = start_run(
            study, model=model_name("bench-judge"), max_connections=connections, by=None,
            enqueue=False,
        )  # fmt: skip
        start, cpu_start = time.perf_counter(), time.process_time()
        run = running.execute_run(run.pk, on_progress=progress)
        total, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    running.import_verdicts = import_verdicts
    assert run.status == run.Status.SUCCEEDED, run.problems[:5]
    stored = run.verdicts.count()
    assert stored == run.calls_total, (stored, run.calls_total)
    evaluation = run.duration or total
    steady_wall, steady_cpu, steady_calls = progress.steady()
    own = total - evaluation
    return {
        "units": stored,
        "evaluation s": evaluation,
        "calls/s": stored / evaluation,
        "steady calls/s": steady_calls / steady_wall,
        "cpu ms per call": 1000 * steady_cpu / steady_calls,
        "cpu s": cpu,
        "ideal calls/s": connections / delay,
        "own ms per unit": 1000 * own / stored,
        "plan ms per unit": 1000 * (own - sum(imported)) / stored,
        "import ms per unit": 1000 * sum(imported) / stored,
        "baseline ms per unit": 1000 * baseline_insert(run) / stored,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=1000, help="responses (x 30 criteria)")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per answer")
    parser.add_argument("--connections", type=int, default=32)
    options = parser.parse_args()
    with throwaway_database(database_url()) as url:
        setup_django({"DATABASE_URL": url})
        migrate()
        from django.db import connection

        found = measure(options.tasks, options.delay, options.connections)
        print(f"database: {connection.vendor}; {found['units']:.0f} units; "
              f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    ideal = found["ideal calls/s"]
    share, steady = found["calls/s"] / ideal, found["steady calls/s"] / ideal
    loop_ceiling = 1000 / found["cpu ms per call"]
    print(f"evaluation: {found['evaluation s']:.1f} s, {found['calls/s']:.0f} calls/s of an ideal "
          f"{ideal:.0f} ({share:.0%}); from the first answer to the last: "
          f"{found['steady calls/s']:.0f} calls/s ({steady:.0%})")  # fmt: skip
    print(f"CPU of this process per call while calls run: {found['cpu ms per call']:.1f} ms, so "
          f"Inspect's event loop (one thread) could make at most {loop_ceiling:.0f} calls/s "
          f"({loop_ceiling / ideal:.0%} of the ideal) on a core of its own")  # fmt: skip
    ratio = found["own ms per unit"] / found["baseline ms per unit"]
    print(f"own cost: {found['own ms per unit']:.2f} ms per stored unit (planning and prompts "
          f"{found['plan ms per unit']:.2f}, reading the log and storing "
          f"{found['import ms per unit']:.2f}); a bare bulk insert of the same rows: "
          f"{found['baseline ms per unit']:.2f} ms per unit ({ratio:.1f}x)")  # fmt: skip
    targets = {
        f"calls/s >= {TARGET_SHARE:.0%} of ideal": share >= TARGET_SHARE,
        f"own cost <= {TARGET_MS_PER_UNIT:g} ms per unit": (
            found["own ms per unit"] <= TARGET_MS_PER_UNIT
        ),
    }
    for name, met in targets.items():
        print(f"[{'x' if met else ' '}] {name}")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
