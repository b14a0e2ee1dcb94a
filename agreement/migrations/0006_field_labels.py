"""Field labels (verbose names), translatable; nothing changes in the database."""

from django.db import migrations

from l2annot.migration_operations import LabelFields


class Migration(migrations.Migration):
    dependencies = [
        ("agreement", "0005_model_names"),
        ("grading", "0015_field_labels"),
    ]

    operations = [
        LabelFields(
            {
                "analysissettings": {
                    "epsilon": "epsilon",
                    "minimum_units": "minimum units",
                    "resamples": "resamples",
                    "seed": "seed",
                    "show_annotator_names": "show annotator names",
                    "study": "study",
                    "validation_threshold": "validation threshold",
                }
            }
        ),
    ]
