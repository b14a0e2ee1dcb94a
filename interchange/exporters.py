"""Exports: the benchmark in the L2-Bench layout, and the rubrics as a spreadsheet.

Both show the benchmark as it stands: each task's criteria at their latest version (published
or draft), retired criteria and retired tasks left out. A task is written as published when
its status is published.

The L2-Bench layout cannot carry everything the database can hold (a fourth resource file, a
criterion written before '|' was refused): the export then writes nothing and raises
`BenchmarkNotExportable`, naming each task and criterion.
"""

from __future__ import annotations

import shutil
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from core.formats.criteria import Criterion as FileCriterion
from core.formats.criteria import Layer as FileLayer
from core.formats.l2bench_csv import (
    RESOURCES_DIR,
    TASKS_FILE,
    TaskRecord,
    unwritable,
    write_tasks_csv,
)
from core.formats.sheets_xlsx import Column, Table, write_tables_xlsx
from core.refusals import Conflict
from grading.models import Study
from interchange.models import TaskSource
from interchange.rubric_validation import VALIDATED, Validation, validation_in
from rubrics.models import (
    CriterionVersion,
    Layer,
    Task,
    TaskContextValue,
    TaskResource,
    UniversalExclusion,
)
from taxonomy.models import Framework

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
NOT_GRADED = "not graded"


class BenchmarkNotExportable(Conflict):
    """The benchmark holds what the L2-Bench layout cannot carry; `problems` says what, task by
    task (and criterion by criterion)."""

    problems: list[str]

    def __init__(self, problems: list[str]) -> None:
        super().__init__(
            "The benchmark cannot be written in the L2-Bench layout: " + "; ".join(problems)
        )
        self.problems = problems


@dataclass(frozen=True)
class Benchmark:
    tasks: list[TaskRecord]
    resources: dict[str, bytes]
    """File name in resources_for_tasks/ -> content."""


@dataclass(frozen=True, slots=True)
class LatestVersion:
    """A live criterion at its latest version: the columns the exports write."""

    pk: int  # the criterion version's
    criterion_id: int
    number: int
    wording: str
    weight: int
    frozen: bool
    passes: str
    fails: str
    code: str
    layer: str
    order: int
    sub_competency_id: int | None
    task_id: int | None
    sub_competency_code: str
    task_key: str


def _latest_versions(framework: Framework) -> list[LatestVersion]:
    """Each live criterion at its latest version, read as plain rows: ten thousand model
    instances (and their related criterion, sub-competency and task) cost more than writing
    the workbook."""
    latest: dict[int, LatestVersion] = {}
    rows = (
        CriterionVersion.objects.filter(criterion__framework=framework, criterion__retired=False)
        .order_by("criterion_id", "number")
        .values_list(
            "pk",
            "criterion_id",
            "number",
            "wording",
            "weight",
            "frozen",
            "passes",
            "fails",
            "criterion__code",
            "criterion__layer",
            "criterion__order",
            "criterion__sub_competency_id",
            "criterion__task_id",
            "criterion__sub_competency__code",
            "criterion__task__key",
        )
    )
    for row in rows:
        version = LatestVersion(*row[:13], row[13] or "", row[14] or "")
        latest[version.criterion_id] = version
    return sorted(latest.values(), key=lambda v: (v.order, v.code))


