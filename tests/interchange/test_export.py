"""Exports: the L2-Bench round trip through an empty benchmark, and the rubrics workbook."""

import csv
import io
import zipfile
from dataclasses import replace

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from accounts.models import User
from accounts.roles import Role
from core.formats.l2bench_csv import RESOURCE_COLUMNS, TASKS_FILE, read_l2bench_folder
from demo.accounts import create_demo_accounts
from demo.benchmark import seed_demo_benchmark
from interchange.exporters import (
    BenchmarkNotExportable,
    export_l2bench,
    export_l2bench_zip,
    export_rubrics_xlsx,
)
from interchange.importers import import_l2bench
from rubrics.models import Criterion, CriterionVersion, Task, TaskResource
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import benchmark_state, wipe_benchmark
from tests.interchange.l2bench_pipeline import pipeline_criteria

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
    # A task read without a language is English, and the export names it.
    assert exported == {t.task_key: replace(t, context=(), language="en") for t in records}


def test_a_tasks_target_language_survives_export_and_import(tmp_path, starter_framework):
    records = [
        replace(record, language=language)
        for record, language in zip(generated(3), ("es", "de", ""), strict=True)
    ]
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    export_l2bench(starter_framework, tmp_path / "out")
    with (tmp_path / "out" / TASKS_FILE).open(encoding="utf-8-sig", newline="") as handle:
        written = {row["task_key"]: row["language"] for row in csv.DictReader(handle)}
    assert written == {
        records[0].task_key: "es",
        records[1].task_key: "de",
        records[2].task_key: "en",
    }
    wipe_benchmark()
    assert import_l2bench(tmp_path / "out", starter_framework).ok
    assert dict(Task.objects.values_list("key", "language")) == written


def test_the_pipeline_reads_an_export_exactly_as_it_read_the_original(tmp_path, starter_framework):
    original = benchmark_folder(tmp_path / "in", generated(6))
    assert import_l2bench(original, starter_framework).ok
    export_l2bench(starter_framework, tmp_path / "out")
    before = pipeline_criteria(original / TASKS_FILE)
    after = pipeline_criteria(tmp_path / "out" / TASKS_FILE)
    assert after == before
    # ... and those are the ids the database holds, so judge verdicts on them join.
    task_ids = {
        cid
        for criteria in after.values()
        for column, cid, *_ in criteria
        if column == "task_criteria"
    }
    assert task_ids == set(Criterion.objects.filter(layer="task").values_list("code", flat=True))


def test_task_criterion_ids_are_written_task_local(tmp_path, starter_framework):
    records = generated(1)
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    export_l2bench(starter_framework, tmp_path / "out")
    with (tmp_path / "out" / TASKS_FILE).open(encoding="utf-8-sig", newline="") as handle:
        (row,) = csv.DictReader(handle)
    first = records[0].task_criteria[0]
    assert row["task_criteria"].startswith(f"{first.id.removeprefix(row['task_key'] + '-')}. ")
    assert not row["task_criteria"].startswith(f"{row['task_key']}-")


def four_resources(task: Task) -> None:
    TaskResource.objects.filter(task=task).delete()
    for n in range(1, 5):
        TaskResource.objects.create(task=task, order=n, title=f"sheet-{n}.md", text=f"Sheet {n}")


def test_a_task_with_four_resources_is_named_and_nothing_is_written(tmp_path, starter_framework):
    assert import_l2bench(benchmark_folder(tmp_path / "in", generated(3)), starter_framework).ok
    task = Task.objects.order_by("key")[1]
    four_resources(task)
    with pytest.raises(BenchmarkNotExportable) as refused:
        export_l2bench(starter_framework, tmp_path / "out")
    assert refused.value.problems == [
        f"task '{task.key}' has 4 resource files: the L2-Bench layout carries at most 3 "
        "(task_resource_file_link_1 to _3)"
    ]
    assert not (tmp_path / "out").exists()


def test_a_criterion_holding_a_bar_is_named_with_its_tasks(tmp_path, starter_framework):
    assert import_l2bench(benchmark_folder(tmp_path / "in", generated(3)), starter_framework).ok
    # Written before the wording rule refused '|' (the rule is checked on save, not in SQL).
    consensus = Criterion.objects.filter(layer="consensus").order_by("code").first()
    CriterionVersion.objects.filter(criterion=consensus).update(wording="Either A | B")
    with pytest.raises(BenchmarkNotExportable) as refused:
        export_l2bench(starter_framework, tmp_path / "out")
    (problem,) = refused.value.problems
    keys = Task.objects.filter(sub_competency=consensus.sub_competency).values_list(
        "key", flat=True
    )
    assert f"criterion {consensus.code}: contains '|'" in problem
    assert all(f"'{key}'" in problem for key in keys)


