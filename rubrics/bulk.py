"""Bulk variants of the rubric services, for imports: thousands of tasks and criteria written
with a handful of queries, following the rules of rubrics.services.

- an edited task, or a task whose own criteria change, must be editable (not in review, not
  retired: TaskLocked) and, if published, becomes the draft of its next rubric version
  (rubrics.publishing.reopen, as for a single edit);
- a criterion's new wording or weight goes into its latest version while that version is a
  draft, and into a new version (keeping the rest of its content and its scale labels) once a
  published rubric froze it; the check reads the versions under lock, as edit_criterion does;
- every change is in the history (audit.services.record_many): the same events the single
  services record, so a task's history reads alike however it changed.

The caller has checked the values (an importer collects every problem first); these functions
trust them as bulk_create does. Each runs in a transaction, so the caller's transaction makes a
whole import all or nothing.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from l2annot.bulk_insert import insert, insert_rows
from rubrics import publishing
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Layer,
    ScalePoint,
    Task,
    TaskContextValue,
    TaskResource,
    UniversalExclusion,
)
from rubrics.services import RESOURCE_FIELDS, ensure_editable
from taxonomy.models import ContextValue, ContextVariable, Framework, SubCompetency

BATCH = 500
EXCLUSION_FIELDS = ("task", "criterion", "reason")


def _actor(by: User | None) -> User | None:
    return by if by is not None and by.is_authenticated else None


def _lock(tasks: Iterable[Task]) -> None:
    """Lock the tasks' rows and bring their status and revision up to date (the caller's
    objects may have been read before an approval or another edit)."""
    by_pk = {task.pk: task for task in tasks}
    rows = Task.objects.select_for_update().filter(pk__in=list(by_pk)).order_by("pk")
    for pk, status, revision in rows.values_list("pk", "status", "revision"):
        by_pk[pk].status, by_pk[pk].revision = status, revision


# ----- tasks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewTask:
    key: str
    sub_competency: SubCompetency
    instruction: str
    system_prompt: str = ""
    reference_answer: str = ""
    language: str = "en"  # ISO 639-1 code


@dataclass(frozen=True)
class TaskEdit:
    """New values of some of Task.CONTENT_FIELDS (none when only the task's criteria, context
    values, resources or other related rows changed: the task still counts as edited)."""

    task: Task
    changes: Mapping[str, Any]
    comment: str = ""


@transaction.atomic
def create_tasks(
    framework: Framework,
    new: Sequence[NewTask],
    by: User | None,
    *,
    kind: AuditEvent.Kind = AuditEvent.Kind.CREATED,
    comment: str = "",
) -> list[Task]:
    """Create draft tasks in `framework`, in the order given."""
    tasks = [
        Task(
            framework=framework,
            key=spec.key,
            sub_competency=spec.sub_competency,
            instruction=spec.instruction,
            system_prompt=spec.system_prompt,
            reference_answer=spec.reference_answer,
            language=spec.language,
            created_by=_actor(by),
        )
        for spec in new
    ]
    insert(Task, tasks)
    audit.record_rows(
        Task, kind, by, ((task.pk, str(task), {"key": [None, task.key]}) for task in tasks), comment
    )
    return tasks


@transaction.atomic
def edit_tasks(edits: Sequence[TaskEdit], by: User | None) -> list[Task]:
    """Apply each edit as rubrics.services.edit_task would, without the revision check (the
    caller read the tasks in this transaction). Every edited task gets a new revision and an
    UPDATED event; a published one is reopened. Returns the edited tasks."""
    _lock(edit.task for edit in edits)
    now = timezone.now()
    events = []
    tasks = []
    for edit in edits:
        task = edit.task
        unknown = set(edit.changes) - set(Task.CONTENT_FIELDS)
        if unknown:
            raise ValueError(f"These fields cannot be edited here: {', '.join(sorted(unknown))}.")
        names = list(edit.changes)
        before = audit.snapshot(task, names)
        for name, value in edit.changes.items():
            setattr(task, name, value)
        delta = audit.diff(before, audit.snapshot(task, names))
        if delta:
            ensure_editable(task)
        task.revision += 1
        task.updated_at = now
        events.append(audit.event(task, AuditEvent.Kind.UPDATED, by, delta, edit.comment))
        tasks.append(task)
    fields = sorted({name for edit in edits for name in edit.changes} | {"revision", "updated_at"})
    Task.objects.bulk_update(tasks, fields, batch_size=BATCH)
    audit.record_many(events)
    publishing.reopen(tasks, by)
    return tasks


def _editable_tasks(task_ids: set[int], by: User | None) -> None:
    """The tasks whose own criteria change: refused in review or retired, reopened if
    published (as add_criterion and edit_criterion do for one task criterion)."""
    if not task_ids:
        return
    tasks = list(Task.objects.select_for_update().filter(pk__in=task_ids).order_by("pk"))
    for task in tasks:
        ensure_editable(task)
    publishing.reopen(tasks, by)


# ----- criteria ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewCriterion:
    """A criterion and its first version. A consensus criterion names its sub-competency, a
    task criterion its task, a universal one neither."""

    code: str
    layer: str
    order: int
    wording: str
    weight: int
    sub_competency_id: int | None = None
    task: Task | None = None


@dataclass(frozen=True)
class CriterionEdit:
    """A criterion's place (`order`, `retired`) and, when `wording` and `weight` are given, its
    new content. `latest` is its latest version as the caller read it (None if it has none)."""

    criterion: Criterion
    latest: CriterionVersion | None
    order: int
    retired: bool = False
    wording: str | None = None
    weight: int | None = None


@dataclass
class CriteriaWritten:
    versions_created: int = 0
    drafts_edited: int = 0


@transaction.atomic
def create_criteria(
    framework: Framework,
    new: Sequence[NewCriterion],
    by: User | None,
    *,
    kind: AuditEvent.Kind = AuditEvent.Kind.CREATED,
    comment: str = "",
) -> list[Criterion]:
    """Create criteria with their first (draft) version, in the order given."""
    _editable_tasks({spec.task.pk for spec in new if spec.task is not None}, by)
    criteria = [
        Criterion(
            framework=framework,
            code=spec.code,
            layer=spec.layer,
            sub_competency_id=spec.sub_competency_id,
            task=spec.task if spec.layer == Layer.TASK else None,
            order=spec.order,
        )
        for spec in new
    ]
    insert(Criterion, criteria)
    actor = _actor(by)
    # The versions and the history as plain rows: an import makes tens of thousands.
    insert_rows(
        CriterionVersion,
        ("criterion_id", "number", "wording", "weight", "created_by_id"),
        (
            (criterion.pk, 1, spec.wording, spec.weight, actor.pk if actor else None)
            for spec, criterion in zip(new, criteria, strict=True)
        ),
    )
    audit.record_rows(
        Criterion,
        kind,
        by,
        (
            (
                criterion.pk,
                str(criterion),
                {
                    "code": [None, spec.code],
                    "wording": [None, spec.wording],
                    "weight": [None, spec.weight],
                },
            )
            for spec, criterion in zip(new, criteria, strict=True)
        ),
        comment,
    )
    return criteria


@transaction.atomic
def edit_criteria(
    edits: Sequence[CriterionEdit], by: User | None, *, comment: str = ""
) -> CriteriaWritten:
    """Apply each edit as rubrics.services.edit_criterion would: a new revision of the
    criterion, its content into the draft latest version or a new version after a frozen one."""
    written = CriteriaWritten()
    _editable_tasks(
        {
            edit.criterion.task_id
            for edit in edits
            if edit.criterion.layer == Layer.TASK and edit.criterion.task_id is not None
        },
        by,
    )
    # Read again under lock which drafts a publication has frozen meanwhile.
    drafts = [e.latest.pk for e in edits if e.latest is not None and not e.latest.frozen]
    frozen_now = set(
        CriterionVersion.objects.select_for_update()
        .filter(pk__in=drafts, frozen=True)
        .values_list("pk", flat=True)
    )
    criteria, new_versions, edited_drafts, events = [], [], [], []
    copies_from: dict[int, int] = {}
    for edit in edits:
        criterion, latest = edit.criterion, edit.latest
        before: dict[str, Any] = {"order": criterion.order, "retired": criterion.retired}
        criterion.order, criterion.retired = edit.order, edit.retired
        criterion.revision += 1
        criteria.append(criterion)
        delta = audit.diff(before, {"order": criterion.order, "retired": criterion.retired})
        if edit.wording is not None and edit.weight is not None:
            old = (latest.wording, latest.weight) if latest is not None else (None, None)
            delta |= audit.diff(
                {"wording": old[0], "weight": old[1]},
                {"wording": edit.wording, "weight": edit.weight},
            )
            if latest is None or latest.frozen or latest.pk in frozen_now:
                version = CriterionVersion(
                    criterion=criterion,
                    number=latest.number + 1 if latest else 1,
                    created_by=_actor(by),
                    **{n: getattr(latest, n) for n in CriterionVersion.CONTENT_FIELDS}
                    if latest
                    else {},
                )
                version.wording, version.weight = edit.wording, edit.weight
                new_versions.append(version)
                if latest is not None:
                    copies_from[id(version)] = latest.pk
            else:
                latest.wording, latest.weight = edit.wording, edit.weight
                edited_drafts.append(latest)
        events.append(audit.event(criterion, AuditEvent.Kind.UPDATED, by, delta, comment))
    insert(CriterionVersion, new_versions)
    CriterionVersion.objects.bulk_update(edited_drafts, ["wording", "weight"], batch_size=BATCH)
    Criterion.objects.bulk_update(criteria, ["order", "retired", "revision"], batch_size=BATCH)
    _copy_scale_points(new_versions, copies_from)
    audit.record_many(events)
    written.versions_created = len(new_versions)
    written.drafts_edited = len(edited_drafts)
    return written


def _copy_scale_points(versions: list[CriterionVersion], copies_from: dict[int, int]) -> None:
    """A new version keeps the scale labels of the version it follows."""
    if not copies_from:
        return
    labels = defaultdict(list)
    for point in ScalePoint.objects.filter(version_id__in=copies_from.values()):
        labels[point.version_id].append(point)
    insert(
        ScalePoint,
        (
            ScalePoint(version=version, value=point.value, label=point.label)
            for version in versions
            if id(version) in copies_from
            for point in labels[copies_from[id(version)]]
        ),
    )


# ----- per-task settings -------------------------------------------------------------------


@transaction.atomic
def set_exclusions(
    excluded: Mapping[Task, Sequence[Criterion]], reason: str, by: User | None
) -> None:
    """Make each task's universal exclusions exactly `excluded[task]` (universal criteria of
    its framework): new ones get `reason`, ones no longer listed are removed, ones kept keep
    their reason. Recorded as exclude_universal and include_universal record them."""
    _lock(excluded)
    current: dict[int, dict[int, UniversalExclusion]] = defaultdict(dict)
    existing = UniversalExclusion.objects.filter(task__in=[task.pk for task in excluded])
    for exclusion in existing.select_related("criterion"):
        current[exclusion.task_id][exclusion.criterion_id] = exclusion
    obsolete, new = [], []
    for task, criteria in excluded.items():
        wanted = {criterion.pk: criterion for criterion in criteria}
        has = current.get(task.pk, {})
        changed = set(has) != set(wanted)
        if changed:
            ensure_editable(task)
        for criterion_id, exclusion in has.items():
            if criterion_id not in wanted:
                exclusion.task = task
                obsolete.append(exclusion)
        new += [
            UniversalExclusion(task=task, criterion=criterion, reason=reason, created_by=_actor(by))
            for criterion_id, criterion in sorted(wanted.items())
            if criterion_id not in has
        ]
    events = [audit.event(e, AuditEvent.Kind.DELETED, by, _removed(e)) for e in obsolete]
    UniversalExclusion.objects.filter(pk__in=[e.pk for e in obsolete]).delete()
    insert(UniversalExclusion, new)
    events += [audit.event(e, AuditEvent.Kind.CREATED, by, _added(e)) for e in new]
    audit.record_many(events)


def _added(obj: UniversalExclusion | TaskResource) -> dict[str, list[Any]]:
    fields = EXCLUSION_FIELDS if isinstance(obj, UniversalExclusion) else RESOURCE_FIELDS
    return {name: [None, value] for name, value in audit.snapshot(obj, fields).items()}


def _removed(obj: UniversalExclusion | TaskResource) -> dict[str, list[Any]]:
    fields = EXCLUSION_FIELDS if isinstance(obj, UniversalExclusion) else RESOURCE_FIELDS
    return {name: [value, None] for name, value in audit.snapshot(obj, fields).items()}


@dataclass(frozen=True)
class ContextSetting:
    """One task's value of one variable, in TaskContextValue's three columns."""

    value_id: int | None = None
    text: str = ""
    number: Decimal | None = None


@transaction.atomic
def set_context_values(
    values: Mapping[Task, Mapping[int, ContextSetting]],
    variable_ids: Sequence[int],
    by: User | None,
) -> None:
    """Make each task's values of the variables `variable_ids` exactly `values[task]` (by
    variable id; values parsed by ContextVariable.parse_value). A task's changes are one
    UPDATED event naming each variable, as set_context_value records them."""
    _lock(values)
    keys = dict(ContextVariable.objects.filter(pk__in=variable_ids).values_list("pk", "key"))
    current: dict[int, dict[int, TaskContextValue]] = defaultdict(dict)
    existing = TaskContextValue.objects.filter(
        task__in=[task.pk for task in values], variable_id__in=variable_ids
    )
    for row in existing:
        current[row.task_id][row.variable_id] = row
    listed = [s.value_id for settings in values.values() for s in settings.values()]
    listed += [row.value_id for rows in current.values() for row in rows.values()]
    labels = dict(
        ContextValue.objects.filter(pk__in={pk for pk in listed if pk is not None}).values_list(
            "pk", "label"
        )
    )

    def shown(setting: ContextSetting | None) -> str | None:
        if setting is None:
            return None
        if setting.value_id is not None:
            return str(labels[setting.value_id])
        if setting.number is not None:
            return format(setting.number.normalize(), "f")
        return setting.text

    obsolete: list[int] = []
    new: list[TaskContextValue] = []
    events = []
    for task, settings in values.items():
        has = {
            variable_id: ContextSetting(row.value_id, row.text, row.number)
            for variable_id, row in current.get(task.pk, {}).items()
        }
        if has == dict(settings):
            continue
        ensure_editable(task)
        delta = {
            f"context {keys[variable_id]}": [
                shown(has.get(variable_id)),
                shown(settings.get(variable_id)),
            ]
            for variable_id in sorted(set(has) | set(settings), key=lambda v: keys[v])
            if has.get(variable_id) != settings.get(variable_id)
        }
        obsolete += [row.pk for row in current.get(task.pk, {}).values()]
        new += [
            TaskContextValue(
                task=task,
                variable_id=variable_id,
                value_id=setting.value_id,
                text=setting.text,
                number=setting.number,
            )
            for variable_id, setting in settings.items()
        ]
        events.append(audit.event(task, AuditEvent.Kind.UPDATED, by, delta))
    TaskContextValue.objects.filter(pk__in=obsolete).delete()
    insert(TaskContextValue, new)
    audit.record_many(events)


@transaction.atomic
def set_resources(resources: Mapping[Task, Sequence[TaskResource]], by: User | None) -> None:
    """Make each task's resources exactly `resources[task]`, in that order: unsaved
    TaskResource rows (title, kind, text or a stored file) that replace the task's current
    ones. Recorded as add_resource and delete_resource record them."""
    _lock(resources)
    current: dict[int, list[TaskResource]] = defaultdict(list)
    for row in TaskResource.objects.filter(task__in=[task.pk for task in resources]):
        current[row.task_id].append(row)
    obsolete, new = [], []
    for task, rows in resources.items():
        if current.get(task.pk) or rows:
            ensure_editable(task)
        for row in current.get(task.pk, []):
            row.task = task
            obsolete.append(row)
        for order, row in enumerate(rows, start=1):
            row.task, row.order = task, order
            new.append(row)
    events = [audit.event(r, AuditEvent.Kind.DELETED, by, _removed(r)) for r in obsolete]
    TaskResource.objects.filter(pk__in=[r.pk for r in obsolete]).delete()
    insert(TaskResource, new)
    events += [audit.event(r, AuditEvent.Kind.CREATED, by, _added(r)) for r in new]
    audit.record_many(events)
