"""Every change people make to tasks and criteria, each in one transaction, with its history.

The authoring screens, the API and the commands call these functions, never `save()`
directly. Each edit checks what only a person's edit has (the revision the editor loaded: a
stale one raises EditConflict; the task still editable) and is then a one-item call of the
operation in rubrics.bulk, the one implementation the importers call with thousands of rows:
the same rules (locked tasks refused, frozen versions followed by a new draft, published tasks
reopened) and the same history events. Publishing goes through rubrics.publishing (approve
here, the importers there) and context values through ContextVariable.parse_value.

- a criterion version used by a published rubric is frozen; editing its criterion makes a new
  draft version, while an unfrozen latest version is edited in place;
- a task in review cannot be edited (the reviewer approves what was submitted); editing a
  published task, or one of its own criteria, puts it back to draft for its next rubric version.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files import File
from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from accounts.permissions import user_can
from accounts.roles import ACTION_LABELS, Action
from audit import editing
from audit import services as audit
from audit.editing import EditConflict
from audit.models import AuditEvent
from rubrics import bulk, publishing, responses
from rubrics.bulk import (
    CRITERION_FIELDS,
    RESOURCE_FIELDS,
    VERSION_FIELDS,
    RubricError,
    TaskLocked,
    VersionFrozen,
    check_names,
    ensure_editable,
)
from rubrics.history_text import VERSION_CREATED_BECAUSE, version_note
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Layer,
    Response,
    Review,
    RubricVersion,
    ScalePoint,
    Task,
    TaskContextValue,
    TaskResource,
    Turn,
    UniversalExclusion,
)
from rubrics.seedfile import UniversalCriterionSpec
from taxonomy.models import ContextVariable, Framework, SubCompetency
from taxonomy.services import LoadReport

__all__ = [
    "CRITERION_FIELDS",
    "RESOURCE_FIELDS",
    "VERSION_FIELDS",
    "RubricError",
    "TaskLocked",
    "VersionFrozen",
    "WorkflowRefused",
    "ensure_editable",
]

TASK_AUDITED_FIELDS = (*Task.CONTENT_FIELDS, "status")


class WorkflowRefused(RubricError):
    """The review workflow does not allow this step now."""


# ----- helpers -----------------------------------------------------------------------------


def _require(by: User, action: Action) -> None:
    if not user_can(by, action):
        raise PermissionDenied(
            gettext("Your role does not allow this: %(action)s.")
            % {"action": gettext(ACTION_LABELS[action]).lower()}
        )


def _lock_task(pk: int) -> Task:
    return Task.objects.select_for_update(of=("self",)).get(pk=pk)


def _set_status(task: Task, status: Task.Status, by: User, comment: str = "") -> None:
    # A status change is not a content change: it keeps `revision`, so an editor who loaded
    # the task before it was submitted or published can still save.
    before = task.status
    task.status = status
    task.save(update_fields=["status", "updated_at"])
    audit.record(task, AuditEvent.Kind.STATUS, by, {"status": [before, status]}, comment)


def _editable_task(task: Task) -> Task:
    locked = _lock_task(task.pk)
    ensure_editable(locked)
    return locked


def latest_version(criterion: Criterion) -> CriterionVersion:
    # Every criterion is created with its first version.
    return cast(CriterionVersion, criterion.versions.order_by("-number").first())


# ----- tasks: each a one-item call of rubrics.bulk ------------------------------------------


@transaction.atomic
def create_task(
    sub_competency: SubCompetency, key: str, instruction: str, by: User, **fields: Any
) -> Task:
    """A new draft task; `fields` are any of Task.CONTENT_FIELDS."""
    check_names(fields, Task.CONTENT_FIELDS)
    (task,) = bulk.create_tasks(
        sub_competency.competency.framework,
        [bulk.NewTask(key, sub_competency, instruction, **fields)],
        by,
        check=True,
    )
    return task


@transaction.atomic
def edit_task(task: Task, changes: Mapping[str, Any], expected_revision: int, by: User) -> Task:
    """Apply `changes` (Task.CONTENT_FIELDS) unless someone saved since `expected_revision`.

    Raises EditConflict (stale revision), TaskLocked (in review or retired), RubricError (a key
    change once criteria or published versions refer to the key), ValidationError."""
    check_names(changes, Task.CONTENT_FIELDS)
    current = _lock_task(task.pk)
    if current.revision != expected_revision:
        raise EditConflict(current, audit.snapshot(current, list(changes)))
    ensure_editable(current)
    bulk.edit_tasks([bulk.TaskEdit(current, changes, touch=False)], by, check=True)
    return current


@transaction.atomic
def add_resource(
    task: Task, title: str, by: User, text: str = "", file: "File[Any] | None" = None
) -> TaskResource:
    """Attach a markdown text, or a file when `file` is given, after the existing resources."""
    locked = _editable_task(task)
    resource = TaskResource(
        title=title,
        kind=TaskResource.Kind.FILE if file else TaskResource.Kind.MARKDOWN,
        text=text,
    )
    if file is not None:
        resource.file = file
    bulk.set_resources({locked: [*locked.resources.all(), resource]}, by, check=True)
    return resource


@transaction.atomic
def edit_resource(
    resource: TaskResource, changes: Mapping[str, Any], expected_revision: int, by: User
) -> TaskResource:
    """Change a resource's `title` (and `text` for a markdown one) unless someone saved since
    `expected_revision` (EditConflict). Refused (TaskLocked) while the task is in review."""
    check_names(changes, ("title", "text"))
    locked = _editable_task(resource.task)
    rows = list(locked.resources.select_for_update(of=("self",)).order_by("pk"))
    current = next(row for row in rows if row.pk == resource.pk)
    if current.revision != expected_revision:
        raise EditConflict(current, audit.snapshot(current, list(changes)))
    for name, value in changes.items():
        setattr(current, name, value)
    bulk.set_resources({locked: rows}, by, check=True)
    return current


@transaction.atomic
def delete_resource(resource: TaskResource, by: User) -> None:
    locked = _editable_task(resource.task)
    kept = [row for row in locked.resources.all() if row.pk != resource.pk]
    bulk.set_resources({locked: kept}, by)


def _setting(task: Task, variable: ContextVariable, raw: Any) -> bulk.ContextSetting:
    """The task's value of `variable` parsed from `raw` and checked (ValidationError)."""
    item = TaskContextValue.objects.filter(task=task, variable=variable).first()
    item = item or TaskContextValue(task=task, variable=variable)
    item.set_value(variable.parse_value(raw))
    item.full_clean()
    return bulk.ContextSetting(item.value_id, item.text, item.number)


