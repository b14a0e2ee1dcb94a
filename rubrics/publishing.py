"""Publishing rubrics: the one way a RubricVersion comes to exist.

A reviewer's approval (rubrics.services.approve) publishes one task; an import publishes every
task its file marks as published; test builders publish the tasks they make. All of them call
`publish`, so a published rubric is the same rows whichever way it came: the task's text and its
effective rubric (Task.effective_rubrics) as the task's next RubricVersion, a RubricItem per line
in rubric order, a copy of each context value and resource (what graders are shown, whatever the
author edits afterwards), every criterion version it uses frozen, the task marked published with
its history, and the approval kept as a Review. Writes are bulk, so a thousand tasks cost about what
one does. Callers check permissions and workflow state first.

The way back is here too: `reopen` makes an edited published task the draft of its next rubric
version, for the single-edit services and their bulk variants alike.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from operator import itemgetter

from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils import timezone

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from l2annot.bulk_insert import insert, insert_rows
from rubrics.history_text import PUBLISHED, REOPENED
from rubrics.models import (
    CriterionVersion,
    EffectiveCriterion,
    PublishedContextValue,
    PublishedResource,
    Review,
    RubricItem,
    RubricVersion,
    Task,
    TaskContextValue,
    TaskResource,
)
from taxonomy.models import shown_value
from webhooks.models import Event
from webhooks.services import notify

BATCH = 500

# (criterion version id, layer, applicable, reason): one line of a rubric, comparable.
Line = tuple[int, str, bool, str]
# What a task shows beside its text, comparable: its resources (title, kind, text, stored file
# name) in order, and its context values (variable, listed value, text, number) by variable.
Resource = tuple[str, str, str, str]
Context = tuple[int, int | None, str, str]
Material = tuple[list[Resource], list[Context]]


def _resource(item: TaskResource | PublishedResource) -> Resource:
    return (item.title, item.kind, item.text, item.file.name or "")


def _context(item: TaskContextValue | PublishedContextValue) -> Context:
    number = "" if item.number is None else shown_value(item.number)
    return (item.variable_id, item.value_id, item.text, number)


def _materials(
    resources: "QuerySet[TaskResource] | QuerySet[PublishedResource]",
    values: "QuerySet[TaskContextValue] | QuerySet[PublishedContextValue]",
    owner: str,
) -> dict[int, Material]:
    """Resources and context values by owner id (`task_id` or `rubric_version_id`). Two queries."""
    found: dict[int, Material] = defaultdict(lambda: ([], []))
    for resource in resources.order_by(owner, "order", "pk"):
        found[getattr(resource, owner)][0].append(_resource(resource))
    for value in values.order_by(owner, "variable_id"):
        found[getattr(value, owner)][1].append(_context(value))
    return found


def task_materials(tasks: Sequence[Task]) -> dict[int, Material]:
    ids = [task.pk for task in tasks]
    return _materials(
        TaskResource.objects.filter(task__in=ids),
        TaskContextValue.objects.filter(task__in=ids),
        "task_id",
    )


def published_materials(versions: Sequence[RubricVersion]) -> dict[int, Material]:
    ids = [version.pk for version in versions]
    return _materials(
        PublishedResource.objects.filter(rubric_version__in=ids),
        PublishedContextValue.objects.filter(rubric_version__in=ids),
        "rubric_version_id",
    )


def line_of(criterion: EffectiveCriterion) -> Line:
    return (criterion.version.pk, criterion.layer, criterion.applicable, criterion.na_reason)


def published_lines(versions: Sequence[RubricVersion]) -> dict[int, list[Line]]:
    """The lines of each published version, by version id, in rubric order. One query."""
    lines: dict[int, list[Line]] = {version.pk: [] for version in versions}
    items = RubricItem.objects.filter(rubric_version__in=list(lines)).order_by(
        "rubric_version_id", "order"
    )
    for item in items:
        lines[item.rubric_version_id].append(
            (item.criterion_version_id, item.layer, item.applicable, item.na_reason)
        )
    return lines


def _latest_versions(tasks: Sequence[Task]) -> dict[int, RubricVersion]:
    latest: dict[int, RubricVersion] = {}
    versions = RubricVersion.objects.filter(task__in=[task.pk for task in tasks])
    for version in versions.order_by("task_id", "number"):
        latest[version.task_id] = version
    return latest


def _is_current(
    task: Task,
    rubric: list[Line],
    material: Material,
    version: RubricVersion,
    lines: list[Line],
    published_material: Material,
) -> bool:
    """True when `task` is published and `version` already says what publishing it would."""
    texts = (task.instruction, task.system_prompt, task.reference_answer)
    published = (version.instruction, version.system_prompt, version.reference_answer)
    return (
        task.status == Task.Status.PUBLISHED
        and texts == published
        and lines == rubric
        and material == published_material
    )


@transaction.atomic
def publish(
    tasks: Sequence[Task], by: User | None, comment: str = "", *, skip_current: bool = False
) -> list[RubricVersion]:
    """Publish each of `tasks` as its next rubric version; returns the versions made.

    `comment` goes on the approval and on the status change (which otherwise says "Published as
    version N."). With `skip_current`, a task that is published and whose latest version has the
    same text and lines is left alone (re-importing a file publishes nothing new)."""
    rubrics = {
        task_id: [line_of(line) for line in rubric]
        for task_id, rubric in Task.effective_rubrics(tasks).items()
    }
    # Lock the versions being frozen, so an in-place edit of a draft cannot slip in between.
    used = {line[0] for rubric in rubrics.values() for line in rubric}
    list(
        CriterionVersion.objects.select_for_update(of=("self",))
        .filter(pk__in=used)
        .order_by("pk")
        .values_list("pk")
    )
    materials = task_materials(tasks)
    if skip_current:
        latest = _latest_versions(tasks)
        lines = published_lines(list(latest.values()))
        frozen_materials = published_materials(list(latest.values()))
        numbers = {task_id: version.number for task_id, version in latest.items()}
        tasks = [
            task
            for task in tasks
            if task.pk not in latest
            or not _is_current(
                task,
                rubrics[task.pk],
                materials[task.pk],
                latest[task.pk],
                lines[latest[task.pk].pk],
                frozen_materials[latest[task.pk].pk],
            )
        ]
    else:
        found = RubricVersion.objects.filter(task__in=[task.pk for task in tasks])
        last = found.values("task_id").annotate(n=Max("number"))
        numbers = {row["task_id"]: row["n"] for row in last}
    actor = by if getattr(by, "is_authenticated", False) else None
    published = [
        RubricVersion(
            task=task,
            number=numbers.get(task.pk, 0) + 1,
            published_by=actor,
            instruction=task.instruction,
            system_prompt=task.system_prompt,
            reference_answer=task.reference_answer,
        )
        for task in tasks
    ]
    insert(RubricVersion, published)
    # Plain rows: an import publishes tens of thousands of lines.
    insert_rows(
        RubricItem,
        ("rubric_version_id", "criterion_version_id", "layer", "order", "applicable", "na_reason"),
        (
            (version.pk, version_id, layer, position, applicable, reason)
            for version in published
            for position, (version_id, layer, applicable, reason) in enumerate(
                rubrics[version.task_id], start=1
            )
        ),
    )
    _copy_materials(published)
    frozen = {line[0] for version in published for line in rubrics[version.task_id]}
    CriterionVersion.objects.filter(pk__in=frozen, frozen=False).update(frozen=True)
    _mark_published(published, by, comment)
    insert(
        Review,
        (
            Review(
                task=version.task,
                action=Review.Action.APPROVED,
                by=actor,
                comment=comment,
                rubric_version=version,
            )
            for version in published
        ),
    )
    if published:
        notify(Event.BENCHMARK_PUBLISHED, published_payload(published))
    return published


def published_payload(published: Sequence[RubricVersion]) -> dict[str, object]:
    """What a webhook is told of one publishing: each task (id and key) and its new version."""
    return {
        "count": len(published),
        "versions": [
            {"task": v.task_id, "key": v.task.key, "version": v.number, "rubric_version": v.pk}
            for v in published
        ],
    }


def reopen(tasks: Sequence[Task], by: User | None, comment: str = REOPENED) -> list[Task]:
    """A published task that is edited becomes the draft of its next rubric version (published
    again by the next approval or import). Tasks in another state are left alone; returns the
    tasks reopened. A status change is not a content change: it keeps the task's `revision`."""
    reopened = [task for task in tasks if task.status == Task.Status.PUBLISHED]
    now = timezone.now()
    change = {"status": [Task.Status.PUBLISHED, Task.Status.DRAFT]}
    events = []
    for task in reopened:
        task.status = Task.Status.DRAFT
        task.updated_at = now
        events.append(audit.event(task, AuditEvent.Kind.STATUS, by, change, comment))
    Task.objects.bulk_update(reopened, ["status", "updated_at"], batch_size=BATCH)
    audit.record_many(events)
    return reopened


def _copy_materials(published: list[RubricVersion]) -> None:
    """Copy each task's resources and context values onto the version that publishes it."""
    by_task = {version.task_id: version for version in published}
    resources = TaskResource.objects.filter(task__in=list(by_task)).order_by("task", "order", "pk")
    insert(
        PublishedResource,
        (
            PublishedResource(
                rubric_version=by_task[resource.task_id],
                order=position,
                title=resource.title,
                kind=resource.kind,
                text=resource.text,
                file=resource.file.name or "",
            )
            for position, resource in _numbered(resources)
        ),
    )
    values = TaskContextValue.objects.filter(task__in=list(by_task))
    insert(
        PublishedContextValue,
        (
            PublishedContextValue(
                rubric_version=by_task[value.task_id],
                variable_id=value.variable_id,
                value_id=value.value_id,
                text=value.text,
                number=value.number,
            )
            for value in values
        ),
    )


def _numbered(resources: Iterable[TaskResource]) -> Iterator[tuple[int, TaskResource]]:
    """Each resource with its position (1, 2, ...) among its task's, in the order given."""
    task_id, position = None, 0
    for resource in resources:
        position = position + 1 if resource.task_id == task_id else 1
        task_id = resource.task_id
        yield position, resource


def _mark_published(published: list[RubricVersion], by: User | None, comment: str) -> None:
    # A status change is not a content change: it keeps the task's `revision`.
    now = timezone.now()
    events = []
    for version in published:
        task = version.task
        if task.status != Task.Status.PUBLISHED:
            change = {"status": [task.status, Task.Status.PUBLISHED]}
            note = comment or PUBLISHED.fill(number=version.number)
            events.append((task.pk, str(task), change, note))
        task.status = Task.Status.PUBLISHED
        task.updated_at = now
    # The same two values for every task: one UPDATE (bulk_update's CASE per row took longer
    # to build and to run than the rest of publishing a thousand tasks).
    ids = [version.task_id for version in published]
    for start in range(0, len(ids), BATCH):
        Task.objects.filter(pk__in=ids[start : start + BATCH]).update(
            status=Task.Status.PUBLISHED, updated_at=now
        )
    for note, same in groupby(events, key=itemgetter(3)):  # one note, or one per version number
        audit.record_rows(Task, AuditEvent.Kind.STATUS, by, (event[:3] for event in same), note)
