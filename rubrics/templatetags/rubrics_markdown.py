"""`{{ text|markdown }}`: task texts, resources and model responses shown as safe HTML.

markdown-it renders with raw HTML turned off and refuses dangerous link schemes; nh3 then
cleans the result against an allow-list, so a renderer bug cannot let a script through."""

from functools import lru_cache

import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

register = template.Library()

_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_URL_SCHEMES = {"http", "https", "mailto"}


# A pure function of the text, so rendered HTML is kept per process: the grading page shows the
# same frozen criterion guidance and task texts to every grader, and parsing plus cleaning them
# was about half of that page's time. Bounded, so long model responses cannot grow it forever.
@lru_cache(maxsize=2048)
def render_markdown(text: str) -> SafeString:
    html = _renderer.render(text or "")
    cleaned = nh3.clean(html, url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer")
    return mark_safe(cleaned)  # cleaned against nh3's allow-list just above


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return render_markdown(text)
