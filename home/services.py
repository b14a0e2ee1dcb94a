"""What each role's home page shows, each panel in a fixed number of queries.

The home page sits above every app (it reads grading, rubrics, judging and import jobs), so it
is its own app at the top of the layers; the apps themselves know nothing of it."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from grading.models import Study
from interchange.models import ImportJob
from judging.models import JudgeRun
from rubrics.models import Task

# A failed job stays on the maintainers' home page this long: long enough to be seen after a
# weekend, short enough that an old failure does not hide a new one.
FAILED_JOBS_SHOWN_FOR = timedelta(days=7)
JOBS_SHOWN = 10
RUNS_SHOWN = 10


@dataclass(frozen=True)
class Jobs:
    """Background work a maintainer may need to look at: what runs now and what failed lately."""

    judge_runs: list[JudgeRun]
    imports: list[ImportJob]


def maintainer_jobs(now: datetime | None = None) -> Jobs:
    """Judge runs and imports queued or running, and those failed in the last week, newest
    first, with the imports refused in the last week that no later import mended. Two
    queries."""
    since = (now or timezone.now()) - FAILED_JOBS_SHOWN_FOR
    runs = JudgeRun.objects.select_related("job").filter(
        Q(status__in=[JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING])
        | Q(status=JudgeRun.Status.FAILED, created_at__gte=since)
    )
    # A refused file is the person's to fix, not a failure of the system: it stays listed,
    # as refused, until a later import of the same kind into the same place succeeds.
    mended = ImportJob.objects.annotate(place=Coalesce("study", Value(0))).filter(
        kind=OuterRef("kind"),
        framework=OuterRef("framework"),
        place=Coalesce(OuterRef("study"), Value(0)),  # an offline workbook's study, or none
        status=ImportJob.Status.SUCCEEDED,
        dry_run=False,
        pk__gt=OuterRef("pk"),  # later
    )
    imports = ImportJob.objects.filter(
        Q(status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING])
        | Q(status=ImportJob.Status.FAILED, created_at__gte=since)
        | Q(Q(status=ImportJob.Status.REFUSED, created_at__gte=since), ~Exists(mended))
    )
    return Jobs(list(runs[:JOBS_SHOWN]), list(imports[:JOBS_SHOWN]))


def review_queue_count() -> int:
    """Tasks submitted for review and not yet approved or returned. One query."""
    return Task.objects.filter(status=Task.Status.IN_REVIEW).count()


def studies_by_progress() -> list[Study]:
    """Every study with its progress (.items_count, .assignments_count, .submitted_count), open
    ones first, newest first. One query."""
    studies = Study.objects.with_progress().order_by("-created_at", "pk")
    now = timezone.now()
    return sorted(studies, key=lambda s: s.is_closed(now))


def recent_judge_runs() -> list[JudgeRun]:
    """The latest judge runs with their status and verdict count, newest first. One query."""
    return list(
        JudgeRun.objects.select_related("job")
        .annotate(verdicts_count=Count("verdicts", filter=Q(verdicts__turn__isnull=True)))
        .order_by("-created_at", "pk")[:RUNS_SHOWN]
    )
