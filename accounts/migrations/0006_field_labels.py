"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_model_names"),
    ]

    operations = [
        LabelFields(
            {
                "apitoken": {
                    "created": "created at",
                    "hint": "hint",
                    "key_hash": "key hash",
                    "last_used": "last used at",
                    "name": "name",
                    "revoked": "revoked",
                    "user": "user",
                },
                "user": {"display_name": "display name"},
            }
        ),
    ]
