"""Every change to tasks and criteria, written once, for one row or thousands.

The single-edit services (rubrics.services: the authoring pages, the API, the commands) call
these with one item, after checking the revision the editor loaded; the importers call them
with thousands. So the rules and the history are the same however a rubric changes:

- an edited task, or a task whose own criteria, exclusions, context values or resources
  change, must be editable (not in review, not retired: TaskLocked) and, if published, becomes
  the draft of its next rubric version (rubrics.publishing.reopen);
- a criterion's new content goes into its latest version while that version is a draft, and
  into a new draft version (keeping the rest of its content and its scale labels) once a
  published rubric froze it; the versions are read under lock, so a draft frozen by a
  publication meanwhile is followed by a new version, never changed;
- guidance written for one wording is not carried into another: a change of the wording or of
  the weight's sign that gives no guidance clears it and marks the version `needs_guidance`;
- every change is in the history (audit.services): one event per changed row, recorded in
  bulk (`record_many`, `record_rows`).

With `check=True` (a person's edit) every new or changed row is validated with `full_clean`;
without it (an import, which collected every problem first) the values are trusted as
bulk_create trusts them. Each function runs in a transaction, so the caller's transaction
makes a whole import all or nothing.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.refusals import Conflict
from l2annot.bulk_insert import insert, insert_rows
from rubrics import publishing
from rubrics.history_text import version_note, with_note
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
from taxonomy.models import ContextValue, ContextVariable, Framework, SubCompetency

BATCH = 500
EXCLUSION_FIELDS = ("task", "criterion", "reason")
RESOURCE_FIELDS = ("task", "title", "kind", "text", "file", "order")
CRITERION_FIELDS = ("code", "order", "retired")
VERSION_FIELDS = (*CriterionVersion.CONTENT_FIELDS, "scale_labels")
GUIDANCE_FIELDS = CriterionVersion.GUIDANCE_FIELDS


class RubricError(Conflict):
    """An operation refused for reasons a person can act on, listed in `problems`."""

    summary = "The task's state does not allow this"

    def __init__(self, *problems: str) -> None:
        super().__init__(" ".join(problems))
        self.problems = list(problems)


class TaskLocked(RubricError):
    """The task cannot be edited in its current state."""


class VersionFrozen(RubricError):
    """A published criterion version was about to change."""


def ensure_editable(task: Task) -> None:
    if task.status == Task.Status.IN_REVIEW:
        raise TaskLocked(
            gettext(
                "%(task)s is in review: a reviewer must return it for changes before it is edited."
            )
            % {"task": task}
        )
    if task.status == Task.Status.RETIRED:
        raise TaskLocked(
            gettext("%(task)s is retired and can no longer be edited.") % {"task": task}
        )


def check_names(changes: Iterable[str], allowed: Iterable[str]) -> None:
    unknown = set(changes) - set(allowed)
    if unknown:
        raise ValueError(f"These fields cannot be edited here: {', '.join(sorted(unknown))}.")


def _actor(by: User | None) -> User | None:
    return by if by is not None and by.is_authenticated else None


def _lock(tasks: Iterable[Task]) -> None:
    """Lock the tasks' rows and bring their status and revision up to date (the caller's
    objects may have been read before an approval or another edit)."""
    by_pk = {task.pk: task for task in tasks}
    rows = Task.objects.select_for_update(of=("self",)).filter(pk__in=list(by_pk)).order_by("pk")
    for pk, status, revision in rows.values_list("pk", "status", "revision"):
        by_pk[pk].status, by_pk[pk].revision = status, revision


def _changed(tasks: Sequence[Task], by: User | None) -> None:
    """Tasks whose related rows change: each must be editable; the published ones reopen."""
    for task in tasks:
        ensure_editable(task)
    publishing.reopen(list(tasks), by)


def _created(obj: Any, fields: Iterable[str]) -> dict[str, list[Any]]:
    return {name: [None, value] for name, value in audit.snapshot(obj, fields).items()}


def _removed(obj: Any, fields: Iterable[str]) -> dict[str, list[Any]]:
    return {name: [value, None] for name, value in audit.snapshot(obj, fields).items()}


# ----- tasks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewTask:
    key: str
    sub_competency: SubCompetency
    instruction: str
    system_prompt: str = ""
    reference_answer: str = ""
    language: str = "en"  # ISO 639-1 code
    difficulty: str = ""
    task_type: str = Task.TaskType.OPEN_ENDED


@dataclass(frozen=True)
class TaskEdit:
    """New values of some of Task.CONTENT_FIELDS. With `touch` the task counts as edited (a
    new revision, an event, reopened) even when none of them differs: an import edits a task
    whose criteria, context values or resources changed."""

    task: Task
    changes: Mapping[str, Any]
    comment: str = ""
    touch: bool = True


@transaction.atomic
def create_tasks(
    framework: Framework,
    new: Sequence[NewTask],
    by: User | None,
    *,
    kind: AuditEvent.Kind = AuditEvent.Kind.CREATED,
    comment: str = "",
    check: bool = False,
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
            difficulty=spec.difficulty,
            task_type=spec.task_type,
            created_by=_actor(by),
        )
        for spec in new
    ]
    if check:
        for task in tasks:
            task.full_clean()
    insert(Task, tasks)
    audit.record_rows(
        Task,
        kind,
        by,
        ((task.pk, str(task), _created(task, Task.CONTENT_FIELDS)) for task in tasks),
        comment,
    )
    return tasks


@transaction.atomic
def edit_tasks(edits: Sequence[TaskEdit], by: User | None, *, check: bool = False) -> list[Task]:
    """Apply each edit: every edited task gets a new revision and an UPDATED event; a published
    one is reopened. The key of a task cannot change once criteria or published versions refer
    to it (RubricError). Returns the edited tasks."""
    _lock(edit.task for edit in edits)
    now = timezone.now()
    events = []
    tasks = []
    for edit in edits:
        task = edit.task
        check_names(edit.changes, Task.CONTENT_FIELDS)
        names = list(edit.changes)
        shown = str(task)
        before = audit.snapshot(task, names)
        for name, value in edit.changes.items():
            setattr(task, name, value)
        if check:
            task.full_clean()
        delta = audit.diff(before, audit.snapshot(task, names))
        if not delta and not edit.touch:
            continue
        if delta:
            ensure_editable(task)
        if "key" in delta and (task.criteria.exists() or task.rubric_versions.exists()):
            raise RubricError(
                gettext(
                    "The key of %(task)s cannot change: its criterion codes and published "
                    "versions refer to it."
                )
                % {"task": shown}
            )
        task.revision += 1
        task.updated_at = now
        events.append(audit.event(task, AuditEvent.Kind.UPDATED, by, delta, edit.comment))
        tasks.append(task)
    fields = sorted({name for edit in edits for name in edit.changes} | {"revision", "updated_at"})
    Task.objects.bulk_update(tasks, fields, batch_size=BATCH)
    audit.record_many(events)
    publishing.reopen(tasks, by)
    return tasks


# ----- criteria ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewCriterion:
    """A criterion and its first version. A consensus criterion names its sub-competency, a
    task criterion its task, a universal one neither. `content` holds any other of
    CriterionVersion.CONTENT_FIELDS, `scale_labels` an ordinal scale's labels by point."""

    code: str
    layer: str
    order: int
    wording: str
    weight: int
    sub_competency_id: int | None = None
    task: Task | None = None
    content: Mapping[str, Any] = field(default_factory=dict)
    scale_labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CriterionEdit:
    """New values of a criterion's CRITERION_FIELDS and of its latest version's VERSION_FIELDS
    (`scale_labels` as {point: label}). `latest` is its latest version as the caller read it
    (None if it has none)."""

    criterion: Criterion
    latest: CriterionVersion | None
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class CriterionChange:
    """What one edit changed: `delta` holds [before, after] of each changed field; `version`
    is the criterion's latest version afterwards, `new_version` whether the edit made it."""

    criterion: Criterion
    version: CriterionVersion | None
    delta: dict[str, list[Any]]
    new_version: bool


