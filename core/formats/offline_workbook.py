"""Offline grading in Excel: the workbook an annotator downloads, fills in and uploads again.

Sheet ``Grading`` (protected; only the Verdict and Rationale cells of criterion rows are
unlocked): row 1 is the header; each item is one item row (task text, response text) followed
by one row per criterion (code, wording, guidance, a Pass/Fail/N/A drop-down, Present/Absent/N/A
on a penalty, the levels of its scale and N/A on an ordinal criterion, a rationale cell)
and one row per rating question (prompt, the labels of the points, a 1-5 drop-down). Hidden
columns A and B carry the item id and criterion version id (``likert:<question id>`` on a
question row) of each row. Cells may be filled in advance with the answers already given.

Sheet ``_meta`` (very hidden): the format, annotator, study id and an HMAC-SHA256 signature,
keyed by the caller, over those and the ordered list of row ids. Sheet protection is easily
removed, so the signature is what detects tampering: a changed id, a moved row or another
annotator make it fail on reading. Ids travel as text.

Reading streams the sheet (openpyxl's read-only mode: one row in memory at a time) and refuses a
workbook past ``MAX_ROWS`` rows or ``MAX_COLUMNS`` columns, naming the limit, before reading on.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Any
from xml.etree.ElementTree import ParseError

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet.cell_range import MultiCellRange
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from core.formats.formulas import as_text_cell
from core.scoring import verdict_labels

from .problems import Problem, gettext_noop, shown

__all__ = [
    "FORMAT",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "CriterionRow",
    "GradeVerdict",
    "GradedRow",
    "GradingItem",
    "GradingResult",
    "GradingSheet",
    "LikertQuestion",
    "RatedRow",
    "SheetWords",
    "read_grading_workbook",
    "signature",
    "write_grading_workbook",
]

# Version 2 added rating questions: a version 1 reader would take their rows for criteria.
FORMAT = "l2annot-grading-2"
SHEET, META = "Grading", "_meta"
HEADER: tuple[str, ...] = ("item id", "criterion version id", "Item / code", "Task / criterion")
HEADER += ("Response / guidance", "Verdict", "Rationale")
WIDTHS = (12, 12, 14, 60, 60, 12, 50)
VERDICT_COLUMN, RATIONALE_COLUMN = 6, 7
EXCEL_CELL_LIMIT = 32_767
LIKERT_PREFIX = "likert:"
LIKERT_SCALE = range(1, 6)
# An item takes 1 + criteria + questions rows: 100,000 rows is 3,000 responses of 30 criteria.
MAX_ROWS = 100_000
MAX_COLUMNS = 50  # the sheet has 7; a few notes columns added by hand are read past
META_ROWS = 20
_TRUNCATED = "\n[… cut: the full text is in the web app]"
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")
_ITEM_FILL = PatternFill("solid", fgColor="DDEBF7")
_HEADER_FILL = PatternFill("solid", fgColor="BDD7EE")
_WRAP = Alignment(wrap_text=True, vertical="top")


class GradeVerdict(StrEnum):
    """A verdict as stored: on a penalty, PASS is "Present" and FAIL "Absent" in the sheet."""

    PASS = "Pass"
    FAIL = "Fail"
    NA = "N/A"

    @property
    def stored(self) -> str:
        return {"Pass": "pass", "Fail": "fail", "N/A": "na"}[self.value]


def _in_order(labels: dict[str, str]) -> tuple[str, str, str]:
    """The labels of pass, fail and na (GradeVerdict's order)."""
    return labels["pass"], labels["fail"], labels["na"]


@dataclass(frozen=True, slots=True)
class SheetWords:
    """The words of the sheet a person reads, English here: the caller passes them translated,
    so the workbook is written in its annotator's language, and passes every language's to the
    reader, which takes a verdict in any of them. The hidden id columns keep their names."""

    header: tuple[str, ...] = HEADER
    item: str = "Item %(number)s"
    rating: str = "Rating"
    verdicts: tuple[str, str, str] = _in_order(verdict_labels(penalty=False))
    penalty_verdicts: tuple[str, str, str] = _in_order(verdict_labels(penalty=True))
    verdict_title: str = "Verdict"
    verdict_error: str = "Choose Pass, Fail or N/A."
    penalty_title: str = "Verdict on a penalty"
    penalty_error: str = "Choose Present (the response does it), Absent or N/A."
    rating_error: str = "Choose a whole number from 1 to 5."
    level_title: str = "Level"
    level_error: str = "Choose a level from %(low)s to %(high)s, or %(na)s."

    def verdict(self, verdict: GradeVerdict, *, penalty: bool) -> str:
        words = self.penalty_verdicts if penalty else self.verdicts
        return words[list(GradeVerdict).index(verdict)]

    def choice_list(self, *, penalty: bool) -> str:
        return ",".join(self.penalty_verdicts if penalty else self.verdicts)


ENGLISH = SheetWords()
# A word typed in a verdict cell, casefolded -> (the verdict, whether it is a penalty's word).
VerdictWords = dict[str, tuple[GradeVerdict, bool]]


def verdict_words(languages: Sequence[SheetWords]) -> VerdictWords:
    """The verdict words of these languages and English. Present and Absent (a penalty's words)
    read as the Pass and Fail they are stored as."""
    table: VerdictWords = {}
    for words in (ENGLISH, *languages):
        for verdict, plain, penalty in zip(
            GradeVerdict, words.verdicts, words.penalty_verdicts, strict=True
        ):
            table.setdefault(plain.strip().casefold(), (verdict, False))
            table.setdefault(penalty.strip().casefold(), (verdict, True))
    return table


@dataclass(frozen=True, slots=True)
class CriterionRow:
    """A criterion to grade; ``verdict`` (or ``level``) and ``rationale`` fill its cells in
    advance. An ordinal criterion has its ``scale`` (min, max): its choices are the levels and
    N/A."""

    criterion_version_id: str
    code: str
    wording: str
    guidance: str = ""
    verdict: GradeVerdict | None = None
    rationale: str = ""
    penalty: bool = False  # its choices read Present / Absent / N/A
    scale: tuple[int, int] | None = None
    level: int | None = None


@dataclass(frozen=True, slots=True)
class LikertQuestion:
    """A 1-5 rating asked once per item. ``labels`` name the points, 1 first; ``value`` fills
    the cell in advance."""

    question_id: str
    prompt: str
    labels: tuple[str, ...] = ()
    value: int | None = None


@dataclass(frozen=True, slots=True)
class GradingItem:
    """One response to grade. ``item_id`` is opaque to this module (the caller signs it)."""

    item_id: str
    task_text: str
    response_text: str
    criteria: tuple[CriterionRow, ...]
    likert: tuple[LikertQuestion, ...] = ()


@dataclass(frozen=True, slots=True)
class GradingSheet:
    annotator: str
    study_id: str
    items: tuple[GradingItem, ...]


@dataclass(frozen=True, slots=True)
class GradedRow:
    """One criterion row as uploaded. ``verdict`` and ``level`` are ``None`` when left blank;
    a whole number in the cell is a ``level`` (checked against the criterion's scale by the
    caller, which knows it)."""

    item_id: str
    criterion_version_id: str
    verdict: GradeVerdict | None
    rationale: str
    row: int = field(default=0, compare=False)
    # The cell said Present or Absent (a penalty's words) rather than Pass or Fail.
    penalty_wording: bool = field(default=False, compare=False)
    level: int | None = None


@dataclass(frozen=True, slots=True)
class RatedRow:
    """One rating question as uploaded. ``value`` is ``None`` when left blank."""

    item_id: str
    question_id: str
    value: int | None
    row: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class GradingResult:
    annotator: str
    study_id: str
    rows: tuple[GradedRow, ...]
    signature_valid: bool
    ratings: tuple[RatedRow, ...] = ()


def signature(key: bytes, annotator: str, study_id: str, row_ids: Sequence[tuple[str, str]]) -> str:
    """HMAC-SHA256 (hex) over the format, annotator, study id and ordered (item, criterion) ids.

    Item rows take part with an empty criterion version id, so moving an item is detected too.
    """
    message = json.dumps([FORMAT, annotator, study_id, [list(ids) for ids in row_ids]])
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def write_grading_workbook(
    path: Path | IO[bytes], sheet: GradingSheet, key: bytes, words: SheetWords = ENGLISH
) -> None:
    """Write the workbook for ``sheet``, signed with ``key`` (keep the key on the server), in
    ``words``.

    Raises ``ValueError`` for an id that a spreadsheet cannot hold unchanged, or a criterion
    version id that would read as a question's. A prefilled rationale that a cell cannot hold
    unchanged is left blank (a blank cell changes nothing on import).
    """
    workbook = Workbook()
    ws = workbook.active
    assert ws is not None
    ws.title = SHEET
    _header(ws, words.header)
    choices = DataValidation(
        type="list", formula1=f'"{words.choice_list(penalty=False)}"', allow_blank=True
    )
    choices.showErrorMessage = True
    choices.errorTitle, choices.error = words.verdict_title, words.verdict_error
    ws.add_data_validation(choices)
    penalty_choices = DataValidation(
        type="list", formula1=f'"{words.choice_list(penalty=True)}"', allow_blank=True
    )
    penalty_choices.showErrorMessage = True
    penalty_choices.errorTitle = words.penalty_title
    penalty_choices.error = words.penalty_error
    ratings = DataValidation(type="whole", operator="between", formula1="1", formula2="5")
    ratings.allow_blank = ratings.showErrorMessage = True
    ratings.errorTitle, ratings.error = words.rating, words.rating_error
    row_ids: list[tuple[str, str]] = []
    verdict_cells: list[str] = []
    penalty_cells: list[str] = []
    rating_cells: list[str] = []
    level_cells: dict[tuple[int, int], list[str]] = {}  # per scale
    row = 2
    for number, item in enumerate(sheet.items, start=1):
        texts = (words.item % {"number": number}, item.task_text, item.response_text)
        _row(ws, row, (item.item_id, ""), texts, item_row=True)
        row_ids.append((item.item_id, ""))
        row += 1
        for criterion in item.criteria:
            if criterion.criterion_version_id.startswith(LIKERT_PREFIX):
                raise ValueError(f"criterion version id may not start with {LIKERT_PREFIX!r}")
            ids = (item.item_id, criterion.criterion_version_id)
            _row(ws, row, ids, (criterion.code, criterion.wording, criterion.guidance))
            for column in (VERDICT_COLUMN, RATIONALE_COLUMN):
                ws.cell(row, column).protection = Protection(locked=False)
            if criterion.level is not None:
                ws.cell(row, VERDICT_COLUMN, criterion.level)
            elif criterion.verdict is not None:
                label = words.verdict(criterion.verdict, penalty=criterion.penalty)
                _text(ws, row, VERDICT_COLUMN, label)
            if criterion.rationale and _display(criterion.rationale) == criterion.rationale:
                _text(ws, row, RATIONALE_COLUMN, criterion.rationale).alignment = _WRAP
            if criterion.scale is not None:
                cells = level_cells.setdefault(criterion.scale, [])
            else:
                cells = penalty_cells if criterion.penalty else verdict_cells
            cells.append(ws.cell(row, VERDICT_COLUMN).coordinate)
            row_ids.append(ids)
            row += 1
        for question in item.likert:
            ids = (item.item_id, LIKERT_PREFIX + question.question_id)
            points = "; ".join(f"{n} = {label}" for n, label in enumerate(question.labels, 1))
            _row(ws, row, ids, (words.rating, question.prompt, points))
            cell = ws.cell(row, VERDICT_COLUMN, question.value)
            cell.protection = Protection(locked=False)
            rating_cells.append(cell.coordinate)
            row_ids.append(ids)
            row += 1
    # Set once: DataValidation.add checks each new cell against every range so far (quadratic:
    # 3 minutes for 300 responses of 30 criteria).
    choices.sqref = MultiCellRange(" ".join(verdict_cells))
    if penalty_cells:
        penalty_choices.sqref = MultiCellRange(" ".join(penalty_cells))
        ws.add_data_validation(penalty_choices)
    if rating_cells:
        ratings.sqref = MultiCellRange(" ".join(rating_cells))
        ws.add_data_validation(ratings)
    for scale, cells in level_cells.items():
        ws.add_data_validation(_level_choices(scale, cells, words))
    ws.protection.sheet = True
    ws.protection.formatColumns = ws.protection.formatRows = False  # resizing stays allowed
    meta = workbook.create_sheet(META)
    values = [("format", FORMAT), ("annotator", sheet.annotator), ("study_id", sheet.study_id)]
    values.append(("signature", signature(key, sheet.annotator, sheet.study_id, row_ids)))
    for n, (name, value) in enumerate(values, start=1):
        _text(meta, n, 1, name)
        _text(meta, n, 2, _id(value))
    meta.sheet_state = "veryHidden"
    meta.protection.sheet = True
    workbook.save(path)


def _level_choices(scale: tuple[int, int], cells: list[str], words: SheetWords) -> DataValidation:
    """The drop-down of an ordinal criterion's cells: each level of the scale, then N/A."""
    low, high = scale
    levels = ",".join(str(level) for level in range(low, high + 1))
    na = words.verdict(GradeVerdict.NA, penalty=False)
    choices = DataValidation(type="list", formula1=f'"{levels},{na}"', allow_blank=True)
    choices.showErrorMessage = True
    choices.errorTitle = words.level_title
    choices.error = words.level_error % {"low": low, "high": high, "na": na}
    choices.sqref = MultiCellRange(" ".join(cells))
    return choices


def _header(ws: Worksheet, header: tuple[str, ...]) -> None:
    for column, (title, width) in enumerate(zip(header, WIDTHS, strict=True), start=1):
        cell = ws.cell(1, column, title)
        cell.font, cell.fill = Font(bold=True), _HEADER_FILL
        ws.column_dimensions[cell.column_letter].width = width
    ws.column_dimensions["A"].hidden = ws.column_dimensions["B"].hidden = True
    ws.freeze_panes = "D2"


def _row(
    ws: Worksheet,
    row: int,
    ids: tuple[str, str],
    texts: tuple[str, str, str],
    item_row: bool = False,
) -> None:
    for column, value in enumerate((*map(_id, ids), *map(_display, texts)), start=1):
        cell = _text(ws, row, column, value)
        cell.alignment = _WRAP
        if item_row:
            cell.fill, cell.font = _ITEM_FILL, Font(bold=column == 3)


def _text(ws: Worksheet, row: int, column: int, value: str) -> Any:
    return as_text_cell(ws.cell(row, column, value))


def _id(value: str) -> str:
    value = str(value)
    if ILLEGAL_CHARACTERS_RE.search(value) or len(value) > EXCEL_CELL_LIMIT:
        raise ValueError(f"id {value[:40]!r} cannot be stored in a spreadsheet cell unchanged")
    return value


def _display(text: str) -> str:
    text = ILLEGAL_CHARACTERS_RE.sub("\ufffd", text)
    if len(text) > EXCEL_CELL_LIMIT:
        text = text[: EXCEL_CELL_LIMIT - len(_TRUNCATED)] + _TRUNCATED
    return text


def read_grading_workbook(
    path: Path, key: bytes, languages: Sequence[SheetWords] = ()
) -> tuple[GradingResult, tuple[Problem, ...]]:
    """Read an uploaded workbook: the verdicts and rationales, checked against the signature.
    A verdict may be written in English or in any of ``languages``.

    Every problem is returned; rows are returned even when the signature fails (for showing),
    with ``signature_valid`` false: import nothing unless there are no problems.
    """
    problems: list[Problem] = []

    def report(row: int | None, column: str | None, message: str) -> None:
        problems.append(Problem(path.name, row, column, message, unit="row"))

    empty = GradingResult("", "", (), False)
    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError, ValueError):
        report(None, None, gettext_noop("is not an Excel workbook (.xlsx) written by L2 Annot"))
        return empty, tuple(problems)
    except ParseError as error:
        report(None, None, _malformed(error))
        return empty, tuple(problems)
    try:
        return _read(workbook, key, problems, report, verdict_words(languages))
    except _TooLarge as error:
        problems.clear()  # the rows read so far are beside the point: the file is refused
        report(None, None, error.args[0])
        return empty, tuple(problems)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError):  # a part broken inside the zip
        report(None, None, gettext_noop("is not an Excel workbook (.xlsx) written by L2 Annot"))
        return empty, tuple(problems)
    except ParseError as error:
        problems.clear()
        report(None, None, _malformed(error))
        return empty, tuple(problems)
    finally:
        workbook.close()


