"""The one shape every reader reports a problem in.

Readers never stop at the first problem: a person fixing a 1,000-row file wants the whole list
in one pass. Each problem names the file, the line (text formats) or row (spreadsheets and CSV,
counted as a spreadsheet shows them: the header is row 1), the field, and what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

__all__ = ["Problem", "describe", "shown"]


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
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def shown(value: object, limit: int = 60) -> str:
    """A value as a message quotes it: a string in single quotes, anything else as JSON."""
    text = f"'{value}'" if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
