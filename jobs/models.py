"""The one record of background work (an import, a judge run, an agreement report, a webhook
delivery) and the one rule that says whether the worker doing it is still alive.

Each kind keeps its own record of what the work is and how it ended (`ImportJob`, `JudgeRun`,
the report in the cache); its `Job` says who runs it and when that process last gave a sign
of life. A worker claims a queued job (`claim`), names itself (`jobs.lease.this_worker`),
beats while it works (`beat`, or `jobs.heartbeat.Heartbeat` from a thread) and ends it
(`finish`, `fail`). A job whose worker is gone is found by `is_alive`, the same way for every
kind: on the worker's own host at once (its process has ended), from elsewhere once its
heartbeat is older than the lease (settings.JOB_LEASE_SECONDS).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from jobs.lease import worker_is_gone


def lease_seconds() -> float:
    """How long a worker on another host may stay silent before its job is taken for abandoned."""
    return float(settings.JOB_LEASE_SECONDS)


class JobQuerySet(models.QuerySet["Job"]):
    def gone(self, now: datetime | None = None) -> list[Job]:
        """The running jobs among these whose worker is gone (one query; the process check
        reads /proc, not the database)."""
        now = now or timezone.now()
        running = self.filter(state=Job.State.RUNNING)
        return [job for job in running if not job.is_alive(now)]

    def fail_abandoned(self, reason: str, then: Callable[[Job], object] | None = None) -> int:
        """Mark failed, with `reason`, every running job among these whose worker is gone, and
        call `then(job)` in the same transaction for the kind's own record; returns how many.
        The recovery sweep of every kind: writes nothing when there is nothing to do."""
        failed = 0
        for job in self.gone():
            with transaction.atomic():
                if job.fail(reason):
                    failed += 1
                    if then is not None:
                        then(job)
        return failed


class Job(models.Model):
    class Kind(models.TextChoices):
        IMPORT = "import", _("Data import")
        JUDGE_RUN = "judge_run", _("Judge run")
        REPORT = "report", _("Agreement report")
        WEBHOOK = "webhook", _("Webhook delivery")

    class State(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    LIVE_STATES = (State.QUEUED, State.RUNNING)

    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.QUEUED, verbose_name=_("state")
    )
    key = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("What the job computes, for a job asked for once per result."),
        verbose_name=_("key"),
    )
    worker = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("host:pid:start of the worker"),
        verbose_name=_("worker"),
    )
    heartbeat_at = models.DateTimeField(null=True, blank=True, verbose_name=_("heartbeat at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("created at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    error = models.TextField(
        blank=True, help_text=_("Why the job failed, for the log."), verbose_name=_("error")
    )

    objects = JobQuerySet.as_manager()

    class Meta:
        verbose_name = _("background job")
        verbose_name_plural = _("background jobs")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["kind", "state"], name="job_kind_state")]
        constraints = [
            # A result asked for once: a second request while one is queued or running is
            # refused by the database, however close together the two come.
            models.UniqueConstraint(
                fields=["kind", "key"],
                condition=Q(state__in=["queued", "running"]) & ~Q(key=""),
                name="one_live_job_per_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} job {self.pk} ({self.state})"

    def is_alive(self, now: datetime) -> bool:
        """Whether the worker that claimed this job still runs: on its own host, its process;
        elsewhere, a heartbeat within the lease. A job no worker has named is alive only by its
        heartbeat (never, without one)."""
        return not worker_is_gone(self.worker, self.heartbeat_at, now, lease_seconds())

    def claim(self, worker: str) -> bool:
        """Take the queued job for `worker`; False if it is not queued any more (another worker
        took it, or it was cancelled)."""
        now = timezone.now()
        claimed = Job.objects.filter(pk=self.pk, state=self.State.QUEUED).update(
            state=self.State.RUNNING, worker=worker, heartbeat_at=now, started_at=now, error=""
        )
        if claimed:
            self.state, self.worker, self.heartbeat_at, self.started_at = (
                self.State.RUNNING,
                worker,
                now,
                now,
            )
            self.error = ""
        return bool(claimed)

    def beat(self) -> None:
        """A sign of life of its worker, while the job is still this worker's."""
        self.heartbeat_at = timezone.now()
        self._mine().update(heartbeat_at=self.heartbeat_at)

    def finish(self) -> bool:
        """The worker ended the work (however the work itself came out)."""
        return self._end(self.State.FINISHED, "")

    def fail(self, reason: str) -> bool:
        """The work stopped without its worker ending it: an error, or the worker is gone."""
        return self._end(self.State.FAILED, reason)

    def cancel(self) -> bool:
        """A queued job nobody will run."""
        now = timezone.now()
        cancelled = Job.objects.filter(pk=self.pk, state=self.State.QUEUED).update(
            state=self.State.CANCELLED, finished_at=now
        )
        if cancelled:
            self.state, self.finished_at = self.State.CANCELLED, now
        return bool(cancelled)

    def requeue(self) -> None:
        """Queue the job again for a new attempt: its last worker no longer holds it."""
        self.state, self.worker, self.heartbeat_at = self.State.QUEUED, "", None
        self.started_at = self.finished_at = None
        self.error = ""
        self.save(
            update_fields=["state", "worker", "heartbeat_at", "started_at", "finished_at", "error"]
        )

    def _mine(self) -> JobQuerySet:
        return Job.objects.filter(pk=self.pk, state=self.State.RUNNING, worker=self.worker)

    def _end(self, state: str, reason: str) -> bool:
        now = timezone.now()
        ended = self._mine().update(state=state, finished_at=now, heartbeat_at=now, error=reason)
        if ended:
            self.state, self.finished_at, self.heartbeat_at, self.error = state, now, now, reason
        return bool(ended)
