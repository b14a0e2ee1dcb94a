"""Exports: the L2-Bench round trip through an empty benchmark, and the rubrics workbook."""

import csv
import io
import zipfile
from dataclasses import replace

import pytest
from openpyxl import load_workbook

from interchange.exporters import export_l2bench, export_l2bench_zip, export_rubrics_xlsx
from interchange.formats.l2bench_csv import read_l2bench_folder
from interchange.importers import import_l2bench
from rubrics.models import Criterion
from tests.interchange.db_helpers import (
    benchmark_folder,
    benchmark_state,
    generated,
    wipe_benchmark,
)

pytestmark = pytest.mark.django_db


def test_export_then_import_into_an_empty_benchmark_gives_the_same_benchmark(
    tmp_path, starter_framework
):
    records = generated(9)
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    state = benchmark_state()
    export_l2bench(starter_framework, tmp_path / "out")
    wipe_benchmark()
    assert benchmark_state()["tasks"] == {}
    report = import_l2bench(tmp_path / "out", starter_framework)
    assert report.ok, report.problem_lines()
    assert benchmark_state() == state
    # Listed context values are written by label ('b2' comes back as 'B2'); the rest as read.
    exported = {
        t.task_key: replace(t, context=()) for t in read_l2bench_folder(tmp_path / "out").tasks
    }
    assert exported == {t.task_key: replace(t, context=()) for t in records}


def test_universal_criteria_not_applicable_to_a_task_stay_off_its_row(tmp_path, starter_framework):
    records = generated(3)
    records[0] = replace(records[0], universal_criteria=records[0].universal_criteria[:1])
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    exported = export_l2bench(starter_framework, tmp_path / "out")
    row = next(t for t in exported.tasks if t.task_key == records[0].task_key)
    assert row.universal_criteria == records[0].universal_criteria[:1]


def test_rubrics_workbook_has_a_task_sheet_and_one_sheet_per_layer(tmp_path, starter_framework):
    records = generated(3)
    import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework)
    path = tmp_path / "rubrics.xlsx"
    export_rubrics_xlsx(starter_framework, path)
    workbook = load_workbook(path)
    assert workbook.sheetnames == [
        "Tasks",
        "Universal criteria",
        "Consensus criteria",
        "Task criteria",
    ]
    tasks = workbook["Tasks"]
    assert tasks.freeze_panes == "A2"
    assert tasks.auto_filter.ref == "A1:H4"
    assert [c.value for c in tasks[1]][:3] == ["Task key", "Sub-competency", "Status"]
    codes = {row[0].value for row in workbook["Task criteria"].iter_rows(min_row=2)}
    assert codes == set(Criterion.objects.filter(layer="task").values_list("code", flat=True))
    assert workbook["Task criteria"].column_dimensions["D"].width == 70


def test_a_text_starting_with_equals_is_written_as_text_not_a_formula(tmp_path, starter_framework):
    records = generated(1)
    records[0] = replace(records[0], task='=HYPERLINK("x")')
    import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework)
    export_rubrics_xlsx(starter_framework, tmp_path / "r.xlsx")
    cell = load_workbook(tmp_path / "r.xlsx")["Tasks"]["D2"]
    assert cell.value == '=HYPERLINK("x")'
    assert cell.data_type == "s"


def test_the_benchmark_zip_writes_a_formula_looking_text_inert(tmp_path, starter_framework):
    records = generated(1)
    records[0] = replace(records[0], task='=HYPERLINK("http://evil.example","click")')
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    target = io.BytesIO()
    export_l2bench_zip(starter_framework, target, tmp_path)
    with zipfile.ZipFile(target) as archive:
        text = archive.read("l2-bench_tasks.csv").decode("utf-8-sig")
    header, row = list(csv.reader(io.StringIO(text)))
    assert dict(zip(header, row, strict=True))["task"] == "'" + records[0].task
    with zipfile.ZipFile(target) as archive:
        archive.extractall(tmp_path / "out")
    assert read_l2bench_folder(tmp_path / "out").tasks[0].task == records[0].task
