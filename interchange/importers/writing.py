"""The writing half of the benchmark import: bulk writes of a plan already checked in full."""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from accounts.models import User
from audit.models import AuditEvent
from core.messages import Text, gettext_noop
from interchange.importers.plan import BenchmarkPlan, CriterionPlan, ResourceSpec
from interchange.importers.report import ChangedCriterion, ImportReport, Progress
from interchange.models import TaskSource
from l2annot.bulk_insert import insert
from rubrics import bulk, publishing
from rubrics.models import Criterion, CriterionVersion, Layer, Task, TaskResource
from rubrics.models.tasks import IMPORTED_EXCLUSION_REASON

BATCH = 500
# What the histories of the tasks and criteria an import writes say (interchange.apps
# registers them, audit.history).
COMMENT = gettext_noop("Imported from an L2-Bench file.")
CHANGED_COMMENT = gettext_noop("Imported from an L2-Bench file. Changed: %(changes)s.")
PUBLISHED_COMMENT = gettext_noop("Published by an import.")
# What an import may change of a task, as its history names it.
TASK_CHANGES = {
    "sub_competency": gettext_noop("sub-competency"),
    "instruction": gettext_noop("instruction"),
    "system_prompt": gettext_noop("system prompt"),
    "reference_answer": gettext_noop("reference answer"),
    "language": gettext_noop("language"),
    "version_at_time_of_draft": gettext_noop("version at time of draft"),
    "universal exclusions": gettext_noop("universal exclusions"),
    "context": gettext_noop("context"),
    "resources": gettext_noop("resources"),
    "task criteria": gettext_noop("task criteria"),
}