@transaction.atomic
def set_context_value(
    task: Task, variable: ContextVariable, raw: Any, by: User
) -> TaskContextValue | None:
    """Set (or with `raw` None, clear) the task's value of `variable`.

    `raw` is what ContextVariable.parse_value takes: a ContextValue or its code or label for
    listed kinds, a string for text, a number for number variables. Raises ValidationError
    naming the variable when the value does not fit its kind, its allowed values, its range, or
    the task's framework."""
    set_context_values(task, {variable: raw}, by)
    if raw is None:
        return None
    return TaskContextValue.objects.filter(task=task, variable=variable).first()


@transaction.atomic
def set_context_values(task: Task, values: Mapping[ContextVariable, Any], by: User) -> None:
    """set_context_value for several variables, all or none: a ValidationError keyed by
    variable key lists every value that does not fit, and nothing is saved."""
    locked = _editable_task(task)
    errors: dict[str, list[str]] = {}
    settings = {}
    for variable, raw in values.items():
        if raw is None:
            continue
        try:
            settings[variable.pk] = _setting(locked, variable, raw)
        except ValidationError as exc:
            errors[variable.key] = exc.messages
    if errors:
        raise ValidationError(errors)
    bulk.set_context_values({locked: settings}, [variable.pk for variable in values], by)


