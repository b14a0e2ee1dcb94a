"""Every main page at benchmark scale: queries, bytes and median time as a ratio to the login page.

    .venv/bin/python -m bench.pages                                      # SQLite file in /tmp
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python -m bench.pages

The data set (generated, never L2-Bench data) is built once and kept between runs: 1,000 tasks
(10 task, 12 consensus and 8 universal criteria each, three in four published) imported from a
generated L2-Bench folder, 10,000 responses imported from JSONL, and a study of 1,000 responses
x 30 criteria x 3 graders (90,000 submitted grades, written with bulk_create, then counted
per pair by grading.tallies.rebuild) with a judge run
over it. It lives in /tmp/l2annot_pages.sqlite3 on SQLite, or in the database l2annot_pages on
the PostgreSQL server DATABASE_URL names; `--rebuild` builds it again.

Pages are requested in process through Django's test client (production settings: DEBUG off),
each `--repeats` times after one warm-up request; the login page (no query) is the baseline,
measured in the same run, interleaved with the others. Exit status 1 if a page is slower than
TARGET_RATIO times the login page.
"""

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass

from bench.harness import (
    create_database,
    database_name,
    drop_database,
    generated_benchmark,
    is_postgres,
    migrate,
    postgres_url,
    server_of,
    setup_django,
)

TARGET_RATIO = 30
STUDY_RESPONSES, OVERLAP, GRADERS = 1000, 3, 10
STUDY_NAME = "Pages bench"
PASSWORD = "pages-bench-password"


def database_url(rebuild: bool) -> str:
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgres(configured):
        url = postgres_url("l2annot_pages", server_of(configured))
    else:
        url = "sqlite:////tmp/l2annot_pages.sqlite3"
    if rebuild:
        drop_database(url)
    if is_postgres(url):
        from bench.harness import admin_connection

        with admin_connection(server_of(url)) as admin:
            exists = admin.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [database_name(url)]
            ).fetchone()
        if not exists:
            create_database(url)
    return url


