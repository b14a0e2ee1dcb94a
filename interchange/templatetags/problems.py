"""`{{ problem|problem_text }}`: a stored import problem in the reader's language."""

from django import template

from interchange import problem_text as texts

register = template.Library()


@register.filter
def problem_text(problem: object) -> str:
    return texts.problem_text(problem)
