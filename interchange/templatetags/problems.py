"""`{{ problem|problem_text }}`: a stored import problem in the reader's language;
`{{ job|import_summary }}`: a finished import's summary."""

from django import template

from interchange import problem_text as texts
from interchange.models import ImportJob

register = template.Library()


@register.filter
def problem_text(problem: object) -> str:
    return texts.problem_text(problem)


@register.filter
def message_text(message: object) -> str:
    """A message (a `Text`, or plain text) in the reader's language."""
    return texts.message_text(message)


@register.filter
def stage_text(stage: str) -> str:
    return texts.stage_text(stage)


@register.filter
def changed_fields(names: list[str]) -> str:
    return texts.changed_fields_text(names)


@register.filter
def guidance_text(state: str) -> str:
    return texts.guidance_text(state)


@register.filter
def layer_text(layer: str) -> str:
    return texts.layer_text(layer)


@register.filter
def import_summary(job: ImportJob) -> str:
    return texts.summary_text(job.summary, job.counts, job.dry_run, job.notes)