# ----- the data set -----------------------------------------------------------------------------
def build() -> None:
    """Import the generated benchmark and responses, and grade the study (see the docstring)."""
    from django.db import connection, transaction
    from django.utils import timezone

    from accounts.roles import Role
    from accounts.services import create_user_with_role, sync_roles
    from grading import services as grading
    from grading import tallies
    from grading.models import Assignment, Grade, StudyItem
    from interchange.importers import import_l2bench, import_responses
    from judging.models import JudgeRun, JudgeVerdict
    from rubrics.models import Response, RubricItem

    start = time.perf_counter()
    sync_roles()
    generated = generated_benchmark("bench-pages-")
    framework, work = generated.framework, generated.folder
    maintainer = create_user_with_role("maintainer", PASSWORD, Role.MAINTAINER)
    create_user_with_role("admin", PASSWORD, Role.ADMIN)
    graders = [
        create_user_with_role(f"grader{n:02d}", PASSWORD, Role.ANNOTATOR)
        for n in range(1, GRADERS + 1)
    ]
    report = import_l2bench(work / "bench", framework, by=maintainer)
    assert report.ok, report.problem_lines()[:5]
    report = import_responses(work / "responses.jsonl", framework, by=maintainer)
    assert report.ok, report.problem_lines()[:5]
    print(f"  imported the benchmark and responses: {time.perf_counter() - start:.1f} s")

    rng = random.Random(17)
    now = timezone.now()
    with transaction.atomic():
        chosen = list(
            Response.objects.filter(task__framework=framework, task__rubric_versions__isnull=False)
            .distinct()
            .order_by("pk")[:STUDY_RESPONSES]
        )
        study = grading.create_study(
            name=STUDY_NAME,
            framework=framework,
            responses=chosen,
            annotators=graders,
            by=maintainer,
            overlap=OVERLAP,
        )
        grading.assign_study(study)
        # Every assignment is graded; one in ten is still in progress (drafts, for the grading
        # list and page), the others are submitted.
        assignments = list(Assignment.objects.filter(study_item__study=study).order_by("pk"))
        status = Assignment.Status
        for n, assignment in enumerate(assignments):
            assignment.status = status.SUBMITTED if n % 10 else status.IN_PROGRESS
            assignment.started_at = assignment.last_activity_at = now
            assignment.submitted_at = now if n % 10 else None
            assignment.time_spent_seconds = rng.randint(60, 900)
        Assignment.objects.bulk_update(
            assignments,
            ["status", "started_at", "last_activity_at", "submitted_at", "time_spent_seconds"],
            batch_size=1000,
        )
        lines: dict[int, list[int]] = {}
        for rubric_id, version_id in (
            RubricItem.objects.filter(rubric_version__study_items__study=study, applicable=True)
            .values_list("rubric_version_id", "criterion_version_id")
            .distinct()
        ):
            lines.setdefault(rubric_id, []).append(version_id)
        rubric_of = dict(
            StudyItem.objects.filter(study=study).values_list("pk", "rubric_version_id")
        )
        # Each criterion has its own pass rate, so agreement is neither perfect nor nil.
        pass_rate = {v: rng.uniform(0.4, 0.95) for vs in lines.values() for v in vs}
        Grade.objects.bulk_create(
            (
                Grade(
                    assignment=a,
                    criterion_version_id=v,
                    verdict="pass" if rng.random() < pass_rate[v] else "fail",
                    rationale="" if rng.random() < 0.8 else "Generated rationale.",
                )
                for a in assignments
                for v in lines[rubric_of[a.study_item_id]]
            ),
            batch_size=5000,
        )
        tallies.rebuild(study)  # the grades were written around grading.services
        run = JudgeRun.objects.create(
            judge_model="bench-judge",
            prompt_version="v1",
            status=JudgeRun.Status.SUCCEEDED,
            parameters={"study": study.pk},
        )
        JudgeVerdict.objects.bulk_create(
            (
                JudgeVerdict(
                    run=run,
                    response_id=response_id,
                    criterion_version_id=v,
                    verdict=rng.random() < pass_rate[v],
                    rationale="Generated judge rationale.",
                )
                for response_id, rubric_id in StudyItem.objects.filter(study=study).values_list(
                    "response_id", "rubric_version_id"
                )
                for v in lines[rubric_id]
            ),
            batch_size=5000,
        )
    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would gather
        cursor.execute("ANALYZE")
    grades = Grade.objects.filter(assignment__study_item__study=study).count()
    print(f"  built the study ({grades} grades): {time.perf_counter() - start:.1f} s in all")


def is_built() -> bool:
    from grading.models import Grade, Study

    study = Study.objects.filter(name=STUDY_NAME).first()
    return study is not None and Grade.objects.filter(assignment__study_item__study=study).exists()


# ----- the pages --------------------------------------------------------------------------------
@dataclass
class Page:
    name: str
    path: str
    user: str | None  # username, or None for an anonymous visitor


def pages() -> list[Page]:
    from grading.models import Assignment, Study
    from judging.models import JudgeRun
    from rubrics.models import Task

    study = Study.objects.get(name=STUDY_NAME)
    task = Task.objects.filter(rubric_versions__isnull=False).order_by("pk").first()
    assert task is not None
    open_work = (
        Assignment.objects.filter(study_item__study=study)
        .exclude(status=Assignment.Status.SUBMITTED)
        .select_related("annotator")
        .order_by("pk")
        .first()
    )
    assert open_work is not None
    grader = open_work.annotator.username
    run = JudgeRun.objects.get(parameters__study=study.pk)
    s = study.pk
    return [
        Page("login (baseline)", "/accounts/login/", None),
        Page("home", "/", "maintainer"),
        Page("tasks list", "/rubrics/tasks/", "maintainer"),
        Page("task detail", f"/rubrics/tasks/{task.pk}/", "maintainer"),
        Page("review queue", "/rubrics/review/", "maintainer"),
        Page("studies list", "/grading/studies/", "maintainer"),
        Page("study dashboard", f"/grading/studies/{s}/", "maintainer"),
        Page("adjudication list", f"/grading/studies/{s}/adjudication/", "maintainer"),
        Page("grading list", "/grading/", grader),
        Page("grading page", f"/grading/assignments/{open_work.pk}/", grader),
        Page("agreement page", f"/agreement/studies/{s}/", "maintainer"),
        Page("leaderboard", f"/agreement/studies/{s}/leaderboard/", "maintainer"),
        Page("judge calibration", f"/agreement/studies/{s}/judges/{run.pk}/", "maintainer"),
        Page("judge page", f"/workbench/studies/{s}/judge/", "maintainer"),
        Page("API tasks", "/api/v1/tasks/", "maintainer"),
        Page("API criteria", "/api/v1/criteria/", "maintainer"),
        Page("API responses", "/api/v1/responses/", "maintainer"),
        Page("API studies", "/api/v1/studies/", "maintainer"),
        Page("API assignments", "/api/v1/assignments/", "maintainer"),
        Page("API grades", "/api/v1/grades/", "maintainer"),
        Page("API judge verdicts", "/api/v1/judge-verdicts/", "maintainer"),
    ]


