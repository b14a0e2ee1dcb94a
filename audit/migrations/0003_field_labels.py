"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.conf import settings
from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0002_model_names"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        LabelFields(
            {
                "auditevent": {
                    "actor": "actor",
                    "at": "recorded at",
                    "changes": "changes",
                    "comment": "comment",
                    "content_type": "content type",
                    "kind": "kind",
                    "object_id": "object id",
                    "object_repr": "object",
                }
            }
        ),
    ]
