"""Helpers for the database tests of imports and exports: generated benchmarks, row counts."""

from __future__ import annotations

from pathlib import Path

from django.utils import timezone

from audit.models import AuditEvent
from interchange.formats.l2bench_csv import TaskRecord
from interchange.lease import this_worker
from interchange.models import ImportJob, TaskSource
from interchange.synthetic import synthetic_tasks, write_benchmark
from judging.models import JudgeRun, JudgeVerdict
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Response,
    Review,
    RubricItem,
    RubricVersion,
    Task,
    TaskContextValue,
    TaskResource,
    Turn,
    UniversalExclusion,
)

MODELS = [
    Task,
    TaskSource,
    Criterion,
    CriterionVersion,
    RubricVersion,
    RubricItem,
    Review,
    TaskContextValue,
    TaskResource,
    UniversalExclusion,
    Response,
    Turn,
    JudgeRun,
    JudgeVerdict,
    AuditEvent,
]
CONTEXT = {"cefr_level": ["A1", "b2"], "learner_age": ["teenagers (12-17)"]}


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def generated(n: int = 6, **options: object) -> list[TaskRecord]:
    defaults: dict[str, object] = {"context": CONTEXT, "resources_every": 2}
    return synthetic_tasks(n, ["01a", "02a", "03a"], **(defaults | options))  # type: ignore[arg-type]


def benchmark_folder(folder: Path, tasks: list[TaskRecord] | None = None) -> Path:
    return write_benchmark(folder, tasks if tasks is not None else generated())


def benchmark_state() -> dict[str, object]:
    """Everything a benchmark is, without database ids: for round-trip comparisons."""
    tasks = {
        t.key: (t.sub_competency.code, t.instruction, t.system_prompt, t.reference_answer, t.status)
        for t in Task.objects.select_related("sub_competency")
    }
    criteria = {}
    for c in Criterion.objects.filter(retired=False).select_related("task", "sub_competency"):
        latest = c.versions.latest()
        owner = c.task.key if c.task else (c.sub_competency.code if c.sub_competency else "")
        criteria[c.code] = (c.layer, owner, latest.wording, latest.weight)
    context = sorted(
        (v.task.key, v.variable.key, v.display_value)
        for v in TaskContextValue.objects.select_related("task", "variable", "value")
    )
    resources = sorted(
        (r.task.key, r.order, r.title, r.kind, r.text)
        for r in TaskResource.objects.select_related("task")
    )
    exclusions = sorted(
        (e.task.key, e.criterion.code)
        for e in UniversalExclusion.objects.select_related("task", "criterion")
    )
    sources = dict(TaskSource.objects.values_list("task__key", "version_at_time_of_draft"))
    return {
        "tasks": tasks,
        "criteria": criteria,
        "context": context,
        "resources": resources,
        "exclusions": exclusions,
        "sources": sources,
    }


def wipe_benchmark() -> None:
    """Delete every task, criterion and what hangs on them: an empty benchmark."""
    for model in (
        JudgeVerdict,
        Review,
        RubricItem,
        RubricVersion,
        UniversalExclusion,
        Turn,
        Response,
        TaskContextValue,
        TaskResource,
        TaskSource,
        CriterionVersion,
        Criterion,
        Task,
    ):
        model.objects.all().delete()


def make_job(framework, **fields):  # type: ignore[no-untyped-def]
    """A finished ImportJob row (no file needed to show it); a running one is this process's."""
    if fields.get("status") == ImportJob.Status.RUNNING:
        fields = {"worker": this_worker(), "heartbeat_at": timezone.now()} | fields
    defaults = {
        "kind": ImportJob.Kind.RESPONSES,
        "framework": framework,
        "token": f"t{ImportJob.objects.count() + 1}",
        "file": "2026/01/none.jsonl",
        "status": ImportJob.Status.SUCCEEDED,
        "summary": "responses: 1 created, 0 updated, 0 unchanged",
    }
    return ImportJob.objects.create(**(defaults | fields))
