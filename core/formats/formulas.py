"""Keep text that a spreadsheet would run as a formula inert in every exported file.

OWASP's advice against CSV injection: Excel, LibreOffice and Google Sheets take a cell starting
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return for a formula (``=HYPERLINK(...)``,
``-2+3+cmd|...``), so a CSV writer puts a single quote before such a text. A text that is just a
number (``-3``, ``+1.5``, ``-2e3``) is read as that number and runs nothing: it stays as it is,
so numeric columns keep their numbers.

The quote is reversible: :func:`spreadsheet_unsafe` takes it off again for a reader of our own
files. A text that already starts with quotes before a formula start gets one more, so every
text reads back exactly.

In an ``.xlsx`` workbook each cell has a type and a text cell is never run, so texts are written
unchanged as text cells (:func:`as_text_cell`): openpyxl would otherwise make any ``str`` that
starts with ``=`` a formula.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

__all__ = [
    "FORMULA_STARTS",
    "as_text_cell",
    "spreadsheet_safe",
    "spreadsheet_unsafe",
    "starts_like_formula",
]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class _Cell(Protocol):
    value: Any
    data_type: str


def starts_like_formula(text: str) -> bool:
    """Whether a spreadsheet would take ``text`` for a formula (a plain number is not one)."""
    return text.startswith(FORMULA_STARTS) and _NUMBER.fullmatch(text) is None


def spreadsheet_safe[Value](value: Value) -> Value | str:
    """``value`` as a CSV cell: a text that would run as a formula gets a leading ``'``.

    Anything but a ``str`` (numbers, ``None``) is returned unchanged."""
    if isinstance(value, str) and starts_like_formula(value.lstrip("'")):
        return "'" + value
    return value


def spreadsheet_unsafe(text: str) -> str:
    """The text :func:`spreadsheet_safe` was given: ``spreadsheet_unsafe(spreadsheet_safe(t))
    == t`` for every text ``t``."""
    if text.startswith("'") and starts_like_formula(text.lstrip("'")):
        return text[1:]
    return text


def as_text_cell[Cell: _Cell](cell: Cell) -> Cell:
    """``cell`` (an openpyxl cell) with a ``str`` value stored as text, never as a formula."""
    if isinstance(cell.value, str):
        cell.data_type = "s"
    return cell
