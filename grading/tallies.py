"""Counted submitted verdicts per (study item, criterion version) pair (PairTally rows).

The rows are recomputed from the grades, never incremented: `refresh` locks the items' rows,
so two submissions of the same response wait for each other and the second counts the
first's grades (each statement of PostgreSQL's READ COMMITTED reads what committed before
it). Recomputing an item reads its grades only (k graders x its criteria).
"""

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, Max, Min, Q, QuerySet

from grading.models import (
    Assignment,
    Grade,
    PairTally,
    ResultsRevision,
    Study,
    StudyItem,
    Verdict,
)


def is_split(
    passes: int, fails: int, nas: int, levels: int, low: int | None, high: int | None
) -> bool:
    """The submitted answers of a pair differ: two kinds among pass, fail, N/A and a level,
    or two different levels (what the adjudication queue takes)."""
    return sum(n > 0 for n in (passes, fails, nas, levels)) > 1 or (
        low is not None and high is not None and low < high
    )


def _counted(grades: QuerySet[Grade], items: dict[int, int]) -> list[PairTally]:
    rows = (
        grades.filter(assignment__status=Assignment.Status.SUBMITTED)
        .exclude(verdict="", level__isnull=True)
        .values_list("assignment__study_item", "criterion_version")
        .annotate(
            passes=Count("pk", filter=Q(verdict=Verdict.PASS)),
            fails=Count("pk", filter=Q(verdict=Verdict.FAIL)),
            nas=Count("pk", filter=Q(verdict=Verdict.NA)),
            levels=Count("level"),
            low_level=Min("level"),
            high_level=Max("level"),
        )
        .order_by()
    )
    return [
        PairTally(
            study_id=items[item],
            study_item_id=item,
            criterion_version_id=version,
            passes=passes,
            fails=fails,
            nas=nas,
            levels=levels,
            low_level=low,
            high_level=high,
            split=is_split(passes, fails, nas, levels, low, high),
        )
        for item, version, passes, fails, nas, levels, low, high in rows
    ]


def refresh(item_ids: Iterable[int], criterion_version_id: int | None = None) -> None:
    """Count the submitted verdicts of these study items again (of one criterion version
    only, when given), in the caller's transaction (no savepoint of its own). Four queries."""
    with transaction.atomic(savepoint=False):
        _refresh(sorted(set(item_ids)), criterion_version_id)


def _refresh(ids: list[int], criterion_version_id: int | None) -> None:
    items = dict(
        StudyItem.objects.select_for_update(of=("self",))
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", "study_id")
    )
    grades = Grade.objects.filter(assignment__study_item__in=ids)
    tallies = PairTally.objects.filter(study_item__in=ids)
    if criterion_version_id is not None:
        grades = grades.filter(criterion_version_id=criterion_version_id)
        tallies = tallies.filter(criterion_version_id=criterion_version_id)
    tallies.delete()
    PairTally.objects.bulk_create(_counted(grades, items))


def rebuild(study: Study) -> None:
    """Count a whole study's submitted verdicts again, and bump its results revision: for data
    written around the services (a migration, a benchmark's bulk inserts)."""
    with transaction.atomic():
        items = dict(
            StudyItem.objects.select_for_update(of=("self",))
            .filter(study=study)
            .order_by("pk")
            .values_list("pk", "study_id")
        )
        PairTally.objects.filter(study=study).delete()
        PairTally.objects.bulk_create(
            _counted(Grade.objects.filter(assignment__study_item__study=study), items),
            batch_size=2000,
        )
        ResultsRevision.objects.bump(study.pk)


def check_study(study: Study) -> bool:
    """Whether the study's PairTally rows are exactly what its grades give."""
    items = dict(StudyItem.objects.filter(study=study).values_list("pk", "study_id"))
    expected = _counted(Grade.objects.filter(assignment__study_item__study=study), items)

    def key(t: PairTally) -> tuple[int, ...]:
        return (
            t.study_item_id,
            t.criterion_version_id,
            t.passes,
            t.fails,
            t.nas,
            t.levels,
            t.low_level if t.low_level is not None else -1,
            t.high_level if t.high_level is not None else -1,
            int(t.split),
        )

    stored = PairTally.objects.filter(study=study)
    return sorted(map(key, expected)) == sorted(map(key, stored))
