"""The one shape every reader reports a problem in.

Readers never stop at the first problem: a person fixing a 1,000-row file wants the whole list
in one pass. Each problem names the file, the line (text formats) or row (spreadsheets and CSV,
counted as a spreadsheet shows them: the header is row 1), the field, and what is wrong.

A problem is stored (an import job's list) and read later, by a person whose interface language
may not be the uploader's. So a message is written as a `Text`: English text that keeps its
template and values, made with `gettext_noop(template, **values)` (the name `makemessages` looks
for, so the template reaches the catalogue); `interchange.problem_text` shows it translated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

__all__ = ["SHOWN_PROBLEMS", "Problem", "Text", "describe", "gettext_noop", "shown"]

# A person fixes a file from the first problems; thousands more only hide them (and bloat the job).
SHOWN_PROBLEMS = 200

# A stored message: plain text (not translatable), or a Text's template and values.
type StoredMessage = str | dict[str, object]


class Text(str):
    """English text that remembers how it was made: an English `template` with ``%(name)s``
    placeholders and the `values` that fill them (texts, numbers, or other `Text`s, translated
    in their turn), so that it can be shown in another language where it is read."""

    template: str
    values: dict[str, object]
    plural: str | None = None
    number: str | None = None

    def __new__(cls, template: str, /, **values: object) -> Text:
        text = super().__new__(cls, template % values if values else template)
        text.template, text.values = template, values
        return text

    @classmethod
    def counted(cls, singular: str, plural: str, number: str, /, **values: object) -> Text:
        """A message with a singular and a plural form, chosen by the value named `number`
        (as `ngettext` chooses them, in each language)."""
        count = values[number]
        text = cls(singular if count == 1 else plural, **values)
        text.template, text.plural, text.number = singular, plural, number
        return text

    def as_json(self) -> dict[str, object]:
        """``{"text": template, "values": {...}}``, each value JSON (a Text as its own dict);
        a counted message adds ``"plural"`` and the ``"number"`` value's name."""
        stored: dict[str, object] = {
            "text": self.template,
            "values": {k: _json(v) for k, v in self.values.items()},
        }
        if self.plural is not None:
            stored |= {"plural": self.plural, "number": self.number}
        return stored


def _json(value: object) -> object:
    if isinstance(value, Text):
        return value.as_json()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def gettext_noop(template: str, /, **values: object) -> Text:
    """`template` filled with `values`, in English now, translatable where it is shown.

    The name is the one Django's `makemessages` marks for the catalogue without translating
    (this module imports no Django): the template must be a literal."""
    return Text(template, **values)


def stored_message(message: str) -> StoredMessage:
    return message.as_json() if isinstance(message, Text) else str(message)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file.

    ``str(problem)`` reads like
    ``l2-bench_tasks.csv: row 812: field 'task_criteria': criterion weight 'high' is not a number``;
    parts that are ``None`` are left out.
    """

    file: str
    line_or_row: int | None
    field: str | None
    message: str
    unit: Literal["line", "row"] = "line"

    def as_json(self) -> dict[str, object]:
        """The problem as an import job stores it (shown by `interchange.problem_text`)."""
        return {
            "file": self.file,
            "unit": self.unit,
            "at": self.line_or_row,
            "field": self.field,
            "message": stored_message(self.message),
        }

    def __str__(self) -> str:
        parts = [self.file]
        if self.line_or_row is not None:
            parts.append(f"{self.unit} {self.line_or_row}")
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        parts.append(self.message)
        return ": ".join(parts)


def describe(value: object) -> str:
    """A short name for a JSON value's type, for messages ('a string', 'a list', ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return gettext_noop("a boolean")
    if isinstance(value, int):
        return gettext_noop("an integer")
    if isinstance(value, float):
        return gettext_noop("a number")
    if isinstance(value, str):
        return gettext_noop("a string")
    if isinstance(value, list):
        return gettext_noop("a list")
    if isinstance(value, dict):
        return gettext_noop("an object")
    return type(value).__name__


def shown(value: object, limit: int = 60) -> str:
    """A value as a message quotes it: a string in single quotes, anything else as JSON."""
    text = f"'{value}'" if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