def _excluded(task: Task) -> list[Criterion]:
    exclusions = UniversalExclusion.objects.filter(task=task).select_related("criterion")
    return [exclusion.criterion for exclusion in exclusions]


@transaction.atomic
def exclude_universal(
    task: Task, criterion: Criterion, reason: str, by: User
) -> UniversalExclusion:
    """Mark a universal criterion as not applicable to this task, with the reason."""
    locked = _editable_task(task)
    UniversalExclusion(task=locked, criterion=criterion, reason=reason).full_clean()
    (exclusion,) = bulk.set_exclusions({locked: [*_excluded(locked), criterion]}, reason, by)
    return exclusion


@transaction.atomic
def include_universal(task: Task, criterion: Criterion, by: User) -> None:
    """Undo exclude_universal."""
    locked = _editable_task(task)
    kept = [excluded for excluded in _excluded(locked) if excluded.pk != criterion.pk]
    bulk.set_exclusions({locked: kept}, "", by)


# ----- criteria ----------------------------------------------------------------------------


def next_code(owner: SubCompetency | Task) -> str:
    """The next free consensus (`02a-07`) or task (`137-03`) code of `owner`."""
    if isinstance(owner, Task):
        prefix, framework_id = owner.key, owner.framework_id
    else:
        prefix, framework_id = owner.code, owner.competency.framework_id
    used = Criterion.objects.filter(
        framework_id=framework_id, code__startswith=f"{prefix}-"
    ).values_list("code", flat=True)
    numbers = [int(c[len(prefix) + 1 :]) for c in used if c[len(prefix) + 1 :].isdigit()]
    return f"{prefix}-{max(numbers, default=0) + 1:02d}"


@transaction.atomic
def add_criterion(
    owner: Framework | SubCompetency | Task,
    wording: str,
    weight: int,
    by: User | None,
    code: str = "",
    order: int | None = None,
    scale_labels: Mapping[int | str, str] | None = None,
    **version_fields: Any,
) -> Criterion:
    """Create a criterion and its first (draft) version.

    The owner decides the layer: a Framework makes a universal criterion (give its `code`, like
    06u1), a SubCompetency a consensus one, a Task a task criterion (code defaults to the next
    free one); `order` defaults to after its siblings. `version_fields` are the other
    CriterionVersion.CONTENT_FIELDS."""
    check_names(version_fields, CriterionVersion.CONTENT_FIELDS)
    task = None
    if isinstance(owner, Framework):
        framework = owner
        criterion = Criterion(framework=owner, layer=Layer.UNIVERSAL)
        if not code:
            raise ValidationError(
                {"code": gettext("A universal criterion needs its code, e.g. 06u1.")}
            )
    elif isinstance(owner, SubCompetency):
        framework = owner.competency.framework
        criterion = Criterion(framework=framework, sub_competency=owner, layer=Layer.CONSENSUS)
        code = code or next_code(owner)
    else:
        task = _editable_task(owner)
        framework = task.framework
        criterion = Criterion(framework=framework, task=task, layer=Layer.TASK)
        code = code or next_code(task)
    spec = bulk.NewCriterion(
        code=code,
        layer=criterion.layer,
        order=_siblings(criterion).next_order() if order is None else order,
        wording=wording,
        weight=weight,
        sub_competency_id=criterion.sub_competency_id,
        task=task,
        content=version_fields,
        scale_labels={str(k): v for k, v in (scale_labels or {}).items()},
    )
    (created,) = bulk.create_criteria(framework, [spec], by, check=True)
    return created