@dataclass
class CriteriaWritten:
    versions_created: int = 0
    drafts_edited: int = 0
    changes: list[CriterionChange] = field(default_factory=list)


def labels_of(versions: Iterable[CriterionVersion]) -> dict[int, dict[str, str]]:
    """The scale labels of each version, by version id, as {point: label}. One query."""
    labels: dict[int, dict[str, str]] = {version.pk: {} for version in versions}
    for point in ScalePoint.objects.filter(version_id__in=list(labels)).order_by("value"):
        labels[point.version_id][str(point.value)] = point.label
    return labels


def scale_points(version: CriterionVersion, labels: Mapping[str, str]) -> list[ScalePoint]:
    points = [ScalePoint(version=version, value=int(v), label=label) for v, label in labels.items()]
    for point in points:
        low, high = version.scale_min, version.scale_max
        if low is None or high is None or not low <= point.value <= high:
            raise ValidationError(
                {
                    "scale_labels": gettext("Point %(value)s lies outside the criterion's scale.")
                    % {"value": point.value}
                }
            )
    return points


def version_snapshot(version: CriterionVersion, labels: Mapping[str, str]) -> dict[str, Any]:
    return audit.snapshot(version, CriterionVersion.CONTENT_FIELDS) | {"scale_labels": dict(labels)}


