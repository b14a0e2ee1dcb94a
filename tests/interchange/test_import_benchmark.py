"""import_l2bench end to end on the database: every error class, all or nothing, dry runs,
idempotent re-imports, versioning of changed criteria, publication."""

import csv
import dataclasses
import gc

import pytest

from core.formats.criteria import Criterion as FileCriterion
from core.formats.criteria import Layer as FileLayer
from core.formats.l2bench_csv import TASKS_FILE
from core.formats.synthetic import write_benchmark
from interchange.importers import import_l2bench
from rubrics.models import Criterion, CriterionVersion, RubricVersion, Task, TaskContextValue
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db


def test_first_import_creates_everything_and_publishes_the_published_tasks(
    tmp_path, starter_framework
):
    tasks = generated(8)
    report = import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    assert report.ok, report.problem_lines()
    assert str(report.counts["tasks"]) == "8 created, 0 updated, 0 unchanged"
    codes = {c.id for t in tasks for c in t.criteria}
    assert set(Criterion.objects.values_list("code", flat=True)) == codes
    published = {t.task_key for t in tasks if t.is_published}
    assert set(Task.objects.filter(status="published").values_list("key", flat=True)) == published
    assert report.counts["published rubrics"].created == len(published)
    assert TaskContextValue.objects.filter(variable__key="cefr_level").count() == 8


def test_an_import_runs_with_the_cyclic_garbage_collector_paused(tmp_path, starter_framework):
    seen: list[bool] = []
    report = import_l2bench(
        benchmark_folder(tmp_path),
        starter_framework,
        progress=lambda *_: seen.append(gc.isenabled()),
    )
    assert report.ok and seen and not any(seen)
    assert gc.isenabled()  # as it was before


def test_import_publish_gives_the_rubric_the_review_services_would(tmp_path, starter_framework):
    import_l2bench(benchmark_folder(tmp_path), starter_framework)
    for version in RubricVersion.objects.select_related("task"):
        live = [
            (e.version.pk, e.layer, e.applicable, e.na_reason)
            for e in version.task.effective_rubric()
        ]
        stored = [
            (e.version.pk, e.layer, e.applicable, e.na_reason) for e in version.effective_rubric()
        ]
        assert stored == live
        assert all(e.version.frozen for e in version.effective_rubric())


def test_reimporting_the_same_folder_changes_nothing(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path)
    import_l2bench(folder, starter_framework)
    before = row_counts()
    report = import_l2bench(folder, starter_framework)
    assert report.ok
    assert report.counts["tasks"].created == report.counts["tasks"].updated == 0
    assert report.counts["criteria"].created == report.counts["criteria"].updated == 0
    assert report.counts["published rubrics"].created == 0
    assert row_counts() == before


def test_dry_run_reports_the_counts_of_a_real_run_and_writes_nothing(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path)
    before = row_counts()
    dry = import_l2bench(folder, starter_framework, dry_run=True)
    assert row_counts() == before
    real = import_l2bench(folder, starter_framework)
    assert {k: v.as_dict() for k, v in dry.counts.items()} == {
        k: v.as_dict() for k, v in real.counts.items()
    }
    assert row_counts() != before


def rewrite(folder, tasks):
    (folder / TASKS_FILE).unlink()
    write_benchmark(folder, tasks)


def test_changed_wording_of_a_published_criterion_makes_a_draft_version_left_for_review(
    tmp_path, starter_framework
):
    tasks = generated(4)
    import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    first = tasks[0]
    assert first.is_published
    changed = FileCriterion(first.task_criteria[0].id, "Reworded by the experts", 4, FileLayer.TASK)
    tasks[0] = dataclasses.replace(first, task_criteria=(changed, *first.task_criteria[1:]))
    rewrite(tmp_path, tasks)
    report = import_l2bench(tmp_path, starter_framework)
    assert report.ok, report.problem_lines()
    versions = CriterionVersion.objects.filter(criterion__code=changed.id).order_by("number")
    assert [(v.wording, v.weight, v.frozen) for v in versions][-1] == (
        "Reworded by the experts",
        4,
        False,
    )
    assert versions.count() == 2 and versions[0].frozen
    assert str(report.counts["tasks"]) == "0 created, 1 updated, 3 unchanged"
    # The change waits for review: the task is a draft again, its published rubric as it was.
    assert RubricVersion.objects.filter(task__key=first.task_key).count() == 1
    assert Task.objects.get(key=first.task_key).status == Task.Status.DRAFT


def test_changed_draft_criterion_is_edited_in_place(tmp_path, starter_framework):
    tasks = generated(4)
    draft = next(t for t in tasks if not t.is_published)
    import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    changed = FileCriterion(
        draft.task_criteria[0].id, "Edited while still a draft", 2, FileLayer.TASK
    )
    index = tasks.index(draft)
    tasks[index] = dataclasses.replace(draft, task_criteria=(changed, *draft.task_criteria[1:]))
    rewrite(tmp_path, tasks)
    report = import_l2bench(tmp_path, starter_framework)
    assert report.counts["criterion versions"].updated == 1
    versions = CriterionVersion.objects.filter(criterion__code=changed.id)
    assert [(v.number, v.wording) for v in versions] == [(1, "Edited while still a draft")]


def test_a_task_criterion_dropped_from_the_file_is_retired(tmp_path, starter_framework):
    tasks = generated(4)
    import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    dropped = tasks[1].task_criteria[-1].id
    tasks[1] = dataclasses.replace(tasks[1], task_criteria=tasks[1].task_criteria[:-1])
    rewrite(tmp_path, tasks)
    assert import_l2bench(tmp_path, starter_framework).ok
    assert Criterion.objects.get(code=dropped).retired