def benchmark_records(
    framework: Framework,
    *,
    versions: list[LatestVersion] | None = None,
    with_resources: bool = True,
) -> Benchmark:
    """The framework's tasks as L2-Bench records, and their resource files (without
    `with_resources` no file is read and the records name none). `versions` spares a caller
    that already holds `_latest_versions(framework)` a second load."""
    tasks: list[Any] = list(  # named rows: a thousand Task instances cost more than their texts
        Task.objects.filter(framework=framework)
        .exclude(status=Task.Status.RETIRED)
        .order_by("key")
        .values_list(
            "pk",
            "key",
            "instruction",
            "system_prompt",
            "reference_answer",
            "status",
            "sub_competency_id",
            "sub_competency__code",
            "language",
            named=True,
        )
    )
    universal, by_sub, by_task = [], defaultdict(list), defaultdict(list)
    for version in _latest_versions(framework) if versions is None else versions:
        item = FileCriterion(
            version.code, version.wording.strip(), version.weight, FileLayer(version.layer)
        )
        if version.layer == Layer.UNIVERSAL:
            universal.append((version.criterion_id, item))
        elif version.layer == Layer.CONSENSUS:
            by_sub[version.sub_competency_id].append(item)
        else:
            by_task[version.task_id].append(item)
    excluded = _universal_exclusions(framework)
    context = _task_context(framework)
    sources = dict(
        TaskSource.objects.filter(task__framework=framework).values_list(
            "task_id", "version_at_time_of_draft"
        )
    )
    files: dict[str, bytes] = {}
    names: defaultdict[int, list[str]] = defaultdict(list)
    resources = TaskResource.objects.filter(task__framework=framework).order_by(
        "task_id", "order", "pk"
    )
    for resource in resources if with_resources else ():
        name, content = _resource_file(resource)
        if name in files and files[name] != content:
            name = f"{resource.task_id}_{name}"  # same name, other content: keep both
        files[name] = content
        names[resource.task_id].append(name)
    records = [
        TaskRecord(
            task_key=task.key,
            task=task.instruction,
            task_system_prompt=task.system_prompt,
            reference_answer=task.reference_answer,
            competency=task.sub_competency__code,
            version_at_time_of_draft=sources.get(task.pk, ""),
            is_published=task.status == Task.Status.PUBLISHED,
            resource_files=tuple(names[task.pk]),
            task_criteria=tuple(by_task[task.pk]),
            consensus_criteria=tuple(by_sub[task.sub_competency_id]),
            universal_criteria=tuple(item for pk, item in universal if pk not in excluded[task.pk]),
            context=tuple(sorted(context[task.pk])),
            language=task.language,
        )
        for task in tasks
    ]
    return Benchmark(records, files)


def _task_context(framework: Framework) -> defaultdict[int, list[tuple[str, str]]]:
    """Task id -> its context values as (variable key, value shown), in no set order."""
    context = defaultdict(list)
    for value in TaskContextValue.objects.filter(task__framework=framework).select_related(
        "variable", "value"
    ):
        context[value.task_id].append((value.variable.key, value.display_value))
    return context


def _universal_exclusions(framework: Framework) -> defaultdict[int, set[int]]:
    """Task id -> the ids of the universal criteria that do not apply to it."""
    excluded = defaultdict(set)
    for task_id, criterion_id in UniversalExclusion.objects.filter(
        task__framework=framework
    ).values_list("task_id", "criterion_id"):
        excluded[task_id].add(criterion_id)
    return excluded


def resource_file_name(resource: TaskResource) -> str:
    """The name a resource is written under in resources_for_tasks/, and so the title an
    import reads back: its title, made a file name, a text's with a text suffix."""
    name = resource.title.replace("/", "_").replace("\\", "_").strip() or f"resource_{resource.pk}"
    if resource.kind != TaskResource.Kind.FILE and not name.lower().endswith(TEXT_SUFFIXES):
        name += ".md"
    return name


def _resource_file(resource: TaskResource) -> tuple[str, bytes]:
    name = resource_file_name(resource)
    if resource.kind == TaskResource.Kind.FILE:
        with resource.file.open("rb") as handle:
            return name, handle.read()
    return name, resource.text.encode("utf-8")


def export_l2bench(framework: Framework, folder: Path) -> Benchmark:
    """Write `<folder>/l2-bench_tasks.csv` and `<folder>/resources_for_tasks/`; raises
    `BenchmarkNotExportable` (writing nothing) for what the layout cannot carry."""
    benchmark = benchmark_records(framework)
    problems = unwritable(benchmark.tasks)
    if problems:
        raise BenchmarkNotExportable(problems)
    folder.mkdir(parents=True, exist_ok=True)
    resources = folder / RESOURCES_DIR
    resources.mkdir(exist_ok=True)
    for name, content in benchmark.resources.items():
        (resources / name).write_bytes(content)
    write_tasks_csv(folder / TASKS_FILE, benchmark.tasks)
    return benchmark


def export_l2bench_zip(framework: Framework, target: IO[bytes], workdir: Path) -> None:
    """The L2-Bench folder as a ZIP archive (the layout the upload page takes back)."""
    folder = workdir / "l2-bench"
    export_l2bench(framework, folder)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder).as_posix())
    shutil.rmtree(folder)


CRITERIA_COLUMNS = [
    Column("Code", 12),
    Column("Owner", 12),
    Column("Version", 9),
    Column("Wording", 70),
    Column("Weight", 8),
    Column("Published (frozen)", 10),
    Column("What passes", 40),
    Column("What fails", 40),
]
TASK_COLUMNS = [
    Column("Task key", 10),
    Column("Sub-competency", 14),
    Column("Status", 11),
    Column("Instruction", 70),
    Column("System prompt", 30),
    Column("Reference answer", 70),
    Column("Context", 40),
    Column("Universal criteria not applicable", 24),
]