def test_the_export_page_answers_409_naming_the_task_not_500(
    tmp_path, starter_framework, client_as
):
    assert import_l2bench(benchmark_folder(tmp_path / "in", generated(2)), starter_framework).ok
    task = Task.objects.order_by("key").first()
    four_resources(task)
    url = reverse("interchange:export_benchmark")
    response = client_as(Role.MAINTAINER).get(url, {"framework": starter_framework.code})
    assert response.status_code == 409
    page = response.content.decode()
    assert "cannot be exported" in page and f"task &#x27;{task.key}&#x27; has 4 resource" in page


def test_the_export_page_names_the_problem_in_the_readers_language(
    tmp_path, starter_framework, make_user
):
    assert import_l2bench(benchmark_folder(tmp_path / "in", generated(2)), starter_framework).ok
    task = Task.objects.order_by("key").first()
    four_resources(task)
    reader = make_user(Role.MAINTAINER)
    reader.language = "es"
    reader.save()
    client = Client()
    client.force_login(reader)
    url = reverse("interchange:export_benchmark")
    page = client.get(url, {"framework": starter_framework.code}).content.decode()
    assert f"la tarea &#x27;{task.key}&#x27; tiene 4 archivos de recurso" in page


def test_the_export_command_names_the_task_and_writes_nothing(tmp_path, starter_framework):
    assert import_l2bench(benchmark_folder(tmp_path / "in", generated(2)), starter_framework).ok
    task = Task.objects.order_by("key").first()
    four_resources(task)
    with pytest.raises(CommandError, match=f"task '{task.key}' has 4 resource files"):
        call_command("export_l2bench", str(tmp_path / "out"), framework=starter_framework.code)
    assert not (tmp_path / "out").exists()


def test_the_demo_benchmark_exported_and_imported_again_changes_nothing(
    tmp_path, starter_framework
):
    # Its first task excludes a universal criterion (its row lists the others), and a task's
    # text resource is titled without the ".md" its file is written under.
    create_demo_accounts()
    author, maintainer = (User.objects.get(username=name) for name in ("author", "maintainer"))
    seed_demo_benchmark(starter_framework, author, maintainer)
    state = benchmark_state()
    export_l2bench(starter_framework, tmp_path / "out")
    report = import_l2bench(tmp_path / "out", starter_framework)
    assert report.ok, report.problem_lines()
    changed = {
        name: counts.as_dict()
        for name, counts in report.counts.items()
        if counts.created or counts.updated
    }
    assert changed == {}
    assert benchmark_state() == state


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


def test_the_task_sheet_shows_each_live_task_as_the_benchmark_export_does(
    tmp_path, starter_framework
):
    records = generated(4)
    records[0] = replace(records[0], universal_criteria=records[0].universal_criteria[:1])
    assert import_l2bench(benchmark_folder(tmp_path / "in", records), starter_framework).ok
    Task.objects.filter(key=records[3].task_key).update(status=Task.Status.RETIRED)
    Task.objects.filter(key=records[1].task_key).update(status=Task.Status.DRAFT)
    export_rubrics_xlsx(starter_framework, tmp_path / "r.xlsx")
    sheet = load_workbook(tmp_path / "r.xlsx")["Tasks"]
    rows = {row[0]: row for row in sheet.iter_rows(min_row=2, values_only=True)}
    universal = [c.id for c in records[1].universal_criteria]
    assert len(universal) > 1
    expected = {}
    for task in export_l2bench(starter_framework, tmp_path / "out").tasks:
        status = Task.objects.get(key=task.task_key).status
        context = "; ".join(f"{key}={value}" for key, value in task.context)
        listed = {c.id for c in task.universal_criteria}
        missing = ", ".join(code for code in universal if code not in listed)
        expected[task.task_key] = (task.task_key, task.competency, status, task.task)
        expected[task.task_key] += (task.task_system_prompt or None, task.reference_answer)
        expected[task.task_key] += (context or None, missing or None)
    assert rows == expected
    assert set(rows) == {r.task_key for r in records[:3]}
    assert rows[records[0].task_key][7] == ", ".join(universal[1:])
    assert rows[records[1].task_key][2] == Task.Status.DRAFT
    assert "=" in rows[records[0].task_key][6]


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


def test_the_task_page_and_the_export_agree_on_three_resources():
    assert len(RESOURCE_COLUMNS) == TaskResource.L2BENCH_LIMIT
