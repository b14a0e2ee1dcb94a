"""A stable key per 1-5 rating question, filled for existing questions from their prompts."""

from django.db import migrations, models
from django.utils.text import slugify

KEY_LENGTH = 50


def keys_from_prompts(apps, schema_editor):  # type: ignore[no-untyped-def]
    # A frozen copy of grading.models.question_keys, so this migration never changes.
    LikertItem = apps.get_model("grading", "LikertItem")
    taken: dict[int, set[str]] = {}
    for item in LikertItem.objects.order_by("study_id", "order", "pk"):
        base = ""
        for word in slugify(item.prompt).split("-"):
            if base and len(base) + 1 + len(word) > KEY_LENGTH - 4:
                break
            base = f"{base}-{word}" if base else word
        base = base[: KEY_LENGTH - 4] or "question"
        keys = taken.setdefault(item.study_id, set())
        key, n = base, 2
        while key in keys:
            key, n = f"{base}-{n}", n + 1
        keys.add(key)
        item.key = key
        item.save(update_fields=["key"])


class Migration(migrations.Migration):
    dependencies = [("grading", "0002_gold_verdict_revisions")]

    operations = [
        migrations.AddField(
            model_name="likertitem",
            name="key",
            field=models.SlugField(
                default="",
                help_text="Names the question in files: a judge's 1-5 ratings are matched on it.",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(keys_from_prompts, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="likertitem",
            constraint=models.UniqueConstraint(
                fields=("study", "key"), name="likert_item_key_once"
            ),
        ),
        migrations.AddConstraint(
            model_name="likertitem",
            constraint=models.CheckConstraint(
                condition=models.Q(("key", ""), _negated=True), name="likert_item_key_not_empty"
            ),
        ),
    ]