def _malformed(error: ParseError) -> str:
    # XML cannot hold some characters at all, NUL among them (a cell written `&#0;`): such a
    # part stops the reader, and nothing of the workbook is read.
    return gettext_noop(
        "is not an Excel workbook (.xlsx) written by L2 Annot: a part of it is not well-formed "
        "XML (%(error)s; a NUL or other control character cannot be in a cell)",
        error=str(error),
    )


class _TooLarge(Exception):
    pass


def _read(
    workbook: Any, key: bytes, problems: list[Problem], report: Any, words: VerdictWords
) -> tuple[GradingResult, tuple[Problem, ...]]:
    empty = GradingResult("", "", (), False)
    missing = [name for name in (SHEET, META) if name not in workbook.sheetnames]
    if missing:
        report(
            None,
            None,
            gettext_noop(
                "has no sheet %(sheets)s: not a grading workbook",
                sheets=", ".join(map(repr, missing)),
            ),
        )
        return empty, tuple(problems)
    meta = _meta(workbook[META])
    if meta.get("format") != FORMAT:
        report(
            None,
            None,
            gettext_noop(
                "format %(value)s is not %(expected)s",
                value=shown(meta.get("format")),
                expected=repr(FORMAT),
            ),
        )
    annotator, study_id = meta.get("annotator", ""), meta.get("study_id", "")
    row_ids: list[tuple[str, str]] = []
    graded: list[GradedRow] = []
    rated: list[RatedRow] = []
    for number, cells in enumerate(_rows(workbook[SHEET]), start=2):
        item_id, criterion_id = (_cell_text(c) for c in cells[:2])
        if not item_id and not criterion_id:
            continue
        row_ids.append((item_id, criterion_id))
        if not criterion_id:
            continue  # an item row: nothing to grade on it
        value = cells[VERDICT_COLUMN - 1]
        if criterion_id.startswith(LIKERT_PREFIX):
            rating = _rating(value)
            if rating is False:
                report(
                    number,
                    "rating",
                    gettext_noop("%(value)s is not a whole number from 1 to 5", value=shown(value)),
                )
            rating = None if isinstance(rating, bool) else rating
            rated.append(
                RatedRow(item_id, criterion_id.removeprefix(LIKERT_PREFIX), rating, number)
            )
            continue
        level = _level(value)
        typed = None if level is not None else _verdict(value, words)
        if typed is False:  # (a whole number is a level, checked by the caller)
            report(
                number,
                "verdict",
                gettext_noop(
                    "%(value)s is not Pass, Fail, Present, Absent or N/A", value=shown(value)
                ),
            )
        rationale = _cell_text(cells[RATIONALE_COLUMN - 1])
        verdict, wording = typed if isinstance(typed, tuple) else (None, False)
        graded.append(GradedRow(item_id, criterion_id, verdict, rationale, number, wording, level))
    expected = signature(key, annotator, study_id, row_ids)
    valid = hmac.compare_digest(expected, meta.get("signature", ""))
    if not valid:
        report(
            None,
            None,
            gettext_noop(
                "the signature does not match: ids, the order of rows or the annotator were "
                "changed; download a fresh copy"
            ),
        )
    result = GradingResult(annotator, study_id, tuple(graded), valid, tuple(rated))
    return result, tuple(problems)


