"""What the domain and the admins' pages do with webhooks.

The domain calls `notify(event, payload)` inside the transaction that made the event happen: one
`Delivery` per active hook asking for the event, each with its `Job`, sent by the background
worker once that transaction commits (and never if it rolls back). A deployment without hooks
pays one small query. Hooks are edited through audit.editing, with their history; the secret is
never written into it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from accounts.models import User
from audit import editing
from jobs.models import Job
from webhooks import jobs
from webhooks.models import Delivery, Event, Hook
from webhooks.sending import check_url

FIELDS = ("url", "events", "description", "active")


def notify(event: Event, payload: Mapping[str, Any]) -> list[Delivery]:
    """Record `event` for every active hook that asks for it, to be sent after the current
    transaction commits; returns the deliveries made (none without such hooks)."""
    hooks = [hook for hook in Hook.objects.filter(active=True) if event in hook.events]
    made = []
    for hook in hooks:
        job = Job.objects.create(kind=Job.Kind.WEBHOOK)
        made.append(Delivery.objects.create(hook=hook, event=event, payload=dict(payload), job=job))
    for delivery in made:
        jobs.schedule(delivery)
    return made


@transaction.atomic
def create_hook(url: str, events: list[str], description: str = "", *, by: User | None) -> Hook:
    check_url(url)
    hook = Hook(url=url, events=sorted(set(events)), description=description)
    return editing.create(hook, by, FIELDS)


@transaction.atomic
def update_hook(hook: Hook, changes: Mapping[str, Any], revision: int, *, by: User | None) -> Hook:
    if "url" in changes:
        check_url(changes["url"])
    if "events" in changes:
        changes = {**changes, "events": sorted(set(changes["events"]))}
    return editing.update(hook, changes, revision, by)


def delete_hook(hook: Hook, *, by: User | None) -> None:
    editing.delete(hook, by, FIELDS)


@transaction.atomic
def send_again(delivery: Delivery) -> bool:
    """Queue `delivery` again with a full set of attempts (its answers so far stay logged);
    False when it is still queued or being sent."""
    delivery = (
        Delivery.objects.select_for_update(of=("self",)).select_related("job").get(pk=delivery.pk)
    )
    if delivery.is_live():
        return False
    if delivery.job is None:
        delivery.job = Job.objects.create(kind=Job.Kind.WEBHOOK)
    else:
        delivery.job.requeue()
    delivery.state, delivery.attempts, delivery.next_attempt_at = Delivery.State.PENDING, 0, None
    delivery.save(update_fields=["state", "attempts", "next_attempt_at", "job"])
    jobs.schedule(delivery)
    return True
