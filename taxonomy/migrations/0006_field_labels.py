"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("taxonomy", "0005_model_names"),
    ]

    operations = [
        LabelFields(
            {
                "competency": {
                    "code": "code",
                    "description": "description",
                    "framework": "framework",
                    "name": "name",
                    "order": "order",
                    "revision": "revision",
                },
                "contextvalue": {
                    "code": "code",
                    "description": "description",
                    "label": "label",
                    "level": "level",
                    "order": "order",
                    "revision": "revision",
                    "variable": "variable",
                },
                "contextvariable": {
                    "description": "description",
                    "framework": "framework",
                    "group": "group",
                    "key": "key",
                    "kind": "kind",
                    "label": "label",
                    "maximum": "maximum",
                    "minimum": "minimum",
                    "order": "order",
                    "revision": "revision",
                    "scale": "scale",
                    "source": "source",
                },
                "framework": {
                    "code": "code",
                    "description": "description",
                    "name": "name",
                    "note": "note",
                    "revision": "revision",
                },
                "proficiencylevel": {
                    "code": "code",
                    "corresponds_to": "corresponds to",
                    "description": "description",
                    "label": "label",
                    "order": "order",
                    "revision": "revision",
                    "scale": "scale",
                },
                "proficiencyscale": {
                    "code": "code",
                    "description": "description",
                    "framework": "framework",
                    "name": "name",
                    "order": "order",
                    "revision": "revision",
                    "source": "source",
                },
                "subcompetency": {
                    "code": "code",
                    "competency": "competency",
                    "description": "description",
                    "name": "name",
                    "order": "order",
                    "revision": "revision",
                },
            }
        ),
    ]
