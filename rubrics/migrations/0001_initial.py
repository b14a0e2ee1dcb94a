"""rubrics's tables as its 10 migrations up to 0010_response_versions left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("rubrics", "0002_response_epoch"),
        ("rubrics", "0003_published_resources_and_context"),
        ("rubrics", "0004_author_input_bounds"),
        ("rubrics", "0005_turn_level_criteria"),
        ("rubrics", "0006_language_codes"),
        ("rubrics", "0007_sub_competency_label"),
        ("rubrics", "0008_model_names"),
        ("rubrics", "0009_field_labels"),
        ("rubrics", "0010_response_versions"),
    ]

    dependencies = [
        ("taxonomy", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Criterion",
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
                        help_text="Universal 06u1, consensus 02a-05, task <task key>-06.",
                        max_length=80,
                        verbose_name="code",
                    ),
                ),
                (
                    "layer",
                    models.CharField(
                        choices=[
                            ("universal", "Universal"),
                            ("consensus", "Consensus"),
                            ("task", "Task"),
                        ],
                        max_length=16,
                        verbose_name="layer",
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                (
                    "retired",
                    models.BooleanField(
                        default=False,
                        help_text="Retired criteria leave every rubric published after retiring.",
                        verbose_name="retired",
                    ),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="criteria",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
                (
                    "sub_competency",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="consensus_criteria",
                        to="taxonomy.subcompetency",
                        verbose_name="sub-competency",
                    ),
                ),
            ],
            options={
                "verbose_name": "criterion",
                "verbose_name_plural": "criteria",
                "ordering": ["framework", "layer", "order", "code"],
            },
        ),
        migrations.CreateModel(
            name="CriterionVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(verbose_name="number")),
                (
                    "wording",
                    models.TextField(
                        max_length=1000,
                        validators=[django.core.validators.MaxLengthValidator(1000)],
                        verbose_name="wording",
                    ),
                ),
                (
                    "passes",
                    models.TextField(
                        blank=True,
                        max_length=5000,
                        validators=[django.core.validators.MaxLengthValidator(5000)],
                        verbose_name="what passes",
                    ),
                ),
                (
                    "fails",
                    models.TextField(
                        blank=True,
                        max_length=5000,
                        validators=[django.core.validators.MaxLengthValidator(5000)],
                        verbose_name="what fails",
                    ),
                ),
                (
                    "pass_example",
                    models.TextField(
                        blank=True,
                        max_length=5000,
                        validators=[django.core.validators.MaxLengthValidator(5000)],
                        verbose_name="pass example",
                    ),
                ),
                (
                    "fail_example",
                    models.TextField(
                        blank=True,
                        max_length=5000,
                        validators=[django.core.validators.MaxLengthValidator(5000)],
                        verbose_name="fail example",
                    ),
                ),
                (
                    "weight",
                    models.IntegerField(
                        help_text="A whole number from -100 to 100, not 0. Negative for a penalty: the criterion then names an undesirable behaviour.",
                        validators=[
                            django.core.validators.MinValueValidator(-100),
                            django.core.validators.MaxValueValidator(100),
                        ],
                        verbose_name="weight",
                    ),
                ),
                (
                    "scoring_type",
                    models.CharField(
                        choices=[("binary", "Met / not met"), ("ordinal", "Ordinal scale")],
                        default="binary",
                        max_length=16,
                        verbose_name="scoring type",
                    ),
                ),
                (
                    "scale_min",
                    models.IntegerField(blank=True, null=True, verbose_name="scale minimum"),
                ),
                (
                    "scale_max",
                    models.IntegerField(blank=True, null=True, verbose_name="scale maximum"),
                ),
                (
                    "applies_to",
                    models.CharField(
                        choices=[
                            ("response", "The whole response"),
                            ("turn", "Each tutor turn of a dialogue"),
                        ],
                        default="response",
                        help_text="A turn-level criterion is graded on each tutor turn of a dialogue (on a text response, once, as a whole).",
                        max_length=8,
                        verbose_name="applies to",
                    ),
                ),
                (
                    "turn_rule",
                    models.CharField(
                        choices=[
                            ("all", "Every turn"),
                            ("share", "A share of the turns"),
                            ("any", "Any turn"),
                        ],
                        default="all",
                        help_text="A turn-level criterion is judged true of the response when it is judged true of every turn, of at least the share below, or of any turn (docs/rubrics.md).",
                        max_length=8,
                        verbose_name="turn rule",
                    ),
                ),
                (
                    "turn_share",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="For 'a share of the turns': the percentage of graded turns (1-100).",
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(100),
                        ],
                        verbose_name="turn share",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "frozen",
                    models.BooleanField(
                        default=False,
                        editable=False,
                        help_text="Used by a published rubric: never changes.",
                        verbose_name="frozen",
                    ),
                ),
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
                    "criterion",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="rubrics.criterion",
                        verbose_name="criterion",
                    ),
                ),
            ],
            options={
                "verbose_name": "criterion version",
                "verbose_name_plural": "criterion versions",
                "ordering": ["criterion", "number"],
                "get_latest_by": "number",
            },
        ),
        migrations.CreateModel(
            name="RubricVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(verbose_name="number")),
                (
                    "published_at",
                    models.DateTimeField(auto_now_add=True, verbose_name="published at"),
                ),
                ("instruction", models.TextField(verbose_name="instruction")),
                ("system_prompt", models.TextField(blank=True, verbose_name="system prompt")),
                ("reference_answer", models.TextField(blank=True, verbose_name="reference answer")),
                (
                    "published_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="published by",
                    ),
                ),
            ],
            options={
                "verbose_name": "rubric version",
                "verbose_name_plural": "rubric versions",
                "ordering": ["task", "number"],
                "get_latest_by": "number",
            },
        ),
        migrations.CreateModel(
            name="RubricItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "layer",
                    models.CharField(
                        choices=[
                            ("universal", "Universal"),
                            ("consensus", "Consensus"),
                            ("task", "Task"),
                        ],
                        max_length=16,
                        verbose_name="layer",
                    ),
                ),
                ("order", models.PositiveIntegerField(verbose_name="order")),
                ("applicable", models.BooleanField(default=True, verbose_name="applicable")),
                ("na_reason", models.TextField(blank=True, verbose_name="why it does not apply")),
                (
                    "criterion_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="rubric_items",
                        to="rubrics.criterionversion",
                        verbose_name="criterion version",
                    ),
                ),
                (
                    "rubric_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="items",
                        to="rubrics.rubricversion",
                        verbose_name="rubric version",
                    ),
                ),
            ],
            options={
                "verbose_name": "rubric item",
                "verbose_name_plural": "rubric items",
                "ordering": ["rubric_version", "order"],
            },
        ),
        migrations.CreateModel(
            name="PublishedResource",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("order", models.PositiveIntegerField(verbose_name="order")),
                ("title", models.CharField(max_length=200, verbose_name="title")),
                (
                    "kind",
                    models.CharField(
                        choices=[("markdown", "Text (markdown)"), ("file", "File")],
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                ("text", models.TextField(blank=True, verbose_name="text")),
                (
                    "file",
                    models.FileField(
                        blank=True, upload_to="task_resources/%Y/", verbose_name="file"
                    ),
                ),
                (
                    "rubric_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="resources",
                        to="rubrics.rubricversion",
                        verbose_name="rubric version",
                    ),
                ),
            ],
            options={
                "verbose_name": "published resource",
                "verbose_name_plural": "published resources",
                "ordering": ["rubric_version", "order", "pk"],
            },
        ),
        migrations.CreateModel(
            name="PublishedContextValue",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField(blank=True, verbose_name="text")),
                (
                    "number",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        max_digits=12,
                        null=True,
                        verbose_name="number",
                    ),
                ),
                (
                    "value",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="taxonomy.contextvalue",
                        verbose_name="value",
                    ),
                ),
                (
                    "variable",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="taxonomy.contextvariable",
                        verbose_name="variable",
                    ),
                ),
                (
                    "rubric_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="context_values",
                        to="rubrics.rubricversion",
                        verbose_name="rubric version",
                    ),
                ),
            ],
            options={
                "verbose_name": "published context value",
                "verbose_name_plural": "published context values",
                "ordering": ["rubric_version", "variable__order", "variable__key"],
            },
        ),
        migrations.CreateModel(
            name="ScalePoint",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("value", models.IntegerField(verbose_name="value")),
                ("label", models.CharField(max_length=200, verbose_name="label")),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scale_points",
                        to="rubrics.criterionversion",
                        verbose_name="version",
                    ),
                ),
            ],
            options={
                "verbose_name": "scale point",
                "verbose_name_plural": "scale points",
                "ordering": ["version", "value"],
            },
        ),
        migrations.CreateModel(
            name="Task",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "key",
                    models.CharField(
                        help_text="The task's id in files and criterion codes, e.g. 137. Kept as text.",
                        max_length=64,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[\\w.-]+$", "Letters, digits, '.', '_' and '-' only."
                            )
                        ],
                        verbose_name="key",
                    ),
                ),
                (
                    "instruction",
                    models.TextField(
                        help_text="What the model is asked to do.",
                        max_length=50000,
                        validators=[django.core.validators.MaxLengthValidator(50000)],
                        verbose_name="instruction",
                    ),
                ),
                (
                    "system_prompt",
                    models.TextField(
                        blank=True,
                        max_length=50000,
                        validators=[django.core.validators.MaxLengthValidator(50000)],
                        verbose_name="system prompt",
                    ),
                ),
                (
                    "reference_answer",
                    models.TextField(
                        blank=True,
                        help_text="The experts' reference answer.",
                        max_length=50000,
                        validators=[django.core.validators.MaxLengthValidator(50000)],
                        verbose_name="reference answer",
                    ),
                ),
                (
                    "difficulty",
                    models.CharField(
                        blank=True,
                        choices=[("easy", "Easy"), ("medium", "Medium"), ("hard", "Hard")],
                        max_length=8,
                        verbose_name="difficulty",
                    ),
                ),
                (
                    "language",
                    models.CharField(
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
                        default="en",
                        help_text="Target language: its ISO 639-1 code (taxonomy.languages).",
                        max_length=8,
                        verbose_name="language",
                    ),
                ),
                (
                    "task_type",
                    models.CharField(
                        choices=[("open_ended", "Open-ended"), ("structured", "Structured")],
                        default="open_ended",
                        max_length=16,
                        verbose_name="task type",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("draft", "Draft"),
                            ("in_review", "In review"),
                            ("published", "Published"),
                            ("retired", "Retired"),
                        ],
                        default="draft",
                        editable=False,
                        max_length=16,
                        verbose_name="status",
                    ),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
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
                    "framework",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="tasks",
                        to="taxonomy.framework",
                        verbose_name="framework",
                    ),
                ),
                (
                    "sub_competency",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="tasks",
                        to="taxonomy.subcompetency",
                        verbose_name="sub-competency",
                    ),
                ),
            ],
            options={
                "verbose_name": "task",
                "verbose_name_plural": "tasks",
                "ordering": ["framework", "key"],
            },
        ),
        migrations.AddField(
            model_name="rubricversion",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="rubric_versions",
                to="rubrics.task",
                verbose_name="task",
            ),
        ),
        migrations.CreateModel(
            name="Review",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("submitted", "Submitted for review"),
                            ("approved", "Approved and published"),
                            ("returned", "Returned for changes"),
                        ],
                        max_length=16,
                        verbose_name="action",
                    ),
                ),
                ("at", models.DateTimeField(auto_now_add=True, verbose_name="reviewed at")),
                ("comment", models.TextField(blank=True, verbose_name="comment")),
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
                    "rubric_version",
                    models.ForeignKey(
                        blank=True,
                        help_text="The version an approval published.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="rubrics.rubricversion",
                        verbose_name="rubric version",
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reviews",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
            ],
            options={
                "verbose_name": "review",
                "verbose_name_plural": "reviews",
                "ordering": ["task", "at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Response",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "external_id",
                    models.CharField(
                        blank=True,
                        help_text="Id in the source file: a re-import finds the response by it.",
                        max_length=200,
                        verbose_name="external id",
                    ),
                ),
                ("model_name", models.CharField(max_length=200, verbose_name="model name")),
                (
                    "model_family",
                    models.CharField(
                        blank=True,
                        help_text="Vendor or family.",
                        max_length=200,
                        verbose_name="model family",
                    ),
                ),
                (
                    "model_version",
                    models.CharField(blank=True, max_length=200, verbose_name="model version"),
                ),
                (
                    "epoch",
                    models.PositiveIntegerField(
                        default=1,
                        help_text="Which repeat of the run gave this response (1 unless its file said otherwise); judge verdicts may name a response by task, model and epoch.",
                        verbose_name="epoch",
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("text", "Text"), ("conversation", "Conversation")],
                        default="text",
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                ("text", models.TextField(blank=True, verbose_name="text")),
                (
                    "version",
                    models.PositiveIntegerField(
                        default=1,
                        help_text="Counts the changes of a response that had been graded or judged: each change made its next version, and the studies and verdicts kept the version they read.",
                        verbose_name="version",
                    ),
                ),
                (
                    "superseded_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When a newer version of this response replaced it; empty: current.",
                        null=True,
                        verbose_name="superseded at",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="responses",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
            ],
            options={
                "verbose_name": "response",
                "verbose_name_plural": "responses",
                "ordering": ["task", "model_name", "pk"],
            },
        ),
        migrations.AddField(
            model_name="criterion",
            name="task",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="criteria",
                to="rubrics.task",
                verbose_name="task",
            ),
        ),
        migrations.CreateModel(
            name="TaskContextValue",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField(blank=True, verbose_name="text")),
                (
                    "number",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        max_digits=12,
                        null=True,
                        verbose_name="number",
                    ),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="context_values",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
                (
                    "value",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="taxonomy.contextvalue",
                        verbose_name="value",
                    ),
                ),
                (
                    "variable",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="taxonomy.contextvariable",
                        verbose_name="variable",
                    ),
                ),
            ],
            options={
                "verbose_name": "task context value",
                "verbose_name_plural": "task context values",
                "ordering": ["task", "variable__order", "variable__key"],
            },
        ),
        migrations.CreateModel(
            name="TaskResource",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0, verbose_name="order")),
                ("title", models.CharField(max_length=200, verbose_name="title")),
                (
                    "kind",
                    models.CharField(
                        choices=[("markdown", "Text (markdown)"), ("file", "File")],
                        default="markdown",
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                ("text", models.TextField(blank=True, verbose_name="text")),
                (
                    "file",
                    models.FileField(
                        blank=True, upload_to="task_resources/%Y/", verbose_name="file"
                    ),
                ),
                (
                    "revision",
                    models.PositiveIntegerField(default=1, editable=False, verbose_name="revision"),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="resources",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
            ],
            options={
                "verbose_name": "task resource",
                "verbose_name_plural": "task resources",
                "ordering": ["task", "order", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Turn",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("index", models.PositiveIntegerField(verbose_name="index")),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("system", "System"),
                            ("user", "User"),
                            ("assistant", "Assistant"),
                        ],
                        max_length=16,
                        verbose_name="role",
                    ),
                ),
                ("content", models.TextField(verbose_name="content")),
                (
                    "response",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="turns",
                        to="rubrics.response",
                        verbose_name="response",
                    ),
                ),
            ],
            options={
                "verbose_name": "turn",
                "verbose_name_plural": "turns",
                "ordering": ["response", "index"],
            },
        ),
        migrations.CreateModel(
            name="UniversalExclusion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reason", models.TextField(verbose_name="reason")),
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
                    "criterion",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="exclusions",
                        to="rubrics.criterion",
                        verbose_name="criterion",
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="universal_exclusions",
                        to="rubrics.task",
                        verbose_name="task",
                    ),
                ),
            ],
            options={
                "verbose_name": "universal exclusion",
                "verbose_name_plural": "universal exclusions",
                "ordering": ["task", "criterion__code"],
            },
        ),
        migrations.AddConstraint(
            model_name="criterionversion",
            constraint=models.UniqueConstraint(
                fields=("criterion", "number"), name="criterion_version_number_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="criterionversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("weight", 0), _negated=True),
                name="criterion_version_weight_not_zero",
                violation_error_message="A weight of 0 would make the criterion count for nothing.",
            ),
        ),
        migrations.AddConstraint(
            model_name="criterionversion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("scale_max__isnull", True),
                        ("scale_min__isnull", True),
                        ("scoring_type", "binary"),
                    ),
                    models.Q(("scale_min__lt", models.F("scale_max")), ("scoring_type", "ordinal")),
                    _connector="OR",
                ),
                name="criterion_version_scale_matches_type",
                violation_error_message="An ordinal criterion needs a scale minimum below its maximum; a binary criterion has no scale.",
            ),
        ),
        migrations.AddConstraint(
            model_name="criterionversion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("turn_rule", "share"), ("turn_share__gte", 1), ("turn_share__lte", 100)
                    ),
                    models.Q(
                        models.Q(("turn_rule", "share"), _negated=True),
                        ("turn_share__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="criterion_version_turn_share_matches_rule",
                violation_error_message="'A share of the turns' needs a percentage from 1 to 100; the other rules take none.",
            ),
        ),
        migrations.AddConstraint(
            model_name="rubricitem",
            constraint=models.UniqueConstraint(
                fields=("rubric_version", "criterion_version"), name="rubric_item_once_per_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="rubricitem",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("applicable", True), ("na_reason", "")),
                    models.Q(("applicable", False), models.Q(("na_reason", ""), _negated=True)),
                    _connector="OR",
                ),
                name="rubric_item_na_has_reason",
            ),
        ),
        migrations.AddConstraint(
            model_name="publishedcontextvalue",
            constraint=models.UniqueConstraint(
                fields=("rubric_version", "variable"), name="published_context_value_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="scalepoint",
            constraint=models.UniqueConstraint(
                fields=("version", "value"), name="scale_point_value_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="task",
            constraint=models.UniqueConstraint(
                fields=("framework", "key"),
                name="task_key_unique_in_framework",
                violation_error_message="This key is already used by another task.",
            ),
        ),
        migrations.AddConstraint(
            model_name="rubricversion",
            constraint=models.UniqueConstraint(
                fields=("task", "number"), name="rubric_version_number_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.CheckConstraint(
                condition=models.Q(("action", "returned"), ("comment", ""), _negated=True),
                name="review_return_has_comment",
                violation_error_message="Say what needs changing.",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.UniqueConstraint(
                condition=models.Q(("external_id", ""), _negated=True),
                fields=("task", "external_id", "version"),
                name="response_version_unique_per_task",
                violation_error_message="This task already has this version of this response.",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    models.Q(("external_id", ""), _negated=True), ("superseded_at__isnull", True)
                ),
                fields=("task", "external_id"),
                name="response_one_current_version",
                violation_error_message="This task already has a response with this id.",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("external_id", ""), _negated=True),
                    models.Q(("superseded_at__isnull", True), ("version", 1)),
                    _connector="OR",
                ),
                name="response_without_id_has_one_version",
                violation_error_message="A response without an id has one version only.",
            ),
        ),
        migrations.AddConstraint(
            model_name="response",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "text"), models.Q(("text", ""), _negated=True)),
                    models.Q(("kind", "conversation"), ("text", "")),
                    _connector="OR",
                ),
                name="response_text_matches_kind",
                violation_error_message="A text response needs its text; a conversation has turns.",
            ),
        ),
        migrations.AddConstraint(
            model_name="criterion",
            constraint=models.UniqueConstraint(
                fields=("framework", "code"),
                name="criterion_code_unique_in_framework",
                violation_error_message="This code is already used by another criterion.",
            ),
        ),
        migrations.AddConstraint(
            model_name="criterion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("layer", "universal"),
                        ("sub_competency__isnull", True),
                        ("task__isnull", True),
                    ),
                    models.Q(
                        ("layer", "consensus"),
                        ("sub_competency__isnull", False),
                        ("task__isnull", True),
                    ),
                    models.Q(
                        ("layer", "task"), ("sub_competency__isnull", True), ("task__isnull", False)
                    ),
                    _connector="OR",
                ),
                name="criterion_owner_matches_layer",
                violation_error_message="A universal criterion belongs to the framework only, a consensus criterion to a sub-competency, a task criterion to a task.",
            ),
        ),
        migrations.AddConstraint(
            model_name="taskcontextvalue",
            constraint=models.UniqueConstraint(
                fields=("task", "variable"),
                name="task_context_value_one_per_variable",
                violation_error_message="This task already has a value for this variable.",
            ),
        ),
        migrations.AddConstraint(
            model_name="taskcontextvalue",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("number__isnull", True), ("text", ""), ("value__isnull", False)),
                    models.Q(("number__isnull", False), ("text", ""), ("value__isnull", True)),
                    models.Q(
                        ("number__isnull", True),
                        ("value__isnull", True),
                        models.Q(("text", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="task_context_value_exactly_one_value",
                violation_error_message="Give exactly one of a listed value, a text or a number.",
            ),
        ),
        migrations.AddConstraint(
            model_name="taskresource",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("file", ""), ("kind", "markdown"), models.Q(("text", ""), _negated=True)
                    ),
                    models.Q(("kind", "file"), models.Q(("file", ""), _negated=True)),
                    _connector="OR",
                ),
                name="task_resource_content_matches_kind",
                violation_error_message="A text resource needs its text; a file resource a file.",
            ),
        ),
        migrations.AddConstraint(
            model_name="turn",
            constraint=models.UniqueConstraint(
                fields=("response", "index"), name="turn_index_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="universalexclusion",
            constraint=models.UniqueConstraint(
                fields=("task", "criterion"),
                name="universal_exclusion_once_per_task",
                violation_error_message="This criterion is already excluded for this task.",
            ),
        ),
        migrations.AddConstraint(
            model_name="universalexclusion",
            constraint=models.CheckConstraint(
                condition=models.Q(("reason", ""), _negated=True),
                name="universal_exclusion_has_reason",
                violation_error_message="Say why the criterion does not apply.",
            ),
        ),
    ]
