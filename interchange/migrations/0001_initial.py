"""interchange's tables as its 9 migrations up to 0009_import_job_new_versions left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import interchange.models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("interchange", "0002_import_storage"),
        ("interchange", "0003_import_job_lease"),
        ("interchange", "0004_import_job_create_missing"),
        ("interchange", "0005_offline_import_jobs"),
        ("interchange", "0006_import_job_notes"),
        ("interchange", "0007_model_names"),
        ("interchange", "0008_field_labels"),
        ("interchange", "0009_import_job_new_versions"),
    ]

    dependencies = [
        ("grading", "0001_initial"),
        ("rubrics", "0001_initial"),
        ("taxonomy", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportJob",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("benchmark", "Benchmark (.zip of the L2-Bench folder)"),
                            ("responses", "Model responses (.jsonl)"),
                            ("verdicts", "Judge verdicts (.jsonl)"),
                            ("eval_log", "Judge verdicts (Inspect AI .eval log)"),
                            ("offline", "Offline grading workbook (.xlsx)"),
                        ],
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                (
                    "token",
                    models.CharField(
                        editable=False, max_length=32, unique=True, verbose_name="token"
                    ),
                ),
                (
                    "file",
                    models.FileField(
                        max_length=200,
                        storage=interchange.models.import_storage,
                        upload_to=interchange.models._job_upload_path,
                        verbose_name="file",
                    ),
                ),
                (
                    "original_name",
                    models.CharField(blank=True, max_length=255, verbose_name="original name"),
                ),
                ("dry_run", models.BooleanField(default=False, verbose_name="dry run")),
                ("submit", models.BooleanField(default=False, verbose_name="submit")),
                (
                    "create_missing",
                    models.BooleanField(
                        default=False,
                        help_text="A benchmark import creates the sub-competencies it lacks.",
                        verbose_name="create missing",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("succeeded", "Succeeded"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=16,
                        verbose_name="status",
                    ),
                ),
                ("stage", models.CharField(blank=True, max_length=100, verbose_name="stage")),
                (
                    "progress",
                    models.PositiveIntegerField(
                        default=0, help_text="Percent done.", verbose_name="progress"
                    ),
                ),
                ("counts", models.JSONField(blank=True, default=dict, verbose_name="counts")),
                ("summary", models.TextField(blank=True, verbose_name="summary")),
                ("notes", models.JSONField(blank=True, default=list, verbose_name="notes")),
                (
                    "problems",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Every problem, as text.",
                        verbose_name="problems",
                    ),
                ),
                (
                    "new_versions",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="The responses given a new version: the graded one was kept.",
                        verbose_name="new versions",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "started_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="started at"),
                ),
                (
                    "finished_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="finished at"),
                ),
                (
                    "worker",
                    models.CharField(
                        blank=True,
                        help_text="host:pid:start of the worker",
                        max_length=200,
                        verbose_name="worker",
                    ),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
                ),
                (
                    "annotator",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="annotator",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="created by",
                    ),
                ),
                (
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="grading.study",
                        verbose_name="study",
                    ),
                ),
            ],
            options={
                "verbose_name": "import job",
                "verbose_name_plural": "import jobs",
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="TaskSource",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "version_at_time_of_draft",
                    models.CharField(
                        blank=True, max_length=100, verbose_name="version at time of draft"
                    ),
                ),
                (
                    "task",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="source",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
            ],
            options={
                "verbose_name": "task source",
                "verbose_name_plural": "task sources",
            },
        ),
    ]
