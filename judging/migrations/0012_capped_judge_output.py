"""A judge's output is stored up to settings.JUDGE_RATIONALE_MAX_CHARS characters (judging.output):
the outputs stored before are capped the same way, so no page or API answer carries megabytes."""

from django.conf import settings
from django.db import migrations, models
from django.db.models.functions import Length

MARKER = "\n[… %(left)s more characters of the judge's output not stored]"


def cap_stored_outputs(apps, schema_editor):
    most = settings.JUDGE_RATIONALE_MAX_CHARS
    for name in ("JudgeVerdict", "JudgeRating"):
        model = apps.get_model("judging", name)
        long = model.objects.annotate(length=Length("rationale")).filter(length__gt=most)
        for row in long.only("pk", "rationale").iterator(chunk_size=100):
            left = len(row.rationale) - most
            row.rationale = row.rationale[:most] + MARKER % {"left": f"{left:,}"}
            row.save(update_fields=["rationale"])


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0011_field_labels"),
    ]

    operations = [
        migrations.AlterField(
            model_name="judgeverdict",
            name="rationale",
            field=models.TextField(
                blank=True,
                help_text="The judge's output, its first JUDGE_RATIONALE_MAX_CHARS characters "
                "(the run's .eval log keeps all of it).",
                verbose_name="rationale",
            ),
        ),
        migrations.RunPython(cap_stored_outputs, migrations.RunPython.noop),
    ]
