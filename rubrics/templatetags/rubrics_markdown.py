"""`{{ text|markdown }}`: task texts, resources, model responses and turns shown as safe HTML;
`{{ text|markdown_excerpt:140 }}`: the start of one as plain text (rubrics.markdown)."""

from django import template
from django.utils.safestring import SafeString

from rubrics.markdown import _renderer, markdown_excerpt, render_markdown

register = template.Library()

__all__ = ["_renderer", "render_markdown"]  # the renderer, for the tests that count its work


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return render_markdown(text)


@register.filter(name="markdown_excerpt")
def markdown_excerpt_filter(text: str, chars: int) -> str:
    return markdown_excerpt(text, int(chars))
