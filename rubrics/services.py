"""Every change people make to tasks and criteria, each in one transaction, with its history.

The authoring screens, the API and the importers call these functions, never `save()`
directly, so the rules below hold everywhere. Imports write thousands of rows at once through
the bulk variants in rubrics.bulk (tasks, criteria and their versions, universal exclusions,
context values, resources), which follow the same rules and record the same history; publishing
goes through rubrics.publishing (approve here, the importers there, and `reopen` for an edited
published task, here and in bulk) and context values through ContextVariable.parse_value.

- a criterion version used by a published rubric is frozen; editing its criterion makes a new
  draft version, while an unfrozen latest version is edited in place;
- a task in review cannot be edited (the reviewer approves what was submitted); editing a
  published task, or one of its own criteria, puts it back to draft for its next rubric version;
- every edit carries the revision the editor loaded, and a stale one raises EditConflict.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files import File
from django.db import transaction
from django.utils.translation import gettext

from accounts.permissions import user_can
from accounts.roles import ACTION_LABELS, Action
from audit import editing
from audit import services as audit
from audit.editing import EditConflict
from audit.models import AuditEvent
from core.refusals import Conflict
from rubrics import publishing, responses
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

CRITERION_FIELDS = ("code", "order", "retired")
VERSION_FIELDS = (*CriterionVersion.CONTENT_FIELDS, "scale_labels")
TASK_AUDITED_FIELDS = (*Task.CONTENT_FIELDS, "status")


class RubricError(Conflict):
    """An operation refused for reasons a person can act on, listed in `problems`."""

    summary = "The task's state does not allow this"

    def __init__(self, *problems: str) -> None:
        super().__init__(" ".join(problems))
        self.problems = list(problems)


class WorkflowRefused(RubricError):
    """The review workflow does not allow this step now."""


class TaskLocked(RubricError):
    """The task cannot be edited in its current state."""


class VersionFrozen(RubricError):
    """A published criterion version was about to change."""


# ----- helpers -----------------------------------------------------------------------------


def _require(by: Any, action: Action) -> None:
    if not user_can(by, action):
        raise PermissionDenied(
            gettext("Your role does not allow this: %(action)s.")
            % {"action": gettext(ACTION_LABELS[action]).lower()}
        )


def _lock_task(pk: int) -> Task:
    return Task.objects.select_for_update().get(pk=pk)


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


def _set_status(task: Task, status: Task.Status, by: Any, comment: str = "") -> None:
    # A status change is not a content change: it keeps `revision`, so an editor who loaded
    # the task before it was submitted or published can still save.
    before = task.status
    task.status = status
    task.save(update_fields=["status", "updated_at"])
    audit.record(task, AuditEvent.Kind.STATUS, by, {"status": [before, status]}, comment)


def _reopen(task: Task, by: Any) -> None:
    """A published task that is edited becomes the draft of its next rubric version."""
    publishing.reopen([task], by)


def _editable_task(task: Task) -> Task:
    locked = _lock_task(task.pk)
    ensure_editable(locked)
    return locked


def _check_names(changes: Mapping[str, Any], allowed: Iterable[str]) -> None:
    unknown = set(changes) - set(allowed)
    if unknown:
        raise ValueError(f"These fields cannot be edited here: {', '.join(sorted(unknown))}.")


def _labels_of(version: CriterionVersion) -> dict[str, str]:
    return {str(point.value): point.label for point in version.scale_points.all()}


def _version_snapshot(version: CriterionVersion) -> dict[str, Any]:
    values = audit.snapshot(version, CriterionVersion.CONTENT_FIELDS)
    values["scale_labels"] = _labels_of(version)
    return values


def _save_labels(version: CriterionVersion, labels: Mapping[str, str]) -> None:
    version.scale_points.all().delete()
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
    ScalePoint.objects.bulk_create(points)


def latest_version(criterion: Criterion) -> CriterionVersion:
    # Every criterion is created with its first version.
    return cast(CriterionVersion, criterion.versions.order_by("-number").first())


# ----- tasks -------------------------------------------------------------------------------


@transaction.atomic
def create_task(
    sub_competency: SubCompetency, key: str, instruction: str, by: Any, **fields: Any
) -> Task:
    """A new draft task; `fields` are any of Task.CONTENT_FIELDS."""
    _check_names(fields, Task.CONTENT_FIELDS)
    task = Task(
        framework_id=sub_competency.competency.framework_id,
        sub_competency=sub_competency,
        key=key,
        instruction=instruction,
        created_by=by if getattr(by, "is_authenticated", False) else None,
        **fields,
    )
    return editing.create(task, by, Task.CONTENT_FIELDS)


@transaction.atomic
def edit_task(task: Task, changes: Mapping[str, Any], expected_revision: int, by: Any) -> Task:
    """Apply `changes` (Task.CONTENT_FIELDS) unless someone saved since `expected_revision`.

    Raises EditConflict (stale revision), TaskLocked (in review or retired), RubricError (a key
    change once criteria or published versions refer to the key), ValidationError."""
    _check_names(changes, Task.CONTENT_FIELDS)
    current = _lock_task(task.pk)
    if current.revision != expected_revision:
        raise EditConflict(current, audit.snapshot(current, list(changes)))
    ensure_editable(current)
    renamed = "key" in changes and changes["key"] != current.key
    if renamed and (current.criteria.exists() or current.rubric_versions.exists()):
        raise RubricError(
            gettext(
                "The key of %(task)s cannot change: its criterion codes and published "
                "versions refer to it."
            )
            % {"task": current}
        )
    updated = editing.update(current, changes, expected_revision, by)
    if updated.revision != expected_revision:
        _reopen(updated, by)
    return updated


@transaction.atomic
def add_resource(
    task: Task, title: str, by: Any, text: str = "", file: "File[Any] | None" = None
) -> TaskResource:
    """Attach a markdown text, or a file when `file` is given, after the existing resources."""
    locked = _editable_task(task)
    resource = TaskResource(
        task=locked,
        title=title,
        kind=TaskResource.Kind.FILE if file else TaskResource.Kind.MARKDOWN,
        text=text,
        order=locked.resources.next_order(),
    )
    if file is not None:
        resource.file = file
    editing.create(resource, by, RESOURCE_FIELDS)
    _reopen(locked, by)
    return resource


RESOURCE_FIELDS = ("task", "title", "kind", "text", "file", "order")


@transaction.atomic
def edit_resource(
    resource: TaskResource, changes: Mapping[str, Any], expected_revision: int, by: Any
) -> TaskResource:
    """Change a resource's `title` (and `text` for a markdown one) unless someone saved since
    `expected_revision` (EditConflict). Refused (TaskLocked) while the task is in review."""
    _check_names(changes, ("title", "text"))
    locked = _editable_task(resource.task)
    updated = editing.update(resource, changes, expected_revision, by)
    if updated.revision != expected_revision:
        _reopen(locked, by)
    return updated


@transaction.atomic
def delete_resource(resource: TaskResource, by: Any) -> None:
    locked = _editable_task(resource.task)
    editing.delete(resource, by, RESOURCE_FIELDS)
    _reopen(locked, by)


@transaction.atomic
def set_context_value(
    task: Task, variable: ContextVariable, raw: Any, by: Any
) -> TaskContextValue | None:
    """Set (or with `raw` None, clear) the task's value of `variable`.

    `raw` is what ContextVariable.parse_value takes: a ContextValue or its code or label for
    listed kinds, a string for text, a number for number variables. Raises ValidationError
    naming the variable when the value does not fit its kind, its allowed values, its range, or
    the task's framework."""
    locked = _editable_task(task)
    existing = TaskContextValue.objects.filter(task=locked, variable=variable).first()
    before = existing.display_value if existing else None
    if raw is None:
        if existing:
            existing.delete()
    else:
        item = existing or TaskContextValue(task=locked, variable=variable)
        item.set_value(variable.parse_value(raw))
        item.full_clean()
        if existing:
            item.revision += 1
        item.save()
        existing = item
    after = existing.display_value if raw is not None and existing else None
    if before != after:
        audit.record(
            locked, AuditEvent.Kind.UPDATED, by, {f"context {variable.key}": [before, after]}
        )
        _reopen(locked, by)
    return existing if raw is not None else None


