"""Webhooks: the URLs an admin registered for events, and every delivery to them with each
answer it got.

A `Delivery` is one event for one hook; its body is fixed when it is made (every attempt sends
the same bytes), each attempt is signed anew and logged as an `Answer` (the status, the time it
took and the start of the body, or why no answer came). Its `jobs.models.Job` says whether a
worker is sending it now (the background work of every kind goes through one)."""

from __future__ import annotations

import json
import secrets
from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from jobs.models import Job


class Event(models.TextChoices):
    BENCHMARK_PUBLISHED = "benchmark.published", _("A benchmark version is published")
    STUDY_CLOSED = "study.closed", _("A study is closed")
    JUDGE_RUN_FINISHED = "judge_run.finished", _("A judge run finished")
    IMPORT_FINISHED = "import.finished", _("An import finished")


def new_secret() -> str:
    return secrets.token_hex(32)


class Hook(models.Model):
    url = models.URLField(
        max_length=2000,
        help_text=_("Where each delivery is POSTed: an http or https URL."),
        verbose_name=_("URL"),
    )
    events = models.JSONField(
        default=list, help_text=_("The events sent to this URL."), verbose_name=_("events")
    )
    description = models.CharField(max_length=200, blank=True, verbose_name=_("description"))
    secret = models.CharField(
        max_length=128,
        default=new_secret,
        help_text=_("Signs every delivery (HMAC-SHA256); shown to admins only."),
        verbose_name=_("secret"),
    )
    active = models.BooleanField(
        default=True,
        help_text=_("An inactive hook is sent nothing."),
        verbose_name=_("active"),
    )
    revision = models.PositiveIntegerField(default=1, verbose_name=_("revision"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.url

    def event_labels(self) -> list[str]:
        return [str(Event(event).label) for event in self.events if event in Event.values]


class Delivery(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        RETRYING = "retrying", _("Failed, to be tried again")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed")

    hook = models.ForeignKey(
        Hook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("webhook")
    )
    event = models.CharField(max_length=40, choices=Event.choices, verbose_name=_("event"))
    payload = models.JSONField(verbose_name=_("payload"))
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PENDING, verbose_name=_("state")
    )
    attempts = models.PositiveIntegerField(
        default=0,
        help_text=_("Attempts since it was last queued (sending again starts from none)."),
        verbose_name=_("attempts"),
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next attempt at"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    job = models.OneToOneField(
        Job,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("job"),
    )

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.event} #{self.pk}"

    def body(self) -> bytes:
        """The JSON sent, the same bytes on every attempt."""
        document: dict[str, Any] = {
            "delivery": self.pk,
            "event": self.event,
            "created_at": self.created_at.isoformat(),
            "data": self.payload,
        }
        return json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8")

    def is_live(self) -> bool:
        """Queued or being sent: sending again would send it twice."""
        return self.state in (self.State.PENDING, self.State.RETRYING)


class NoAnswer(models.TextChoices):
    REFUSED = "refused", _("Connection refused or failed")
    TIMEOUT = "timeout", _("No answer in time")
    NOT_ALLOWED = "not_allowed", _("An address this server may not call")
    ERROR = "error", _("Another error")


class Answer(models.Model):
    """One attempt of a delivery and what came back: the status and the start of the body, or
    why there was no answer (refused, timed out, an address the deployment does not allow)."""

    delivery = models.ForeignKey(
        Delivery, on_delete=models.CASCADE, related_name="answers", verbose_name=_("delivery")
    )
    attempt = models.PositiveIntegerField(verbose_name=_("attempt"))
    sent_at = models.DateTimeField(default=timezone.now, verbose_name=_("sent at"))
    seconds = models.FloatField(
        help_text=_("From sending until the answer, or until giving up."),
        verbose_name=_("seconds"),
    )
    status = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("The HTTP status; empty without an answer."),
        verbose_name=_("status"),
    )
    body = models.TextField(
        blank=True,
        help_text=_("The first characters of the answer's body."),
        verbose_name=_("body"),
    )
    error = models.CharField(
        max_length=16,
        choices=NoAnswer.choices,
        blank=True,
        help_text=_("Why no answer came."),
        verbose_name=_("error"),
    )
    detail = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("The error as the worker saw it, for the administrator."),
        verbose_name=_("detail"),
    )

    class Meta:
        verbose_name = _("webhook answer")
        verbose_name_plural = _("webhook answers")
        ordering = ["-sent_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.delivery} attempt {self.attempt}: {self.status or self.error}"

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300