@dataclass
class Measured:
    page: Page
    status: int
    queries: int
    size: int
    first: float
    times: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def measure(page_list: list[Page], repeats: int) -> list[Measured]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User

    clients: dict[str | None, Client] = {}
    for name in {p.user for p in page_list}:
        client = Client()
        if name is not None:
            client.force_login(User.objects.get(username=name))
        clients[name] = client

    def get(page: Page) -> tuple[int, int, float]:
        start = time.perf_counter()
        response = clients[page.user].get(page.path)
        content = b"".join(response.streaming_content) if response.streaming else response.content
        return response.status_code, len(content), time.perf_counter() - start

    results = []
    for page in page_list:
        _, _, first = get(page)  # warm-up: caches, the agreement report
        with CaptureQueriesContext(connection) as queries:
            status, size, _ = get(page)
        results.append(Measured(page, status, len(queries), size, first, []))
    # Interleaved rounds, so that a busy moment of the machine weighs on every page alike.
    for _ in range(repeats):
        for result in results:
            result.times.append(get(result.page)[2])
    return results


def warm_agreement_report() -> float:
    """Compute the study's agreement report into the cache, as the worker does for a large
    study (its page otherwise answers 'computing'). Returns the seconds it took."""
    from django.core.cache import cache

    from agreement.services import study_report
    from grading.models import Study

    cache.clear()  # results pickled by an earlier version of the code may not load in this one
    start = time.perf_counter()
    study_report(Study.objects.get(name=STUDY_NAME))
    return time.perf_counter() - start


def print_table(results: list[Measured], baseline: float) -> None:
    print(
        f"\n{'page':20} {'status':>6} {'queries':>7} {'KB':>8} {'first ms':>9} "
        f"{'median ms':>9} {'x login':>8}"
    )
    for r in results:
        print(
            f"{r.page.name:20} {r.status:6} {r.queries:7} {r.size / 1024:8.1f} "
            f"{r.first * 1000:9.1f} {r.median * 1000:9.1f} {r.median / baseline:8.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true", help="build the data set again")
    parser.add_argument(
        "--only", default="", help="comma-separated page names to measure (and the baseline)"
    )
    args = parser.parse_args()
    url = database_url(args.rebuild)
    setup_django(
        {
            "DATABASE_URL": url,
            "DEBUG": "0",
            "ALLOWED_HOSTS": "testserver",
            "SECURE_COOKIES": "0",
            "SECURE_HSTS_SECONDS": "0",
            "CONN_MAX_AGE": "0",
        }
    )
    migrate(static_files=True)
    from django.db import connection

    print(f"database: {connection.vendor} ({database_name(url)})")
    if not is_built():
        print("building the data set (kept for the next runs) ...")
        build()
    print(f"agreement report computed into the cache: {warm_agreement_report():.2f} s")
    page_list = pages()
    if args.only:
        wanted = {name.strip() for name in args.only.split(",")}
        page_list = [p for p in page_list if p.user is None or p.name in wanted]
    results = measure(page_list, args.repeats)
    baseline = results[0].median
    print_table(results, baseline)
    slow = [r for r in results if r.median / baseline > TARGET_RATIO or r.status >= 400]
    print(f"\nbaseline (login page): {baseline * 1000:.1f} ms median of {args.repeats}")
    print(f"[{' ' if slow else 'x'}] every page at most {TARGET_RATIO}x the login page")
    for r in slow:
        print(f"    {r.page.name}: {r.median / baseline:.1f}x (status {r.status})")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
