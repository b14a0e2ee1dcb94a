"""A study's grades and per-response scores, for Maintainers: CSV (streamed) and XLSX.

Unlike the annotators' pages these name the model. Annotators are pseudonymised as
"Annotator N" (numbered by account, stable across exports) unless the study shows grader names
to its adjudicator. Rows stream from the database in chunks: a fixed number of queries and flat
memory, however large the study.

The CSV is written for spreadsheets (UTF-8 with a byte-order mark, so Excel reads it): a text
cell that a spreadsheet would take for a formula (starting with = + - @, a tab or a carriage
return) gets a leading apostrophe, as OWASP advises against CSV injection. Numbers are left as
they are, so a negative weight stays a number. In the XLSX export texts are never formulas.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import IO, Any, cast

from django.db.models import F

from core.formats.formulas import spreadsheet_safe
from core.formats.sheets_xlsx import Column, Table, write_tables_xlsx
from core.scoring import Judgement, outcome, task_score
from grading.models import Assignment, Grade, Study

GRADE_COLUMNS = (
    "study_item",
    "task_key",
    "response_id",
    "response_version",
    "model",
    "model_version",
    "criterion",
    "layer",
    "weight",
    "annotator",
    "verdict",
    "level",
    "rationale",
    "submitted_at",
)
SCORE_COLUMNS = (
    "study_item",
    "task_key",
    "response_id",
    "response_version",
    "model",
    "model_version",
    "annotator",
    "score",
    "earned",
    "possible",
    "note",
    "submitted_at",
)
_WIDTHS = {"rationale": 60, "note": 40, "model": 24, "submitted_at": 26}
_CHUNK = 2000


def annotator_labels(study: Study) -> dict[int, str]:
    """How each grader of the study is named in the exports. One query."""
    graders = (
        Assignment.objects.filter(study_item__study=study)
        .values_list("annotator_id", "annotator__username")
        .distinct()
        .order_by("annotator_id")
    )
    if study.show_grader_names_to_adjudicator:
        return dict(graders)
    return {pk: f"Annotator {n}" for n, (pk, _) in enumerate(graders, start=1)}


_FIELDS = {
    "study_item": F("assignment__study_item_id"),
    "task_key": F("assignment__study_item__response__task__key"),
    "response_id": F("assignment__study_item__response__external_id"),
    "response_version": F("assignment__study_item__response__version"),
    "model": F("assignment__study_item__response__model_name"),
    "model_version": F("assignment__study_item__response__model_version"),
    "criterion": F("criterion_version__criterion__code"),
    "layer": F("criterion_version__criterion__layer"),
    "weight": F("criterion_version__weight"),
    "scale_min": F("criterion_version__scale_min"),
    "scale_max": F("criterion_version__scale_max"),
    "annotator": F("assignment__annotator_id"),
    "submitted_at": F("assignment__submitted_at"),
}


def _grades(study: Study, *, submitted_only: bool = False) -> Iterator[dict[str, Any]]:
    # Gold checks are not study data (docs/grading.md): their grades measure the graders.
    grades = Grade.objects.filter(
        assignment__study_item__study=study, assignment__study_item__gold_source__isnull=True
    )
    if submitted_only:
        grades = grades.filter(assignment__status=Assignment.Status.SUBMITTED)
    rows = (
        grades.values("assignment_id", "verdict", "level", "rationale", **_FIELDS)
        .order_by(
            "assignment__study_item_id",
            "assignment__annotator_id",
            "criterion_version__criterion__order",
            "criterion_version__criterion__code",
        )
        .iterator(chunk_size=_CHUNK)
    )
    return cast(Iterator[dict[str, Any]], rows)  # plain dicts; the callers add columns


def _outcome(grade: dict[str, Any]) -> bool | float | None:
    """What core.scoring reads of a grade: its verdict, or its level on the scale."""
    scale = None if grade["level"] is None else (grade["scale_min"], grade["scale_max"])
    return outcome(grade["verdict"], grade["level"], scale)


def _when(value: Any) -> str:
    return value.isoformat() if value is not None else ""


def grade_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    """One row per grade, in GRADE_COLUMNS order. Two queries."""
    labels = annotator_labels(study)
    for grade in _grades(study):
        grade["annotator"] = labels[grade["annotator"]]
        grade["submitted_at"] = _when(grade["submitted_at"])
        grade["level"] = "" if grade["level"] is None else grade["level"]
        yield tuple(grade[name] for name in GRADE_COLUMNS)


def score_rows(study: Study) -> Iterator[tuple[Any, ...]]:
    """One row per submitted response and grader: the L2-Bench task score of their verdicts
    (core.scoring.task_score; N/A takes no part), in SCORE_COLUMNS order. Two queries."""
    labels = annotator_labels(study)
    for _, group in groupby(_grades(study, submitted_only=True), key=itemgetter("assignment_id")):
        grades = list(group)
        score = task_score(Judgement(g["weight"], _outcome(g)) for g in grades)
        first = grades[0]
        row = first | {
            "annotator": labels[first["annotator"]],
            "score": "" if score.value is None else score.value,
            "earned": score.earned,
            "possible": score.possible,
            "note": score.reason,
            "submitted_at": _when(first["submitted_at"]),
        }
        yield tuple(row[name] for name in SCORE_COLUMNS)


class _Echo:
    """A file that hands back what is written, so csv.writer can feed a stream."""

    def write(self, value: str) -> str:
        return value


def csv_lines(study: Study, *, scores: bool = False) -> Iterator[str]:
    """The grades (or scores) as CSV lines: UTF-8 with a byte-order mark, so Excel reads it."""
    writer = csv.writer(_Echo())
    header, rows = (SCORE_COLUMNS, score_rows) if scores else (GRADE_COLUMNS, grade_rows)
    yield "\ufeff" + writer.writerow(header)
    for row in rows(study):
        yield writer.writerow([spreadsheet_safe(value) for value in row])


def write_csv(study: Study, out: IO[str], *, scores: bool = False) -> None:
    for line in csv_lines(study, scores=scores):
        out.write(line)


def _columns(names: Sequence[str]) -> list[Column]:
    return [Column(name, _WIDTHS.get(name, 14)) for name in names]


def write_xlsx(study: Study, target: Path | IO[bytes]) -> None:
    """Sheets Grades and Scores (write-only mode: rows stream to disk)."""
    write_tables_xlsx(
        target,
        [
            Table("Grades", _columns(GRADE_COLUMNS), grade_rows(study)),
            Table("Scores", _columns(SCORE_COLUMNS), score_rows(study)),
        ],
    )


def export_filename(study: Study, suffix: str) -> str:
    return f"study{study.pk}-{suffix}"