def _task_criteria_changed(criteria: Iterable[Criterion], by: User | None) -> None:
    """The tasks whose own criteria change: refused in review or retired, reopened if
    published."""
    ids = {c.task_id for c in criteria if c.layer == Layer.TASK and c.task_id is not None}
    if ids:
        _changed(
            list(Task.objects.select_for_update(of=("self",)).filter(pk__in=ids).order_by("pk")), by
        )


@transaction.atomic
def create_criteria(
    framework: Framework,
    new: Sequence[NewCriterion],
    by: User | None,
    *,
    kind: AuditEvent.Kind = AuditEvent.Kind.CREATED,
    comment: str = "",
    check: bool = False,
) -> list[Criterion]:
    """Create criteria with their first (draft) version, in the order given."""
    _task_criteria_changed(
        (Criterion(layer=Layer.TASK, task=spec.task) for spec in new if spec.task is not None), by
    )
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
    if check:
        for criterion in criteria:
            criterion.full_clean()
    insert(Criterion, criteria)
    actor = _actor(by)
    versions = [
        CriterionVersion(
            criterion=criterion,
            number=1,
            wording=spec.wording,
            weight=spec.weight,
            created_by=actor,
            **spec.content,
        )
        for spec, criterion in zip(new, criteria, strict=True)
    ]
    if check:
        for version in versions:
            version.full_clean()
    # The versions and the history as plain rows: an import makes tens of thousands.
    columns = ("criterion_id", "number", "created_by_id", *CriterionVersion.CONTENT_FIELDS)
    ids = insert_rows(
        CriterionVersion, columns, ([getattr(v, name) for name in columns] for v in versions)
    )
    points = []
    for version, pk, spec in zip(versions, ids, new, strict=True):
        version.pk = pk
        points += scale_points(version, spec.scale_labels)
    insert(ScalePoint, points)
    audit.record_rows(
        Criterion,
        kind,
        by,
        (
            (
                criterion.pk,
                str(criterion),
                _created(criterion, ("code", "layer", "order"))
                | {k: [None, v] for k, v in version_snapshot(version, spec.scale_labels).items()},
            )
            for spec, criterion, version in zip(new, criteria, versions, strict=True)
        ),
        comment,
    )
    return criteria


