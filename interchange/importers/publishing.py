"""Publishing the tasks an import marks as published.

This produces exactly what `rubrics.services.approve` produces (a RubricVersion snapshotting the
task and its effective rubric, RubricItems in rubric order, frozen criterion versions, the task
published, an approval Review) for many tasks at once, with bulk writes and without the
in-review step: the file, not a reviewer in the tool, is the authority for an imported
benchmark, and the importer already holds the IMPORT_DATA permission. A task whose latest
published rubric already matches is left alone, so re-importing publishes nothing new.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from audit.models import AuditEvent
from interchange.importers.report import ImportReport, Progress
from interchange.importers.writing import BATCH, AuditLog, actor_of
from rubrics.models import (
    LAYER_RANK,
    CriterionVersion,
    Layer,
    Review,
    RubricItem,
    RubricVersion,
    Task,
    UniversalExclusion,
)

if TYPE_CHECKING:
    from interchange.importers.benchmark import BenchmarkPlan

# (criterion version id, layer, applicable, reason): one line of a rubric, comparable.
Line = tuple[int, str, bool, str]


def effective_rubrics(tasks: list[Task]) -> dict[int, list[Line]]:
    """Task.effective_rubric() for many tasks of one framework in three queries."""
    if not tasks:
        return {}
    framework_id = tasks[0].framework_id
    latest: dict[int, CriterionVersion] = {}
    versions = CriterionVersion.objects.filter(
        criterion__framework_id=framework_id, criterion__retired=False
    ).select_related("criterion")
    for version in versions.order_by("criterion_id", "number"):
        latest[version.criterion_id] = version
    universal, by_sub, by_task = [], defaultdict(list), defaultdict(list)
    for version in latest.values():
        criterion = version.criterion
        if criterion.layer == Layer.UNIVERSAL:
            universal.append(version)
        elif criterion.layer == Layer.CONSENSUS:
            by_sub[criterion.sub_competency_id].append(version)
        else:
            by_task[criterion.task_id].append(version)
    excluded: dict[int, dict[int, str]] = defaultdict(dict)
    exclusions = UniversalExclusion.objects.filter(task__in=[t.pk for t in tasks])
    for task_id, criterion_id, reason in exclusions.values_list(
        "task_id", "criterion_id", "reason"
    ):
        excluded[task_id][criterion_id] = reason
    rubrics = {}
    for task in tasks:
        lines = universal + by_sub[task.sub_competency_id] + by_task[task.pk]
        lines.sort(
            key=lambda v: (
                LAYER_RANK[Layer(v.criterion.layer)],
                v.criterion.order,
                v.criterion.code,
            )
        )
        out = excluded[task.pk]
        rubrics[task.pk] = [
            (v.pk, v.criterion.layer, v.criterion_id not in out, out.get(v.criterion_id, ""))
            for v in lines
        ]
    return rubrics


def latest_published(tasks: list[Task]) -> dict[int, tuple[RubricVersion, list[Line]]]:
    latest: dict[int, RubricVersion] = {}
    for version in RubricVersion.objects.filter(task__in=[t.pk for t in tasks]).order_by(
        "task_id", "number"
    ):
        latest[version.task_id] = version
    lines: dict[int, list[Line]] = defaultdict(list)
    items = RubricItem.objects.filter(rubric_version__in=[v.pk for v in latest.values()])
    for item in items.order_by("rubric_version_id", "order"):
        lines[item.rubric_version_id].append(
            (item.criterion_version_id, item.layer, item.applicable, item.na_reason)
        )
    return {task_id: (v, lines[v.pk]) for task_id, v in latest.items()}


def publish_imported(
    plan: BenchmarkPlan, report: ImportReport, by: Any, progress: Progress
) -> None:
    counts = report.count("published rubrics")
    wanted = [p for p in plan.tasks if p.record.is_published]
    tasks = [p.task for p in wanted]
    progress(0, 1, "publishing")
    rubrics = effective_rubrics(tasks)
    current = latest_published(tasks)
    to_publish = []
    for p in wanted:
        task = p.task
        rubric = rubrics[task.pk]
        found = current.get(task.pk)
        texts = (task.instruction, task.system_prompt, task.reference_answer)
        if (
            task.status == Task.Status.PUBLISHED
            and found is not None
            and (found[0].instruction, found[0].system_prompt, found[0].reference_answer) == texts
            and found[1] == rubric
        ):
            counts.unchanged += 1
            continue
        to_publish.append((p, (found[0].number if found else 0) + 1))
    actor = actor_of(by)
    published = [
        RubricVersion(
            task=p.task,
            number=number,
            published_by=actor,
            instruction=p.task.instruction,
            system_prompt=p.task.system_prompt,
            reference_answer=p.task.reference_answer,
        )
        for p, number in to_publish
    ]
    RubricVersion.objects.bulk_create(published, batch_size=BATCH)
    RubricItem.objects.bulk_create(
        (
            RubricItem(
                rubric_version=version,
                criterion_version_id=version_id,
                layer=layer,
                order=position,
                applicable=applicable,
                na_reason=reason,
            )
            for version in published
            for position, (version_id, layer, applicable, reason) in enumerate(
                rubrics[version.task_id], start=1
            )
        ),
        batch_size=BATCH,
    )
    used = {line[0] for version in published for line in rubrics[version.task_id]}
    CriterionVersion.objects.filter(pk__in=used, frozen=False).update(frozen=True)
    audit = AuditLog(by)
    now = timezone.now()
    republished = 0
    for (p, number), _version in zip(to_publish, published, strict=True):
        task = p.task
        if task.status != Task.Status.PUBLISHED:
            change = {"status": [task.status, Task.Status.PUBLISHED]}
            audit.add(
                task, AuditEvent.Kind.STATUS, change, f"Published as version {number} by an import."
            )
        task.status = Task.Status.PUBLISHED
        task.updated_at = now
        if p.existing is not None and not p.changes:
            republished += 1  # its rubric changed through shared criteria only
    Task.objects.bulk_update(
        [p.task for p, _ in to_publish], ["status", "updated_at"], batch_size=BATCH
    )
    Review.objects.bulk_create(
        (
            Review(
                task=version.task,
                action=Review.Action.APPROVED,
                by=actor,
                comment="Published by an import.",
                rubric_version=version,
            )
            for version in published
        ),
        batch_size=BATCH,
    )
    audit.save()
    tasks_counts = report.count("tasks")
    tasks_counts.updated += republished
    tasks_counts.unchanged -= republished
    counts.created += len(published)