def _siblings(criterion: Criterion) -> editing.OrderedQuerySet[Criterion]:
    owners: dict[Layer, dict[str, Any]] = {
        Layer.UNIVERSAL: {"framework_id": criterion.framework_id, "layer": Layer.UNIVERSAL},
        Layer.CONSENSUS: {"sub_competency_id": criterion.sub_competency_id},
        Layer.TASK: {"task_id": criterion.task_id},
    }
    return Criterion.objects.filter(**owners[Layer(criterion.layer)])


@transaction.atomic
def edit_criterion(
    criterion: Criterion, changes: Mapping[str, Any], expected_revision: int, by: User | None
) -> CriterionVersion:
    """Edit a criterion (`code`, `order`, `retired`) and its wording, guidance and weight
    (CriterionVersion.CONTENT_FIELDS, plus `scale_labels` as {point: label}).

    Content changes go into the latest version if it is still a draft, or into a new draft
    version (a copy with the changes) if the latest is frozen. Returns the latest version.
    Raises EditConflict when someone saved the criterion since `expected_revision` (its
    `theirs` holds their values of the changed fields), TaskLocked for a task criterion whose
    task is in review or retired, RubricError for a code change once published."""
    check_names(changes, (*CRITERION_FIELDS, *VERSION_FIELDS))
    current = Criterion.objects.select_for_update(of=("self",)).get(pk=criterion.pk)
    latest = (
        CriterionVersion.objects.select_for_update(of=("self",)).filter(criterion=current).latest()
    )
    if current.revision != expected_revision:
        theirs = audit.snapshot(current, [n for n in changes if n in CRITERION_FIELDS])
        labels = bulk.labels_of([latest])[latest.pk]
        theirs |= {k: v for k, v in bulk.version_snapshot(latest, labels).items() if k in changes}
        raise EditConflict(current, theirs)
    _criterion_task(current)
    written = bulk.edit_criteria([bulk.CriterionEdit(current, latest, changes)], by, check=True)
    for change in written.changes:
        return change.version or latest
    return latest


@transaction.atomic
def open_draft_version(criterion: Criterion, by: User, reason: str = "") -> CriterionVersion:
    """The draft of the criterion's next version, prefilled with the latest version's wording,
    guidance, weight and scale, for an author to rewrite (e.g. a criterion found ambiguous).
    The latest version is returned when it is still a draft. A task criterion's task must be
    editable (TaskLocked otherwise) and becomes a draft again, as for any edit."""
    current = Criterion.objects.select_for_update(of=("self",)).get(pk=criterion.pk)
    latest = (
        CriterionVersion.objects.select_for_update(of=("self",)).filter(criterion=current).latest()
    )
    if not latest.frozen:
        return latest
    task = _criterion_task(current)
    draft = CriterionVersion(
        criterion=current,
        number=latest.number + 1,
        created_by=by if getattr(by, "is_authenticated", False) else None,
        needs_guidance=latest.needs_guidance,
        **{name: getattr(latest, name) for name in CriterionVersion.CONTENT_FIELDS},
    )
    draft.save()
    ScalePoint.objects.bulk_create(bulk.scale_points(draft, bulk.labels_of([latest])[latest.pk]))
    current.revision += 1
    current.save()
    comment = (
        VERSION_CREATED_BECAUSE.fill(number=draft.number, reason=reason)
        if reason
        else version_note(draft.number, created=True)
    )
    audit.record(
        current, AuditEvent.Kind.UPDATED, by, {"version": [latest.number, draft.number]}, comment
    )
    if task is not None:
        publishing.reopen([task], by)
    return draft


def _criterion_task(criterion: Criterion) -> Task | None:
    """The task of a task criterion, locked and checked editable; None for the other layers."""
    if criterion.layer != Layer.TASK:
        return None
    return _editable_task(cast(Task, criterion.task))  # a task criterion has a task


