"""Import jobs run in the background, and what L2-Bench files say that no other table holds."""

import os
from datetime import datetime
from typing import ClassVar

from django.conf import settings
from django.core.files.storage import FileSystemStorage, Storage
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.formats.l2bench_csv import lacks_sub_competencies
from rubrics.models import Task
from taxonomy.models import SubCompetency


class ImportStorage(FileSystemStorage):
    """Uploaded import files live apart from MEDIA_ROOT (never served by URL), under
    settings.IMPORTS_ROOT when set, else <BASE_DIR>/var/imports; read at each use."""

    @property
    def base_location(self) -> str:
        root = getattr(settings, "IMPORTS_ROOT", None) or settings.BASE_DIR / "var" / "imports"
        return str(root)

    @property
    def location(self) -> str:
        return os.path.abspath(self.base_location)


def import_storage() -> Storage:
    return ImportStorage()


def _job_upload_path(job: "ImportJob", filename: str) -> str:
    # The stored name is ours, never the uploader's: a fixed folder and an extension by kind.
    return f"{timezone.now():%Y/%m}/{job.token}{ImportJob.EXTENSIONS[job.kind]}"


class ImportJob(models.Model):
    class Kind(models.TextChoices):
        BENCHMARK = "benchmark", _("Benchmark (.zip of the L2-Bench folder)")
        RESPONSES = "responses", _("Model responses (.jsonl)")
        VERDICTS = "verdicts", _("Judge verdicts (.jsonl)")
        EVAL_LOG = "eval_log", _("Judge verdicts (Inspect AI .eval log)")
        OFFLINE = "offline", _("Offline grading workbook (.xlsx)")

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        # The file was refused (its problems are listed): nothing wrong with the system, and
        # the person fixes the file. Failed is the system's: the worker or database stopped it.
        REFUSED = "refused", _("Refused")
        FAILED = "failed", _("Failed")

    EXTENSIONS: ClassVar[dict[str, str]] = {
        Kind.BENCHMARK: ".zip",
        Kind.RESPONSES: ".jsonl",
        Kind.VERDICTS: ".jsonl",
        Kind.EVAL_LOG: ".eval",
        Kind.OFFLINE: ".xlsx",
    }

    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    token = models.CharField(max_length=32, unique=True, editable=False, verbose_name=_("token"))
    file = models.FileField(
        upload_to=_job_upload_path, storage=import_storage, max_length=200, verbose_name=_("file")
    )
    original_name = models.CharField(max_length=255, blank=True, verbose_name=_("original name"))
    framework = models.ForeignKey(
        "taxonomy.Framework",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("framework"),
    )
    dry_run = models.BooleanField(default=False, verbose_name=_("dry run"))
    # An offline grading workbook: recorded as `annotator` in `study`, submitting what it completes.
    study = models.ForeignKey(
        "grading.Study",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("study"),
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("annotator"),
    )
    submit = models.BooleanField(default=False, verbose_name=_("submit"))
    create_missing = models.BooleanField(
        default=False,
        help_text=_("A benchmark import creates the sub-competencies it lacks."),
        verbose_name=_("create missing"),
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status")
    )
    stage = models.CharField(max_length=100, blank=True, verbose_name=_("stage"))
    progress = models.PositiveIntegerField(
        default=0, help_text=_("Percent done."), verbose_name=_("progress")
    )
    counts = models.JSONField(default=dict, blank=True, verbose_name=_("counts"))
    summary = models.TextField(blank=True, verbose_name=_("summary"))
    # What a finished import says after its counts (the whole line of an offline workbook's),
    # as stored messages: shown in the reader's language (interchange.problem_text).
    notes = models.JSONField(default=list, blank=True, verbose_name=_("notes"))
    problems = models.JSONField(
        default=list, blank=True, help_text=_("Every problem, as text."), verbose_name=_("problems")
    )
    # Every response the import gave a new version (it changed while graded or judged), as
    # `NewVersion.as_json()`: line, task, id, versions, what changed, the studies holding the old.
    new_versions = models.JSONField(
        default=list,
        blank=True,
        help_text=_("The responses given a new version: the graded one was kept."),
        verbose_name=_("new versions"),
    )
    # Every existing criterion whose wording or weight a benchmark import changed, as
    # `ChangedCriterion.as_json()`: code, layer, versions, wording and weight before and after,
    # what became of its guidance.
    changed_criteria = models.JSONField(
        default=list,
        blank=True,
        help_text=_("The criteria the import changed: each change is a draft version for review."),
        verbose_name=_("changed criteria"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    # Who runs it and whether that worker is alive (jobs.models.Job); a job whose worker is gone
    # is marked failed, never left "running" (interchange.jobs.fail_abandoned_jobs).
    job = models.OneToOneField(
        "jobs.Job",
        on_delete=models.PROTECT,
        related_name="import_job",
        verbose_name=_("background job"),
    )

    class Meta:
        verbose_name = _("import job")
        verbose_name_plural = _("import jobs")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} import {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.REFUSED, self.Status.FAILED)

    @property
    def can_run_for_real(self) -> bool:
        """A dry run that went through: the same file can be imported for real."""
        ok = self.status == self.Status.SUCCEEDED and self.kind != self.Kind.OFFLINE
        return ok and self.dry_run

    @property
    def can_create_missing(self) -> bool:
        """A benchmark refused for sub-competencies the framework lacks: importing it again
        creating them (as placeholders) may go through."""
        if self.kind != self.Kind.BENCHMARK or self.status != self.Status.REFUSED:
            return False
        return not self.create_missing and lacks_sub_competencies(self.problems)

    @property
    def placeholders_created(self) -> int:
        """How many sub-competencies the import created as placeholders, to be named."""
        if self.dry_run or self.status != self.Status.SUCCEEDED:
            return 0
        return int(self.counts.get("sub-competencies", {}).get("created", 0))

    @property
    def first_placeholder(self) -> SubCompetency | None:
        """The framework's first sub-competency still to be named, where the job's page
        sends the maintainer (None when the import created none, or all are named)."""
        if not self.placeholders_created:
            return None
        return SubCompetency.objects.filter(
            competency__framework_id=self.framework_id, placeholder=True
        ).first()

    @property
    def heartbeat_at(self) -> datetime | None:
        """The last sign of life of the worker running it."""
        return self.job.heartbeat_at


class TaskSource(models.Model):
    """L2-Bench columns a Task has no field for, kept so an export writes them back."""

    task = models.OneToOneField(
        Task, on_delete=models.CASCADE, related_name="source", verbose_name=_("task")
    )
    version_at_time_of_draft = models.CharField(
        max_length=100, blank=True, verbose_name=_("version at time of draft")
    )

    class Meta:
        verbose_name = _("task source")
        verbose_name_plural = _("task sources")

    def __str__(self) -> str:
        return f"{self.task} drafted under {self.version_at_time_of_draft or '?'}"
