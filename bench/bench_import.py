"""Import and export benchmark: a generated L2-Bench of 1,000 tasks x 30 criteria (10 task,
12 consensus, 8 universal) and 10 responses per task, imported into a fresh test database.

    .venv/bin/python bench/bench_import.py                                   # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/bench_import.py

Prints seconds and ratios against a baseline measured in the same run (a raw bulk_create of
the same task, criterion, version and response rows, nothing checked), the peak resident memory
growth, and a target checklist; exits 1 if a target is missed. Never real L2-Bench data.
"""

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "l2annot.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

TASKS, TASK_CRITERIA, CONSENSUS, UNIVERSAL, MODELS, EPOCHS = 1000, 10, 12, 8, 5, 2
TARGET_IMPORT_S, TARGET_EXPORT_S = 10.0, 5.0


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label, fn, results):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - start
    return value


def baseline(framework, records, responses) -> float:  # type: ignore[no-untyped-def]
    """Raw bulk_create of the rows the import writes, rolled back: the floor to compare with."""
    from rubrics.models import Criterion, CriterionVersion, Response, Task
    from taxonomy.models import SubCompetency

    subs = {s.code: s for s in SubCompetency.objects.filter(competency__framework=framework)}
    start = time.perf_counter()
    with transaction.atomic():
        tasks = Task.objects.bulk_create(
            Task(
                framework=framework,
                key=r.task_key,
                sub_competency=subs[r.competency],
                instruction=r.task,
                reference_answer=r.reference_answer,
            )
            for r in records
        )
        by_key = {t.key: t for t in tasks}
        seen, criteria = set(), []
        for r in records:
            for c in r.criteria:
                if c.id in seen:
                    continue
                seen.add(c.id)
                owner = {
                    "task": by_key[r.task_key] if c.layer == "task" else None,
                    "sub_competency": subs[r.competency] if c.layer == "consensus" else None,
                }
                criteria.append(
                    (Criterion(framework=framework, code=c.id, layer=c.layer, **owner), c)
                )
        Criterion.objects.bulk_create([pair[0] for pair in criteria], batch_size=500)
        CriterionVersion.objects.bulk_create(
            (
                CriterionVersion(criterion=obj, number=1, wording=c.description, weight=c.weight)
                for obj, c in criteria
            ),
            batch_size=500,
        )
        Response.objects.bulk_create(
            (
                Response(
                    task=by_key[r.task_key],
                    external_id=f"{r.model}::e{r.epoch}",
                    model_name=r.model,
                    text=r.response,
                )
                for r in responses
            ),
            batch_size=500,
        )
        transaction.set_rollback(True)
    return time.perf_counter() - start


def main() -> int:
    from interchange.exporters import export_rubrics_xlsx
    from interchange.importers import import_l2bench, import_responses
    from interchange.synthetic import (
        synthetic_responses,
        synthetic_tasks,
        write_benchmark,
        write_jsonl,
    )
    from taxonomy import services as taxonomy_services
    from taxonomy.models import SubCompetency
    from taxonomy.seedfile import read_context_variables, read_taxonomy

    setup_test_environment()
    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = (
        f"test_bench_{os.getpid()}" if connection.vendor == "postgresql" else None
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        fixtures = settings.BASE_DIR / "fixtures"
        framework, _ = taxonomy_services.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
        taxonomy_services.load_context_variables(
            framework, read_context_variables(fixtures / "context_variables.json")
        )
        subs = list(
            SubCompetency.objects.filter(competency__framework=framework).values_list(
                "code", flat=True
            )
        )
        records = synthetic_tasks(
            TASKS,
            subs,
            task_criteria=TASK_CRITERIA,
            consensus_per_sub=CONSENSUS,
            universal=UNIVERSAL,
            context={"cefr_level": ["A1", "B1", "C1"]},
            resources_every=10,
        )
        responses = synthetic_responses(
            records, [f"model-{n}" for n in range(MODELS)], epochs=EPOCHS
        )
        work = Path(tempfile.mkdtemp(prefix="bench-import-"))
        write_benchmark(work / "bench", records)
        write_jsonl(work / "responses.jsonl", responses)
        criteria = len({c.id for r in records for c in r.criteria})
        print(
            f"database: {connection.vendor}; {TASKS} tasks, {criteria} distinct criteria "
            f"({sum(len(r.criteria) for r in records) / TASKS:.0f} per task), "
            f"{len(responses)} responses"
        )

        results: dict[str, float] = {}
        results["baseline (raw bulk_create)"] = baseline(framework, records, responses)
        rss_before = rss_mib()
        report = timed(
            "import benchmark", lambda: import_l2bench(work / "bench", framework), results
        )
        assert report.ok, report.problem_lines()[:5]
        report = timed(
            "import responses",
            lambda: import_responses(work / "responses.jsonl", framework),
            results,
        )
        assert report.ok, report.problem_lines()[:5]
        rss_growth = rss_mib() - rss_before
        timed(
            "re-import benchmark (no change)",
            lambda: import_l2bench(work / "bench", framework),
            results,
        )
        timed(
            "dry run (benchmark, already imported)",
            lambda: import_l2bench(work / "bench", framework, dry_run=True),
            results,
        )
        timed(
            "export rubrics .xlsx",
            lambda: export_rubrics_xlsx(framework, work / "rubrics.xlsx"),
            results,
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    base = results["baseline (raw bulk_create)"]
    total_import = results["import benchmark"] + results["import responses"]
    print(f"\n{'step':36} {'seconds':>8} {'x baseline':>11}")
    for label, seconds in results.items():
        print(f"{label:36} {seconds:8.2f} {seconds / base:11.1f}")
    print(f"{'import benchmark + responses':36} {total_import:8.2f} {total_import / base:11.1f}")
    print(f"peak resident memory growth during the imports: {rss_growth:.0f} MiB")
    checks = {
        f"import benchmark <= {TARGET_IMPORT_S:.0f} s": results["import benchmark"]
        <= TARGET_IMPORT_S,
        f"import responses <= {TARGET_IMPORT_S:.0f} s": results["import responses"]
        <= TARGET_IMPORT_S,
        f"export rubrics .xlsx <= {TARGET_EXPORT_S:.0f} s": results["export rubrics .xlsx"]
        <= TARGET_EXPORT_S,
    }
    for name, ok in checks.items():
        print(f"[{'x' if ok else ' '}] {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