VALIDATION_COLUMNS = [
    Column("Validation", 14),
    Column("Why", 40),
    Column("Alpha", 9),
    Column("Alpha CI low", 9),
    Column("Alpha CI high", 9),
    Column("Units (n)", 9),
    Column("Threshold", 9),
    Column("Study", 24),
    Column("Study id", 8),
]


def _validation_cells(
    version_pk: int, validation: Validation, studies: Sequence[Study]
) -> list[list[object]]:
    """The validation columns of a criterion version's rows: one row per chosen study that
    graded it at this version; one "not graded" row when none did."""
    found = validation.get(version_pk)
    if found:
        return [
            [v.status, v.why, v.alpha, v.low, v.high, v.n_units, v.threshold, v.study, v.study_id]
            for v in found
        ]
    if len(studies) == 1:
        [study] = studies
        why = "not graded at this version in the study"
        return [[NOT_GRADED, why, None, None, None, 0, None, study.name, study.pk]]
    return [[NOT_GRADED, "not graded at this version in any study", *[None] * 3, 0, *[None] * 3]]


def rubric_tables(
    framework: Framework,
    validation: Validation | None = None,
    *,
    studies: Sequence[Study] = (),
    only_validated: bool = False,
) -> list[Table]:
    """A task sheet, then one sheet per layer (universal, consensus, task). With `validation`
    (interchange.rubric_validation, from the agreement reports of `studies`) each criterion
    row carries a study's decision, its alpha with its interval and n, the threshold and the
    study: one row per study that graded the criterion at its latest version (or one saying
    none did). `only_validated` keeps only the rows of a study that validated it."""
    rows: dict[str, list[list[object]]] = {layer: [] for layer in Layer.values}
    versions = _latest_versions(framework)
    universal: list[tuple[int, str]] = []  # (criterion id, code) of the sheet's universal rows
    for version in versions:
        if version.layer == Layer.UNIVERSAL:
            owner = framework.code
            universal.append((version.criterion_id, version.code))
        elif version.layer == Layer.CONSENSUS:
            owner = version.sub_competency_code
        else:
            owner = version.task_key
        cells = [
            version.code,
            owner,
            version.number,
            version.wording,
            version.weight,
            version.frozen,
            version.passes,
            version.fails,
        ]
        if validation is None:
            rows[version.layer].append(cells)
            continue
        for decided in _validation_cells(version.pk, validation, studies):
            if only_validated and decided[0] != VALIDATED:
                continue
            rows[version.layer].append(cells + decided)
    # The tasks as benchmark_records lists them, read without what this sheet does not show.
    excluded = _universal_exclusions(framework)
    context = _task_context(framework)
    tasks = (
        Task.objects.filter(framework=framework)
        .exclude(status=Task.Status.RETIRED)
        .order_by("key")
        .values_list(
            "pk",
            "key",
            "sub_competency__code",
            "status",
            "instruction",
            "system_prompt",
            "reference_answer",
        )
    )
    task_rows = [
        [
            key,
            sub_competency,
            status,
            instruction,
            system_prompt,
            reference_answer,
            "; ".join(f"{name}={value}" for name, value in sorted(context[pk])),
            ", ".join(code for criterion_id, code in universal if criterion_id in excluded[pk]),
        ]
        for pk, key, sub_competency, status, instruction, system_prompt, reference_answer in tasks
    ]
    columns = CRITERIA_COLUMNS + (VALIDATION_COLUMNS if validation is not None else [])
    return [
        Table("Tasks", TASK_COLUMNS, task_rows),
        Table("Universal criteria", columns, rows[Layer.UNIVERSAL]),
        Table("Consensus criteria", columns, rows[Layer.CONSENSUS]),
        Table("Task criteria", columns, rows[Layer.TASK]),
    ]


def export_rubrics_xlsx(
    framework: Framework,
    target: Path | IO[bytes],
    studies: Sequence[Study] | None = None,
    *,
    only_validated: bool = False,
) -> None:
    """The rubrics workbook; with `studies` (interchange.rubric_validation.validating_studies)
    each criterion carries their decisions on it."""
    validation = validation_in(studies) if studies is not None else None
    tables = rubric_tables(
        framework, validation, studies=studies or (), only_validated=only_validated
    )
    write_tables_xlsx(target, tables)
