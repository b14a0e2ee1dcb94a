"""A sub-competency a benchmark import created is marked a placeholder, instead of carrying an
English name and note that a reader of another language could not read."""

from django.db import migrations, models

# What such a sub-competency was named and described with before.
OLD_NAME = "{code} (placeholder: to be named)"
OLD_NOTE = (
    "Created by a benchmark import because the file names it and the framework lacked it: "
    "give it its name and description."
)


def mark_placeholders(apps, schema_editor):
    SubCompetency = apps.get_model("taxonomy", "SubCompetency")
    for sub in SubCompetency.objects.filter(name__endswith=" (placeholder: to be named)"):
        if sub.name == OLD_NAME.format(code=sub.code):
            sub.name = sub.code
            sub.description = "" if sub.description == OLD_NOTE else sub.description
            sub.placeholder = True
            sub.save(update_fields=["name", "description", "placeholder"])


def unmark_placeholders(apps, schema_editor):
    SubCompetency = apps.get_model("taxonomy", "SubCompetency")
    for sub in SubCompetency.objects.filter(placeholder=True):
        sub.name = OLD_NAME.format(code=sub.code)
        sub.description = sub.description or OLD_NOTE
        sub.save(update_fields=["name", "description"])


class Migration(migrations.Migration):
    dependencies = [
        ("taxonomy", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="subcompetency",
            name="placeholder",
            field=models.BooleanField(
                default=False,
                editable=False,
                help_text="Created by an import that named its code: to be named and described.",
                verbose_name="placeholder",
            ),
        ),
        migrations.RunPython(mark_placeholders, unmark_placeholders),
    ]
