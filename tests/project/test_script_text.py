"""The scripts' own texts go through Django's JavaScript catalogue (`gettext` in static/**/*.js,
`djangojs.po`, served by /jsi18n/): a script that shows a plain English text, or a text the
catalogue lacks, fails here (docs/development.md, "Translations")."""

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings

from tests.project.test_translations import read_po

SCRIPTS = sorted((settings.BASE_DIR / "static").rglob("*.js"))
# A text put on the page or in a dialog as a literal, not through gettext.
SHOWN_LITERAL = re.compile(
    r"""(?:\.(?:textContent|innerText|title|placeholder)\s*=|\b(?:alert|confirm|notice)\()\s*"""
    r"""(["'`])(?=[^"'`]*[A-Za-z]{2})"""
)
GETTEXT = re.compile(r"""\bgettext\(\s*"((?:[^"\\]|\\.)*)"\s*\)""")


def test_there_are_scripts_to_check():
    assert {path.name for path in SCRIPTS} >= {"grading.js", "app.js"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_script_shows_no_literal_text(script: Path):
    source = script.read_text(encoding="utf-8")
    shown = [source[m.start() : m.end() + 30] for m in SHOWN_LITERAL.finditer(source)]
    assert shown == [], f"{script.name}: show these through gettext(...)"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_text_a_script_translates_is_in_the_javascript_catalogue(script: Path):
    catalogue = read_po(settings.BASE_DIR / "locale/es/LC_MESSAGES/djangojs.po")
    texts = [ast.literal_eval(f'"{text}"') for text in GETTEXT.findall(script.read_text())]
    assert [text for text in texts if text not in catalogue] == []


def test_the_check_finds_a_literal_and_accepts_gettext():
    source = 'a.textContent = "Saved"; b.textContent = gettext("Saved"); confirm("Submit now?");'
    assert len(SHOWN_LITERAL.findall(source)) == 2