class BenchmarkWriter:
    """Carries out a plan through the bulk rubric services (rubrics.bulk), which apply the
    rules of the single-edit services and record the history; only the task's source
    (interchange's own TaskSource) and the storage of resource files are written here."""

    def __init__(
        self,
        plan: BenchmarkPlan,
        report: ImportReport,
        by: User | None,
        progress: Progress,
        dry_run: bool,
    ) -> None:
        self.plan = plan
        self.report = report
        self.progress = progress
        self.dry_run = dry_run
        self.by = by
        self.saved_files: list[str] = []
        # The criterion versions whose wording or weight this import wrote: they wait for
        # review, so the tasks whose rubric uses them are not published by the import.
        self.changed_versions: set[int] = set()

    def write(self) -> None:
        steps = (
            self.write_tasks,
            self.write_sources,
            self.write_criteria,
            self.write_exclusions,
            self.write_context,
            self.write_resources,
        )
        for n, step in enumerate(steps):
            self.progress(n, len(steps), "writing")
            step()

    def delete_saved_files(self) -> None:
        """Remove the resource files this import stored: its transaction was rolled back."""
        for name in self.saved_files:
            default_storage.delete(name)

    # ----- tasks ---------------------------------------------------------------------------

    def write_tasks(self) -> None:
        counts = self.report.count("tasks")
        new = [p for p in self.plan.tasks if p.existing is None]
        created = bulk.create_tasks(
            self.plan.framework,
            [
                bulk.NewTask(
                    key=p.record.task_key,
                    sub_competency=p.sub,
                    instruction=p.record.task,
                    system_prompt=p.record.task_system_prompt,
                    reference_answer=p.record.reference_answer,
                    language=p.record.language or "en",
                )
                for p in new
            ],
            self.by,
            kind=AuditEvent.Kind.IMPORTED,
            comment=COMMENT,
        )
        for p, task in zip(new, created, strict=True):
            p.task = task
        counts.created += len(created)
        edits = []
        for p in self.plan.tasks:
            if p.existing is None:
                continue
            p.task = p.existing
            if not p.changes:
                counts.unchanged += 1
                continue
            changes = {
                "sub_competency": p.sub,
                "instruction": p.record.task,
                "system_prompt": p.record.task_system_prompt,
                "reference_answer": p.record.reference_answer,
                "language": p.record.language or p.existing.language,
            }
            named = [TASK_CHANGES.get(name, name) for name in sorted(p.changes)]
            comment = CHANGED_COMMENT.fill(changes=named)
            edits.append(bulk.TaskEdit(p.existing, changes, comment))
        bulk.edit_tasks(edits, self.by)
        counts.updated += len(edits)

    def write_sources(self) -> None:
        new, changed = [], []
        for p in self.plan.tasks:
            wanted = p.record.version_at_time_of_draft
            task = p.saved()
            source = self.plan.sources.get(task.pk)
            if source is None and wanted:
                new.append(TaskSource(task=task, version_at_time_of_draft=wanted))
            elif source is not None and source.version_at_time_of_draft != wanted:
                source.version_at_time_of_draft = wanted
                changed.append(source)
        insert(TaskSource, new)
        TaskSource.objects.bulk_update(changed, ["version_at_time_of_draft"], batch_size=BATCH)

    # ----- criteria ------------------------------------------------------------------------

    def write_criteria(self) -> None:
        counts = self.report.count("criteria")
        version_counts = self.report.count("criterion versions")
        tasks = {p.record.task_key: p.saved() for p in self.plan.tasks}
        plans = list(self.plan.criteria.values())
        created = [c for c in plans if c.action == "create"]
        criteria = bulk.create_criteria(
            self.plan.framework,
            [
                bulk.NewCriterion(
                    code=c.code,
                    layer=c.layer,
                    order=c.order,
                    wording=c.wording,
                    weight=c.weight,
                    sub_competency_id=c.sub_id,
                    task=tasks[c.task_key] if c.layer == Layer.TASK and c.task_key else None,
                )
                for c in created
            ],
            self.by,
            kind=AuditEvent.Kind.IMPORTED,
            comment=COMMENT,
        )
        for plan, criterion in zip(created, criteria, strict=True):
            plan.existing = criterion
        counts.created += len(criteria)
        version_counts.created += len(criteria)
        edits = [self.edit_of(c) for c in plans if c.action not in ("create", "unchanged")]
        counts.unchanged += sum(1 for c in plans if c.action == "unchanged")
        previous = {
            c.existing.pk: c.latest.number if c.latest else None for c in plans if c.existing
        }
        written = bulk.edit_criteria(edits, self.by, comment=COMMENT)
        counts.updated += len(edits)
        for change in written.changes:
            if change.version is not None and {"wording", "weight"} & set(change.delta):
                self.changed_versions.add(change.version.pk)
                self.report.changed_criteria.append(
                    changed_criterion(change, previous[change.criterion.pk])
                )
        version_counts.created += written.versions_created
        version_counts.updated += written.drafts_edited

    @staticmethod
    def edit_of(plan: CriterionPlan) -> bulk.CriterionEdit:
        if plan.existing is None:
            raise RuntimeError(f"Criterion {plan.code} is edited but does not exist.")
        changes: dict[str, object] = {"order": plan.order, "retired": plan.retire}
        if plan.action in ("new_version", "edit_draft"):
            changes |= {"wording": plan.wording, "weight": plan.weight}
        return bulk.CriterionEdit(criterion=plan.existing, latest=plan.latest, changes=changes)

    # ----- per-task settings ---------------------------------------------------------------

    def write_exclusions(self) -> None:
        universal = {
            c.code: c
            for c in Criterion.objects.filter(framework=self.plan.framework, layer=Layer.UNIVERSAL)
        }
        bulk.set_exclusions(
            {p.saved(): [universal[code] for code in sorted(p.excluded)] for p in self.plan.tasks},
            IMPORTED_EXCLUSION_REASON,
            self.by,
        )

    def write_context(self) -> None:
        rewrite = [p for p in self.plan.tasks if p.existing is None or "context" in p.changes]
        bulk.set_context_values(
            {p.saved(): p.context for p in rewrite}, self.plan.context_variable_ids, self.by
        )

    def write_resources(self) -> None:
        rewrite = [p for p in self.plan.tasks if p.existing is None or "resources" in p.changes]
        bulk.set_resources(
            {p.saved(): [self.resource_of(spec) for spec in p.resources] for p in rewrite}, self.by
        )

    def resource_of(self, spec: ResourceSpec) -> TaskResource:
        """An unsaved resource; a file one has its content stored (a dry run stores nothing)."""
        resource = TaskResource(title=spec.title, kind=spec.kind, text=spec.text)
        if spec.kind == TaskResource.Kind.FILE and self.dry_run:
            resource.file.name = f"task_resources/dry-run/{spec.title}"
        elif spec.kind == TaskResource.Kind.FILE:
            resource.file.save(spec.title, ContentFile(spec.content), save=False)
            self.saved_files.append(str(resource.file.name))
        return resource


