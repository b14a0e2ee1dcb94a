from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


def closed_studies_were_told(apps, schema_editor):
    """A study closed before this release (by a maintainer, or past its deadline) is not told
    again: only closings from now on are."""
    Study = apps.get_model("grading", "Study")
    closed = Q(status="closed") | Q(deadline__lte=timezone.now())
    Study.objects.filter(closed).update(closing_told=True)


class Migration(migrations.Migration):
    dependencies = [
        ("grading", "0003_split_reasons_and_confidence"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="closing_told",
            field=models.BooleanField(
                default=False,
                editable=False,
                help_text="The webhooks were told that this study closed.",
                verbose_name="closing told",
            ),
        ),
        migrations.RunPython(closed_studies_were_told, migrations.RunPython.noop),
    ]
