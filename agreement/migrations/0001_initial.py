"""agreement's tables as its 6 migrations up to 0006_field_labels left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("agreement", "0002_analysissettings_epsilon_and_more"),
        ("agreement", "0003_analysis_minimum_units"),
        ("agreement", "0004_judge_family_to_runs"),
        ("agreement", "0005_model_names"),
        ("agreement", "0006_field_labels"),
    ]

    dependencies = [
        ("grading", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="AnalysisSettings",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "validation_threshold",
                    models.FloatField(
                        default=0.667,
                        help_text="A criterion is validated when the lower bound of its alpha's 95% interval reaches this value (0.667 after Krippendorff 2004).",
                        validators=[
                            django.core.validators.MinValueValidator(-1.0),
                            django.core.validators.MaxValueValidator(1.0),
                        ],
                        verbose_name="validation threshold",
                    ),
                ),
                (
                    "minimum_units",
                    models.PositiveIntegerField(
                        default=30,
                        help_text="No criterion is called validated on fewer responses graded by two experts or more: a bootstrap interval from a handful of responses claims far more certainty than it has (30 by default).",
                        validators=[
                            django.core.validators.MinValueValidator(2),
                            django.core.validators.MaxValueValidator(100000),
                        ],
                        verbose_name="minimum units",
                    ),
                ),
                (
                    "resamples",
                    models.PositiveIntegerField(
                        default=1000,
                        validators=[
                            django.core.validators.MinValueValidator(100),
                            django.core.validators.MaxValueValidator(20000),
                        ],
                        verbose_name="resamples",
                    ),
                ),
                (
                    "seed",
                    models.PositiveIntegerField(
                        default=0,
                        help_text="Bootstrap seed: same data, same CIs.",
                        verbose_name="seed",
                    ),
                ),
                (
                    "epsilon",
                    models.FloatField(
                        default=0.2,
                        help_text="Alternative annotator test: the cost-benefit margin granted to the judge (0.2 suits expert annotators, Calderon et al. 2025).",
                        validators=[
                            django.core.validators.MinValueValidator(0.0),
                            django.core.validators.MaxValueValidator(1.0),
                        ],
                        verbose_name="epsilon",
                    ),
                ),
                (
                    "show_annotator_names",
                    models.BooleanField(
                        default=False,
                        help_text="Name annotators in reports instead of numbering them.",
                        verbose_name="show annotator names",
                    ),
                ),
                (
                    "study",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="analysis",
                        to="grading.study",
                        verbose_name="study",
                    ),
                ),
            ],
            options={
                "verbose_name": "analysis settings",
                "verbose_name_plural": "analysis settings",
            },
        ),
    ]
