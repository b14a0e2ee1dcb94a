"""judging's tables as its 12 migrations up to 0012_capped_judge_output left them, in one,
with the shipped prompts.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import judging.shipped


def ship_prompts(apps, schema_editor):  # type: ignore[no-untyped-def]
    # The app's own texts, not a frozen copy: this runs only on a new database, which should
    # get the prompts the release ships, as a flushed one does after migrate (judging.apps).
    # A database that has the prompts already never runs it again, so a later change of the
    # texts reaches existing databases only through a migration of its own.
    judging.shipped.ship(
        apps.get_model("judging", "PromptTemplate"), apps.get_model("judging", "PromptVersion")
    )


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("judging", "0002_judge_rating"),
        ("judging", "0003_prompts_configs_run_progress"),
        ("judging", "0004_shipped_prompts"),
        ("judging", "0005_triage_resolution"),
        ("judging", "0006_judge_run_heartbeat"),
        ("judging", "0007_judge_run_family_help"),
        ("judging", "0008_ordinal_levels"),
        ("judging", "0009_verdict_turn"),
        ("judging", "0010_model_names"),
        ("judging", "0011_field_labels"),
        ("judging", "0012_capped_judge_output"),
    ]

    dependencies = [
        ("rubrics", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="JudgeConfig",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.SlugField(max_length=60, unique=True, verbose_name="name")),
                (
                    "model",
                    models.CharField(
                        help_text="Inspect AI model string.", max_length=200, verbose_name="model"
                    ),
                ),
                (
                    "model_family",
                    models.CharField(
                        blank=True,
                        help_text="The judge's vendor or family, compared with the responses' families to measure self-preference.",
                        max_length=200,
                        verbose_name="model family",
                    ),
                ),
                ("temperature", models.FloatField(default=0.0, verbose_name="temperature")),
                ("epochs", models.PositiveSmallIntegerField(default=1, verbose_name="epochs")),
                (
                    "max_connections",
                    models.PositiveSmallIntegerField(default=10, verbose_name="max connections"),
                ),
                (
                    "parse_retries",
                    models.PositiveSmallIntegerField(default=3, verbose_name="parse retries"),
                ),
                (
                    "retry_temperature",
                    models.FloatField(default=0.2, verbose_name="retry temperature"),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
            ],
            options={
                "verbose_name": "judge configuration",
                "verbose_name_plural": "judge configurations",
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="PromptTemplate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.SlugField(max_length=60, unique=True, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
            ],
            options={
                "verbose_name": "prompt template",
                "verbose_name_plural": "prompt templates",
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="PromptVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(verbose_name="number")),
                ("text", models.TextField(verbose_name="text")),
                (
                    "style",
                    models.CharField(
                        choices=[
                            ("binary", "Binary: true or false"),
                            ("critique", "Critique, then the verdict"),
                        ],
                        default="binary",
                        help_text="Binary: the answer is true or false. Critique: a critique, then the verdict alone on its last line.",
                        max_length=16,
                        verbose_name="style",
                    ),
                ),
                (
                    "note",
                    models.TextField(
                        blank=True, help_text="What changed, and why.", verbose_name="note"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="created by",
                    ),
                ),
                (
                    "template",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="judging.prompttemplate",
                        verbose_name="template",
                    ),
                ),
            ],
            options={
                "verbose_name": "prompt version",
                "verbose_name_plural": "prompt versions",
                "ordering": ["template", "number"],
            },
        ),
        migrations.CreateModel(
            name="JudgeRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("judge_model", models.CharField(max_length=200, verbose_name="judge model")),
                (
                    "prompt_version",
                    models.CharField(blank=True, max_length=100, verbose_name="prompt version"),
                ),
                (
                    "run_id",
                    models.CharField(
                        blank=True,
                        help_text="The run's id in its source.",
                        max_length=200,
                        verbose_name="run id",
                    ),
                ),
                ("started", models.DateTimeField(blank=True, null=True, verbose_name="started")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "model_family",
                    models.CharField(
                        blank=True,
                        help_text="The judge's vendor or family, which self-preference compares with the responses' families: its configuration's for a run made here, given on import (or here) for an imported one.",
                        max_length=200,
                        verbose_name="model family",
                    ),
                ),
                (
                    "parameters",
                    models.JSONField(blank=True, default=dict, verbose_name="parameters"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("imported", "Imported"),
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("succeeded", "Finished"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="imported",
                        max_length=16,
                        verbose_name="status",
                    ),
                ),
                ("calls_total", models.PositiveIntegerField(default=0, verbose_name="calls total")),
                ("calls_done", models.PositiveIntegerField(default=0, verbose_name="calls done")),
                (
                    "errors",
                    models.PositiveIntegerField(
                        default=0, help_text="Calls that ended in an error.", verbose_name="errors"
                    ),
                ),
                (
                    "unparseable",
                    models.PositiveIntegerField(
                        default=0,
                        help_text="Answers still not true/false after the retries.",
                        verbose_name="unparseable",
                    ),
                ),
                (
                    "input_tokens",
                    models.PositiveBigIntegerField(default=0, verbose_name="input tokens"),
                ),
                (
                    "output_tokens",
                    models.PositiveBigIntegerField(default=0, verbose_name="output tokens"),
                ),
                (
                    "total_tokens",
                    models.PositiveBigIntegerField(default=0, verbose_name="total tokens"),
                ),
                ("finished", models.DateTimeField(blank=True, null=True, verbose_name="finished")),
                (
                    "heartbeat",
                    models.DateTimeField(
                        blank=True,
                        help_text="Last sign of life of the job running it.",
                        null=True,
                        verbose_name="heartbeat",
                    ),
                ),
                (
                    "duration",
                    models.FloatField(
                        blank=True, help_text="Seconds.", null=True, verbose_name="duration"
                    ),
                ),
                (
                    "log_path",
                    models.CharField(
                        blank=True,
                        help_text="The kept .eval log.",
                        max_length=500,
                        verbose_name="log path",
                    ),
                ),
                ("problems", models.JSONField(blank=True, default=list, verbose_name="problems")),
                (
                    "config",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="runs",
                        to="judging.judgeconfig",
                        verbose_name="judge configuration",
                    ),
                ),
                (
                    "prompt",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="judging.promptversion",
                        verbose_name="prompt",
                    ),
                ),
            ],
            options={
                "verbose_name": "judge run",
                "verbose_name_plural": "judge runs",
                "ordering": ["-created_at", "pk"],
            },
        ),
        migrations.AddField(
            model_name="judgeconfig",
            name="prompt",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="configs",
                to="judging.promptversion",
                verbose_name="prompt",
            ),
        ),
        migrations.CreateModel(
            name="TriageResolution",
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
                            ("ambiguous", "The criterion is ambiguous"),
                            ("judge_error", "Judge error"),
                            ("experts_wrong", "The experts were wrong"),
                        ],
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                ("note", models.TextField(blank=True, verbose_name="note")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="by",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "draft",
                    models.ForeignKey(
                        blank=True,
                        help_text="The draft of the criterion's next version this resolution opened.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rubrics.criterionversion",
                        verbose_name="draft",
                    ),
                ),
                (
                    "prompt",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="notes",
                        to="judging.promptversion",
                        verbose_name="prompt",
                    ),
                ),
                (
                    "response",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.response",
                        verbose_name="response",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="resolutions",
                        to="judging.judgerun",
                        verbose_name="run",
                    ),
                ),
            ],
            options={
                "verbose_name": "triage resolution",
                "verbose_name_plural": "triage resolutions",
                "ordering": ["run", "pk"],
            },
        ),
        migrations.CreateModel(
            name="JudgeRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("question", models.SlugField(verbose_name="question")),
                ("epoch", models.PositiveIntegerField(default=1, verbose_name="epoch")),
                (
                    "value",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(5),
                        ],
                        verbose_name="value",
                    ),
                ),
                ("rationale", models.TextField(blank=True, verbose_name="rationale")),
                (
                    "response",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.response",
                        verbose_name="response",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ratings",
                        to="judging.judgerun",
                        verbose_name="run",
                    ),
                ),
            ],
            options={
                "verbose_name": "judge rating",
                "verbose_name_plural": "judge ratings",
                "ordering": ["run", "response", "question", "epoch"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("run", "response", "question", "epoch"),
                        name="judge_rating_once_per_run",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("value__gte", 1), ("value__lte", 5)),
                        name="judge_rating_1_to_5",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="JudgeVerdict",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("epoch", models.PositiveIntegerField(default=1, verbose_name="epoch")),
                (
                    "verdict",
                    models.BooleanField(
                        help_text="Empty when the judge's answer was still unparseable after retries.",
                        null=True,
                        verbose_name="verdict",
                    ),
                ),
                (
                    "level",
                    models.IntegerField(
                        blank=True,
                        help_text="The judge's level on an ordinal criterion.",
                        null=True,
                        verbose_name="level",
                    ),
                ),
                (
                    "rationale",
                    models.TextField(
                        blank=True,
                        help_text="The judge's output, its first JUDGE_RATIONALE_MAX_CHARS characters (the run's .eval log keeps all of it).",
                        verbose_name="rationale",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "response",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.response",
                        verbose_name="response",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="verdicts",
                        to="judging.judgerun",
                        verbose_name="run",
                    ),
                ),
                (
                    "turn",
                    models.ForeignKey(
                        blank=True,
                        help_text="The tutor turn judged, on a turn-level criterion; empty for the verdict on the whole response.",
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="rubrics.turn",
                        verbose_name="turn",
                    ),
                ),
            ],
            options={
                "verbose_name": "judge verdict",
                "verbose_name_plural": "judge verdicts",
                "ordering": ["run", "response", "criterion_version", "epoch"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("turn__isnull", True)),
                        fields=("run", "response", "criterion_version", "epoch"),
                        name="judge_verdict_once_per_run",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("turn__isnull", False)),
                        fields=("run", "response", "criterion_version", "epoch", "turn"),
                        name="judge_verdict_once_per_turn",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("level__isnull", True), ("verdict__isnull", True), _connector="OR"
                        ),
                        name="judge_verdict_level_or_verdict",
                    ),
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="promptversion",
            constraint=models.UniqueConstraint(
                fields=("template", "number"), name="prompt_version_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="judgerun",
            constraint=models.UniqueConstraint(
                fields=("judge_model", "prompt_version", "run_id"), name="judge_run_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="triageresolution",
            constraint=models.UniqueConstraint(
                fields=("run", "response", "criterion_version"), name="triage_resolved_once"
            ),
        ),
        migrations.RunPython(ship_prompts, migrations.RunPython.noop),
    ]
