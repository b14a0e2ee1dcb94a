"""Import and export benchmark: a generated L2-Bench of 1,000 tasks x 30 criteria (10 task,
12 consensus, 8 universal) and 10 responses per task, imported into a fresh database: in memory
on SQLite, or test_bench_<pid> on the PostgreSQL server that DATABASE_URL names.

    .venv/bin/python -m bench.bench_import                                   # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python -m bench.bench_import

Prints seconds and ratios against a baseline measured in the same run (a raw bulk_create of
the same task, criterion, version and response rows, nothing checked), the peak resident memory
growth, and a target checklist; exits 1 if a target is missed. Never real L2-Bench data.
"""

import os
import resource
import statistics
import sys
import time
from pathlib import Path

from django.db import connection, transaction

from bench.harness import (
    TASKS,
    generated_benchmark,
    is_postgres,
    migrate,
    postgres_url,
    server_of,
    setup_django,
    throwaway_database,
    timed,
)

TARGET_IMPORT_S, TARGET_EXPORT_S = 10.0, 5.0
TARGET_EXPORT_RATIO = 1.5  # the rubric export against a plain openpyxl workbook of its cells


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def database_url() -> str:
    """A fresh database: on the PostgreSQL server DATABASE_URL names, or SQLite in memory."""
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgres(configured):
        return postgres_url(f"test_bench_{os.getpid()}", server_of(configured))
    return "sqlite://:memory:"


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
                    epoch=r.epoch,
                    text=r.response,
                )
                for r in responses
            ),
            batch_size=500,
        )
        transaction.set_rollback(True)
    return time.perf_counter() - start


def measure() -> tuple[dict[str, float], float]:
    """Seconds of each step, and the peak resident memory growth during the imports (MiB)."""
    from core.formats.sheets_xlsx import Table
    from interchange.exporters import export_rubrics_xlsx, rubric_tables
    from interchange.importers import import_l2bench, import_responses

    generated = generated_benchmark("bench-import-")
    framework, records, responses = generated.framework, generated.records, generated.responses
    work = generated.folder
    criteria = len({c.id for r in records for c in r.criteria})
    print(
        f"database: {connection.vendor}; {TASKS} tasks, {criteria} distinct criteria "
        f"({sum(len(r.criteria) for r in records) / TASKS:.0f} per task), "
        f"{len(responses)} responses"
    )

    results: dict[str, float] = {}
    results["baseline (raw bulk_create)"] = baseline(framework, records, responses)
    rss_before = rss_mib()
    results["import benchmark"], report = timed(
        lambda: import_l2bench(work / "bench", framework), 1
    )
    assert report.ok, report.problem_lines()[:5]
    results["import responses"], report = timed(
        lambda: import_responses(work / "responses.jsonl", framework), 1
    )
    assert report.ok, report.problem_lines()[:5]
    rss_growth = rss_mib() - rss_before
    results["re-import benchmark (no change)"], _ = timed(
        lambda: import_l2bench(work / "bench", framework), 1
    )
    results["dry run (benchmark, already imported)"], _ = timed(
        lambda: import_l2bench(work / "bench", framework, dry_run=True), 1
    )
    tables = [Table(t.title, t.columns, list(t.rows)) for t in rubric_tables(framework)]
    export, plain = [], []
    for _ in range(5):  # interleaved, so that a busy moment weighs on both alike
        export.append(timed(lambda: export_rubrics_xlsx(framework, work / "rubrics.xlsx"), 1)[0])
        plain.append(timed(lambda: plain_workbook(tables, work / "plain.xlsx"), 1)[0])
    results["export rubrics .xlsx"] = statistics.median(export)
    results["plain openpyxl workbook, same cells"] = statistics.median(plain)
    return results, rss_growth


def plain_workbook(tables, target: Path) -> None:  # type: ignore[no-untyped-def]
    """The rubric export's cells written by openpyxl's write-only mode with nothing else: no
    database, no styles, no checks. The export's baseline."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    for table in tables:
        sheet = workbook.create_sheet(table.title[:31])
        sheet.append([column.header for column in table.columns])
        for row in table.rows:
            sheet.append(row)
    workbook.save(target)


def main() -> int:
    with throwaway_database(database_url()) as url:
        setup_django({"DATABASE_URL": url})
        migrate()
        results, rss_growth = measure()
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
    export_ratio = results["export rubrics .xlsx"] / results["plain openpyxl workbook, same cells"]
    print(f"rubric export / plain openpyxl workbook of the same cells: {export_ratio:.2f}")
    checks[f"rubric export <= {TARGET_EXPORT_RATIO} x the plain workbook"] = (
        export_ratio <= TARGET_EXPORT_RATIO
    )
    for name, ok in checks.items():
        print(f"[{'x' if ok else ' '}] {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
