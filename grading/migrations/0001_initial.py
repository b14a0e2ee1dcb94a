"""grading's tables as its 15 migrations up to 0015_field_labels left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.core.validators
import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models

import grading.models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("grading", "0002_gold_verdict_revisions"),
        ("grading", "0003_likert_item_key"),
        ("grading", "0004_adjudication_request"),
        ("grading", "0005_study_name_unique_ignoring_case"),
        ("grading", "0006_turn_level_criteria"),
        ("grading", "0007_ordinal_levels"),
        ("grading", "0008_flags_and_criterion_time"),
        ("grading", "0009_language_codes"),
        ("grading", "0010_adaptive_overlap_and_gold_checks"),
        ("grading", "0011_pair_tally"),
        ("grading", "0012_sub_competency_label"),
        ("grading", "0013_results_revision"),
        ("grading", "0014_model_names"),
        ("grading", "0015_field_labels"),
    ]

    dependencies = [
        ("rubrics", "0001_initial"),
        ("taxonomy", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LikertItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "key",
                    models.SlugField(
                        help_text="Names the question in files: a judge's 1-5 ratings are matched on it.",
                        verbose_name="key",
                    ),
                ),
                ("prompt", models.CharField(max_length=300, verbose_name="prompt")),
                (
                    "label_1",
                    models.CharField(
                        default="Strongly disagree", max_length=60, verbose_name="label 1"
                    ),
                ),
                (
                    "label_2",
                    models.CharField(default="Disagree", max_length=60, verbose_name="label 2"),
                ),
                (
                    "label_3",
                    models.CharField(
                        default="Neither agree nor disagree", max_length=60, verbose_name="label 3"
                    ),
                ),
                (
                    "label_4",
                    models.CharField(default="Agree", max_length=60, verbose_name="label 4"),
                ),
                (
                    "label_5",
                    models.CharField(
                        default="Strongly agree", max_length=60, verbose_name="label 5"
                    ),
                ),
            ],
            options={
                "verbose_name": "rating question",
                "verbose_name_plural": "rating questions",
                "ordering": ["study", "order", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Study",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200, verbose_name="name")),
                ("description", models.TextField(blank=True, verbose_name="description")),
                (
                    "overlap",
                    models.PositiveSmallIntegerField(
                        default=3,
                        help_text="How many independent graders each response needs (k).",
                        validators=[django.core.validators.MinValueValidator(1)],
                        verbose_name="overlap",
                    ),
                ),
                (
                    "overlap_percent",
                    models.PositiveSmallIntegerField(
                        default=100,
                        help_text="Share of the responses (in %) graded by k graders; the rest get one grader, chosen by the study's seed.",
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(100),
                        ],
                        verbose_name="overlap percent",
                    ),
                ),
                (
                    "escalation",
                    models.CharField(
                        choices=[
                            ("off", "Never"),
                            ("any", "On any criterion"),
                            ("low", "On criteria below a threshold"),
                        ],
                        default="off",
                        help_text="When the submitted graders of a response disagree, assign one more grader.",
                        max_length=8,
                        verbose_name="escalation",
                    ),
                ),
                (
                    "escalation_threshold",
                    models.FloatField(
                        blank=True,
                        help_text="Escalate only on criteria whose Krippendorff's alpha in this study is below this (with 'criteria below a threshold').",
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(-1),
                            django.core.validators.MaxValueValidator(1),
                        ],
                        verbose_name="escalation threshold",
                    ),
                ),
                (
                    "escalation_cap",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="Most graders a response may reach by escalation.",
                        null=True,
                        validators=[django.core.validators.MinValueValidator(2)],
                        verbose_name="escalation cap",
                    ),
                ),
                (
                    "gold_rate",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Share (in %) of each annotator's queue made of gold checks, unannounced.",
                        validators=[django.core.validators.MaxValueValidator(50)],
                        verbose_name="gold rate",
                    ),
                ),
                (
                    "gold_warning",
                    models.FloatField(
                        blank=True,
                        help_text="Warn maintainers when an annotator's accuracy on gold checks is below this (0 to 1).",
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(1),
                        ],
                        verbose_name="gold warning",
                    ),
                ),
                (
                    "qualification_items",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Gold checks a new annotator grades first, before any real response; 0: no qualification round.",
                        verbose_name="qualification items",
                    ),
                ),
                (
                    "qualification_accuracy",
                    models.FloatField(
                        default=0.8,
                        help_text="Accuracy (0 to 1) on the qualification round needed to go on to real items.",
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(1),
                        ],
                        verbose_name="qualification accuracy",
                    ),
                ),
                (
                    "match_expertise",
                    models.BooleanField(
                        default=False,
                        help_text="Give a response only to annotators tagged for its sub-competency and language.",
                        verbose_name="match expertise",
                    ),
                ),
                ("deadline", models.DateTimeField(blank=True, null=True, verbose_name="deadline")),
                (
                    "status",
                    models.CharField(
                        choices=[("open", "Open"), ("closed", "Closed")],
                        default="open",
                        max_length=8,
                        verbose_name="status",
                    ),
                ),
                (
                    "require_rationale_on_fail",
                    models.BooleanField(default=True, verbose_name="require rationale on fail"),
                ),
                (
                    "show_grader_names_to_adjudicator",
                    models.BooleanField(
                        default=False, verbose_name="show grader names to adjudicator"
                    ),
                ),
                (
                    "seed",
                    models.PositiveIntegerField(
                        default=grading.models.new_seed,
                        help_text="Seeds the assignment and each annotator's item order.",
                        verbose_name="seed",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
            ],
            options={
                "verbose_name": "study",
                "verbose_name_plural": "studies",
                "ordering": ["-created_at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Assignment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "position",
                    models.PositiveIntegerField(
                        help_text="Place in this annotator's random order.", verbose_name="position"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("assigned", "Assigned"),
                            ("in_progress", "In progress"),
                            ("submitted", "Submitted"),
                        ],
                        default="assigned",
                        max_length=16,
                        verbose_name="status",
                    ),
                ),
                (
                    "started_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="started at"),
                ),
                (
                    "last_activity_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="last activity at"),
                ),
                (
                    "submitted_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="submitted at"),
                ),
                (
                    "time_spent_seconds",
                    models.PositiveIntegerField(default=0, verbose_name="time spent (seconds)"),
                ),
                (
                    "skipped_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="Set aside by its grader with a flag: out of their queue until a maintainer resolves the flag (returns it to them or gives it to another grader).",
                        null=True,
                        verbose_name="skipped at",
                    ),
                ),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="assignments",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="annotator",
                    ),
                ),
            ],
            options={
                "verbose_name": "assignment",
                "verbose_name_plural": "assignments",
                "ordering": ["annotator", "position", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Grade",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                (
                    "level",
                    models.IntegerField(
                        blank=True,
                        help_text="The scale point chosen on an ordinal criterion.",
                        null=True,
                        verbose_name="level",
                    ),
                ),
                ("rationale", models.TextField(blank=True, verbose_name="rationale")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
                (
                    "active_ms",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Active time the grader spent on this criterion before submitting, in milliseconds, as the grading page measures it (docs/grading.md); empty when not measured (the API, the offline workbook, a page without JavaScript).",
                        null=True,
                        verbose_name="active time (ms)",
                    ),
                ),
                (
                    "assignment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="grades",
                        to="grading.assignment",
                        verbose_name="assignment",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="grades",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
            ],
            options={
                "verbose_name": "grade",
                "verbose_name_plural": "grades",
                "ordering": ["assignment", "pk"],
            },
        ),
        migrations.CreateModel(
            name="GradeRevision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                ("level", models.IntegerField(blank=True, null=True, verbose_name="level")),
                ("rationale", models.TextField(blank=True, verbose_name="rationale")),
                (
                    "written_at",
                    models.DateTimeField(
                        help_text="When this value was saved.", verbose_name="written at"
                    ),
                ),
                (
                    "replaced_at",
                    models.DateTimeField(auto_now_add=True, verbose_name="replaced at"),
                ),
                (
                    "grade",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="revisions",
                        to="grading.grade",
                        verbose_name="grade",
                    ),
                ),
                (
                    "replaced_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="replaced by",
                    ),
                ),
            ],
            options={
                "verbose_name": "grade revision",
                "verbose_name_plural": "grade revisions",
                "ordering": ["grade", "replaced_at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="LikertRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
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
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
                (
                    "assignment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="likert_ratings",
                        to="grading.assignment",
                        verbose_name="assignment",
                    ),
                ),
                (
                    "item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ratings",
                        to="grading.likertitem",
                        verbose_name="item",
                    ),
                ),
            ],
            options={
                "verbose_name": "rating",
                "verbose_name_plural": "ratings",
                "ordering": ["assignment", "item__order"],
            },
        ),
        migrations.CreateModel(
            name="PoolMember",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "capacity",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Most responses this annotator grades; empty: no limit.",
                        null=True,
                        verbose_name="capacity",
                    ),
                ),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="study_memberships",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="annotator",
                    ),
                ),
            ],
            options={
                "verbose_name": "pool member",
                "verbose_name_plural": "pool members",
                "ordering": ["study", "annotator__username"],
            },
        ),
        migrations.CreateModel(
            name="ResultsRevision",
            fields=[
                (
                    "study",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="results_revision",
                        serialize=False,
                        to="grading.study",
                        verbose_name="study",
                    ),
                ),
                ("value", models.PositiveBigIntegerField(default=0, verbose_name="value")),
            ],
            options={
                "verbose_name": "results revision",
                "verbose_name_plural": "results revisions",
            },
        ),
        migrations.AddField(
            model_name="study",
            name="annotators",
            field=models.ManyToManyField(
                related_name="grading_studies",
                through="grading.PoolMember",
                to=settings.AUTH_USER_MODEL,
                verbose_name="annotators",
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="created by",
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="framework",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="studies",
                to="taxonomy.framework",
                verbose_name="framework",
            ),
        ),
        migrations.AddField(
            model_name="poolmember",
            name="study",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="pool",
                to="grading.study",
                verbose_name="study",
            ),
        ),
        migrations.AddField(
            model_name="likertitem",
            name="study",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="likert_items",
                to="grading.study",
                verbose_name="study",
            ),
        ),
        migrations.CreateModel(
            name="StudyItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "graders_wanted",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="Graders this response needs; empty: the study's k. One for the responses left out of the overlap, raised by escalation.",
                        null=True,
                        verbose_name="graders wanted",
                    ),
                ),
                (
                    "gold_source",
                    models.ForeignKey(
                        blank=True,
                        help_text="A gold check: the adjudicated item (of another study) whose gold verdicts its grades are scored against. Gold checks are not study data.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="gold_checks",
                        to="grading.studyitem",
                        verbose_name="gold source",
                    ),
                ),
                (
                    "response",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="study_items",
                        to="rubrics.response",
                        verbose_name="response",
                    ),
                ),
                (
                    "rubric_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="study_items",
                        to="rubrics.rubricversion",
                        verbose_name="rubric version",
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="items",
                        to="grading.study",
                        verbose_name="study",
                    ),
                ),
            ],
            options={
                "verbose_name": "study item",
                "verbose_name_plural": "study items",
                "ordering": ["study", "pk"],
            },
        ),
        migrations.CreateModel(
            name="PairTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("passes", models.PositiveIntegerField(default=0, verbose_name="passes")),
                ("fails", models.PositiveIntegerField(default=0, verbose_name="fails")),
                ("nas", models.PositiveIntegerField(default=0, verbose_name="not applicable")),
                ("levels", models.PositiveIntegerField(default=0, verbose_name="levels")),
                ("low_level", models.IntegerField(blank=True, null=True, verbose_name="low level")),
                (
                    "high_level",
                    models.IntegerField(blank=True, null=True, verbose_name="high level"),
                ),
                (
                    "split",
                    models.BooleanField(
                        default=False,
                        help_text="The submitted verdicts are not all the same.",
                        verbose_name="split",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="grading.study",
                        verbose_name="study",
                    ),
                ),
                (
                    "study_item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tallies",
                        to="grading.studyitem",
                        verbose_name="study item",
                    ),
                ),
            ],
            options={
                "verbose_name": "pair tally",
                "verbose_name_plural": "pair tallies",
                "ordering": ["study_item", "criterion_version"],
            },
        ),
        migrations.CreateModel(
            name="GoldVerdict",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                ("level", models.IntegerField(blank=True, null=True, verbose_name="level")),
                ("note", models.TextField(blank=True, verbose_name="note")),
                ("at", models.DateTimeField(auto_now=True, verbose_name="recorded at")),
                ("revision", models.PositiveIntegerField(default=1, verbose_name="revision")),
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
                        related_name="gold_verdicts",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "study_item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="gold",
                        to="grading.studyitem",
                        verbose_name="study item",
                    ),
                ),
            ],
            options={
                "verbose_name": "gold verdict",
                "verbose_name_plural": "gold verdicts",
                "ordering": ["study_item", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Flag",
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
                            ("criterion_unclear", "Criterion unclear"),
                            ("response_broken", "Response broken"),
                            ("other", "Other"),
                        ],
                        max_length=20,
                        verbose_name="kind",
                    ),
                ),
                ("comment", models.TextField(blank=True, verbose_name="comment")),
                (
                    "skipped",
                    models.BooleanField(
                        default=False,
                        help_text="The grader set the response aside with this flag.",
                        verbose_name="skipped",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "status",
                    models.CharField(
                        choices=[("open", "Open"), ("resolved", "Resolved")],
                        default="open",
                        max_length=8,
                        verbose_name="status",
                    ),
                ),
                ("resolution_note", models.TextField(blank=True, verbose_name="resolution note")),
                (
                    "outcome",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("returned", "Returned to its grader"),
                            ("reassigned", "Given to another grader"),
                        ],
                        max_length=10,
                        verbose_name="outcome",
                    ),
                ),
                (
                    "resolved_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="resolved at"),
                ),
                (
                    "by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="flags_raised",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="by",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        blank=True,
                        help_text="The criterion flagged; empty for the response as a whole.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="flags",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "draft",
                    models.ForeignKey(
                        blank=True,
                        help_text="The draft of the criterion's next version this flag's resolution opened.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="rubrics.criterionversion",
                        verbose_name="draft",
                    ),
                ),
                (
                    "reassigned_to",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="reassigned to",
                    ),
                ),
                (
                    "resolved_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="resolved by",
                    ),
                ),
                (
                    "study_item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="flags",
                        to="grading.studyitem",
                        verbose_name="study item",
                    ),
                ),
            ],
            options={
                "verbose_name": "flag",
                "verbose_name_plural": "flags",
                "ordering": ["-created_at", "pk"],
            },
        ),
        migrations.AddField(
            model_name="assignment",
            name="study_item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to="grading.studyitem",
                verbose_name="study item",
            ),
        ),
        migrations.CreateModel(
            name="AdjudicationRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reason", models.TextField(verbose_name="reason")),
                ("at", models.DateTimeField(auto_now_add=True, verbose_name="requested at")),
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
                    "study_item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="adjudication_requests",
                        to="grading.studyitem",
                        verbose_name="study item",
                    ),
                ),
            ],
            options={
                "verbose_name": "adjudication request",
                "verbose_name_plural": "adjudication requests",
                "ordering": ["study_item", "pk"],
            },
        ),
        migrations.CreateModel(
            name="TurnGrade",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                ("rationale", models.TextField(blank=True, verbose_name="rationale")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
                (
                    "assignment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="turn_grades",
                        to="grading.assignment",
                        verbose_name="assignment",
                    ),
                ),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="turn_grades",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "turn",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="grades",
                        to="rubrics.turn",
                        verbose_name="turn",
                    ),
                ),
            ],
            options={
                "verbose_name": "turn grade",
                "verbose_name_plural": "turn grades",
                "ordering": ["assignment", "criterion_version", "turn__index"],
            },
        ),
        migrations.CreateModel(
            name="TurnGradeRevision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                ("rationale", models.TextField(blank=True, verbose_name="rationale")),
                (
                    "written_at",
                    models.DateTimeField(
                        help_text="When this value was saved.", verbose_name="written at"
                    ),
                ),
                (
                    "replaced_at",
                    models.DateTimeField(auto_now_add=True, verbose_name="replaced at"),
                ),
                (
                    "replaced_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="replaced by",
                    ),
                ),
                (
                    "turn_grade",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="revisions",
                        to="grading.turngrade",
                        verbose_name="turn grade",
                    ),
                ),
            ],
            options={
                "verbose_name": "turn grade revision",
                "verbose_name_plural": "turn grade revisions",
                "ordering": ["turn_grade", "replaced_at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Expertise",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "language",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("ab", "Abkhazian"),
                            ("aa", "Afar"),
                            ("af", "Afrikaans"),
                            ("ak", "Akan"),
                            ("sq", "Albanian"),
                            ("am", "Amharic"),
                            ("ar", "Arabic"),
                            ("an", "Aragonese"),
                            ("hy", "Armenian"),
                            ("as", "Assamese"),
                            ("av", "Avaric"),
                            ("ae", "Avestan"),
                            ("ay", "Aymara"),
                            ("az", "Azerbaijani"),
                            ("bm", "Bambara"),
                            ("ba", "Bashkir"),
                            ("eu", "Basque"),
                            ("be", "Belarusian"),
                            ("bn", "Bengali"),
                            ("bi", "Bislama"),
                            ("bs", "Bosnian"),
                            ("br", "Breton"),
                            ("bg", "Bulgarian"),
                            ("my", "Burmese"),
                            ("ca", "Catalan"),
                            ("ch", "Chamorro"),
                            ("ce", "Chechen"),
                            ("ny", "Chichewa"),
                            ("zh", "Chinese"),
                            ("cu", "Church Slavic"),
                            ("cv", "Chuvash"),
                            ("kw", "Cornish"),
                            ("co", "Corsican"),
                            ("cr", "Cree"),
                            ("hr", "Croatian"),
                            ("cs", "Czech"),
                            ("da", "Danish"),
                            ("dv", "Divehi"),
                            ("nl", "Dutch"),
                            ("dz", "Dzongkha"),
                            ("en", "English"),
                            ("eo", "Esperanto"),
                            ("et", "Estonian"),
                            ("ee", "Ewe"),
                            ("fo", "Faroese"),
                            ("fj", "Fijian"),
                            ("fi", "Finnish"),
                            ("fr", "French"),
                            ("ff", "Fulah"),
                            ("gl", "Galician"),
                            ("lg", "Ganda"),
                            ("ka", "Georgian"),
                            ("de", "German"),
                            ("el", "Greek"),
                            ("gn", "Guarani"),
                            ("gu", "Gujarati"),
                            ("ht", "Haitian Creole"),
                            ("ha", "Hausa"),
                            ("he", "Hebrew"),
                            ("hz", "Herero"),
                            ("hi", "Hindi"),
                            ("ho", "Hiri Motu"),
                            ("hu", "Hungarian"),
                            ("is", "Icelandic"),
                            ("io", "Ido"),
                            ("ig", "Igbo"),
                            ("id", "Indonesian"),
                            ("ia", "Interlingua"),
                            ("ie", "Interlingue"),
                            ("iu", "Inuktitut"),
                            ("ik", "Inupiaq"),
                            ("ga", "Irish"),
                            ("it", "Italian"),
                            ("ja", "Japanese"),
                            ("jv", "Javanese"),
                            ("kl", "Kalaallisut"),
                            ("kn", "Kannada"),
                            ("kr", "Kanuri"),
                            ("ks", "Kashmiri"),
                            ("kk", "Kazakh"),
                            ("km", "Khmer"),
                            ("ki", "Kikuyu"),
                            ("rw", "Kinyarwanda"),
                            ("kv", "Komi"),
                            ("kg", "Kongo"),
                            ("ko", "Korean"),
                            ("kj", "Kuanyama"),
                            ("ku", "Kurdish"),
                            ("ky", "Kyrgyz"),
                            ("lo", "Lao"),
                            ("la", "Latin"),
                            ("lv", "Latvian"),
                            ("li", "Limburgish"),
                            ("ln", "Lingala"),
                            ("lt", "Lithuanian"),
                            ("lu", "Luba-Katanga"),
                            ("lb", "Luxembourgish"),
                            ("mk", "Macedonian"),
                            ("mg", "Malagasy"),
                            ("ms", "Malay"),
                            ("ml", "Malayalam"),
                            ("mt", "Maltese"),
                            ("gv", "Manx"),
                            ("mi", "Maori"),
                            ("mr", "Marathi"),
                            ("mh", "Marshallese"),
                            ("mn", "Mongolian"),
                            ("na", "Nauru"),
                            ("nv", "Navajo"),
                            ("ng", "Ndonga"),
                            ("ne", "Nepali"),
                            ("nd", "North Ndebele"),
                            ("se", "Northern Sami"),
                            ("no", "Norwegian"),
                            ("nb", "Norwegian Bokmål"),
                            ("nn", "Norwegian Nynorsk"),
                            ("oc", "Occitan"),
                            ("or", "Odia"),
                            ("oj", "Ojibwa"),
                            ("om", "Oromo"),
                            ("os", "Ossetian"),
                            ("pi", "Pali"),
                            ("ps", "Pashto"),
                            ("fa", "Persian"),
                            ("pl", "Polish"),
                            ("pt", "Portuguese"),
                            ("pa", "Punjabi"),
                            ("qu", "Quechua"),
                            ("ro", "Romanian"),
                            ("rm", "Romansh"),
                            ("rn", "Rundi"),
                            ("ru", "Russian"),
                            ("sm", "Samoan"),
                            ("sg", "Sango"),
                            ("sa", "Sanskrit"),
                            ("sc", "Sardinian"),
                            ("gd", "Scottish Gaelic"),
                            ("sr", "Serbian"),
                            ("sn", "Shona"),
                            ("ii", "Sichuan Yi"),
                            ("sd", "Sindhi"),
                            ("si", "Sinhala"),
                            ("sk", "Slovak"),
                            ("sl", "Slovenian"),
                            ("so", "Somali"),
                            ("nr", "South Ndebele"),
                            ("st", "Southern Sotho"),
                            ("es", "Spanish"),
                            ("su", "Sundanese"),
                            ("sw", "Swahili"),
                            ("ss", "Swati"),
                            ("sv", "Swedish"),
                            ("tl", "Tagalog"),
                            ("ty", "Tahitian"),
                            ("tg", "Tajik"),
                            ("ta", "Tamil"),
                            ("tt", "Tatar"),
                            ("te", "Telugu"),
                            ("th", "Thai"),
                            ("bo", "Tibetan"),
                            ("ti", "Tigrinya"),
                            ("to", "Tonga"),
                            ("ts", "Tsonga"),
                            ("tn", "Tswana"),
                            ("tr", "Turkish"),
                            ("tk", "Turkmen"),
                            ("tw", "Twi"),
                            ("uk", "Ukrainian"),
                            ("ur", "Urdu"),
                            ("ug", "Uyghur"),
                            ("uz", "Uzbek"),
                            ("ve", "Venda"),
                            ("vi", "Vietnamese"),
                            ("vo", "Volapük"),
                            ("wa", "Walloon"),
                            ("cy", "Welsh"),
                            ("fy", "Western Frisian"),
                            ("wo", "Wolof"),
                            ("xh", "Xhosa"),
                            ("yi", "Yiddish"),
                            ("yo", "Yoruba"),
                            ("za", "Zhuang"),
                            ("zu", "Zulu"),
                            ("und", "Undetermined"),
                        ],
                        help_text="ISO 639-1 code.",
                        max_length=8,
                        verbose_name="language",
                    ),
                ),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="expertise",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="annotator",
                    ),
                ),
                (
                    "sub_competency",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="taxonomy.subcompetency",
                        verbose_name="sub-competency",
                    ),
                ),
            ],
            options={
                "verbose_name": "expertise",
                "verbose_name_plural": "expertise",
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("sub_competency__isnull", False), ("language", "")),
                            models.Q(
                                ("sub_competency__isnull", True),
                                models.Q(("language", ""), _negated=True),
                            ),
                            _connector="OR",
                        ),
                        name="expertise_one_tag",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("sub_competency__isnull", False)),
                        fields=("annotator", "sub_competency"),
                        name="expertise_sub_competency_once",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("language", ""), _negated=True),
                        fields=("annotator", "language"),
                        name="expertise_language_once",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="GoldVerdictRevision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("revision", models.PositiveIntegerField(verbose_name="revision")),
                (
                    "verdict",
                    models.CharField(
                        blank=True,
                        choices=[("pass", "Pass"), ("fail", "Fail"), ("na", "N/A")],
                        max_length=4,
                        verbose_name="verdict",
                    ),
                ),
                ("level", models.IntegerField(blank=True, null=True, verbose_name="level")),
                ("note", models.TextField(blank=True, verbose_name="note")),
                (
                    "written_at",
                    models.DateTimeField(
                        help_text="When this value was saved.", verbose_name="written at"
                    ),
                ),
                (
                    "replaced_at",
                    models.DateTimeField(auto_now_add=True, verbose_name="replaced at"),
                ),
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
                    "gold",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="revisions",
                        to="grading.goldverdict",
                        verbose_name="gold",
                    ),
                ),
                (
                    "replaced_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="replaced by",
                    ),
                ),
            ],
            options={
                "verbose_name": "gold verdict revision",
                "verbose_name_plural": "gold verdict revisions",
                "ordering": ["gold", "-revision"],
                "constraints": [
                    models.UniqueConstraint(fields=("gold", "revision"), name="gold_revision_once")
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="grade",
            constraint=models.UniqueConstraint(
                fields=("assignment", "criterion_version"), name="grade_one_per_criterion"
            ),
        ),
        migrations.AddConstraint(
            model_name="grade",
            constraint=models.CheckConstraint(
                condition=models.Q(("level__isnull", True), ("verdict", ""), _connector="OR"),
                name="grade_level_or_verdict",
                violation_error_message="A grade is a verdict or a level of the scale, not both.",
            ),
        ),
        migrations.AddConstraint(
            model_name="likertrating",
            constraint=models.UniqueConstraint(
                fields=("assignment", "item"), name="likert_rating_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="likertrating",
            constraint=models.CheckConstraint(
                condition=models.Q(("value__gte", 1), ("value__lte", 5)),
                name="likert_rating_1_to_5",
            ),
        ),
        migrations.AddConstraint(
            model_name="study",
            constraint=models.CheckConstraint(
                condition=models.Q(("overlap__gte", 1)), name="study_overlap_gte_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="study",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("name"),
                name="study_name_unique_ignoring_case",
                violation_error_message="A study of this name already exists (names are compared without regard to case): choose another name.",
            ),
        ),
        migrations.AddConstraint(
            model_name="poolmember",
            constraint=models.UniqueConstraint(
                fields=("study", "annotator"), name="pool_member_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="likertitem",
            constraint=models.UniqueConstraint(
                fields=("study", "key"), name="likert_item_key_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="likertitem",
            constraint=models.CheckConstraint(
                condition=models.Q(("key", ""), _negated=True), name="likert_item_key_not_empty"
            ),
        ),
        migrations.AddConstraint(
            model_name="studyitem",
            constraint=models.UniqueConstraint(
                fields=("study", "response"), name="study_item_response_once"
            ),
        ),
        migrations.AddIndex(
            model_name="pairtally",
            index=models.Index(fields=["study", "split"], name="pair_tally_study_split"),
        ),
        migrations.AddConstraint(
            model_name="pairtally",
            constraint=models.UniqueConstraint(
                fields=("study_item", "criterion_version"), name="pair_tally_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="goldverdict",
            constraint=models.UniqueConstraint(
                fields=("study_item", "criterion_version"), name="gold_verdict_one_per_criterion"
            ),
        ),
        migrations.AddConstraint(
            model_name="goldverdict",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("level__isnull", True), models.Q(("verdict", ""), _negated=True)),
                    models.Q(("level__isnull", False), ("verdict", "")),
                    _connector="OR",
                ),
                name="gold_verdict_level_or_verdict",
                violation_error_message="A gold answer is a verdict or a level, not both.",
            ),
        ),
        migrations.AddIndex(
            model_name="flag",
            index=models.Index(
                fields=["status", "study_item"], name="grading_fla_status_224321_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="flag",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "criterion_unclear"), _negated=True),
                    ("criterion_version__isnull", False),
                    _connector="OR",
                ),
                name="flag_unclear_names_a_criterion",
            ),
        ),
        migrations.AddConstraint(
            model_name="flag",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("resolved_at__isnull", True), ("status", "open")),
                    models.Q(("resolved_at__isnull", False), ("status", "resolved")),
                    _connector="OR",
                ),
                name="flag_resolved_at_matches_status",
            ),
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(
                fields=["annotator", "status", "position"], name="grading_ass_annotat_5e1fab_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                fields=("study_item", "annotator"), name="assignment_one_per_annotator_and_item"
            ),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("status", "submitted"), ("submitted_at__isnull", False)),
                    models.Q(
                        models.Q(("status", "submitted"), _negated=True),
                        ("submitted_at__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="assignment_submitted_at_matches_status",
            ),
        ),
        migrations.AddConstraint(
            model_name="adjudicationrequest",
            constraint=models.UniqueConstraint(
                fields=("study_item", "criterion_version"), name="adjudication_requested_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="turngrade",
            constraint=models.UniqueConstraint(
                fields=("assignment", "criterion_version", "turn"),
                name="turn_grade_one_per_turn_and_criterion",
            ),
        ),
    ]