def changed_criterion(change: bulk.CriterionChange, previous: int | None) -> ChangedCriterion:
    version = change.version
    if version is None:
        raise RuntimeError(f"Criterion {change.criterion.code} changed without a version.")
    wording = change.delta.get("wording", [version.wording, version.wording])
    weight = change.delta.get("weight", [version.weight, version.weight])
    if change.delta.get("needs_guidance") == [False, True]:
        guidance = "cleared"
    elif version.needs_guidance:
        guidance = "needed"
    elif any(getattr(version, name) for name in CriterionVersion.GUIDANCE_FIELDS):
        guidance = "kept"
    else:
        guidance = "none"
    return ChangedCriterion(
        code=change.criterion.code,
        layer=str(change.criterion.layer),
        previous_version=previous,
        version=version.number,
        new_version=change.new_version,
        wording=(wording[0], wording[1]),
        weight=(weight[0], weight[1]),
        guidance=guidance,
    )


def publish_imported(
    plan: BenchmarkPlan,
    report: ImportReport,
    by: User | None,
    progress: Progress,
    changed_versions: set[int] | frozenset[int] = frozenset(),
) -> None:
    """Publish, through rubrics.publishing, the tasks the file marks as published, without the
    review step: the file, not a reviewer in the tool, is the authority for an imported
    benchmark, and the importer holds the IMPORT_DATA permission. A task whose latest published
    rubric already matches is left alone, so re-importing publishes nothing new.

    An existing criterion the file changes is another matter: its change is a draft version
    waiting for review, as an edit in the app is (`changed_versions`). A task whose rubric
    would use one is not published: it keeps its published rubric (or stays a draft, when its
    own criterion changed) until a reviewer approves it, and the report says so."""
    counts = report.count("published rubrics")
    wanted = [p for p in plan.tasks if p.record.is_published]
    if changed_versions:
        rubrics = Task.effective_rubrics([p.saved() for p in wanted])
        held = {
            task_id
            for task_id, rubric in rubrics.items()
            if any(line.version.pk in changed_versions for line in rubric)
        }
        wanted = [p for p in wanted if p.saved().pk not in held]
        if held:
            report.notes.append(
                Text.ngettext(
                    "%(n)s task the file marks published was left for review: a criterion its "
                    "rubric uses changed, and the change is a draft version (listed below).",
                    "%(n)s tasks the file marks published were left for review: criteria their "
                    "rubric uses changed, and each change is a draft version (listed below).",
                    "n",
                    n=len(held),
                )
            )
    progress(0, 1, "publishing")
    published = publishing.publish(
        [p.saved() for p in wanted], by, PUBLISHED_COMMENT, skip_current=True
    )
    new_ids = {version.task_id for version in published}
    # A task the file leaves as it was, whose rubric changed through shared criteria only.
    republished = sum(
        1 for p in wanted if p.saved().pk in new_ids and p.existing is not None and not p.changes
    )
    tasks_counts = report.count("tasks")
    tasks_counts.updated += republished
    tasks_counts.unchanged -= republished
    counts.created += len(published)
    counts.unchanged += len(wanted) - len(published)
