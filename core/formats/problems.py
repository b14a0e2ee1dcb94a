"""The one shape every reader reports a problem in.

Readers never stop at the first problem: a person fixing a 1,000-row file wants the whole list
in one pass. Each problem names the file, the line (text formats) or row (spreadsheets and CSV,
counted as a spreadsheet shows them: the header is row 1), the field, and what is wrong.

A problem is stored (an import job's list) and read later, by a person whose interface language
may not be the uploader's. So a message is written as a `Text` (core.messages): English text
that keeps its template and values, made with `gettext_noop(template, **values)` (the name
`makemessages` looks for, so the template reaches the catalogue); `interchange.problem_text`
shows it translated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from core.messages import Text, gettext_noop, stored_message

__all__ = [
    "SHOWN_PROBLEMS",
    "Problem",
    "Text",
    "describe",
    "gettext_noop",
    "in_order",
    "shown",
    "stored_message",
]

# A person fixes a file from the first problems; thousands more only hide them (and bloat the job).
SHOWN_PROBLEMS = 200


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


def in_order(problems: Iterable[Problem]) -> list[Problem]:
    """`problems` as a person fixes them: by file, then line or row (a problem with the whole
    file first), then field (none first); problems at one place keep the order found."""
    return sorted(
        problems,
        key=lambda p: (
            p.file,
            -1 if p.line_or_row is None else p.line_or_row,
            "" if p.field is None else p.field,
        ),
    )


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
