"""Progress: an annotator's queue, a study's progress per annotator, task and criterion, time
per criterion and overdue work. Reads only."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.core.cache import cache
from django.db.models import Count, F, Max, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from accounts.names import person_name
from core import timing
from grading.models import (
    Assignment,
    Grade,
    PairTally,
    Study,
    StudyItem,
)
from rubrics.models import RubricItem
from rubrics.models.criteria import LAYER_RANK, Layer


@dataclass(frozen=True)
class QueueRow:
    """One study an annotator grades in, with their own progress."""

    study: Study
    closed: bool
    total: int
    done: int
    in_progress: int
    skipped: int = 0

    @property
    def left(self) -> int:
        """Responses still to grade; those set aside with a flag wait for a maintainer."""
        return self.total - self.done - self.skipped


def annotator_queue(annotator: User, now: datetime | None = None) -> list[QueueRow]:
    """The studies `annotator` grades in (their pool, or one holding their work), open ones
    first, each with how many of their responses are submitted, started and left. Two queries."""
    now = now or timezone.now()
    counts: dict[int, dict[str, int]] = {
        row["study_item__study"]: {
            "total": row["total"],
            "done": row["done"],
            "started": row["started"],
            "skipped": row["skipped"],
        }
        for row in Assignment.objects.filter(annotator=annotator)
        .values("study_item__study")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            started=Count(
                "pk", filter=Q(status=Assignment.Status.IN_PROGRESS, skipped_at__isnull=True)
            ),
            skipped=Count("pk", filter=Q(skipped_at__isnull=False)),
        )
    }
    studies = Study.objects.filter(Q(pool__annotator=annotator) | Q(pk__in=counts.keys()))
    none = {"total": 0, "done": 0, "started": 0, "skipped": 0}  # in the pool, nothing yet
    rows = [
        QueueRow(
            study,
            study.is_closed(now),
            counts.get(study.pk, none)["total"],
            counts.get(study.pk, none)["done"],
            counts.get(study.pk, none)["started"],
            counts.get(study.pk, none)["skipped"],
        )
        for study in studies.distinct().order_by("created_at", "pk")
    ]
    # Open studies first, the nearest deadline first among them.
    return sorted(rows, key=lambda r: (r.closed, r.study.deadline is None, r.study.deadline or now))


def studies_with_progress(studies: Any) -> list[Study]:
    """Each study with .items_count, .assignments_count and .submitted_count. One query."""
    return list(studies.with_progress())


def progress_per_annotator(study: Study) -> list[dict[str, Any]]:
    """One row per pool member or grader: assigned, submitted, in progress, time spent.
    Two queries."""
    rows = (
        Assignment.objects.filter(study_item__study=study)
        .values("annotator_id", "annotator__username", "annotator__display_name")
        .annotate(
            assigned=Count("pk"),
            submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            in_progress=Count("pk", filter=Q(status=Assignment.Status.IN_PROGRESS)),
            seconds=Sum("time_spent_seconds"),
        )
        .order_by("annotator__username")
    )
    by_user: dict[int, dict[str, Any]] = {row["annotator_id"]: dict(row) for row in rows}
    empty = {"assigned": 0, "submitted": 0, "in_progress": 0, "seconds": 0}
    pool = study.pool.values_list("annotator_id", "annotator__username", "annotator__display_name")
    for user_id, username, display_name in pool:
        member = {
            "annotator_id": user_id,
            "annotator__username": username,
            "annotator__display_name": display_name,
        }
        by_user.setdefault(user_id, member | empty)
    for row in by_user.values():
        row["annotator_name"] = person_name(
            row["annotator__display_name"], row["annotator__username"]
        )
    return sorted(by_user.values(), key=lambda r: str(r["annotator__username"]))


def progress_per_task(study: Study) -> list[dict[str, Any]]:
    """One row per task: task (key), responses, assigned, submitted. One query."""
    rows = (
        StudyItem.objects.filter(study=study)
        .values(task=F("response__task__key"))
        .annotate(
            responses=Count("pk", distinct=True),
            assigned=Count("assignments", distinct=True),
            submitted=Count(
                "assignments",
                filter=Q(assignments__status=Assignment.Status.SUBMITTED),
                distinct=True,
            ),
        )
        .order_by("task")
    )
    return cast(list[dict[str, Any]], list(rows))


def expected_graders(study: Study) -> list[tuple[int, str, str, int]]:
    """Per criterion version of the study's rubrics: (version, code, layer, graders assigned to
    a response whose rubric applies it). Cached under the study's count of assignments and its
    newest one, which change with any assignment made or taken away (ids only grow); the rest
    it is read from does not change once a study uses it (a study item's rubric version is
    published, and a criterion with a published version keeps its code and layer). Two
    queries when cached (its key and the cache's row); a large study's rubric lines are tens
    of thousands of rows otherwise."""
    assignments = Assignment.objects.filter(study_item__study=study)
    state = assignments.aggregate(n=Count("pk"), last=Max("pk"))
    key = f"expected-graders:{study.pk}:{state['n']}:{state['last']}"
    found: list[tuple[int, str, str, int]] | None = cache.get(key)
    if found is not None:
        return found
    graders = dict(
        assignments.values_list("study_item__rubric_version").annotate(n=Count("pk")).order_by()
    )
    lines = RubricItem.objects.filter(rubric_version__in=list(graders), applicable=True)
    per_version: dict[int, list[Any]] = {}
    for rubric_id, version_id, code, layer in lines.values_list(
        "rubric_version",
        "criterion_version",
        "criterion_version__criterion__code",
        "criterion_version__criterion__layer",
    ):
        per_version.setdefault(version_id, [code, layer, 0])[2] += graders[rubric_id]
    found = [(version, code, layer, n) for version, (code, layer, n) in per_version.items()]
    cache.set(key, found, EXPECTED_GRADERS_SECONDS)
    return found


EXPECTED_GRADERS_SECONDS = 24 * 3600


def progress_per_criterion(study: Study) -> list[dict[str, Any]]:
    """One row per criterion of the study's rubrics: code, layer, expected (graders assigned to
    a response whose rubric applies it), graded (verdicts given, drafts included) and submitted
    (verdicts in submitted assignments). Four queries with `expected_graders` cached: its two,
    the submitted verdicts from their counts (PairTally) and the open assignments' verdicts from
    the grades, added up per code here."""
    rows: dict[str, dict[str, Any]] = {}
    code_of: dict[int, str] = {}
    for version_id, code, layer, graders in expected_graders(study):
        row = rows.setdefault(
            code, {"code": code, "layer": layer, "expected": 0, "graded": 0, "submitted": 0}
        )
        row["expected"] += graders
        code_of[version_id] = code
    # Submitted verdicts from their counts per pair; verdicts not yet submitted (the open
    # assignments' only) from the grades.
    submitted = (
        PairTally.objects.filter(study=study)
        .values_list("criterion_version")
        .annotate(n=Sum(F("passes") + F("fails") + F("nas")))
        .order_by()
    )
    drafts = (
        Grade.objects.filter(assignment__study_item__study=study)
        .exclude(assignment__status=Assignment.Status.SUBMITTED)
        .exclude(verdict="")
        .values_list("criterion_version")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for version_id, n in submitted:
        if version_id in code_of:
            rows[code_of[version_id]]["graded"] += n
            rows[code_of[version_id]]["submitted"] += n
    for version_id, n in drafts:
        if version_id in code_of:
            rows[code_of[version_id]]["graded"] += n
    return sorted(rows.values(), key=lambda r: (LAYER_RANK[Layer(r["layer"])], r["code"]))


def criterion_times(study: Study) -> timing.TimeSummary:
    """Time per criterion in the study's submitted responses: medians per criterion, per
    annotator and per pair, with n (core.timing). Grades whose time was not measured (the
    API, the workbook, a page without JavaScript) are left out. One query."""
    rows = (
        Grade.objects.filter(
            assignment__study_item__study=study,
            assignment__status=Assignment.Status.SUBMITTED,
            active_ms__isnull=False,
        )
        .exclude(verdict="")
        .values_list(
            "criterion_version__criterion__code",
            "criterion_version__criterion__layer",
            "assignment__annotator__username",
            "active_ms",
        )
    )
    data = list(rows)
    layers = {code: LAYER_RANK[Layer(layer)] for code, layer, _, _ in data}
    order = sorted(layers, key=lambda code: (layers[code], code))
    pairs = ((code, name, ms or 0) for code, _, name, ms in data)
    return timing.summarise(pairs, criterion_order=order)


# An unsubmitted assignment untouched for this long is listed as overdue on the study page.
OVERDUE_IDLE_DAYS = 7


def overdue_assignments(study: Study, idle_days: int, now: datetime | None = None) -> Any:
    """Unsubmitted assignments past the study's deadline, or idle for `idle_days` (an
    assignment never opened counts as idle since the study was created); most idle first,
    each with .idle_since."""
    now = now or timezone.now()
    late = study.deadline is not None and now >= study.deadline
    rows = (
        Assignment.objects.filter(study_item__study=study)
        .exclude(status=Assignment.Status.SUBMITTED)
        .annotate(idle_since=Coalesce("last_activity_at", "study_item__study__created_at"))
        .select_related("annotator", "study_item__response__task")
        .order_by("idle_since", "pk")
    )
    return rows if late else rows.filter(idle_since__lt=now - timedelta(days=idle_days))
