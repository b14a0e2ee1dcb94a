"""Claiming work: the annotator's next assignment, started, and why there is none."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.db import transaction
from django.db.models import Count, F, Value
from django.db.models.functions import Coalesce
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from grading import gold
from grading.expertise import expertise_tags, study_item_tags
from grading.models import (
    Assignment,
    PoolMember,
    Study,
    StudyItem,
)
from grading.services.refusals import own_locked

# A pause longer than this between two actions on a response counts as this long: the time
# spent measures work, not a tab left open overnight.
IDLE_CAP = timedelta(minutes=5)


def touch(assignment: Assignment, now: datetime) -> None:
    """Add the time since the annotator's last action (capped) while the response is open."""
    if assignment.is_submitted:
        return
    if assignment.last_activity_at is not None:
        gap = min(now - assignment.last_activity_at, IDLE_CAP)
        assignment.time_spent_seconds += max(0, int(gap.total_seconds()))
    assignment.last_activity_at = now


def record_activity(assignment: Assignment, now: datetime) -> None:
    """Save the time an answer adds; the first answer starts an assignment nobody started
    (its page was opened without JavaScript, which starts it as it loads)."""
    touch(assignment, now)
    fields = ["time_spent_seconds", "last_activity_at"]
    if assignment.status == Assignment.Status.ASSIGNED:
        assignment.status, assignment.started_at = Assignment.Status.IN_PROGRESS, now
        fields += ["status", "started_at"]
    assignment.save(update_fields=fields)


def _start(assignment: Assignment, now: datetime) -> Assignment:
    if assignment.status == Assignment.Status.ASSIGNED:
        assignment.status = Assignment.Status.IN_PROGRESS
        assignment.started_at = now
        assignment.last_activity_at = now
        assignment.save(update_fields=["status", "started_at", "last_activity_at"])
    return assignment


@transaction.atomic
def start(assignment: Assignment, *, by: User) -> Assignment:
    """Mark an assignment opened directly (not through claim_next) as in progress: its page
    asks as it loads (a POST: opening a link, a GET, changes nothing)."""
    locked = own_locked(assignment, by)
    _start(locked, timezone.now())
    assignment.status, assignment.started_at = locked.status, locked.started_at
    assignment.last_activity_at = locked.last_activity_at
    return assignment


@transaction.atomic
def claim_next(study: Study, annotator: User) -> Assignment | None:
    """The annotator's next unfinished assignment in the study, started; None when done.

    First their own planned work, in their random order (gold checks mixed in). When that is
    finished, they may take an item still short of the graders it wants (responses added after
    the plan, or a pool member who left): the item row is locked (rows other annotators are
    claiming are skipped) and its graders recounted under the lock, so no item ever gets more.
    In a study with a qualification round, an annotator who has not passed it gets only their
    gold checks."""
    now = timezone.now()
    if study.is_closed(now):
        return None
    qualified = gold.qualification(study, annotator) == gold.Qualification.PASSED
    own = (
        Assignment.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(study_item__study=study, annotator=annotator, skipped_at__isnull=True)
        .exclude(status=Assignment.Status.SUBMITTED)
        .order_by("-status", "position", "pk")  # in_progress sorts before assigned
    )
    if not qualified:  # the qualification round first: only their gold checks until passed
        own = own.filter(study_item__gold_source__isnull=False)
    first = own.first()
    if first is not None:
        return _start(first, now)
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is None or not qualified:
        return None
    held = Assignment.objects.filter(study_item__study=study, annotator=annotator)
    real = held.filter(study_item__gold_source__isnull=True)
    if member.capacity is not None and real.count() >= member.capacity:
        return None
    tags = expertise_tags(study, [annotator])[annotator.pk]
    wanted = Coalesce("graders_wanted", Value(study.overlap))
    short = (
        StudyItem.objects.filter(study=study)
        .data()
        .exclude(assignments__annotator=annotator)
        .annotate(graders=Count("assignments"), wanted=wanted)
        .filter(graders__lt=F("wanted"))
        .select_related("response__task")
        .order_by("graders", "pk")
    )
    candidates = [i for i in short[:50] if tags is None or study_item_tags(study, i) <= tags]
    for candidate in candidates:
        item = StudyItem.objects.select_for_update(skip_locked=True, of=("self",)).filter(
            pk=candidate.pk
        )
        if not item.exists():
            continue  # another annotator is claiming it right now
        if Assignment.objects.filter(study_item=candidate).count() >= candidate.wanted:
            continue
        claimed = Assignment.objects.create(
            study_item=candidate, annotator=annotator, position=held.next_order()
        )
        return _start(claimed, now)
    return None


class Nothing(StrEnum):
    """Why claim_next found nothing for an annotator (grading/nothing_to_grade.txt says it)."""

    CLOSED = "closed"
    SET_ASIDE = "set_aside"
    NOT_QUALIFIED = "not_qualified"
    QUALIFICATION_PENDING = "qualification_pending"
    CAPACITY_REACHED = "capacity_reached"
    ALL_GRADED = "all_graded"
    NO_RESPONSES = "no_responses"
    NOT_IN_POOL = "not_in_pool"
    ALL_TAKEN = "all_taken"


@dataclass(frozen=True)
class NothingToGrade:
    """The reason, and the number its sentence counts (responses set aside or submitted, or
    the study's graders per response)."""

    study: Study
    reason: Nothing
    count: int = 0


def nothing_to_grade(study: Study, annotator: User) -> NothingToGrade:
    """Why claim_next found nothing for the annotator. Read after claim_next returned None; a
    few queries."""
    if study.is_closed():
        return NothingToGrade(study, Nothing.CLOSED)
    mine = Assignment.objects.of(annotator).filter(study_item__study=study)
    submitted = mine.filter(status=Assignment.Status.SUBMITTED).count()
    skipped = mine.filter(skipped_at__isnull=False).count()
    if skipped:
        return NothingToGrade(study, Nothing.SET_ASIDE, skipped)
    member = PoolMember.objects.filter(study=study, annotator=annotator).first()
    if member is not None:
        state = gold.qualification(study, annotator)
        if state == gold.Qualification.FAILED:
            return NothingToGrade(study, Nothing.NOT_QUALIFIED)
        if state == gold.Qualification.PENDING:
            return NothingToGrade(study, Nothing.QUALIFICATION_PENDING)
    if member is not None and member.capacity is not None and submitted >= member.capacity:
        return NothingToGrade(study, Nothing.CAPACITY_REACHED, submitted)
    if submitted:
        return NothingToGrade(study, Nothing.ALL_GRADED, submitted)
    if not study.items.exists():
        return NothingToGrade(study, Nothing.NO_RESPONSES)
    if member is None:
        return NothingToGrade(study, Nothing.NOT_IN_POOL)
    return NothingToGrade(study, Nothing.ALL_TAKEN, study.overlap)


def why_nothing_to_grade(study: Study, annotator: User) -> str:
    """nothing_to_grade as the message shown instead of a grading page, what the annotator can
    do included: plain text, in the reader's language (one whole sentence per reason for the
    translators: word order differs between languages)."""
    why = nothing_to_grade(study, annotator)
    return render_to_string("grading/nothing_to_grade.txt", {"why": why}).strip()