def _rows(ws: Any) -> Iterator[tuple[object, ...]]:
    """The values of the sheet's rows after the header, seven per row, streamed; raises
    _TooLarge past MAX_ROWS rows or MAX_COLUMNS columns: at once when the sheet's stated size
    says so, else when the streamed rows reach the limit (a sheet may state no size, or a
    false one)."""
    limits = {"rows": f"{MAX_ROWS:,}", "columns": MAX_COLUMNS}
    stated_rows, stated_columns = ws.max_row or 0, ws.max_column or 0
    if stated_rows > MAX_ROWS:
        raise _TooLarge(
            gettext_noop(
                "has %(count)s rows: a grading workbook has at most %(rows)s rows and "
                "%(columns)s columns",
                count=f"{stated_rows:,}",
                **limits,
            )
        )
    if stated_columns > MAX_COLUMNS:
        raise _TooLarge(
            gettext_noop(
                "has %(count)s columns: a grading workbook has at most %(rows)s rows and "
                "%(columns)s columns",
                count=f"{stated_columns:,}",
                **limits,
            )
        )
    for number, values in enumerate(ws.iter_rows(min_row=2, values_only=True), start=2):
        if number > MAX_ROWS:
            raise _TooLarge(
                gettext_noop(
                    "has more than %(rows)s rows: a grading workbook has at most %(rows)s rows "
                    "and %(columns)s columns",
                    **limits,
                )
            )
        if len(values) > MAX_COLUMNS:
            raise _TooLarge(
                gettext_noop(
                    "has more than %(columns)s columns (row %(row)s): a grading workbook has at "
                    "most %(rows)s rows and %(columns)s columns",
                    row=number,
                    **limits,
                )
            )
        yield (*values[:RATIONALE_COLUMN], *(None,) * (RATIONALE_COLUMN - len(values)))


def _meta(ws: Any) -> dict[str, str]:
    rows = ws.iter_rows(max_row=META_ROWS, max_col=2, values_only=True)
    return {str(row[0]): _cell_text(row[1]) for row in rows if len(row) == 2 and row[0] is not None}


def _cell_text(value: object) -> str:
    return "" if value is None else str(value)


def _verdict(value: object, words: VerdictWords) -> tuple[GradeVerdict, bool] | bool | None:
    """The verdict, and whether it was written in a penalty's words; ``None`` when blank,
    ``False`` when not a verdict."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return words.get(value.strip().casefold(), False)
    return False


def _level(value: object) -> int | None:
    """A whole number in a verdict cell (a level of an ordinal criterion's scale, which the
    caller checks), or ``None``: a number typed or chosen in a spreadsheet may arrive as an
    int, a float or text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def _rating(value: object) -> int | bool | None:
    """The rating, ``None`` when blank, ``False`` when not a whole number from 1 to 5."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        value = value.strip()
        if not value.isdecimal():
            return False
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and value in LIKERT_SCALE:
        return value
    return False
