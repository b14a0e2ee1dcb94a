"""What the database holds after an import or export: row counts and a benchmark's state
without ids (the builders are in tests/factories.py)."""

from __future__ import annotations

from audit.models import AuditEvent
from interchange.models import TaskSource
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


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


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
