"""What a benchmark import will write, worked out in full before anything is written: the
planner (interchange.importers.benchmark) makes it, the writer (interchange.importers.writing)
carries it out."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.formats.l2bench_csv import TaskRecord
from interchange.models import TaskSource
from rubrics.bulk import ContextSetting
from rubrics.models import Criterion, CriterionVersion, Task, TaskContextValue
from rubrics.models.tasks import TaskResource, UniversalExclusion
from taxonomy.models import Framework, SubCompetency


@dataclass(frozen=True)
class ResourceSpec:
    title: str
    kind: str
    text: str = ""
    content: bytes = b""


@dataclass
class TaskPlan:
    record: TaskRecord
    sub: SubCompetency
    existing: Task | None
    context: dict[int, ContextSetting]
    resources: list[ResourceSpec]
    excluded: set[str] = field(default_factory=set)
    changes: set[str] = field(default_factory=set)
    """Names of what differs from the database: fields, 'context', 'resources', ..."""
    task: Task | None = None
    """The saved task, once written."""

    def saved(self) -> Task:
        """The task as written: the writer sets `task` before any later step reads it."""
        if self.task is None:
            raise RuntimeError(f"Task {self.record.task_key} is read before it is written.")
        return self.task


@dataclass
class CriterionPlan:
    code: str
    layer: str
    wording: str
    weight: int
    order: int
    sub_id: int | None
    task_key: str | None
    existing: Criterion | None
    latest: CriterionVersion | None
    action: str = "unchanged"  # create, new_version, edit_draft, touch (order/retired), unchanged
    retire: bool = False
    row: int | None = None
    column: str | None = None


@dataclass
class BenchmarkPlan:
    framework: Framework
    tasks: list[TaskPlan]
    criteria: dict[str, CriterionPlan]
    sources: dict[int, TaskSource]
    context_variable_ids: list[int]
    existing_exclusions: dict[int, dict[str, UniversalExclusion]]
    existing_context: dict[int, dict[int, TaskContextValue]]
    existing_resources: dict[int, list[TaskResource]]
