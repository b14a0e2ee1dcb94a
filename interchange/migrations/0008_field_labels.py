"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.conf import settings
from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0015_field_labels"),
        ("interchange", "0007_model_names"),
        ("rubrics", "0009_field_labels"),
        ("taxonomy", "0006_field_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        LabelFields(
            {
                "importjob": {
                    "annotator": "annotator",
                    "counts": "counts",
                    "create_missing": "create missing",
                    "created_at": "created at",
                    "created_by": "created by",
                    "dry_run": "dry run",
                    "file": "file",
                    "finished_at": "finished at",
                    "framework": "framework",
                    "heartbeat_at": "heartbeat at",
                    "kind": "kind",
                    "notes": "notes",
                    "original_name": "original name",
                    "problems": "problems",
                    "progress": "progress",
                    "stage": "stage",
                    "started_at": "started at",
                    "status": "status",
                    "study": "study",
                    "submit": "submit",
                    "summary": "summary",
                    "token": "token",
                    "worker": "worker",
                },
                "tasksource": {
                    "task": "task",
                    "version_at_time_of_draft": "version at time of draft",
                },
            }
        ),
    ]
