"""Hostile files cost little to refuse, and a failed import speaks in words: a header of
100,000 columns, a cell too large to read (reported at its own row), thousands of problems
(the first 200 listed, the rest counted by field), an exception inside the import."""

import csv

import pytest

from core.formats.l2bench_csv import MAX_COLUMNS, REQUIRED_COLUMNS, read_tasks_csv
from core.formats.problems import Problem
from interchange import jobs
from interchange.importers.report import SHOWN_PROBLEMS, ImportReport
from interchange.models import ImportJob
from interchange.problem_text import problem_text
from tests.factories import make_job
from tests.interchange.test_l2bench_csv import valid_cells, write_rows


def test_a_header_of_100000_columns_is_refused_at_once_with_its_size(tmp_path):
    path = tmp_path / "l2-bench_tasks.csv"
    columns = [*REQUIRED_COLUMNS, *(f"extra {n}" for n in range(100_000))]
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerow(columns)
        csv.writer(handle).writerow(["x"] * len(columns))
    result = read_tasks_csv(path)
    assert [str(p) for p in result.problems] == [
        f"l2-bench_tasks.csv: row 1: the header has {len(columns):,} columns; a tasks file has "
        f"at most {MAX_COLUMNS:,} (the {len(REQUIRED_COLUMNS)} of the layout and context columns)"
    ]
    assert result.tasks == ()


def test_a_header_just_under_the_limit_with_every_column_named_twice_is_one_problem(tmp_path):
    """The duplicates are found in one pass (they were once compared pairwise: quadratic)."""
    path = tmp_path / "l2-bench_tasks.csv"
    extra = [f"context:v{n % 490}" for n in range(MAX_COLUMNS - len(REQUIRED_COLUMNS))]
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerow([*REQUIRED_COLUMNS, *extra])
    result = read_tasks_csv(path)
    assert len(result.problems) == 1 and "columns appear more than once" in str(result.problems[0])


def test_a_cell_too_large_to_read_is_reported_at_its_own_row(tmp_path):
    path = write_rows(tmp_path, [{}, {"task": "word " * 40_000}, {}])
    result = read_tasks_csv(path)
    assert [str(p) for p in result.problems] == [
        "l2-bench_tasks.csv: row 3: a cell is longer than 131,072 characters: the file is not read"
    ]


def test_a_cell_too_large_in_the_header_is_reported_at_row_1(tmp_path):
    path = tmp_path / "l2-bench_tasks.csv"
    path.write_text(",".join(REQUIRED_COLUMNS) + "," + "x" * 200_000 + "\n", encoding="utf-8")
    assert [p.line_or_row for p in read_tasks_csv(path).problems] == [1]


def test_a_large_cell_under_the_limit_reads(tmp_path):
    path = write_rows(tmp_path, [valid_cells("1") | {"task": "word " * 20_000}])
    assert read_tasks_csv(path).problems == ()


def test_the_first_200_problems_are_listed_and_the_rest_counted_by_field():
    report = ImportReport("benchmark")
    report.problems = [Problem("f.csv", n, "task_criteria", "bad weight") for n in range(250)]
    report.problems += [Problem("g.csv", None, None, "bad file")] * 3  # listed after f.csv
    lines = report.problem_lines()
    assert len(lines) == SHOWN_PROBLEMS + 1 == 201
    assert lines[0] == "f.csv: row 0: field 'task_criteria': bad weight".replace("row", "line")
    assert lines[-1] == (
        "… and 53 more problems not listed: 50 in field 'task_criteria', 3 with no field"
    )
    assert report.summary() == "253 problems: nothing was imported"


def test_200_problems_or_fewer_are_all_listed():
    report = ImportReport("responses")
    report.problems = [Problem("r.jsonl", n, "model", "empty") for n in range(200)]
    assert len(report.problem_lines()) == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("error", "words"),
    [
        (RecursionError("maximum recursion depth exceeded"), "nests values too deeply"),
        (ValueError("Exceeds the limit (4300 digits) for integer string conversion"), "Tell the"),
        (KeyError("task_key"), "an error in L2 Annot itself"),
    ],
)
def test_a_job_stopped_by_an_exception_says_so_in_words_not_the_exception(
    starter_framework, monkeypatch, error, words, client_as
):
    job = make_job(starter_framework, status=ImportJob.Status.QUEUED, original_name="r.jsonl")

    def fail(job, progress):
        raise error

    monkeypatch.setattr(jobs, "_run", fail)
    with pytest.raises(type(error)):
        jobs.run_import_job.call(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert len(job.problems) == 1
    shown = problem_text(job.problems[0])
    assert shown.startswith("r.jsonl: ") and words in shown
    assert str(error) not in shown and type(error).__name__ not in shown
    assert f"job {job.pk}" in shown or "nests" in shown
