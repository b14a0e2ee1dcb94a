"""Every visible text of the project's templates goes through the translation catalogue: a
template that gains an untranslatable string fails here (docs/development.md, "Translations").

Each template is split with Django's own pattern for template tags. Outside {% translate %}
and {% blocktranslate %} (and comments, <script>, <style>, <code>, <kbd> and <pre>), the text
between HTML tags and the visible attributes (title, aria-label, placeholder, alt, data-confirm)
must hold no words once the variables are taken out. ALLOWED and NAMES list the few texts that
are the same in every language."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template.base import BLOCK_TAG_START, tag_re

# Names and notations, not words to translate.
NAMES = re.compile(r"L2 Annot|L2-Bench")
ALLOWED = {"CSV", "XLSX", "JSON", "AC1", "UTC"}
VISIBLE_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "data-confirm")
SKIPPED_ELEMENTS = ("script", "style", "code", "kbd", "pre")
OPENING_BLOCKS = {"blocktranslate", "blocktrans", "comment", "verbatim"}
CLOSING_BLOCKS = {f"end{name}" for name in OPENING_BLOCKS}
WORD = re.compile(r"[^\W\d_]{2,}")  # a single letter is a notation (n, k, p) or a key
TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*)>|<!--.*?-->|<!DOCTYPE[^>]*>", re.S)
# A filter's text shown in place of a missing value (`|default:"never"`); `en` is <html lang>'s.
SHOWN_ARGUMENT = re.compile(r"""\|default(?:_if_none)?:(["'])(.*?)\1""")
ARGUMENT_NOTATIONS = {"en"}
ATTRIBUTE = re.compile(r"""\s(""" + "|".join(VISIBLE_ATTRIBUTES) + r""")=(["'])(.*?)\2""", re.S)


def project_templates() -> list[Path]:
    roots = [settings.BASE_DIR / "templates"]
    roots += [path for path in settings.BASE_DIR.glob("*/templates") if ".venv" not in path.parts]
    return sorted(
        path for root in roots for path in root.rglob("*") if path.suffix in {".html", ".txt"}
    )


def words(text: str) -> list[str]:
    """The words of a visible text, or none if it is allowed as it is."""
    text = NAMES.sub("", re.sub(r"&\w+;|&#\d+;", " ", text)).strip()
    if not text or text in ALLOWED:
        return []
    return [text] if WORD.search(text) else []


def attribute_words(value: str) -> list[str]:
    """The untranslated words of an attribute's value (which holds its own translate tags)."""
    text, blocks = "", 0
    for piece in tag_re.split(value):
        if piece.startswith(BLOCK_TAG_START):
            name = (piece[2:-2].split() or [""])[0]
            blocks += (name in OPENING_BLOCKS) - (name in CLOSING_BLOCKS)
        elif not blocks and not piece.startswith(("{{", "{#")):
            text += piece
    return words(text)


def untranslated(source: str) -> list[str]:
    """The visible texts of a template outside the translation tags."""
    found = [
        text
        for match in SHOWN_ARGUMENT.finditer(source)
        if match.group(2) not in ARGUMENT_NOTATIONS
        for text in words(match.group(2))
    ]
    skipped: list[str] = []  # open elements whose content is not checked
    blocks = 0  # depth inside blocktranslate, comment or verbatim
    # Template tags may sit inside HTML tags (<a href="{% url %}">): find the HTML tags in the
    # source with every template tag blanked out, then read each stretch between them.
    masked = tag_re.sub(lambda match: "\x01" * len(match.group(0)), source)
    position = 0
    for html_tag in [*TAG.finditer(masked), None]:
        end = html_tag.start() if html_tag else len(source)
        text = ""
        for piece in tag_re.split(source[position:end]):
            if piece.startswith(BLOCK_TAG_START):
                name = (piece[2:-2].split() or [""])[0]
                if not skipped and not blocks:
                    found.extend(words(text))
                text = ""
                blocks += (name in OPENING_BLOCKS) - (name in CLOSING_BLOCKS)
            elif not piece.startswith(("{{", "{#")):
                text += piece
        if not skipped and not blocks:
            found.extend(words(text))
        if html_tag is None:
            break
        tag_source = source[html_tag.start() : html_tag.end()]
        closing, name = html_tag.group(1), (html_tag.group(2) or "").lower()
        if not closing and not blocks and not skipped:
            masked_tag = masked[html_tag.start() : html_tag.end()]
            for attribute in ATTRIBUTE.finditer(masked_tag):
                found.extend(attribute_words(tag_source[attribute.start(3) : attribute.end(3)]))
        if name in SKIPPED_ELEMENTS:
            if closing and skipped and skipped[-1] == name:
                skipped.pop()
            elif not closing:
                skipped.append(name)
        position = html_tag.end()
    return found


def test_every_project_template_is_checked():
    names = {path.name for path in project_templates()}
    assert {"base.html", "assignment.html", "invitation_email.txt"} <= names


@pytest.mark.parametrize(
    "template",
    project_templates(),
    ids=lambda path: path.relative_to(settings.BASE_DIR).as_posix(),
)
def test_no_visible_text_is_left_out_of_the_catalogue(template):
    texts = untranslated(template.read_text(encoding="utf-8"))
    assert texts == [], "wrap these in {% translate %} / {% blocktranslate %} (and translate them)"


def test_the_check_finds_text_outside_the_translation_tags():
    source = (
        '{% load i18n %}<h1>{% translate "Grading" %}</h1><p title="Help">Next {{ n }}</p>'
        "{% blocktranslate %}Fine {{ x }}{% endblocktranslate %}<kbd>s</kbd><code>idx</code>"
    )
    assert untranslated(source) == ["Help", "Next"]


def test_the_check_finds_a_default_text_given_to_a_filter():
    source = '{{ when|default:"never" }} {{ who|default:_("someone") }} {{ x|default:"—" }}'
    assert untranslated(source) == ["never"]
