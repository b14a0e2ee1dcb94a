"""Deliveries are sent by the background worker (Django's tasks API, django-tasks-db's database
backend; `manage.py db_worker`), one attempt per task.

An attempt claims the delivery's `Job`, POSTs (webhooks.sending), logs the `Answer` and ends:
delivered on a 2xx; otherwise, while attempts remain (settings.WEBHOOK_MAX_ATTEMPTS), the job
is queued again and the task enqueued to run after a backoff that doubles each time
(settings.WEBHOOK_RETRY_SECONDS, at most an hour); after the last, failed. A tasks backend that
cannot run a task later (the immediate one, where no worker runs) leaves the retry to
`send_due_retries`, which `manage.py send_due_webhooks` runs from cron. A delivery whose
worker died mid-attempt (`Job.is_alive`, the rule of every kind of job) is queued again by the
next attempt of any delivery."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.utils import timezone

from jobs.lease import this_worker
from jobs.models import Job
from webhooks.models import Answer, Delivery
from webhooks.sending import post

MAX_BACKOFF_SECONDS = 3600


def backoff(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failed attempt (1, 2, ...)."""
    base = float(settings.WEBHOOK_RETRY_SECONDS)
    return float(min(base * 2 ** (attempts - 1), MAX_BACKOFF_SECONDS))


def schedule(delivery: Delivery, delay: float = 0.0) -> None:
    """Enqueue the next attempt once the current transaction commits, `delay` seconds later."""
    pk = delivery.pk

    def enqueue() -> None:
        if delay <= 0:
            deliver.enqueue(pk)
        elif deliver.get_backend().supports_defer:
            deliver.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue(pk)

    transaction.on_commit(enqueue)


def send_due_retries(now: datetime | None = None) -> int:
    """Make the next attempt of every delivery whose retry is due, here and now; returns how
    many were due. Where a worker runs, it makes them at their time itself."""
    due = list(
        Delivery.objects.filter(
            state=Delivery.State.RETRYING, next_attempt_at__lte=now or timezone.now()
        ).values_list("pk", flat=True)
    )
    for pk in due:
        deliver.call(pk)
    return len(due)


@task()
def deliver(delivery_id: int) -> None:
    requeue_abandoned()
    delivery = Delivery.objects.select_related("hook", "job").filter(pk=delivery_id).first()
    if delivery is None or delivery.job is None or not delivery.job.claim(this_worker()):
        return  # deleted with its hook, or already sent by another worker
    job = delivery.job
    outcome = post(
        delivery.hook.url,
        delivery.body(),
        delivery.hook.secret,
        {"X-L2Annot-Event": delivery.event, "X-L2Annot-Delivery": str(delivery.pk)},
    )
    with transaction.atomic():
        delivery.attempts += 1
        answer = Answer.objects.create(
            delivery=delivery,
            attempt=delivery.attempts,
            seconds=outcome.seconds,
            status=outcome.status,
            body=outcome.body,
            error=outcome.error,
            detail=outcome.detail,
        )
        delivery.next_attempt_at = None
        if answer.ok:
            delivery.state = Delivery.State.DELIVERED
            job.finish()
        elif delivery.attempts < settings.WEBHOOK_MAX_ATTEMPTS and delivery.hook.active:
            delay = backoff(delivery.attempts)
            delivery.state = Delivery.State.RETRYING
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
            job.requeue()
            schedule(delivery, delay)
        else:
            delivery.state = Delivery.State.FAILED
            job.fail(f"no 2xx answer after {delivery.attempts} attempts")
        delivery.save(update_fields=["attempts", "state", "next_attempt_at"])


def requeue_abandoned() -> int:
    """Queue again every delivery whose worker is gone mid-attempt; returns how many."""
    return Job.objects.filter(kind=Job.Kind.WEBHOOK).fail_abandoned(
        "the worker is gone", then=_requeue
    )


def _requeue(gone: Job) -> None:
    delivery = Delivery.objects.filter(job=gone).first()
    if delivery is not None:
        gone.requeue()
        schedule(delivery)