# ----- every error, nothing written ----------------------------------------------------------


def edit_csv(folder, row_index, cells):
    path = folder / TASKS_FILE
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    for column, value in cells.items():
        if column not in header:
            header.append(column)
            for row in rows[1:]:
                row.append("")
        rows[row_index][header.index(column)] = value
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerows(rows)


ERRORS = [
    (
        {"competency": "99z"},
        "row 2: field 'competency': unknown sub-competency '99z'",
    ),
    (
        {"context:cefr_level": "Z9"},
        "row 2: field 'context:cefr_level': 'Z9' is not an allowed value of",
    ),
    (
        {"context:planet": "Mars"},
        "row 1: field 'context:planet': unknown context variable 'planet'",
    ),
    ({"task_key": "102"}, "duplicate task_key '102'"),
    ({"task_criteria": "01. Good ==high"}, "criterion weight 'high' is not a number"),
    ({"task_criteria": "x1. Has a bad id ==2"}, "is not a task criterion code"),
    ({"universal_criteria": "u6. Not a universal code ==1"}, "is not a universal criterion code"),
    (
        {"consensus_criteria": "03a-01. Another sub's criterion ==2"},
        "belongs to sub-competency 03a",
    ),
    ({"task_criteria": "01. Weighs nothing ==0"}, "has weight 0"),
    ({"is_published_v1-0": "perhaps"}, "'perhaps' is not true, false"),
]


@pytest.mark.parametrize(("cells", "expected"), ERRORS, ids=[e[1][:40] for e in ERRORS])
def test_each_error_is_reported_with_its_place_and_nothing_is_written(
    tmp_path, starter_framework, cells, expected
):
    folder = benchmark_folder(tmp_path)
    edit_csv(folder, 1, cells)
    before = row_counts()
    report = import_l2bench(folder, starter_framework)
    assert not report.ok
    assert any(expected in line for line in report.problem_lines()), report.problem_lines()
    assert row_counts() == before


def test_every_problem_is_reported_in_one_pass(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path)
    edit_csv(folder, 1, {"competency": "99z"})
    edit_csv(folder, 2, {"context:cefr_level": "Z9"})
    edit_csv(folder, 3, {"task_criteria": "01. Good ==high"})
    report = import_l2bench(folder, starter_framework)
    fields = {p.field for p in report.problems}
    assert {"competency", "context:cefr_level", "task_criteria"} <= fields


def test_a_problem_in_the_last_row_leaves_an_existing_benchmark_untouched(
    tmp_path, starter_framework
):
    tasks = generated(5)
    import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    tasks[0] = dataclasses.replace(tasks[0], task="A changed instruction")
    rewrite(tmp_path, tasks)
    edit_csv(tmp_path, 5, {"competency": "not a sub-competency"})
    before = row_counts()
    assert not import_l2bench(tmp_path, starter_framework).ok
    assert row_counts() == before
    assert Task.objects.get(key=tasks[0].task_key).instruction != "A changed instruction"


def test_sub_competency_is_found_by_name_too(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path, generated(1))
    name = Task._meta.get_field("sub_competency").related_model.objects.get(code="02a").name
    edit_csv(folder, 1, {"competency": name.upper(), "consensus_criteria": ""})
    report = import_l2bench(folder, starter_framework)
    assert report.ok, report.problem_lines()
    assert Task.objects.get().sub_competency.code == "02a"


def _with_languages(folder, languages):
    """The folder's tasks file with a `language` column holding `languages`, row by row."""
    path = folder / TASKS_FILE
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    rows[0].append("language")
    for row, language in zip(rows[1:], languages, strict=True):
        row.append(language)
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return folder


def test_a_language_column_takes_a_code_or_a_name_and_names_one_it_does_not_know(
    tmp_path, starter_framework
):
    tasks = generated(3)
    refused = import_l2bench(
        _with_languages(benchmark_folder(tmp_path / "a", tasks), ["es", "Klingon", ""]),
        starter_framework,
    )
    assert not refused.ok and Task.objects.count() == 0
    assert any("row 3" in line and "'Klingon'" in line for line in refused.problem_lines())
    folder = _with_languages(benchmark_folder(tmp_path / "b", tasks), ["es", "Portuguese", ""])
    assert import_l2bench(folder, starter_framework).ok
    languages = dict(Task.objects.values_list("key", "language"))
    assert [languages[t.task_key] for t in tasks] == ["es", "pt", "en"]
    again = _with_languages(benchmark_folder(tmp_path / "c", tasks), ["fr", "", ""])
    report = import_l2bench(again, starter_framework)
    assert str(report.counts["tasks"]) == "0 created, 1 updated, 2 unchanged"
    languages = dict(Task.objects.values_list("key", "language"))
    assert [languages[t.task_key] for t in tasks] == ["fr", "pt", "en"]  # blank: kept


def test_a_nul_in_a_text_resource_is_a_problem_naming_row_and_column_and_nothing_is_written(
    tmp_path, starter_framework
):
    tasks = [dataclasses.replace(t, resource_files=(f"r{t.task_key}.md",)) for t in generated(2)]
    folder = write_benchmark(tmp_path, tasks)
    (folder / "resources_for_tasks" / f"r{tasks[1].task_key}.md").write_text("a\x00b")
    before = row_counts()
    report = import_l2bench(folder, starter_framework)
    assert report.problem_lines() == [
        f"l2-bench_tasks.csv: row 3: field 'task_resource_file_link_1': resource "
        f"'r{tasks[1].task_key}.md' holds the NUL character (\\u0000), which the database "
        "cannot store"
    ]
    assert row_counts() == before