@transaction.atomic
def move_criterion(criterion: Criterion, offset: int, by: User) -> Criterion:
    """Move a criterion up (-1) or down (+1) among its layer's current criteria."""
    current = Criterion.objects.get(pk=criterion.pk)
    task = _criterion_task(current)
    before = current.order
    moved = editing.move(current, _siblings(current).filter(retired=False), offset, by)
    if task is not None and moved.order != before:
        publishing.reopen([task], by)
    return moved


@transaction.atomic
def remove_criterion(criterion: Criterion, by: User) -> bool:
    """Take a criterion out of its layer. One that no published rubric ever used is deleted;
    one that was published is retired instead, so published versions keep it. Returns True
    when deleted. Raises editing.DeleteRefused when other data still refers to it."""
    current = Criterion.objects.select_for_update(of=("self",)).get(pk=criterion.pk)
    task = _criterion_task(current)
    deleted = not current.versions.filter(frozen=True).exists()
    if deleted:
        editing.delete(current, by, ("code", "layer", "order"))
    else:
        edit_criterion(current, {"retired": True}, current.revision, by)
    if task is not None:
        publishing.reopen([task], by)
    return deleted


# ----- review workflow ---------------------------------------------------------------------


def submission_problems(task: Task) -> list[str]:
    """Why `task` cannot be submitted or approved yet; empty when it can."""
    problems = []
    if not task.instruction.strip():
        problems.append(gettext("%(task)s has no instruction.") % {"task": task})
    if not task.reference_answer.strip():
        problems.append(
            gettext("%(task)s has no reference answer: write one before submitting.")
            % {"task": task}
        )
    if not task.criteria.filter(retired=False).exists():
        problems.append(
            gettext("%(task)s has no task criteria: add at least one of its own.") % {"task": task}
        )
    rubric = task.effective_rubric()
    if rubric and not any(line.applicable and line.weight > 0 for line in rubric):
        problems.append(
            gettext(
                "%(task)s has no applicable criterion with a positive weight, so no response "
                "could be scored."
            )
            % {"task": task}
        )
    return problems


@transaction.atomic
def submit_for_review(task: Task, by: User, comment: str = "") -> Review:
    """Author: draft -> in review. Raises WorkflowRefused listing what is missing."""
    _require(by, Action.EDIT_RUBRICS)
    locked = _lock_task(task.pk)
    if locked.status != Task.Status.DRAFT:
        raise WorkflowRefused(
            gettext("%(task)s is %(status)s; only a draft can be submitted.")
            % {"task": locked, "status": str(locked.get_status_display()).lower()}
        )
    problems = submission_problems(locked)
    if problems:
        raise WorkflowRefused(*problems)
    _set_status(locked, Task.Status.IN_REVIEW, by, comment)
    return Review.objects.create(
        task=locked, action=Review.Action.SUBMITTED, by=by, comment=comment
    )


@transaction.atomic
def approve(task: Task, by: User, comment: str = "") -> RubricVersion:
    """Maintainer: in review -> published, through rubrics.publishing.publish: the task and its
    effective rubric become its next RubricVersion, every criterion version it uses frozen."""
    _require(by, Action.REVIEW_RUBRICS)
    locked = _in_review(task)
    problems = submission_problems(locked)
    if problems:
        raise WorkflowRefused(*problems)
    (published,) = publishing.publish([locked], by, comment)
    return published


@transaction.atomic
def return_for_changes(task: Task, by: User, comment: str) -> Review:
    """Maintainer: in review -> draft, saying what needs changing."""
    _require(by, Action.REVIEW_RUBRICS)
    if not comment.strip():
        raise ValidationError(
            {"comment": gettext("Say what needs changing when returning a task.")}
        )
    locked = _in_review(task)
    _set_status(locked, Task.Status.DRAFT, by, comment)
    return Review.objects.create(task=locked, action=Review.Action.RETURNED, by=by, comment=comment)


