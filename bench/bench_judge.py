"""Judge-run benchmark: the LLM judge run on a study of 1,000 responses x 30 criteria (one
response per task of a generated benchmark) against the loopback OpenAI server answering every
call after a fixed 50 ms, at 32 connections, through the same service, job body, Inspect AI task
and importer as the app (`workbench.running.execute_run`).

    .venv/bin/python -m bench.bench_judge                       # the full size: 30,000 calls
    .venv/bin/python -m bench.bench_judge --tasks 10            # a smoke run: 300 calls

Prints two figures and a target checklist, and exits 1 if a target is missed:

- calls per second as a share of the ideal (connections / delay: 640 calls/s at 32 and 50 ms),
  over the evaluation's wall time (Inspect's own overhead and the log writing included);
- the tool's own cost per stored unit: the wall time of the run outside the evaluation (planning
  the units, filling the prompts, reading the log back and writing the verdicts) over the
  verdicts stored.

A fresh database: SQLite in memory, or test_bench_<pid> on the PostgreSQL server DATABASE_URL
names. Never a real model: no network is reached.
"""

import argparse
import os
import sys
import tempfile
import time

from bench.harness import (
    is_postgres,
    migrate,
    postgres_url,
    server_of,
    setup_django,
    throwaway_database,
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
    from grading import services as grading
    from interchange.importers import import_l2bench, import_responses
    from interchange.synthetic import (
        synthetic_responses,
        synthetic_tasks,
        write_benchmark,
        write_jsonl,
    )
    from rubrics.models import Response
    from taxonomy import services as taxonomy_services
    from taxonomy.models import SubCompetency
    from taxonomy.seedfile import read_context_variables, read_taxonomy

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    framework, _ = taxonomy_services.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
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


def measure(n_tasks: int, delay: float, connections: int) -> dict[str, float]:
    from django.conf import settings

    from tests.llm_server import Reply, model_name, running_llm_server
    from workbench.running import execute_run
    from workbench.services import start_run

    study = seed(n_tasks)
    home = tempfile.mkdtemp(prefix="bench-judge-home-")
    settings.JUDGE_LOG_DIR = f"{home}/logs"
    settings.JUDGE_CACHE_DIR = f"{home}/cache"  # empty: every call is made
    with running_llm_server(home=home) as server:
        server.default = lambda request: Reply(text="true", delay=delay)
        run = start_run(
            study, model=model_name("bench-judge"), max_connections=connections, by=None,
            enqueue=False,
        )  # fmt: skip
        start = time.perf_counter()
        run = execute_run(run.pk)
        total = time.perf_counter() - start
    assert run.status == run.Status.SUCCEEDED, run.problems[:5]
    stored = run.verdicts.count()
    assert stored == run.calls_total, (stored, run.calls_total)
    evaluation = run.duration or total
    return {
        "units": stored,
        "evaluation s": evaluation,
        "calls/s": stored / evaluation,
        "ideal calls/s": connections / delay,
        "own ms per unit": 1000 * (total - evaluation) / stored,
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
        print(f"database: {connection.vendor}; {found['units']:.0f} units")
    share = found["calls/s"] / found["ideal calls/s"]
    print(f"evaluation: {found['evaluation s']:.1f} s, {found['calls/s']:.0f} calls/s "
          f"of an ideal {found['ideal calls/s']:.0f} ({share:.0%})")  # fmt: skip
    print(f"own cost: {found['own ms per unit']:.2f} ms per stored unit")
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