@transaction.atomic
def edit_criteria(
    edits: Sequence[CriterionEdit], by: User | None, *, comment: str = "", check: bool = False
) -> CriteriaWritten:
    """Apply each edit: the criterion's fields, and its content into the draft latest version
    or a new version after a frozen one. An edit that changes something gives the criterion a
    new revision and an UPDATED event saying which version it changed ("version 2", "version 3
    created"); one that changes nothing writes nothing. The code of a criterion cannot change
    once published (RubricError)."""
    written = CriteriaWritten()
    latest_ids = [e.latest.pk for e in edits if e.latest is not None]
    # Read again under lock which drafts a publication has frozen meanwhile.
    frozen_now = set(
        CriterionVersion.objects.select_for_update(of=("self",))
        .filter(pk__in=latest_ids, frozen=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    labels = labels_of(e.latest for e in edits if e.latest is not None)
    criteria: list[Criterion] = []
    new_versions: list[CriterionVersion] = []
    drafts: list[CriterionVersion] = []
    new_labels: dict[int, Mapping[str, str]] = {}  # by id() of the version
    events = []
    for edit in edits:
        check_names(edit.changes, (*CRITERION_FIELDS, *VERSION_FIELDS))
        criterion, latest = edit.criterion, edit.latest
        delta = _apply_criterion_fields(criterion, edit.changes, check)
        candidate, vdelta, after_labels = _apply_version_fields(edit, labels, check, by)
        if not delta and not vdelta:
            continue
        delta |= vdelta
        criterion.revision += 1
        criteria.append(criterion)
        version = latest
        if candidate is not None and vdelta:
            if latest is None or latest.frozen or latest.pk in frozen_now:
                candidate.number = latest.number + 1 if latest is not None else 1
                version = candidate
                new_versions.append(candidate)
            else:
                for name in (*CriterionVersion.CONTENT_FIELDS, "needs_guidance"):
                    setattr(latest, name, getattr(candidate, name))
                drafts.append(latest)
            new_labels[id(version)] = after_labels
        is_new = version is not None and version is candidate
        note = version_note(version.number, created=is_new) if version is not None else ""
        events.append(
            audit.event(criterion, AuditEvent.Kind.UPDATED, by, delta, with_note(comment, note))
        )
        written.changes.append(CriterionChange(criterion, version, delta, is_new))
    _task_criteria_changed(criteria, by)
    insert(CriterionVersion, new_versions)
    overwrite_drafts(drafts)
    Criterion.objects.bulk_update(criteria, [*CRITERION_FIELDS, "revision"], batch_size=BATCH)
    ScalePoint.objects.filter(version__in=[v.pk for v in drafts]).delete()
    insert(
        ScalePoint,
        (
            point
            for version in (*new_versions, *drafts)
            for point in scale_points(version, new_labels[id(version)])
        ),
    )
    audit.record_many(events)
    written.versions_created = len(new_versions)
    written.drafts_edited = len(drafts)
    return written


def _apply_criterion_fields(
    criterion: Criterion, changes: Mapping[str, Any], check: bool
) -> dict[str, list[Any]]:
    names = [n for n in changes if n in CRITERION_FIELDS]
    before = audit.snapshot(criterion, names)
    for name in names:
        setattr(criterion, name, changes[name])
    delta = audit.diff(before, audit.snapshot(criterion, names))
    if "code" in delta and criterion.versions.filter(frozen=True).exists():
        raise RubricError(
            gettext("The code of %(code)s cannot change: published rubrics refer to it.")
            % {"code": before["code"]}
        )
    if check and delta:
        criterion.full_clean()
    return delta


def _apply_version_fields(
    edit: CriterionEdit, labels: Mapping[int, Mapping[str, str]], check: bool, by: User | None
) -> tuple[CriterionVersion | None, dict[str, list[Any]], Mapping[str, str]]:
    """The latest version with the edit's content (unsaved, numbered as the latest), the
    content's delta and the scale labels afterwards; (None, {}, ...) when no content changes."""
    latest, changes = edit.latest, edit.changes
    names = [n for n in changes if n in VERSION_FIELDS]
    had = dict(labels.get(latest.pk, {})) if latest is not None else {}
    if not names:
        return None, {}, had
    before = version_snapshot(latest, had) if latest is not None else {}
    after_labels = had
    if "scale_labels" in changes:
        after_labels = {str(k): v for k, v in (changes["scale_labels"] or {}).items()}
    wanted = {n: changes[n] for n in names if n != "scale_labels"}
    candidate = CriterionVersion(
        criterion=edit.criterion,
        number=latest.number if latest is not None else 1,
        created_by=_actor(by),
        needs_guidance=latest.needs_guidance if latest is not None else False,
        **({n: getattr(latest, n) for n in CriterionVersion.CONTENT_FIELDS} if latest else {})
        | wanted,
    )
    if check:
        candidate.full_clean(exclude=["number"])  # also drops a binary criterion's scale
    if latest is not None:
        _handle_guidance(latest, candidate, given=any(n in changes for n in GUIDANCE_FIELDS))
    delta = audit.diff(before, version_snapshot(candidate, after_labels))
    if not delta:
        return None, {}, had
    if latest is not None and latest.needs_guidance != candidate.needs_guidance:
        delta["needs_guidance"] = [latest.needs_guidance, candidate.needs_guidance]
    return candidate, delta, after_labels


def _sign(weight: int | None) -> int:
    return 0 if not weight else (1 if weight > 0 else -1)


def reworded(before: CriterionVersion, after: CriterionVersion) -> bool:
    """True when `after` says something else than `before`: another wording, or a weight of
    another sign (a reward become a penalty)."""
    return before.wording != after.wording or _sign(before.weight) != _sign(after.weight)


def _handle_guidance(latest: CriterionVersion, candidate: CriterionVersion, given: bool) -> None:
    """Guidance written for one wording is never carried silently into another: when the
    wording or the weight's sign changes and the edit says nothing of the guidance (an import,
    an API call changing the wording alone), the guidance is cleared and the version marked as
    needing guidance. An edit that gives guidance (the criterion form always does) writes or
    confirms it for the new wording."""
    has_guidance = any(getattr(candidate, n) for n in GUIDANCE_FIELDS)
    if given:
        candidate.needs_guidance = candidate.needs_guidance and not has_guidance
    elif has_guidance and reworded(latest, candidate):
        for name in GUIDANCE_FIELDS:
            setattr(candidate, name, "")
        candidate.needs_guidance = True


def overwrite_drafts(versions: Sequence[CriterionVersion]) -> None:
    """Change draft versions in place. The check re-reads the rows (locked by the caller), so a
    version frozen by a publication that committed first is never altered."""
    frozen = CriterionVersion.objects.filter(pk__in=[v.pk for v in versions], frozen=True)
    first = frozen.first()
    if first is not None:
        raise VersionFrozen(
            gettext("%(version)s is used by a published rubric and cannot change.")
            % {"version": first}
        )
    CriterionVersion.objects.bulk_update(
        versions, [*CriterionVersion.CONTENT_FIELDS, "needs_guidance"], batch_size=BATCH
    )


# ----- per-task settings -------------------------------------------------------------------


@transaction.atomic
def set_exclusions(
    excluded: Mapping[Task, Sequence[Criterion]],
    reason: str,
    by: User | None,
    *,
    check: bool = False,
) -> list[UniversalExclusion]:
    """Make each task's universal exclusions exactly `excluded[task]` (universal criteria of
    its framework): new ones get `reason`, ones no longer listed are removed, ones kept keep
    their reason. Returns the new exclusions."""
    _lock(excluded)
    current: dict[int, dict[int, UniversalExclusion]] = defaultdict(dict)
    existing = UniversalExclusion.objects.filter(task__in=[task.pk for task in excluded])
    for exclusion in existing.select_related("criterion"):
        current[exclusion.task_id][exclusion.criterion_id] = exclusion
    obsolete, new, changed = [], [], []
    for task, criteria in excluded.items():
        wanted = {criterion.pk: criterion for criterion in criteria}
        has = current.get(task.pk, {})
        if set(has) != set(wanted):
            changed.append(task)
        for criterion_id, exclusion in has.items():
            if criterion_id not in wanted:
                exclusion.task = task
                obsolete.append(exclusion)
        new += [
            UniversalExclusion(task=task, criterion=criterion, reason=reason, created_by=_actor(by))
            for criterion_id, criterion in sorted(wanted.items())
            if criterion_id not in has
        ]
    _changed(changed, by)
    if check:
        for exclusion in new:
            exclusion.full_clean()
    events = [
        audit.event(e, AuditEvent.Kind.DELETED, by, _removed(e, EXCLUSION_FIELDS)) for e in obsolete
    ]
    UniversalExclusion.objects.filter(pk__in=[e.pk for e in obsolete]).delete()
    insert(UniversalExclusion, new)
    events += [
        audit.event(e, AuditEvent.Kind.CREATED, by, _created(e, EXCLUSION_FIELDS)) for e in new
    ]
    audit.record_many(events)
    return new


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
    *,
    check: bool = False,
) -> None:
    """Make each task's values of the variables `variable_ids` exactly `values[task]` (by
    variable id; values parsed by ContextVariable.parse_value). A changed value keeps its row
    and gets a new revision. A task's changes are one UPDATED event naming each variable."""
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
    rewritten: list[TaskContextValue] = []
    changed: list[Task] = []
    events = []
    for task, settings in values.items():
        rows = current.get(task.pk, {})
        has = {pk: ContextSetting(row.value_id, row.text, row.number) for pk, row in rows.items()}
        if has == dict(settings):
            continue
        changed.append(task)
        delta = {
            f"context {keys[variable_id]}": [
                shown(has.get(variable_id)),
                shown(settings.get(variable_id)),
            ]
            for variable_id in sorted(set(has) | set(settings), key=lambda v: keys[v])
            if has.get(variable_id) != settings.get(variable_id)
        }
        obsolete += [row.pk for pk, row in rows.items() if pk not in settings]
        for variable_id, setting in settings.items():
            if has.get(variable_id) == setting:
                continue
            row = rows.get(variable_id) or TaskContextValue(task=task, variable_id=variable_id)
            row.value_id, row.text, row.number = setting.value_id, setting.text, setting.number
            if row.pk is None:
                new.append(row)
            else:
                row.revision += 1
                rewritten.append(row)
        events.append(audit.event(task, AuditEvent.Kind.UPDATED, by, delta))
    _changed(changed, by)
    if check:
        for row in (*new, *rewritten):
            row.full_clean()
    TaskContextValue.objects.filter(pk__in=obsolete).delete()
    TaskContextValue.objects.bulk_update(
        rewritten, ["value", "text", "number", "revision"], batch_size=BATCH
    )
    insert(TaskContextValue, new)
    audit.record_many(events)


@transaction.atomic
def set_resources(
    resources: Mapping[Task, Sequence[TaskResource]], by: User | None, *, check: bool = False
) -> None:
    """Make each task's resources exactly `resources[task]`. A saved resource listed stays
    (changed to the title and text it carries, recorded as an UPDATED event) and keeps its
    place; unsaved ones (title, kind, text or a stored file) are added after the ones kept, in
    the order given; the task's other resources are deleted."""
    _lock(resources)
    current: dict[int, dict[int, TaskResource]] = defaultdict(dict)
    for row in TaskResource.objects.filter(task__in=[task.pk for task in resources]):
        current[row.task_id][row.pk] = row
    obsolete, new, edited, changed, events = [], [], [], [], []
    for task, rows in resources.items():
        has = current.get(task.pk, {})
        kept = {row.pk for row in rows if row.pk is not None}
        gone = [row for pk, row in has.items() if pk not in kept]
        last = max((row.order for pk, row in has.items() if pk in kept), default=0)
        added = [row for row in rows if row.pk is None]
        for row in rows:
            if row.pk is None:
                continue
            delta = audit.diff(
                audit.snapshot(has[row.pk], ("title", "text")),
                audit.snapshot(row, ("title", "text")),
            )
            if delta:
                row.revision += 1
                edited.append(row)
                events.append(audit.event(row, AuditEvent.Kind.UPDATED, by, delta))
        if gone or added or any(row.task_id == task.pk for row in edited):
            changed.append(task)
        for row in gone:
            row.task = task
            obsolete.append(row)
        for order, row in enumerate(added, start=last + 1):
            row.task, row.order = task, order
            new.append(row)
    _changed(changed, by)
    if check:
        for row in (*new, *edited):
            row.full_clean()
    events += [
        audit.event(r, AuditEvent.Kind.DELETED, by, _removed(r, RESOURCE_FIELDS)) for r in obsolete
    ]
    TaskResource.objects.filter(pk__in=[r.pk for r in obsolete]).delete()
    TaskResource.objects.bulk_update(edited, ["title", "text", "revision"], batch_size=BATCH)
    insert(TaskResource, new)
    events += [
        audit.event(r, AuditEvent.Kind.CREATED, by, _created(r, RESOURCE_FIELDS)) for r in new
    ]
    audit.record_many(events)