@transaction.atomic
def retire_task(task: Task, by: User, comment: str = "") -> None:
    """Maintainer: take a task out of the benchmark. Its published versions stay."""
    _require(by, Action.REVIEW_RUBRICS)
    locked = _lock_task(task.pk)
    if locked.status == Task.Status.RETIRED:
        raise WorkflowRefused(gettext("%(task)s is already retired.") % {"task": locked})
    _set_status(locked, Task.Status.RETIRED, by, comment)


def _in_review(task: Task) -> Task:
    locked = _lock_task(task.pk)
    if locked.status != Task.Status.IN_REVIEW:
        raise WorkflowRefused(
            gettext("%(task)s is %(status)s, not in review.")
            % {"task": locked, "status": str(locked.get_status_display()).lower()}
        )
    return locked


# ----- responses ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnSpec:
    role: str
    content: str


def record_response(
    task: Task,
    model_name: str,
    by: User | None = None,
    text: str = "",
    turns: Sequence[TurnSpec] = (),
    external_id: str = "",
    model_family: str = "",
    model_version: str = "",
) -> tuple[Response, bool]:
    """Store a model's answer: `text`, or a conversation of `turns`. With an `external_id`, a
    second call changes the same response, or makes its next version when it has been graded
    or judged (rubrics.responses). Returns (the current version, whether it is new)."""
    if bool(text) == bool(turns):
        raise ValidationError(
            gettext("Give a response either a text or turns, not both or neither.")
        )
    for turn in turns:
        if turn.role not in Turn.Role.values:
            raise ValidationError(
                gettext("'%(role)s' is not a turn role (%(roles)s).")
                % {"role": turn.role, "roles": ", ".join(Turn.Role.values)}
            )
    kind = Response.Kind.CONVERSATION if turns else Response.Kind.TEXT
    candidate = Response(
        task=task,
        model_name=model_name,
        model_family=model_family,
        kind=kind,
        text=text,
        model_version=model_version,
        external_id=external_id,
    )
    candidate.full_clean(validate_unique=False, validate_constraints=False)
    spec = responses.ResponseSpec(
        task=task,
        model_name=model_name,
        external_id=external_id,
        model_family=model_family,
        model_version=model_version,
        kind=kind.value,
        text=text,
        turns=tuple((turn.role, turn.content) for turn in turns),
    )
    kind_of_event = AuditEvent.Kind.IMPORTED if external_id else AuditEvent.Kind.CREATED
    (saved,) = responses.save_responses([spec], by, created_kind=kind_of_event)
    return Response.objects.get(pk=saved.response_id), saved.outcome == responses.Outcome.CREATED


# ----- loading universal criteria ----------------------------------------------------------


@transaction.atomic
def load_universal_criteria(
    framework: Framework, specs: Sequence[UniversalCriterionSpec], by: User | None = None
) -> LoadReport:
    """Create or update the framework's universal criteria by code. A changed criterion goes
    through edit_criterion, so a published version gets a new draft instead of changing.
    Criteria missing from the file are reported, not deleted."""
    report = LoadReport()
    existing = {
        c.code: c for c in Criterion.objects.filter(framework=framework, layer=Layer.UNIVERSAL)
    }
    for spec in specs:
        content: dict[str, Any] = {
            "wording": spec.wording,
            "weight": spec.weight,
            "passes": spec.passes,
            "fails": spec.fails,
            "pass_example": spec.pass_example,
            "fail_example": spec.fail_example,
        }
        criterion = existing.get(spec.code)
        if criterion is None:
            add_criterion(framework, by=by, code=spec.code, order=spec.order, **content)
            report.created.append(spec.code)
            continue
        before = criterion.revision
        edit_criterion(criterion, content | {"order": spec.order}, criterion.revision, by)
        criterion.refresh_from_db(fields=["revision"])
        if criterion.revision != before:
            report.updated.append(spec.code)
        else:
            report.unchanged += 1
    report.not_in_file = sorted(set(existing) - {spec.code for spec in specs})
    return report
