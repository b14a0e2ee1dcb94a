"""Agreement data straight from the database: a 100k-grade study into value counts.

Creates a throw-away database (PostgreSQL by default: l2annot_bench_<pid> on the server of
BENCH_POSTGRES or 127.0.0.1), fills it with a synthetic study (bulk inserts, no real data), and
times in the same run:

  baseline  list(Grade.objects.filter(study).values_list("verdict"))  (the same rows, one column)
  ours      agreement.data.load_study_ratings(study) + counts + alpha  (joins, lookups, numpy)

Target: ours <= 2 s on PostgreSQL for 100k grades; reported as seconds and as a ratio to the
baseline. Run: .venv/bin/python -m bench.bench_agreement_db [--grades 100000] [--sqlite]
"""

import argparse
import os
import random
import sys

from bench.harness import PG_SERVER, migrate, postgres_url, setup_django, throwaway_database, timed


def database_url(use_sqlite: bool) -> str:
    if use_sqlite:
        return f"sqlite:////tmp/l2annot_bench_{os.getpid()}.sqlite3"
    server = os.environ.get("BENCH_POSTGRES", PG_SERVER)
    return postgres_url(f"l2annot_bench_{os.getpid()}", server)


def seed(n_grades: int, criteria: int = 50, overlap: int = 3, annotators: int = 20):  # type: ignore[no-untyped-def]
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from grading.models import Assignment, Grade, Study, StudyItem
    from rubrics.models import Criterion, CriterionVersion, Response, RubricVersion, Task
    from taxonomy.models import Competency, Framework, SubCompetency

    rng = random.Random(1)
    n_items = max(1, n_grades // (criteria * overlap))
    now = timezone.now()
    with transaction.atomic():
        framework = Framework.objects.create(code="bench", name="Bench")
        competency = Competency.objects.create(framework=framework, code="01", name="C")
        sub = SubCompetency.objects.create(competency=competency, code="01a", name="S")
        criterion_rows = Criterion.objects.bulk_create(
            Criterion(framework=framework, code=f"{n // 9 + 1:02}u{n % 9 + 1}", layer="universal")
            for n in range(criteria)
        )
        versions = CriterionVersion.objects.bulk_create(
            CriterionVersion(criterion=c, number=1, wording=f"criterion {c.code}", weight=1)
            for c in criterion_rows
        )
        tasks = Task.objects.bulk_create(
            Task(framework=framework, key=f"t{n}", sub_competency=sub, instruction="...")
            for n in range(max(1, n_items // 10))
        )
        rubric_versions = RubricVersion.objects.bulk_create(
            RubricVersion(task=t, number=1, instruction="...") for t in tasks
        )
        responses = Response.objects.bulk_create(
            Response(task=tasks[n % len(tasks)], model_name=f"model-{n % 5}", text="...")
            for n in range(n_items)
        )
        study = Study.objects.create(name="Bench study", framework=framework, overlap=overlap)
        items = StudyItem.objects.bulk_create(
            StudyItem(study=study, response=r, rubric_version=rubric_versions[n % len(tasks)])
            for n, r in enumerate(responses)
        )
        users = User.objects.bulk_create(User(username=f"bench{n}") for n in range(annotators))
        assignments = Assignment.objects.bulk_create(
            Assignment(
                study_item=item,
                annotator=user,
                position=n,
                status=Assignment.Status.SUBMITTED,
                submitted_at=now,
            )
            for n, item in enumerate(items)
            for user in rng.sample(users, overlap)
        )
        Grade.objects.bulk_create(
            (
                Grade(
                    assignment=a,
                    criterion_version=v,
                    verdict="pass" if rng.random() < 0.7 else "fail",
                )
                for a in assignments
                for v in versions
            ),
            batch_size=5000,
        )
    return study


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--grades", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sqlite", action="store_true", help="measure SQLite instead")
    args = parser.parse_args()
    with throwaway_database(database_url(args.sqlite)) as url:
        setup_django({"DATABASE_URL": url})
        migrate()
        from agreement.data import load_study_ratings
        from core.stats import alpha_from_counts
        from grading.models import Grade

        study = seed(args.grades)
        grades = Grade.objects.filter(assignment__study_item__study=study)
        total = grades.count()

        def baseline() -> None:
            list(grades.values_list("verdict"))

        def ours() -> None:
            alpha_from_counts(load_study_ratings(study).counts())

        base, _ = timed(baseline, args.repeats)
        mine, _ = timed(ours, args.repeats)
        engine = "SQLite" if args.sqlite else "PostgreSQL"
        print(f"{engine}: {total} grades")
        print(f"  baseline (one column, no joins): {base:.3f} s")
        print(f"  ratings + counts + alpha:        {mine:.3f} s  ({mine / base:.1f}x baseline)")
        met = mine <= 2.0
        print(f"  target <= 2 s: {'met' if met else 'MISSED'}")
        return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