@transaction.atomic
def set_context_values(task: Task, values: Mapping[ContextVariable, Any], by: Any) -> None:
    """set_context_value for several variables, all or none: a ValidationError keyed by
    variable key lists every value that does not fit, and nothing is saved."""
    errors: dict[str, list[str]] = {}
    for variable, raw in values.items():
        try:
            with transaction.atomic():
                set_context_value(task, variable, raw, by)
        except ValidationError as exc:
            errors[variable.key] = exc.messages
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def exclude_universal(task: Task, criterion: Criterion, reason: str, by: Any) -> UniversalExclusion:
    """Mark a universal criterion as not applicable to this task, with the reason."""
    locked = _editable_task(task)
    exclusion = UniversalExclusion(task=locked, criterion=criterion, reason=reason, created_by=None)
    if getattr(by, "is_authenticated", False):
        exclusion.created_by = by
    editing.create(exclusion, by, ("task", "criterion", "reason"))
    _reopen(locked, by)
    return exclusion


@transaction.atomic
def include_universal(task: Task, criterion: Criterion, by: Any) -> None:
    """Undo exclude_universal."""
    locked = _editable_task(task)
    exclusion = UniversalExclusion.objects.filter(task=locked, criterion=criterion).first()
    if exclusion:
        editing.delete(exclusion, by, ("task", "criterion", "reason"))
        _reopen(locked, by)


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
    by: Any,
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
    _check_names(version_fields, CriterionVersion.CONTENT_FIELDS)
    if isinstance(owner, Framework):
        criterion = Criterion(framework=owner, layer=Layer.UNIVERSAL)
        if not code:
            raise ValidationError(
                {"code": gettext("A universal criterion needs its code, e.g. 06u1.")}
            )
    elif isinstance(owner, SubCompetency):
        framework_id = owner.competency.framework_id
        criterion = Criterion(
            framework_id=framework_id, sub_competency=owner, layer=Layer.CONSENSUS
        )
        code = code or next_code(owner)
    else:
        owner = _editable_task(owner)
        criterion = Criterion(framework_id=owner.framework_id, task=owner, layer=Layer.TASK)
        code = code or next_code(owner)
    criterion.code = code
    criterion.order = _siblings(criterion).next_order() if order is None else order
    criterion.full_clean()
    criterion.save()
    version = CriterionVersion(
        criterion=criterion,
        number=1,
        wording=wording,
        weight=weight,
        created_by=by if getattr(by, "is_authenticated", False) else None,
        **version_fields,
    )
    version.full_clean()
    version.save()
    _save_labels(version, {str(k): v for k, v in (scale_labels or {}).items()})
    after = audit.snapshot(criterion, ("code", "layer", "order")) | _version_snapshot(version)
    audit.record(criterion, AuditEvent.Kind.CREATED, by, {k: [None, v] for k, v in after.items()})
    if isinstance(owner, Task):
        _reopen(owner, by)
    return criterion


