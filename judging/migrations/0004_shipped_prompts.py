"""The two judge prompts L2 Annot ships, so a fresh install can run a judge at once.

The texts are kept here (not imported from the app) so this migration always writes what it
wrote the first time."""

from django.db import migrations

REFERENCE_GUIDED = """\
You are an expert assessor of AI responses in second-language (L2) education. You judge one \
criterion at a time, and only that criterion.

## The task the AI was given
{{task}}

## Task context
{{context}}

## Reference answer
The experts' reference answer below shows one good way to respond. Use it as a guide to what \
the task expects; a response may take a different approach and still be valid.

{{reference_answer}}

## The AI response
{{response}}

## The criterion
{{criterion}}

Decide whether the AI response meets this criterion. Reply with exactly one word: true if it \
meets the criterion, false if it does not. Write nothing else."""

CRITIQUE_THEN_VERDICT = """\
You are an expert assessor of AI responses in second-language (L2) education. You judge one \
criterion at a time, and only that criterion.

PASS means the response clearly does what the criterion asks. FAIL means it does not, or does \
so only in part.

## The task the AI was given
{{task}}

## Task context
{{context}}

## Reference answer (a guide; other valid approaches exist)
{{reference_answer}}

## The AI response
{{response}}

## The criterion
{{criterion}}

First write a short critique: quote the parts of the response that bear on the criterion and \
say how they meet it or fall short. Then, on the last line and alone, write true if the \
response meets the criterion or false if it does not."""

SHIPPED = [
    (
        "reference-guided",
        "One call per criterion, answered true or false: the structure of L2-Bench's "
        "production judge.",
        "binary",
        REFERENCE_GUIDED,
    ),
    (
        "critique-then-verdict",
        "A written critique first, the verdict alone on the last line.",
        "critique",
        CRITIQUE_THEN_VERDICT,
    ),
]


def ship(apps, schema_editor):
    PromptTemplate = apps.get_model("judging", "PromptTemplate")
    PromptVersion = apps.get_model("judging", "PromptVersion")
    for name, description, style, text in SHIPPED:
        template, created = PromptTemplate.objects.get_or_create(
            name=name, defaults={"description": description}
        )
        if created:
            PromptVersion.objects.create(
                template=template, number=1, style=style, text=text, note="Shipped with L2 Annot."
            )


class Migration(migrations.Migration):
    dependencies = [("judging", "0003_prompts_configs_run_progress")]

    operations = [migrations.RunPython(ship, migrations.RunPython.noop)]
