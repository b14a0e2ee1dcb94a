"""Stored messages (core.messages), and the pseudonyms a cached report names hidden graders
by, shown in the language of whoever reads them."""

import re
from collections.abc import Mapping

from django.utils.translation import gettext, ngettext

from core.messages import Text, listed

__all__ = ["grader_name", "message_text"]

# How agreement.data names graders the reader may not see ("Annotator 2", "Expert B"). A
# username has no space, so no grader named by username reads like one.
PSEUDONYM = re.compile(r"(Annotator|Expert) (\w+)")


def grader_name(name: object) -> str:
    """A grader's name as a report holds it, a pseudonym in the active language: reports are
    computed once and cached, so they hold the English form."""
    text = str(name)
    found = PSEUDONYM.fullmatch(text)
    if found is None:
        return text
    if found[1] == "Annotator":
        return gettext("Annotator %(number)s") % {"number": found[2]}
    return gettext("Expert %(letter)s") % {"letter": found[2]}


def _value_text(value: object) -> object:
    if isinstance(value, list):  # a list of values, read as its items
        return listed(_value_text(item) for item in value)
    return message_text(value) if isinstance(value, Mapping) else value


def message_text(message: object) -> str:
    """A stored message (or a `Text`) in the active language; English where the catalogue has
    no translation."""
    if isinstance(message, Text):
        message = message.as_json()
    if not isinstance(message, Mapping):
        return str(message)
    template = str(message.get("text", ""))
    raw = message.get("values") or {}
    values = {name: _value_text(value) for name, value in raw.items()}
    plural = message.get("plural")
    if isinstance(plural, str):  # a message with a plural (Text.ngettext)
        count = values.get(str(message.get("number")))
        number = count if isinstance(count, int) else 0
        if number != 1:
            template = plural
        try:
            return ngettext(str(message.get("text", "")), plural, number) % values
        except (KeyError, ValueError, TypeError):
            return template % values
    if not values:
        return gettext(template) if template else ""
    try:
        return gettext(template) % values
    except (KeyError, ValueError, TypeError):  # a translation that lost a placeholder
        return template % values
