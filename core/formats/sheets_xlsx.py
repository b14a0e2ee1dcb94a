"""Write tables to an .xlsx workbook in openpyxl's write-only mode (rows stream to disk, so
memory stays flat for large exports): one sheet per table, a bold frozen header, an
auto-filter over the data, set column widths. Texts are always stored as text, never as a
formula, and cut at Excel's cell limit with a note."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from copy import copy
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES, ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from core.formats.formulas import as_text_cell

__all__ = ["Column", "Table", "write_tables_xlsx"]

EXCEL_CELL_LIMIT = 32_767
_TRUNCATED = " […cut: over Excel's cell limit]"


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    width: float = 14


@dataclass(frozen=True, slots=True)
class Table:
    title: str
    columns: Sequence[Column]
    rows: Iterable[Sequence[Any]]
    """Read once, row by row: a generator keeps memory flat."""


def write_tables_xlsx(target: Path | IO[bytes], tables: Iterable[Table]) -> None:
    """Write one sheet per table (sheet titles must be unique, at most 31 characters)."""
    workbook = Workbook(write_only=True)
    bold = Font(bold=True)
    for table in tables:
        sheet = workbook.create_sheet(table.title[:31])
        # Long texts wrap. openpyxl writes each appended cell as the row is appended, so one
        # wrapped cell per column serves every row: a cell and a style per text cost more.
        wrap = WriteOnlyCell(sheet)
        wrap.alignment = Alignment(wrap_text=True, vertical="top")
        wrapped: dict[int, Any] = {}
        sheet.freeze_panes = "A2"
        for n, column in enumerate(table.columns, start=1):
            sheet.column_dimensions[get_column_letter(n)].width = column.width
        header = []
        for column in table.columns:
            cell = WriteOnlyCell(sheet, value=column.header)
            cell.font = bold
            header.append(cell)
        sheet.append(header)
        count = 0
        for row in table.rows:
            sheet.append([_cell(sheet, value, wrap, wrapped, n) for n, value in enumerate(row)])
            count += 1
        # The filter is written after the rows in write-only mode, so it can be set last.
        last = get_column_letter(max(len(table.columns), 1))
        sheet.auto_filter.ref = f"A1:{last}{count + 1}"
    workbook.save(target)


def _cell(sheet: Any, value: Any, wrap: Any, wrapped: dict[int, Any], column: int) -> Any:
    """The value as openpyxl takes it. A text becomes a cell only when it must: to wrap (long
    texts: the column's wrapped cell), or to stay text where openpyxl would read it as a
    formula or an error value; every other text goes as the plain value (openpyxl stores it
    as text), since a cell object per text doubled the time of writing the workbook."""
    if not isinstance(value, str):
        return value
    text = ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
    if len(text) > EXCEL_CELL_LIMIT:
        text = text[: EXCEL_CELL_LIMIT - len(_TRUNCATED)] + _TRUNCATED
    long = len(text) > 60
    if not long and not text.startswith("=") and text not in ERROR_CODES:
        return text
    if not long:
        return as_text_cell(WriteOnlyCell(sheet, value=text))
    cell: Any = wrapped.get(column)
    if cell is None:
        cell = wrapped[column] = WriteOnlyCell(sheet)
        cell._style = copy(wrap._style)
    cell.value = text
    return as_text_cell(cell)
