"""accounts's tables as its 8 migrations up to 0008_invitation_unsent left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.contrib.auth.models
import django.contrib.auth.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import accounts.usernames


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("accounts", "0002_api_token"),
        ("accounts", "0003_alter_capability_options"),
        ("accounts", "0004_user_language"),
        ("accounts", "0005_model_names"),
        ("accounts", "0006_field_labels"),
        ("accounts", "0007_username_key"),
        ("accounts", "0008_invitation_unsent"),
    ]

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="Capability",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
            ],
            options={
                "verbose_name": "capability",
                "verbose_name_plural": "capabilities",
                "permissions": [
                    ("view_taxonomy", "View the taxonomy and context variables"),
                    ("edit_taxonomy", "Edit the taxonomy and context variables"),
                    ("view_benchmark", "View tasks, criteria and model responses"),
                    ("edit_rubrics", "Write tasks and criteria"),
                    ("review_rubrics", "Approve or return tasks submitted for review"),
                    ("import_data", "Import benchmarks, responses and judge verdicts"),
                    ("export_data", "Export rubrics, grades and reports"),
                    ("manage_studies", "Run grading studies and adjudicate"),
                    ("grade", "Grade assigned responses"),
                    ("view_history", "See who changed what"),
                    (
                        "manage_people",
                        "Invite people, set their role and expertise, deactivate them",
                    ),
                ],
                "managed": False,
                "default_permissions": (),
            },
        ),
        migrations.CreateModel(
            name="User",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("password", models.CharField(max_length=128, verbose_name="password")),
                (
                    "last_login",
                    models.DateTimeField(blank=True, null=True, verbose_name="last login"),
                ),
                (
                    "is_superuser",
                    models.BooleanField(
                        default=False,
                        help_text="Designates that this user has all permissions without explicitly assigning them.",
                        verbose_name="superuser status",
                    ),
                ),
                (
                    "first_name",
                    models.CharField(blank=True, max_length=150, verbose_name="first name"),
                ),
                (
                    "last_name",
                    models.CharField(blank=True, max_length=150, verbose_name="last name"),
                ),
                (
                    "email",
                    models.EmailField(blank=True, max_length=254, verbose_name="email address"),
                ),
                (
                    "is_staff",
                    models.BooleanField(
                        default=False,
                        help_text="Designates whether the user can log into this admin site.",
                        verbose_name="staff status",
                    ),
                ),
                (
                    "is_active",
                    models.BooleanField(
                        default=True,
                        help_text="Designates whether this user should be treated as active. Unselect this instead of deleting accounts.",
                        verbose_name="active",
                    ),
                ),
                (
                    "date_joined",
                    models.DateTimeField(
                        default=django.utils.timezone.now, verbose_name="date joined"
                    ),
                ),
                (
                    "username",
                    models.CharField(
                        error_messages={"unique": "A user with that username already exists."},
                        help_text="Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.",
                        max_length=150,
                        unique=True,
                        validators=[
                            django.contrib.auth.validators.UnicodeUsernameValidator(),
                            accounts.usernames.not_like_another,
                        ],
                        verbose_name="username",
                    ),
                ),
                (
                    "username_key",
                    models.CharField(
                        blank=True,
                        default="",
                        editable=False,
                        help_text="The user name as a reader sees it: no two accounts share it.",
                        max_length=300,
                        verbose_name="user name as read",
                    ),
                ),
                (
                    "display_name",
                    models.CharField(blank=True, max_length=150, verbose_name="display name"),
                ),
                (
                    "invitation_unsent",
                    models.BooleanField(
                        default=False,
                        editable=False,
                        help_text="The last email with a set-password link could not be sent (the mail server refused it or did not answer): send it again once mail works.",
                        verbose_name="invitation not sent",
                    ),
                ),
                (
                    "language",
                    models.CharField(
                        blank=True,
                        choices=[("en", "English"), ("es", "Español")],
                        max_length=10,
                        verbose_name="interface language",
                    ),
                ),
                (
                    "groups",
                    models.ManyToManyField(
                        blank=True,
                        help_text="The groups this user belongs to. A user will get all permissions granted to each of their groups.",
                        related_name="user_set",
                        related_query_name="user",
                        to="auth.group",
                        verbose_name="groups",
                    ),
                ),
                (
                    "user_permissions",
                    models.ManyToManyField(
                        blank=True,
                        help_text="Specific permissions for this user.",
                        related_name="user_set",
                        related_query_name="user",
                        to="auth.permission",
                        verbose_name="user permissions",
                    ),
                ),
            ],
            options={
                "verbose_name": "user",
                "verbose_name_plural": "users",
                "abstract": False,
            },
            managers=[
                ("objects", django.contrib.auth.models.UserManager()),
            ],
        ),
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        help_text="What the token is for, e.g. nightly export.",
                        max_length=100,
                        verbose_name="name",
                    ),
                ),
                (
                    "key_hash",
                    models.CharField(
                        editable=False, max_length=64, unique=True, verbose_name="key hash"
                    ),
                ),
                (
                    "hint",
                    models.CharField(
                        editable=False,
                        help_text="The key's first characters.",
                        max_length=12,
                        verbose_name="hint",
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "last_used",
                    models.DateTimeField(
                        blank=True, editable=False, null=True, verbose_name="last used at"
                    ),
                ),
                (
                    "revoked",
                    models.DateTimeField(
                        blank=True, editable=False, null=True, verbose_name="revoked"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_tokens",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="user",
                    ),
                ),
            ],
            options={
                "verbose_name": "API token",
                "verbose_name_plural": "API tokens",
                "ordering": ["-created", "-id"],
            },
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("username_key", ""), _negated=True),
                fields=("username_key",),
                name="user_name_reads_unlike_any_other",
                violation_error_message="This user name reads like another account's.",
            ),
        ),
    ]
