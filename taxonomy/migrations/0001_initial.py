"""taxonomy's tables as its 6 migrations up to 0006_field_labels left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("taxonomy", "0002_context_variable_whole_numbers"),
        ("taxonomy", "0003_proficiency_scales"),
        ("taxonomy", "0004_sub_competency_label"),
        ("taxonomy", "0005_model_names"),
        ("taxonomy", "0006_field_labels"),
    ]

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Framework",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.SlugField(max_length=64, unique=True, verbose_name="code")),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "note",
                    models.TextField(
                        blank=True,
                        help_text="Where the names come from and how far to trust them.",
                        verbose_name="note",
                    ),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
            ],
            options={
                "verbose_name": "framework",
                "verbose_name_plural": "frameworks",
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="ContextVariable",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "key",
                    models.SlugField(
                        help_text="Stable identifier, e.g. cefr_level.",
                        max_length=64,
                        verbose_name="key",
                    ),
                ),
                ("label", models.CharField(max_length=200, verbose_name="label")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("categorical", "Categorical (one of a list)"),
                            ("ordinal", "Ordinal (ordered list)"),
                            ("boolean", "Yes / no"),
                            ("text", "Free text"),
                            ("number", "Number in a range"),
                        ],
                        default="categorical",
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                (
                    "group",
                    models.SlugField(
                        blank=True,
                        help_text="e.g. learner, context, culture",
                        max_length=32,
                        verbose_name="group",
                    ),
                ),
                (
                    "minimum",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        max_digits=12,
                        null=True,
                        verbose_name="minimum",
                    ),
                ),
                (
                    "maximum",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        max_digits=12,
                        null=True,
                        verbose_name="maximum",
                    ),
                ),
                (
                    "whole_numbers",
                    models.BooleanField(
                        default=False,
                        help_text="A number variable that counts (a class size): 12.5 is refused.",
                        verbose_name="whole numbers only",
                    ),
                ),
                ("source", models.CharField(blank=True, max_length=300, verbose_name="source")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="context_variables",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
            ],
            options={
                "verbose_name": "context variable",
                "verbose_name_plural": "context variables",
                "ordering": ["framework", "order", "key"],
            },
        ),
        migrations.CreateModel(
            name="Competency",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.CharField(
                        help_text="Stable identifier used in criterion codes and files, e.g. 02 or 02a.",
                        max_length=16,
                        verbose_name="code",
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="competencies",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
            ],
            options={
                "verbose_name": "competency",
                "verbose_name_plural": "competencies",
                "ordering": ["framework", "order", "code"],
            },
        ),
        migrations.CreateModel(
            name="ProficiencyLevel",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.SlugField(max_length=64, verbose_name="code")),
                ("label", models.CharField(max_length=200, verbose_name="label")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "corresponds_to",
                    models.ForeignKey(
                        blank=True,
                        help_text="The closest level of another scale (approximate); reports group on it.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="taxonomy.proficiencylevel",
                        verbose_name="corresponds to",
                    ),
                ),
                (
                    "corresponds_to_upper",
                    models.ForeignKey(
                        blank=True,
                        help_text="When the level spans a range of the other scale: its highest level.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="taxonomy.proficiencylevel",
                        verbose_name="up to",
                    ),
                ),
            ],
            options={
                "verbose_name": "proficiency level",
                "verbose_name_plural": "proficiency levels",
                "ordering": ["scale", "order", "code"],
            },
        ),
        migrations.CreateModel(
            name="ContextValue",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.SlugField(max_length=64, verbose_name="code")),
                ("label", models.CharField(max_length=200, verbose_name="label")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "variable",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="values",
                        to="taxonomy.contextvariable",
                        verbose_name="variable",
                    ),
                ),
                (
                    "level",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="values",
                        to="taxonomy.proficiencylevel",
                        verbose_name="level",
                    ),
                ),
            ],
            options={
                "verbose_name": "context value",
                "verbose_name_plural": "context values",
                "ordering": ["variable", "order", "code"],
            },
        ),
        migrations.CreateModel(
            name="ProficiencyScale",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.SlugField(
                        help_text="Stable identifier, e.g. cefr or actfl.",
                        max_length=64,
                        verbose_name="code",
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        help_text="Short name reports use, e.g. CEFR.",
                        max_length=200,
                        verbose_name="name",
                    ),
                ),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "source",
                    models.CharField(
                        blank=True,
                        help_text="The publication the levels and mapping come from.",
                        max_length=300,
                        verbose_name="source",
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scales",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
            ],
            options={
                "verbose_name": "proficiency scale",
                "verbose_name_plural": "proficiency scales",
                "ordering": ["framework", "order", "code"],
            },
        ),
        migrations.AddField(
            model_name="proficiencylevel",
            name="scale",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="levels",
                to="taxonomy.proficiencyscale",
                verbose_name="scale",
            ),
        ),
        migrations.AddField(
            model_name="contextvariable",
            name="scale",
            field=models.ForeignKey(
                blank=True,
                help_text="An ordinal variable may take its values from a proficiency scale's levels.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="variables",
                to="taxonomy.proficiencyscale",
                verbose_name="scale",
            ),
        ),
        migrations.CreateModel(
            name="SubCompetency",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "code",
                    models.CharField(
                        help_text="Stable identifier used in criterion codes and files, e.g. 02 or 02a.",
                        max_length=16,
                        verbose_name="code",
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "competency",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="sub_competencies",
                        to="taxonomy.competency",
                        verbose_name="competency",
                    ),
                ),
            ],
            options={
                "verbose_name": "sub-competency",
                "verbose_name_plural": "sub-competencies",
                "ordering": ["competency__order", "competency__code", "order", "code"],
            },
        ),
        migrations.AddConstraint(
            model_name="competency",
            constraint=models.UniqueConstraint(
                fields=("framework", "code"),
                name="competency_code_unique_in_framework",
                violation_error_message="This code is already used by another competency.",
            ),
        ),
        migrations.AddConstraint(
            model_name="contextvalue",
            constraint=models.UniqueConstraint(
                fields=("variable", "code"),
                name="context_value_code_unique",
                violation_error_message="This code is already used by another value.",
            ),
        ),
        migrations.AddConstraint(
            model_name="contextvalue",
            constraint=models.UniqueConstraint(
                models.F("variable"),
                django.db.models.functions.text.Lower("label"),
                name="context_value_label_unique_ci",
                violation_error_message="This label is already used by another value.",
            ),
        ),
        migrations.AddConstraint(
            model_name="proficiencyscale",
            constraint=models.UniqueConstraint(
                fields=("framework", "code"),
                name="proficiency_scale_code_unique_in_framework",
                violation_error_message="This code is already used by another scale.",
            ),
        ),
        migrations.AddConstraint(
            model_name="proficiencylevel",
            constraint=models.UniqueConstraint(
                fields=("scale", "code"),
                name="proficiency_level_code_unique",
                violation_error_message="This code is already used by another level.",
            ),
        ),
        migrations.AddConstraint(
            model_name="proficiencylevel",
            constraint=models.UniqueConstraint(
                models.F("scale"),
                django.db.models.functions.text.Lower("label"),
                name="proficiency_level_label_unique_ci",
                violation_error_message="This label is already used by another level.",
            ),
        ),
        migrations.AddConstraint(
            model_name="contextvariable",
            constraint=models.UniqueConstraint(
                fields=("framework", "key"),
                name="context_variable_key_unique_in_framework",
                violation_error_message="This key is already used by another variable.",
            ),
        ),
        migrations.AddConstraint(
            model_name="contextvariable",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("minimum__isnull", True),
                    ("maximum__isnull", True),
                    ("minimum__lte", models.F("maximum")),
                    _connector="OR",
                ),
                name="context_variable_range_ordered",
            ),
        ),
        migrations.AddConstraint(
            model_name="subcompetency",
            constraint=models.UniqueConstraint(
                fields=("competency", "code"),
                name="sub_competency_code_unique_in_competency",
                violation_error_message="This code is already used in this competency.",
            ),
        ),
    ]
