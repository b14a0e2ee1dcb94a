"""audit's tables as its 3 migrations up to 0003_field_labels left them, in one.

It keeps the first one's name and replaces the others, so a database that has them all
applied has nothing to do here (docs/development.md, Migrations)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("audit", "0002_model_names"),
        ("audit", "0003_field_labels"),
    ]

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("object_id", models.CharField(max_length=64, verbose_name="object id")),
                ("object_repr", models.CharField(max_length=300, verbose_name="object")),
                (
                    "at",
                    models.DateTimeField(
                        auto_now_add=True, db_index=True, verbose_name="recorded at"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("created", "created"),
                            ("updated", "updated"),
                            ("deleted", "deleted"),
                            ("moved", "reordered"),
                            ("imported", "imported"),
                            ("status", "status changed"),
                        ],
                        max_length=16,
                        verbose_name="kind",
                    ),
                ),
                ("changes", models.JSONField(blank=True, default=dict, verbose_name="changes")),
                ("comment", models.TextField(blank=True, verbose_name="comment")),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="actor",
                    ),
                ),
                (
                    "content_type",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        to="contenttypes.contenttype",
                        verbose_name="content type",
                    ),
                ),
            ],
            options={
                "verbose_name": "audit event",
                "verbose_name_plural": "audit events",
                "ordering": ["-at", "-id"],
                "indexes": [
                    models.Index(
                        fields=["content_type", "object_id", "-at"],
                        name="audit_audit_content_f08ea6_idx",
                    )
                ],
            },
        ),
    ]
