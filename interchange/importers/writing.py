"""The writing half of the benchmark import: bulk writes of a plan already checked in full."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from audit import services as audit
from audit.models import AuditEvent
from interchange.importers.plan import BenchmarkPlan
from interchange.importers.report import ImportReport, Progress
from interchange.models import TaskSource
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

BATCH = 500
TASK_FIELDS = ("sub_competency", "instruction", "system_prompt", "reference_answer")
COMMENT = "Imported from an L2-Bench file."
PUBLISHED_COMMENT = "Published by an import."
EXCLUSION_REASON = "Not listed for this task in the imported L2-Bench file."


def actor_of(by: Any) -> Any:
    return by if getattr(by, "is_authenticated", False) else None


class BenchmarkWriter:
    def __init__(
        self,
        plan: BenchmarkPlan,
        report: ImportReport,
        by: Any,
        progress: Progress,
        dry_run: bool,
    ) -> None:
        self.plan = plan
        self.report = report
        self.actor = actor_of(by)
        self.progress = progress
        self.dry_run = dry_run
        self.by = by
        self.events: list[AuditEvent] = []
        self.now = timezone.now()
        self.saved_files: list[str] = []

    def write(self) -> None:
        steps = (
            self.write_tasks,
            self.write_sources,
            self.write_criteria,
            self.write_exclusions,
            self.write_context,
            self.write_resources,
            self.save_history,
        )
        for n, step in enumerate(steps):
            self.progress(n, len(steps), "writing")
            step()

    def note(
        self, obj: Any, kind: str, changes: dict[str, list[Any]], comment: str = COMMENT
    ) -> None:
        self.events.append(audit.event(obj, kind, self.by, changes, comment))

    def save_history(self) -> None:
        audit.record_many(self.events)
        self.events.clear()

    def delete_saved_files(self) -> None:
        """Remove the resource files this import stored: its transaction was rolled back."""
        for name in self.saved_files:
            default_storage.delete(name)

    # ----- tasks ---------------------------------------------------------------------------

    def write_tasks(self) -> None:
        counts = self.report.count("tasks")
        new = [p for p in self.plan.tasks if p.existing is None]
        tasks = [
            Task(
                framework=self.plan.framework,
                key=p.record.task_key,
                sub_competency=p.sub,
                instruction=p.record.task,
                system_prompt=p.record.task_system_prompt,
                reference_answer=p.record.reference_answer,
                created_by=self.actor,
            )
            for p in new
        ]
        Task.objects.bulk_create(tasks, batch_size=BATCH)
        for p, task in zip(new, tasks, strict=True):
            p.task = task
            self.note(task, AuditEvent.Kind.IMPORTED, {"key": [None, task.key]})
        counts.created += len(tasks)
        changed = []
        for p in self.plan.tasks:
            if p.existing is None:
                continue
            p.task = task = p.existing
            if not p.changes:
                counts.unchanged += 1
                continue
            before = {name: str(getattr(task, name)) for name in TASK_FIELDS}
            task.sub_competency = p.sub
            task.instruction = p.record.task
            task.system_prompt = p.record.task_system_prompt
            task.reference_answer = p.record.reference_answer
            task.revision += 1
            task.updated_at = self.now
            delta = {
                name: [before[name], str(getattr(task, name))]
                for name in TASK_FIELDS
                if before[name] != str(getattr(task, name))
            }
            comment = f"{COMMENT} Changed: {', '.join(sorted(p.changes))}."
            self.note(task, AuditEvent.Kind.UPDATED, delta, comment)
            if task.status == Task.Status.PUBLISHED:
                # As in the rubric services: a published task that changes becomes the draft of
                # its next rubric version (published again below if the file says so).
                task.status = Task.Status.DRAFT
                changes = {"status": [Task.Status.PUBLISHED, Task.Status.DRAFT]}
                self.note(task, AuditEvent.Kind.STATUS, changes, "Changed by an import.")
            changed.append(task)
        fields = [*TASK_FIELDS, "revision", "updated_at", "status"]
        Task.objects.bulk_update(changed, fields, batch_size=BATCH)
        counts.updated += len(changed)

    def write_sources(self) -> None:
        new, changed = [], []
        for p in self.plan.tasks:
            wanted = p.record.version_at_time_of_draft
            source = self.plan.sources.get(p.task.pk)
            if source is None and wanted:
                new.append(TaskSource(task=p.task, version_at_time_of_draft=wanted))
            elif source is not None and source.version_at_time_of_draft != wanted:
                source.version_at_time_of_draft = wanted
                changed.append(source)
        TaskSource.objects.bulk_create(new, batch_size=BATCH)
        TaskSource.objects.bulk_update(changed, ["version_at_time_of_draft"], batch_size=BATCH)

    # ----- criteria ------------------------------------------------------------------------

    def write_criteria(self) -> None:
        counts = self.report.count("criteria")
        version_counts = self.report.count("criterion versions")
        task_ids = {p.record.task_key: p.task.pk for p in self.plan.tasks}
        plans = list(self.plan.criteria.values())
        created = [c for c in plans if c.action == "create"]
        criteria = [
            Criterion(
                framework=self.plan.framework,
                code=c.code,
                layer=c.layer,
                sub_competency_id=c.sub_id,
                task_id=task_ids[c.task_key] if c.layer == Layer.TASK else None,
                order=c.order,
            )
            for c in created
        ]
        Criterion.objects.bulk_create(criteria, batch_size=BATCH)
        versions = []
        for plan, criterion in zip(created, criteria, strict=True):
            plan.existing = criterion
            versions.append(
                CriterionVersion(
                    criterion=criterion,
                    number=1,
                    wording=plan.wording,
                    weight=plan.weight,
                    created_by=self.actor,
                )
            )
            change = {"code": [None, plan.code], "wording": [None, plan.wording]}
            self.note(criterion, AuditEvent.Kind.IMPORTED, change | {"weight": [None, plan.weight]})
        counts.created += len(criteria)

        touched, drafts, copies_from = [], [], {}
        for plan in plans:
            if plan.action in ("create", "unchanged"):
                counts.unchanged += plan.action == "unchanged"
                continue
            criterion, latest = plan.existing, plan.latest
            before = {"order": criterion.order, "retired": criterion.retired}
            criterion.order = plan.order
            criterion.retired = plan.retire
            criterion.revision += 1
            touched.append(criterion)
            delta = {
                k: [v, getattr(criterion, k)]
                for k, v in before.items()
                if v != getattr(criterion, k)
            }
            if plan.action == "new_version":
                version = CriterionVersion(
                    criterion=criterion,
                    number=(latest.number + 1) if latest else 1,
                    created_by=self.actor,
                    **{n: getattr(latest, n) for n in CriterionVersion.CONTENT_FIELDS}
                    if latest
                    else {},
                )
                version.wording, version.weight = plan.wording, plan.weight
                versions.append(version)
                if latest is not None:
                    copies_from[id(version)] = latest.pk
            elif plan.action == "edit_draft":
                latest.wording, latest.weight = plan.wording, plan.weight
                drafts.append(latest)
                version_counts.updated += 1
            if plan.action in ("new_version", "edit_draft"):
                delta |= {"wording": ["", plan.wording], "weight": ["", plan.weight]}
            self.note(criterion, AuditEvent.Kind.UPDATED, delta)
        CriterionVersion.objects.bulk_create(versions, batch_size=BATCH)
        version_counts.created += len(versions)
        CriterionVersion.objects.bulk_update(drafts, ["wording", "weight"], batch_size=BATCH)
        Criterion.objects.bulk_update(touched, ["order", "retired", "revision"], batch_size=BATCH)
        counts.updated += len(touched)
        self.copy_scale_points(versions, copies_from)

    def copy_scale_points(
        self, versions: list[CriterionVersion], copies_from: dict[int, int]
    ) -> None:
        """A new version keeps the scale labels of the version it follows."""
        if not copies_from:
            return
        labels = defaultdict(list)
        for point in ScalePoint.objects.filter(version_id__in=copies_from.values()):
            labels[point.version_id].append(point)
        ScalePoint.objects.bulk_create(
            ScalePoint(version=version, value=point.value, label=point.label)
            for version in versions
            if id(version) in copies_from
            for point in labels[copies_from[id(version)]]
        )

    # ----- per-task settings ---------------------------------------------------------------

    def write_exclusions(self) -> None:
        universal = dict(
            Criterion.objects.filter(
                framework=self.plan.framework, layer=Layer.UNIVERSAL
            ).values_list("code", "pk")
        )
        obsolete, new = [], []
        for p in self.plan.tasks:
            existing = self.plan.existing_exclusions.get(p.task.pk, {}) if p.existing else {}
            obsolete += [e.pk for code, e in existing.items() if code not in p.excluded]
            new += [
                UniversalExclusion(
                    task=p.task,
                    criterion_id=universal[code],
                    reason=EXCLUSION_REASON,
                    created_by=self.actor,
                )
                for code in sorted(p.excluded - set(existing))
            ]
        UniversalExclusion.objects.filter(pk__in=obsolete).delete()
        UniversalExclusion.objects.bulk_create(new, batch_size=BATCH)

    def write_context(self) -> None:
        rewrite = [p for p in self.plan.tasks if p.existing is None or "context" in p.changes]
        TaskContextValue.objects.filter(
            task__in=[p.task.pk for p in rewrite if p.existing is not None],
            variable_id__in=self.plan.context_variable_ids,
        ).delete()
        TaskContextValue.objects.bulk_create(
            (
                TaskContextValue(
                    task=p.task,
                    variable_id=variable_id,
                    value_id=setting.value_id,
                    text=setting.text,
                    number=setting.number,
                )
                for p in rewrite
                for variable_id, setting in p.context.items()
            ),
            batch_size=BATCH,
        )

    def write_resources(self) -> None:
        rewrite = [p for p in self.plan.tasks if p.existing is None or "resources" in p.changes]
        TaskResource.objects.filter(
            task__in=[p.task.pk for p in rewrite if p.existing is not None]
        ).delete()
        resources = []
        for p in rewrite:
            for order, spec in enumerate(p.resources, start=1):
                resource = TaskResource(
                    task=p.task, order=order, title=spec.title, kind=spec.kind, text=spec.text
                )
                if spec.kind == TaskResource.Kind.FILE:
                    self.store_file(resource, spec.title, spec.content)
                resources.append(resource)
        TaskResource.objects.bulk_create(resources, batch_size=BATCH)

    def store_file(self, resource: TaskResource, name: str, content: bytes) -> None:
        if self.dry_run:
            resource.file.name = f"task_resources/dry-run/{name}"
            return
        resource.file.save(name, ContentFile(content), save=False)
        self.saved_files.append(resource.file.name)


def publish_imported(
    plan: BenchmarkPlan, report: ImportReport, by: Any, progress: Progress
) -> None:
    """Publish, through rubrics.publishing, the tasks the file marks as published, without the
    review step: the file, not a reviewer in the tool, is the authority for an imported
    benchmark, and the importer holds the IMPORT_DATA permission. A task whose latest published
    rubric already matches is left alone, so re-importing publishes nothing new."""
    counts = report.count("published rubrics")
    wanted = [p for p in plan.tasks if p.record.is_published]
    progress(0, 1, "publishing")
    published = publishing.publish(
        [p.task for p in wanted], by, PUBLISHED_COMMENT, skip_current=True
    )
    new_ids = {version.task_id for version in published}
    # A task the file leaves as it was, whose rubric changed through shared criteria only.
    republished = sum(
        1 for p in wanted if p.task.pk in new_ids and p.existing is not None and not p.changes
    )
    tasks_counts = report.count("tasks")
    tasks_counts.updated += republished
    tasks_counts.unchanged -= republished
    counts.created += len(published)
    counts.unchanged += len(wanted) - len(published)