def _siblings(criterion: Criterion) -> editing.OrderedQuerySet[Criterion]:
    owners: dict[Layer, dict[str, Any]] = {
        Layer.UNIVERSAL: {"framework_id": criterion.framework_id, "layer": Layer.UNIVERSAL},
        Layer.CONSENSUS: {"sub_competency_id": criterion.sub_competency_id},
        Layer.TASK: {"task_id": criterion.task_id},
    }
    return Criterion.objects.filter(**owners[Layer(criterion.layer)])


@transaction.atomic
def edit_criterion(
    criterion: Criterion, changes: Mapping[str, Any], expected_revision: int, by: Any
) -> CriterionVersion:
    """Edit a criterion (`code`, `order`, `retired`) and its wording, guidance and weight
    (CriterionVersion.CONTENT_FIELDS, plus `scale_labels` as {point: label}).

    Content changes go into the latest version if it is still a draft, or into a new draft
    version (a copy with the changes) if the latest is frozen. Returns the latest version.
    Raises EditConflict when someone saved the criterion since `expected_revision` (its
    `theirs` holds their values of the changed fields), TaskLocked for a task criterion whose
    task is in review or retired, RubricError for a code change once published."""
    _check_names(changes, (*CRITERION_FIELDS, *VERSION_FIELDS))
    current = Criterion.objects.select_for_update().get(pk=criterion.pk)
    latest = CriterionVersion.objects.select_for_update().filter(criterion=current).latest()
    if current.revision != expected_revision:
        theirs = audit.snapshot(current, [n for n in changes if n in CRITERION_FIELDS])
        theirs |= {k: v for k, v in _version_snapshot(latest).items() if k in changes}
        raise EditConflict(current, theirs)
    task = _criterion_task(current)

    delta = _apply_criterion_fields(current, changes, latest)
    version_delta, latest = _apply_version_fields(current, latest, changes, by)
    if delta or version_delta:
        current.revision += 1
        current.save()
        comment = f"version {latest.number}" + (" created" if version_delta.get("new") else "")
        version_delta.pop("new", None)
        audit.record(current, AuditEvent.Kind.UPDATED, by, delta | version_delta, comment)
        if task is not None:
            _reopen(task, by)
    return latest


@transaction.atomic
def open_draft_version(criterion: Criterion, by: Any, reason: str = "") -> CriterionVersion:
    """The draft of the criterion's next version, prefilled with the latest version's wording,
    guidance, weight and scale, for an author to rewrite (e.g. a criterion found ambiguous).
    The latest version is returned when it is still a draft. A task criterion's task must be
    editable (TaskLocked otherwise) and becomes a draft again, as for any edit."""
    current = Criterion.objects.select_for_update().get(pk=criterion.pk)
    latest = CriterionVersion.objects.select_for_update().filter(criterion=current).latest()
    if not latest.frozen:
        return latest
    task = _editable_task(cast(Task, current.task)) if current.layer == Layer.TASK else None
    draft = CriterionVersion(
        criterion=current,
        number=latest.number + 1,
        created_by=by if getattr(by, "is_authenticated", False) else None,
        **{name: getattr(latest, name) for name in CriterionVersion.CONTENT_FIELDS},
    )
    draft.save()
    _save_labels(draft, _labels_of(latest))
    current.revision += 1
    current.save()
    comment = f"version {draft.number} created" + (f": {reason}" if reason else "")
    audit.record(
        current, AuditEvent.Kind.UPDATED, by, {"version": [latest.number, draft.number]}, comment
    )
    if task is not None:
        _reopen(task, by)
    return draft


