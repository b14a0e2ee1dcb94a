"""What each role's home page shows, each panel in a fixed number of queries.

The home page sits above every app (it reads grading, rubrics, judging and import jobs), so it
is its own app at the top of the layers; the apps themselves know nothing of it."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from grading.models import Assignment, Study
from interchange.models import ImportJob
from judging.models import JudgeRun
from rubrics.models import Task

# A failed job stays on the maintainers' home page this long: long enough to be seen after a
# weekend, short enough that an old failure does not hide a new one.
FAILED_JOBS_SHOWN_FOR = timedelta(days=7)
JOBS_SHOWN = 10
RUNS_SHOWN = 10


@dataclass(frozen=True)
class QueueRow:
    """One study an annotator grades in, with their own progress."""

    study: Study
    closed: bool
    total: int
    done: int
    in_progress: int

    @property
    def left(self) -> int:
        return self.total - self.done


def annotator_queue(annotator: User, now: datetime | None = None) -> list[QueueRow]:
    """The studies `annotator` grades in (their pool, or one holding their work), open ones
    first, each with how many of their responses are submitted, started and left. Two queries."""
    now = now or timezone.now()
    counts: dict[int, dict[str, int]] = {
        row["study_item__study"]: {
            "total": row["total"],
            "done": row["done"],
            "started": row["started"],
        }
        for row in Assignment.objects.filter(annotator=annotator)
        .values("study_item__study")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            started=Count("pk", filter=Q(status=Assignment.Status.IN_PROGRESS)),
        )
    }
    studies = Study.objects.filter(Q(pool__annotator=annotator) | Q(pk__in=counts.keys()))
    none = {"total": 0, "done": 0, "started": 0}  # in the pool, nothing assigned yet
    rows = [
        QueueRow(
            study,
            study.is_closed(now),
            counts.get(study.pk, none)["total"],
            counts.get(study.pk, none)["done"],
            counts.get(study.pk, none)["started"],
        )
        for study in studies.distinct().order_by("created_at", "pk")
    ]
    # Open studies first, the nearest deadline first among them.
    return sorted(rows, key=lambda r: (r.closed, r.study.deadline is None, r.study.deadline or now))


@dataclass(frozen=True)
class Jobs:
    """Background work a maintainer may need to look at: what runs now and what failed lately."""

    judge_runs: list[JudgeRun]
    imports: list[ImportJob]


def maintainer_jobs(now: datetime | None = None) -> Jobs:
    """Judge runs and imports queued or running, and those failed in the last week, newest
    first. Two queries."""
    since = (now or timezone.now()) - FAILED_JOBS_SHOWN_FOR
    runs = JudgeRun.objects.filter(
        Q(status__in=[JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING])
        | Q(status=JudgeRun.Status.FAILED, created_at__gte=since)
    )
    imports = ImportJob.objects.filter(
        Q(status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING])
        | Q(status=ImportJob.Status.FAILED, created_at__gte=since)
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
        JudgeRun.objects.annotate(verdicts_count=Count("verdicts")).order_by("-created_at", "pk")[
            :RUNS_SHOWN
        ]
    )
