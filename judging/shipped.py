"""The two judge prompts L2 Annot ships, so a fresh install can run a judge at once.

Every database gets them from `migrate` (judging's initial migration, then after each migrate, so
a flushed database has them again: judging.apps); a backup's restore leaves them out of what it
counts as a database's own prompts (interchange.backup)."""

from typing import Any

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

SHIPPED: list[tuple[str, str, str, str]] = [
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


def shipped_prompt_names() -> list[str]:
    """The names of the prompt templates every database gets from `migrate`."""
    return [name for name, *_ in SHIPPED]


def ship(prompt_template: Any, prompt_version: Any) -> None:
    """Write each shipped prompt that no template of its name holds yet, as its version 1.

    Takes the two models as arguments: the app passes its own, a migration its historical ones."""
    for name, description, style, text in SHIPPED:
        template, created = prompt_template.objects.get_or_create(
            name=name, defaults={"description": description}
        )
        if created:
            prompt_version.objects.create(
                template=template, number=1, style=style, text=text, note="Shipped with L2 Annot."
            )
