"""Telling the webhooks that a study closed, once per closing, whether a maintainer closed it or
its deadline passed (`Study.is_closed`).

A deadline has no request at which it passes: a background task (`tell_deadlines`, run by the
worker) is enqueued to run at every deadline a study is given, and tells each open study whose
deadline has passed and that was not told yet. `Study.closing_told` remembers it: set by the
one that tells (compare-and-set, so the task and a maintainer closing at the same moment tell
once), cleared when the study opens again. Without a worker (a tasks backend that cannot run a
task later), `manage.py tell_passed_deadlines` does the same, from cron; run once after the
upgrade that brought this, it schedules the deadlines given before it."""

from __future__ import annotations

import contextlib
from datetime import datetime

from django.db import transaction
from django.tasks import task
from django.tasks.exceptions import InvalidTask
from django.utils import timezone

from grading.models import Study
from webhooks.models import Event
from webhooks.services import notify


def tell_closed(study: Study, closed_by: str) -> bool:
    """Tell the hooks that `study` closed (`closed_by` "maintainer" or "deadline"), unless it
    was told already; True when told now."""
    with transaction.atomic():
        if not Study.objects.filter(pk=study.pk, closing_told=False).update(closing_told=True):
            return False
        study.closing_told = True
        notify(Event.STUDY_CLOSED, {"study": study.pk, "name": study.name, "closed_by": closed_by})
    return True


def settle(study: Study) -> None:
    """After a change of the study's status or deadline: a study closed now and not told yet is
    told; one open again is told when it next closes, and its deadline is scheduled."""
    if study.is_closed():
        closed_by = "maintainer" if study.status == Study.Status.CLOSED else "deadline"
        tell_closed(study, closed_by)
        return
    # From the row, not `study`: the task may have told it since `study` was read.
    Study.objects.filter(pk=study.pk, closing_told=True).update(closing_told=False)
    study.closing_told = False
    if study.deadline is not None:
        schedule(study.deadline)


def tell_passed_deadlines(now: datetime | None = None) -> int:
    """Tell every open study whose deadline has passed and that was not told; returns how many."""
    due = Study.objects.filter(
        status=Study.Status.OPEN, deadline__lte=now or timezone.now(), closing_told=False
    )
    return sum(tell_closed(study, "deadline") for study in due.only("pk", "name").order_by("pk"))


def schedule_open_deadlines(now: datetime | None = None) -> int:
    """Schedule the task at the deadline of every open study whose deadline is still ahead;
    returns how many (after an upgrade, for the studies given a deadline before it)."""
    ahead = Study.objects.filter(status=Study.Status.OPEN, deadline__gt=now or timezone.now())
    deadlines = sorted({d for d in ahead.values_list("deadline", flat=True) if d is not None})
    for deadline in deadlines:
        schedule(deadline)
    return len(deadlines)


@task()
def tell_deadlines() -> None:
    tell_passed_deadlines()


def schedule(deadline: datetime) -> None:
    """Run `tell_deadlines` at `deadline`, once the current transaction commits. A backend that
    cannot run a task later (the immediate one: no worker) is left to the command."""

    def enqueue() -> None:
        with contextlib.suppress(InvalidTask):
            tell_deadlines.using(run_after=deadline).enqueue()

    transaction.on_commit(enqueue)
