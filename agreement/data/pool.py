"""The annotator pool across studies, and a study's ratings by week, as the pure code of
`core.analysis.pool` takes them. A fixed number of queries whatever the number of studies,
annotators or grades: one row per grade, never an ORM object."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from accounts.names import person_name
from agreement.data.experts import VALUE_INDEX, load_study_ratings, rater_names, submitted_grades
from core.analysis.pool import Drift, PoolGold, PoolGrades, PoolRatings, drift
from core.analysis.ratings import IntArray
from grading.models import Assignment, GoldVerdict, Grade, Study
from l2annot.db_routers import reports_alias


@dataclass(frozen=True)
class Person:
    pk: int
    name: str  # as pages name a person to whoever manages them (accounts.names)


@dataclass(frozen=True)
class PoolData:
    annotators: tuple[Person, ...]
    studies: tuple[tuple[int, str], ...]  # (study id, name)
    months: tuple[date, ...]  # the first day of each month with a grade, in order
    ratings: PoolRatings
    grades: PoolGrades
    gold: PoolGold
    n_units: int


def _day(moment: datetime | None) -> date:
    if moment is None:  # a submitted assignment has its moment (Assignment's constraint)
        raise ValueError("a submitted assignment without its submission time")
    return timezone.localtime(moment).date()


def month_of(moment: datetime | None) -> date:
    """The first day of the month `moment` falls in (the site's time zone)."""
    return _day(moment).replace(day=1)


def week_of(moment: datetime | None) -> date:
    """The Monday of the week `moment` falls in (the site's time zone)."""
    day = _day(moment)
    return day - timedelta(days=day.weekday())


def _index[T: (date, tuple[int, int])](values: Iterable[T]) -> dict[T, int]:
    """Each distinct value's place in sorted order."""
    return {value: n for n, value in enumerate(sorted(set(values)))}


def _ints(values: Iterable[int]) -> IntArray:
    return np.fromiter(values, dtype=np.int64)


def load_pool(annotator_id: int | None = None) -> PoolData:
    """Every submitted grade of every study, by month (with `annotator_id`, only the studies
    that annotator graded in: the others' grades there are what theirs pair with). Four
    queries: grades, gold-check verdicts, gold verdicts, people and studies."""
    db = reports_alias()
    submitted = Q(assignment__status=Assignment.Status.SUBMITTED)
    if annotator_id is not None:
        studies = Assignment.objects.using(db).filter(
            annotator_id=annotator_id, status=Assignment.Status.SUBMITTED
        )
        submitted &= Q(assignment__study_item__study__in=studies.values("study_item__study_id"))
    graded = (
        Grade.objects.using(db)
        .filter(submitted)
        .filter(Q(verdict__in=["pass", "fail", "na"]) | Q(level__isnull=False))
    )
    rows = list(
        graded.filter(assignment__study_item__gold_source__isnull=True).values_list(
            "assignment__study_item__study_id",
            "assignment__study_item_id",
            "criterion_version_id",
            "criterion_version__criterion__code",
            "assignment__annotator_id",
            "verdict",
            "level",
            "active_ms",
            "assignment__submitted_at",
        )
    )
    gold_rows = list(
        graded.filter(assignment__study_item__gold_source__isnull=False).values_list(
            "assignment__study_item__study_id",
            "assignment__study_item__gold_source_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "verdict",
            "assignment__submitted_at",
        )
    )
    gold_verdicts: dict[tuple[int | None, int], str] = {
        (item, version): verdict
        for item, version, verdict in GoldVerdict.objects.using(db)
        .filter(study_item__in={row[1] for row in gold_rows})
        .values_list("study_item_id", "criterion_version_id", "verdict")
    }
    gold_rows = [row for row in gold_rows if (row[1], row[2]) in gold_verdicts]
    annotator_ids = sorted({row[4] for row in rows} | {row[3] for row in gold_rows})
    people = {
        pk: person_name(display_name, username)
        for pk, username, display_name in User.objects.using(db)
        .filter(pk__in=annotator_ids)
        .values_list("pk", "username", "display_name")
    }
    study_ids = sorted({row[0] for row in rows} | {row[0] for row in gold_rows})
    names = dict(Study.objects.using(db).filter(pk__in=study_ids).values_list("pk", "name"))
    months = _index([month_of(row[8]) for row in rows] + [month_of(row[5]) for row in gold_rows])
    who = {pk: n for n, pk in enumerate(annotator_ids)}
    where = {pk: n for n, pk in enumerate(study_ids)}
    rated = [row for row in rows if row[5] in VALUE_INDEX and row[6] is None]
    units = _index([(row[1], row[2]) for row in rated])

    return PoolData(
        annotators=tuple(Person(pk, people.get(pk, str(pk))) for pk in annotator_ids),
        studies=tuple((pk, names.get(pk, str(pk))) for pk in study_ids),
        months=tuple(months),
        ratings=PoolRatings(
            unit=_ints([units[(row[1], row[2])] for row in rated]),
            annotator=_ints([who[row[4]] for row in rated]),
            study=_ints([where[row[0]] for row in rated]),
            period=_ints([months[month_of(row[8])] for row in rated]),
            value=_ints([VALUE_INDEX[row[5]] for row in rated]),
        ),
        grades=PoolGrades(
            annotator=_ints([who[row[4]] for row in rows]),
            study=_ints([where[row[0]] for row in rows]),
            period=_ints([months[month_of(row[8])] for row in rows]),
            criterion=tuple(row[3] for row in rows),
            active_ms=_ints([-1 if row[7] is None else row[7] for row in rows]),
        ),
        gold=PoolGold(
            annotator=_ints([who[row[3]] for row in gold_rows]),
            study=_ints([where[row[0]] for row in gold_rows]),
            period=_ints([months[month_of(row[5])] for row in gold_rows]),
            right=_ints([int(row[4] == gold_verdicts[(row[1], row[2])]) for row in gold_rows]),
        ),
        n_units=len(units),
    )


@dataclass(frozen=True)
class StudyDrift:
    weeks: tuple[date, ...]  # the Monday of each week with a submitted rating
    drift: Drift


def load_drift(study: Study, *, blind: bool = True) -> StudyDrift:
    """The study's agreement week by week (core.analysis.pool.drift): its ratings as the
    report reads them (`load_study_ratings`), each placed in the week its response was
    submitted."""
    ratings = load_study_ratings(study, blind=blind)
    db = reports_alias()
    rows = list(
        submitted_grades(study, db)
        .filter(level__isnull=True)
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "assignment__annotator__username",
            "assignment__submitted_at",
        )
    )
    # The raters are numbered as load_study_ratings numbers them (rater_names' order).
    rater_of = {
        pk: n for n, pk in enumerate(rater_names(sorted({(r[2], r[3]) for r in rows}), blind))
    }
    item_of = {info.key: n for n, info in enumerate(ratings.items)}
    criterion_of = {info.key: n for n, info in enumerate(ratings.criteria)}
    unit_of = {
        (int(i), int(c)): u
        for u, (i, c) in enumerate(zip(ratings.unit_item, ratings.unit_criterion, strict=True))
    }
    rating_of = {
        (int(u), int(r)): n
        for n, (u, r) in enumerate(zip(ratings.rating_unit, ratings.rating_rater, strict=True))
    }
    weeks = _index([week_of(row[4]) for row in rows])
    period = np.zeros(len(ratings.rating_unit), dtype=np.int64)
    for item, version, annotator, _, submitted_at in rows:
        unit = unit_of[(item_of[item], criterion_of[version])]
        period[rating_of[(unit, rater_of[annotator])]] = weeks[week_of(submitted_at)]
    ordered = tuple(weeks)
    return StudyDrift(
        ordered,
        drift(ratings, period, [str(week) for week in ordered]),
    )