def _apply_criterion_fields(
    current: Criterion, changes: Mapping[str, Any], latest: CriterionVersion
) -> dict[str, list[Any]]:
    names = [n for n in changes if n in CRITERION_FIELDS]
    before = audit.snapshot(current, names)
    for name in names:
        setattr(current, name, changes[name])
    delta = audit.diff(before, audit.snapshot(current, names))
    if "code" in delta and current.versions.filter(frozen=True).exists():
        raise RubricError(
            gettext("The code of %(code)s cannot change: published rubrics refer to it.")
            % {"code": before["code"]}
        )
    current.full_clean()
    return delta


def _apply_version_fields(
    current: Criterion, latest: CriterionVersion, changes: Mapping[str, Any], by: Any
) -> tuple[dict[str, Any], CriterionVersion]:
    names = [n for n in changes if n in VERSION_FIELDS]
    if not names:
        return {}, latest
    before = _version_snapshot(latest)
    labels = before["scale_labels"]
    if "scale_labels" in changes:
        labels = {str(k): v for k, v in (changes["scale_labels"] or {}).items()}
    wanted = {n: changes[n] for n in names if n != "scale_labels"}
    candidate = CriterionVersion(
        criterion=current,
        number=latest.number,
        **{n: getattr(latest, n) for n in CriterionVersion.CONTENT_FIELDS} | wanted,
    )
    candidate.full_clean(exclude=["number"])  # also drops a binary criterion's scale
    after = audit.snapshot(candidate, CriterionVersion.CONTENT_FIELDS) | {"scale_labels": labels}
    delta: dict[str, Any] = audit.diff(before, after)
    if not delta:
        return {}, latest
    if latest.frozen:
        candidate.number = latest.number + 1
        candidate.created_by = by if getattr(by, "is_authenticated", False) else None
        candidate.save()
        _save_labels(candidate, labels)
        delta["new"] = True
        return delta, candidate
    _overwrite_draft(latest, candidate, labels)
    return delta, latest


def _overwrite_draft(
    version: CriterionVersion, source: CriterionVersion, labels: Mapping[str, str]
) -> None:
    """Change a draft version in place. The check re-reads the row (locked by the caller), so a
    version frozen by a publication that committed first is never altered."""
    if CriterionVersion.objects.filter(pk=version.pk, frozen=True).exists():
        raise VersionFrozen(
            gettext("%(version)s is used by a published rubric and cannot change.")
            % {"version": version}
        )
    for name in CriterionVersion.CONTENT_FIELDS:
        setattr(version, name, getattr(source, name))
    version.save()
    _save_labels(version, labels)


def _criterion_task(criterion: Criterion) -> Task | None:
    """The task of a task criterion, locked and checked editable; None for the other layers."""
    if criterion.layer != Layer.TASK:
        return None
    return _editable_task(cast(Task, criterion.task))  # a task criterion has a task


@transaction.atomic
def move_criterion(criterion: Criterion, offset: int, by: Any) -> Criterion:
    """Move a criterion up (-1) or down (+1) among its layer's current criteria."""
    current = Criterion.objects.get(pk=criterion.pk)
    task = _criterion_task(current)
    before = current.order
    moved = editing.move(current, _siblings(current).filter(retired=False), offset, by)
    if task is not None and moved.order != before:
        _reopen(task, by)
    return moved


@transaction.atomic
def remove_criterion(criterion: Criterion, by: Any) -> bool:
    """Take a criterion out of its layer. One that no published rubric ever used is deleted;
    one that was published is retired instead, so published versions keep it. Returns True
    when deleted. Raises editing.DeleteRefused when other data still refers to it."""
    current = Criterion.objects.select_for_update().get(pk=criterion.pk)
    task = _criterion_task(current)
    deleted = not current.versions.filter(frozen=True).exists()
    if deleted:
        editing.delete(current, by, ("code", "layer", "order"))
    else:
        edit_criterion(current, {"retired": True}, current.revision, by)
    if task is not None:
        _reopen(task, by)
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
def submit_for_review(task: Task, by: Any, comment: str = "") -> Review:
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
def approve(task: Task, by: Any, comment: str = "") -> RubricVersion:
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
def return_for_changes(task: Task, by: Any, comment: str) -> Review:
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
def retire_task(task: Task, by: Any, comment: str = "") -> None:
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
    by: Any = None,
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
    framework: Framework, specs: Sequence[UniversalCriterionSpec], by: Any = None
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
