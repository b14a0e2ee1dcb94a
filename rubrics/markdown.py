"""Markdown of task texts, resources, model responses and dialogue turns, shown two ways: in
full as safe HTML (`render_markdown`), and as a short excerpt of plain text with the markup
removed (`markdown_excerpt`), for the lists that quote the start of a turn.

markdown-it renders with raw HTML turned off and refuses dangerous link schemes; nh3 then
cleans the result against an allow-list, so a renderer bug cannot let a script through. An
excerpt is the text of the same parse, never HTML: the page escapes it like any other text."""

from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from markdown_it import MarkdownIt
from markdown_it.token import Token

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


def _words(tokens: list[Token]) -> list[str]:
    """The text a reader sees in `tokens`: inline text, code and images' alternative text;
    markup (emphasis, headings' #, list markers, links' targets) left out."""
    found: list[str] = []
    for token in tokens:
        if token.children:
            found += _words(token.children)
        elif token.type in {"text", "code_inline", "code_block", "fence"}:
            found.append(token.content)
        elif token.type in {"softbreak", "hardbreak"} or (token.nesting == -1 and token.block):
            found.append(" ")  # a line or a block ends: the words around it stay apart
    return found


@lru_cache(maxsize=2048)
def markdown_excerpt(text: str, chars: int) -> str:
    """The start of Markdown `text` as one line of plain text, at most `chars` characters (an
    ellipsis ends a shortened one): `**Well** done` gives "Well done", never the asterisks."""
    plain = " ".join("".join(_words(_renderer.parse(text or ""))).split())
    return Truncator(plain).chars(chars)
