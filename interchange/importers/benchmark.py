"""Import an L2-Bench folder into a framework: tasks, their three layers of criteria, context
values and resources; then publish the tasks the file marks as published.

All or nothing: the whole folder is checked against the database first and every problem is
collected; if there is any, nothing is written. Otherwise everything is written in one
transaction with bulk operations. Re-importing the same folder changes nothing. A dry run does
the same work inside a transaction that is rolled back, so it reports exactly the counts a real
run would.

The file is the truth for what it names: its tasks (by `task_key`), their own criteria (task
criteria a task no longer lists are retired, never deleted), the consensus and universal
criteria it lists (by code), the context variables it has a column for, and each task's
resources. A universal criterion of the framework that a task does not list is marked not
applicable to it. Criterion wording or weight changes follow the rubric rule: a frozen version
(used by a published rubric) gets a new version, a draft is changed in place.

A `competency` the framework has no sub-competency for is a problem, unless the import is asked
to `create_missing`: then a value that is a sub-competency code under an existing competency
(`02x`: the competency's code and letters) becomes a new sub-competency there, named as a
placeholder to be named, recorded in the history and listed in the report; in the same
transaction as the rest, so a refused import creates none.
"""

from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.formats.criteria import Criterion as FileCriterion
from core.formats.criteria import a_criterion_of, criterion_named
from core.formats.l2bench_csv import (
    CONTEXT_PREFIX,
    CRITERIA_COLUMNS,
    RESOURCES_DIR,
    TASKS_FILE,
    TaskRecord,
    TasksFile,
    read_l2bench_folder,
    shared_order,
)
from core.formats.problems import Problem, Text, gettext_noop
from core.messages import os_error_reason
from interchange.exporters import resource_file_name
from interchange.importers.collector import collector_paused
from interchange.importers.plan import (
    BenchmarkPlan,
    CriterionPlan,
    ResourceSpec,
    TaskPlan,
)
from interchange.importers.report import ImportReport, Progress, no_progress
from interchange.importers.writing import BenchmarkWriter, publish_imported
from interchange.models import TaskSource
from interchange.refusals import refusal_texts
from rubrics.bulk import ContextSetting
from rubrics.models import Criterion, CriterionVersion, Layer, Task, TaskContextValue
from rubrics.models.criteria import UNIVERSAL_CODE
from rubrics.models.tasks import TaskResource, UniversalExclusion
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency

TEXT_EXTENSIONS = (".md", ".markdown", ".txt")
TASK_KEY = re.compile(r"^[\w.-]{1,64}$")
# What follows the competency's code in a sub-competency code it may create (02 -> 02a).
SUB_CODE_SUFFIX = re.compile(r"^[a-z]{1,3}$")
# A criterion code's number, after its owner's code and a hyphen (02a-05, 137-06).
NUMBER = re.compile(r"\d{2,}")
# What the history of a sub-competency an import creates says (interchange.apps registers it).
CREATED_SUB_COMPETENCY = gettext_noop(
    "Created by a benchmark import (create missing sub-competencies)."
)


@collector_paused
def import_l2bench(
    folder: Path | str,
    framework: Framework,
    *,
    dry_run: bool = False,
    create_missing: bool = False,
    by: User | None = None,
    progress: Progress = no_progress,
) -> ImportReport:
    """Import `<folder>/l2-bench_tasks.csv` (and `resources_for_tasks/`) into `framework`.

    Returns the report: counts of tasks, criteria, criterion versions and published rubrics
    created, updated and unchanged, or every problem (then nothing was written).
    `create_missing` creates the sub-competencies the file names that the framework lacks (see
    the module docstring)."""
    folder = Path(folder)
    report = ImportReport("benchmark", dry_run=dry_run)
    progress(0, 1, "reading the tasks file")
    tasks_file = read_l2bench_folder(folder)
    report.problems.extend(tasks_file.problems)
    writer = None
    try:
        with transaction.atomic():
            # One import per framework at a time: the plan below stays true until commit.
            Framework.objects.select_for_update(of=("self",)).get(pk=framework.pk)
            if create_missing:
                create_missing_sub_competencies(framework, tasks_file, report, by)
            planner = Planner(folder, framework, tasks_file, report, progress)
            planner.create_missing = create_missing
            plan = planner.plan()
            if report.problems:
                transaction.set_rollback(True)  # the sub-competencies created above go too
                return report
            writer = BenchmarkWriter(plan, report, by, progress, dry_run)
            writer.write()
            publish_imported(plan, report, by, progress, writer.changed_versions)
            if dry_run:
                transaction.set_rollback(True)
    except BaseException:
        # The rows are rolled back, whatever failed (publishing, the commit, a lost database
        # connection): the resource files already stored must go too.
        if writer is not None:
            writer.delete_saved_files()
        raise
    progress(1, 1, "done")
    return report


def create_missing_sub_competencies(
    framework: Framework, tasks_file: TasksFile, report: ImportReport, by: User | None
) -> list[SubCompetency]:
    """Create, as placeholders, the sub-competencies `tasks_file` names by a code the framework
    lacks, each under the competency its code begins with; a value that is not such a code is
    left for the planner to report."""
    subs = list(SubCompetency.objects.filter(competency__framework=framework))
    known = {sub.code for sub in subs} | {sub.name.strip().lower() for sub in subs}
    competencies = sorted(
        Competency.objects.filter(framework=framework), key=lambda c: -len(c.code)
    )
    wanted = dict.fromkeys(
        record.competency.strip()
        for record in tasks_file.tasks
        if record.competency.strip() not in known and record.competency.strip().lower() not in known
    )
    created: list[SubCompetency] = []
    for code in wanted:
        competency = next(
            (
                c
                for c in competencies
                if code.startswith(c.code) and SUB_CODE_SUFFIX.match(code[len(c.code) :])
            ),
            None,
        )
        if competency is None:
            continue
        sub = SubCompetency(
            competency=competency,
            code=code,
            # Named by its code, with no description: the pages say what a placeholder is, in
            # the reader's language.
            name=code,
            placeholder=True,
            order=SubCompetency.objects.filter(competency=competency).next_order(),
        )
        sub.full_clean()
        sub.save()
        after = audit.snapshot(sub, ("code", "name", "placeholder"))
        audit.record(
            sub,
            AuditEvent.Kind.CREATED,
            by,
            {name: [None, value] for name, value in after.items()},
            CREATED_SUB_COMPETENCY,
        )
        created.append(sub)
    report.count("sub-competencies").created += len(created)
    if created:
        listed = ", ".join(f"{sub.code} ({sub.competency.code})" for sub in created)
        report.notes.append(
            gettext_noop(
                "Created as placeholders to be named (each with its competency): %(listed)s.",
                listed=listed,
            )
        )
    return created


class Planner:
    """Reads the database once and works out, without writing, what the import changes."""

    create_missing = False

    def __init__(
        self,
        folder: Path,
        framework: Framework,
        tasks_file: TasksFile,
        report: ImportReport,
        progress: Progress,
    ) -> None:
        self.folder = folder
        self.framework = framework
        self.file = tasks_file
        self.report = report
        self.progress = progress
        subs = list(SubCompetency.objects.filter(competency__framework=framework))
        self.subs_by_code = {sub.code: sub for sub in subs}
        self.bounds: dict[tuple[str, object], list[str]] = {}
        self.subs_by_name: dict[str, list[SubCompetency]] = defaultdict(list)
        for sub in subs:
            self.subs_by_name[sub.name.strip().lower()].append(sub)
        self.variables = {
            v.key: v
            for v in ContextVariable.objects.filter(framework=framework).prefetch_related("values")
        }
        self.tasks = {task.key: task for task in Task.objects.filter(framework=framework)}
        self.criteria = {c.code: c for c in Criterion.objects.filter(framework=framework)}
        self.latest: dict[int, CriterionVersion] = {}
        for version in CriterionVersion.objects.filter(criterion__framework=framework).order_by(
            "criterion_id", "number"
        ):
            self.latest[version.criterion_id] = version
        self.task_keys_by_id: dict[int | None, str] = {
            task.pk: key for key, task in self.tasks.items()
        }

    def problem(self, row: int | None, column: str | None, message: str) -> None:
        self.report.problems.append(Problem(TASKS_FILE, row, column, message, unit="row"))

    def bound_problems(self, field: str, value: object) -> list[str]:
        """bound_problems of a criterion version's field, once per value: a shared criterion
        is given again on every task's row."""
        key = (field, value)
        if key not in self.bounds:
            self.bounds[key] = bound_problems(CriterionVersion, field, value)
        return self.bounds[key]

    # ----- the plan ------------------------------------------------------------------------

    def plan(self) -> BenchmarkPlan:
        unknown_columns = [key for key in self.file.context_columns if key not in self.variables]
        for key in unknown_columns:
            self.problem(1, CONTEXT_PREFIX + key, self.unknown_variable(key))
        criteria: dict[str, CriterionPlan] = {}
        tasks: list[TaskPlan] = []
        total = len(self.file.tasks)
        for n, record in enumerate(self.file.tasks, start=1):
            task_plan = self.plan_task(record, criteria, set(unknown_columns))
            if task_plan is not None:
                tasks.append(task_plan)
            if n % 50 == 0 or n == total:
                self.progress(n, total, "checking tasks")
        self.order_shared_criteria(criteria)
        self.check_criteria_against_database(criteria)
        self.retire_missing_task_criteria(tasks, criteria)
        plan = BenchmarkPlan(
            framework=self.framework,
            tasks=tasks,
            criteria=criteria,
            sources={
                s.task_id: s for s in TaskSource.objects.filter(task__framework=self.framework)
            },
            context_variable_ids=[
                self.variables[key].pk for key in self.file.context_columns if key in self.variables
            ],
            existing_exclusions=self.load_exclusions(),
            existing_context=self.load_context(),
            existing_resources=self.load_resources(),
        )
        self.find_changes(plan)
        return plan

    def plan_task(
        self, record: TaskRecord, criteria: dict[str, CriterionPlan], skip_context: set[str]
    ) -> TaskPlan | None:
        before = len(self.report.problems)
        row = record.row
        if not TASK_KEY.match(record.task_key):
            self.problem(
                row,
                "task_key",
                gettext_noop(
                    "'%(task_key)s' is not a task key: up to 64 letters, digits, '.', '_' or '-'",
                    task_key=record.task_key,
                ),
            )
        for column, field, value in (
            ("task", "instruction", record.task),
            ("task_system_prompt", "system_prompt", record.task_system_prompt),
            ("reference_answer", "reference_answer", record.reference_answer),
        ):
            for message in bound_problems(Task, field, value):
                self.problem(row, column, message)
        sub = self.resolve_sub_competency(record)
        context = self.resolve_context(record, skip_context)
        resources = self.read_resources(record)
        existing = self.tasks.get(record.task_key)
        for layer, column in CRITERIA_COLUMNS.items():
            for position, criterion in enumerate(getattr(record, column), start=1):
                self.plan_criterion(record, criterion, str(layer), column, position, sub, criteria)
        if record.is_published:
            self.check_publishable(record)
        if len(self.report.problems) > before or sub is None:
            return None
        return TaskPlan(record, sub, existing, context, resources)

    def resolve_sub_competency(self, record: TaskRecord) -> SubCompetency | None:
        wanted = record.competency.strip()
        if wanted in self.subs_by_code:
            return self.subs_by_code[wanted]
        by_name = self.subs_by_name.get(wanted.lower(), [])
        if len(by_name) == 1:
            return by_name[0]
        if len(by_name) > 1:
            message = gettext_noop(
                "'%(wanted)s' is the name of several sub-competencies (%(codes)s): use the code",
                wanted=wanted,
                codes=", ".join(sub.code for sub in by_name),
            )
        elif self.create_missing:
            message = gettext_noop(
                "unknown sub-competency '%(wanted)s': no sub-competency of framework "
                "'%(framework)s' has this code or name (creating missing sub-competencies takes "
                "a code: a competency's code and letters, like 02a, under a competency of the "
                "framework)",
                wanted=wanted,
                framework=self.framework.code,
            )
        else:
            message = gettext_noop(
                "unknown sub-competency '%(wanted)s': no sub-competency of framework "
                "'%(framework)s' has this code or name (an import creating the missing "
                "sub-competencies adds a code like 02a under its competency)",
                wanted=wanted,
                framework=self.framework.code,
            )
        self.problem(record.row, "competency", message)
        return None

    def unknown_variable(self, key: str) -> str:
        return gettext_noop(
            "unknown context variable '%(key)s' (not in framework '%(framework)s')",
            key=key,
            framework=self.framework.code,
        )

    def resolve_context(self, record: TaskRecord, skip: set[str]) -> dict[int, ContextSetting]:
        settings: dict[int, ContextSetting] = {}
        for key, raw in record.context:
            if key in skip:
                continue
            column = CONTEXT_PREFIX + key
            variable = self.variables.get(key)
            if variable is None:
                self.problem(record.row, column, self.unknown_variable(key))
                continue
            setting, message = context_setting(variable, raw)
            if setting is None:
                self.problem(record.row, column, message)
            else:
                settings[variable.pk] = setting
        return settings

    def read_resources(self, record: TaskRecord) -> list[ResourceSpec]:
        specs: list[ResourceSpec] = []
        for name in record.resource_files:
            path = self.folder / RESOURCES_DIR / name
            column = f"task_resource_file_link_{len(specs) + 1}"
            try:
                content = path.read_bytes()
            except OSError as error:
                self.problem(
                    record.row,
                    column,
                    gettext_noop(
                        "cannot read resource '%(name)s' (%(reason)s)",
                        name=name,
                        reason=os_error_reason(error),
                    ),
                )
                continue
            if not name.lower().endswith(TEXT_EXTENSIONS):
                if not content:
                    self.problem(
                        record.row,
                        column,
                        gettext_noop("resource file '%(name)s' is empty", name=name),
                    )
                specs.append(ResourceSpec(name, TaskResource.Kind.FILE, content=content))
                continue
            try:
                text = content.decode("utf-8-sig")
            except UnicodeDecodeError as error:
                self.problem(
                    record.row,
                    column,
                    gettext_noop(
                        "resource '%(name)s' is not UTF-8 text (%(reason)s)",
                        name=name,
                        reason=error.reason,
                    ),
                )
                continue
            if "\x00" in text:
                message = gettext_noop(
                    "resource '%(name)s' holds the NUL character (\\u0000), which the database "
                    "cannot store",
                    name=name,
                )
                self.problem(record.row, column, message)
                continue
            if not text.strip():
                self.problem(
                    record.row, column, gettext_noop("resource file '%(name)s' is empty", name=name)
                )
            specs.append(ResourceSpec(name, TaskResource.Kind.MARKDOWN, text=text))
        return specs

    def plan_criterion(
        self,
        record: TaskRecord,
        criterion: FileCriterion,
        layer: str,
        column: str,
        position: int,
        sub: SubCompetency | None,
        criteria: dict[str, CriterionPlan],
    ) -> None:
        code, row = criterion.id, record.row

        def where() -> Text:  # made for a message only: most criteria have none
            return criterion_named(layer, code)

        if criterion.weight == 0:
            self.problem(
                row,
                column,
                gettext_noop("%(where)s has weight 0: it would count for nothing", where=where()),
            )
        for field, value in (("weight", criterion.weight), ("wording", criterion.description)):
            for message in self.bound_problems(field, value):
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "%(where)s: %(field)s: %(message)s",
                        where=where(),
                        field=field,
                        message=message,
                    ),
                )
        if len(code) > 80:
            self.problem(
                row,
                column,
                gettext_noop("%(where)s: a code has at most 80 characters", where=where()),
            )
        sub_id, task_key = None, None
        if layer == Layer.UNIVERSAL:
            if not UNIVERSAL_CODE.match(code):
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "'%(code)s' is not a universal criterion code (like 06u1)", code=code
                    ),
                )
        elif layer == Layer.CONSENSUS:
            owner_code = code.rpartition("-")[0]
            owner = self.subs_by_code.get(owner_code)
            if owner is None or not NUMBER.fullmatch(code, len(owner_code) + 1):
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "'%(code)s' is not a consensus criterion code of a sub-competency of "
                        "framework '%(framework)s' (like 02a-05)",
                        code=code,
                        framework=self.framework.code,
                    ),
                )
            elif sub is not None and owner.pk != sub.pk:
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "%(where)s belongs to sub-competency %(owner)s, but the task is in "
                        "%(sub)s: consensus criteria apply to the tasks of their sub-competency",
                        where=where(),
                        owner=owner.code,
                        sub=sub.code,
                    ),
                )
            else:
                sub_id = owner.pk
        else:
            task_key = record.task_key
            if not (code.startswith(f"{task_key}-") and NUMBER.fullmatch(code, len(task_key) + 1)):
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "'%(code)s' is not a task criterion code (like %(task_key)s-06)",
                        code=code,
                        task_key=task_key,
                    ),
                )
        if code in criteria:
            return  # the reader checked that shared criteria read the same on every row
        existing = self.criteria.get(code)
        criteria[code] = CriterionPlan(
            code=code,
            layer=layer,
            wording=criterion.description,
            weight=criterion.weight,
            order=position,
            sub_id=sub_id,
            task_key=task_key,
            existing=existing,
            latest=self.latest.get(existing.pk) if existing else None,
            row=row,
            column=column,
        )

    def check_publishable(self, record: TaskRecord) -> None:
        if not record.task_criteria:
            self.problem(
                record.row,
                "task_criteria",
                gettext_noop("the task is marked published but has no task criteria of its own"),
            )
        elif not any(c.weight > 0 for c in record.criteria):
            self.problem(
                record.row,
                "is_published_v1-0",
                gettext_noop(
                    "the task is marked published but no criterion has a positive weight, so no "
                    "response could be scored",
                ),
            )

    def order_shared_criteria(self, criteria: dict[str, CriterionPlan]) -> None:
        """A consensus or universal criterion's order is its place among its siblings as the
        rows agree (l2bench_csv.shared_order), not its position on the first row naming it:
        a row leaves out the universal criteria its task excludes."""
        groups: dict[tuple[str, int | None], list[list[str]]] = defaultdict(list)
        for record in self.file.tasks:
            for layer, column in CRITERIA_COLUMNS.items():
                if str(layer) == Layer.TASK:
                    continue
                listed: dict[tuple[str, int | None], list[str]] = defaultdict(list)
                for criterion in getattr(record, column):
                    plan = criteria.get(criterion.id)
                    if plan is not None and plan.layer == str(layer):
                        listed[(plan.layer, plan.sub_id)].append(criterion.id)
                for group, codes in listed.items():
                    groups[group].append(codes)
        for rows in groups.values():
            for place, code in enumerate(shared_order(rows), start=1):
                criteria[code].order = place

    def check_criteria_against_database(self, criteria: dict[str, CriterionPlan]) -> None:
        for plan in criteria.values():
            existing = plan.existing
            if existing is None:
                plan.action = "create"
                continue
            row, column = plan.row, plan.column
            owner_task_key = self.task_keys_by_id.get(existing.task_id)
            if existing.layer != plan.layer:
                self.problem(
                    row,
                    column,
                    gettext_noop(
                        "criterion '%(code)s' is %(existing)s in the database, not %(planned)s",
                        code=plan.code,
                        existing=a_criterion_of(existing.layer),
                        planned=a_criterion_of(plan.layer),
                    ),
                )
                continue
            if existing.sub_competency_id != plan.sub_id or owner_task_key != plan.task_key:
                self.problem(
                    row,
                    column,
                    gettext_noop("criterion '%(code)s' belongs to another owner", code=plan.code),
                )
                continue
            latest = plan.latest
            if latest is None or (latest.wording, latest.weight) != (plan.wording, plan.weight):
                plan.action = "new_version" if latest is None or latest.frozen else "edit_draft"
            elif existing.order != plan.order or existing.retired:
                plan.action = "touch"

    def retire_missing_task_criteria(
        self, tasks: list[TaskPlan], criteria: dict[str, CriterionPlan]
    ) -> None:
        in_file = {plan.record.task_key for plan in tasks}
        for criterion in self.criteria.values():
            if criterion.layer != Layer.TASK or criterion.retired or criterion.code in criteria:
                continue
            key = self.task_keys_by_id.get(criterion.task_id)
            if key in in_file:
                criteria[criterion.code] = CriterionPlan(
                    code=criterion.code,
                    layer=Layer.TASK,
                    wording="",
                    weight=0,
                    order=criterion.order,
                    sub_id=None,
                    task_key=key,
                    existing=criterion,
                    latest=self.latest.get(criterion.pk),
                    action="touch",
                    retire=True,
                )

    def load_exclusions(self) -> dict[int, dict[str, UniversalExclusion]]:
        found: dict[int, dict[str, UniversalExclusion]] = defaultdict(dict)
        exclusions = UniversalExclusion.objects.filter(task__framework=self.framework)
        for exclusion in exclusions.select_related("criterion"):
            found[exclusion.task_id][exclusion.criterion.code] = exclusion
        return found

    def load_context(self) -> dict[int, dict[int, TaskContextValue]]:
        found: dict[int, dict[int, TaskContextValue]] = defaultdict(dict)
        for value in TaskContextValue.objects.filter(task__framework=self.framework):
            found[value.task_id][value.variable_id] = value
        return found

    def load_resources(self) -> dict[int, list[TaskResource]]:
        found: dict[int, list[TaskResource]] = defaultdict(list)
        for resource in TaskResource.objects.filter(task__framework=self.framework):
            found[resource.task_id].append(resource)
        return found

    # ----- what differs --------------------------------------------------------------------

    def find_changes(self, plan: BenchmarkPlan) -> None:
        universal_after = {
            code
            for code, c in self.criteria.items()
            if c.layer == Layer.UNIVERSAL and not c.retired
        } | {code for code, c in plan.criteria.items() if c.layer == Layer.UNIVERSAL}
        own_changes: dict[str, bool] = defaultdict(bool)
        for criterion in plan.criteria.values():
            if criterion.task_key and criterion.action != "unchanged":
                own_changes[criterion.task_key] = True
        for task_plan in plan.tasks:
            record, existing = task_plan.record, task_plan.existing
            listed = {c.id for c in record.universal_criteria}
            task_plan.excluded = universal_after - listed
            if existing is None:
                continue
            changes = task_plan.changes
            values = {
                "sub_competency": (existing.sub_competency_id, task_plan.sub.pk),
                "instruction": (existing.instruction, record.task),
                "system_prompt": (existing.system_prompt, record.task_system_prompt),
                "reference_answer": (existing.reference_answer, record.reference_answer),
                "language": (existing.language, record.language or existing.language),
            }
            changes.update(name for name, (old, new) in values.items() if old != new)
            source = plan.sources.get(existing.pk)
            if (source.version_at_time_of_draft if source else "") != (
                record.version_at_time_of_draft
            ):
                changes.add("version_at_time_of_draft")
            if set(plan.existing_exclusions.get(existing.pk, {})) != task_plan.excluded:
                changes.add("universal exclusions")
            current_context = {
                variable_id: ContextSetting(value.value_id, value.text, value.number)
                for variable_id, value in plan.existing_context.get(existing.pk, {}).items()
                if variable_id in plan.context_variable_ids
            }
            if current_context != task_plan.context:
                changes.add("context")
            if resource_specs(plan.existing_resources.get(existing.pk, [])) != task_plan.resources:
                changes.add("resources")
            if own_changes[record.task_key]:
                changes.add("task criteria")
            locked = existing.status in (Task.Status.IN_REVIEW, Task.Status.RETIRED)
            if locked and changes - {"version_at_time_of_draft"}:
                named = {"task_key": record.task_key, "changes": ", ".join(sorted(changes))}
                if existing.status == Task.Status.IN_REVIEW:
                    message = gettext_noop(
                        "task '%(task_key)s' is in review in the database and cannot be changed "
                        "by an import (%(changes)s differ)",
                        **named,
                    )
                else:
                    message = gettext_noop(
                        "task '%(task_key)s' is retired in the database and cannot be changed by "
                        "an import (%(changes)s differ)",
                        **named,
                    )
                self.problem(record.row, "task_key", message)


def bound_problems(model: type[Model], field: str, value: object) -> list[str]:
    """What the model field's validators (its bounds: length, range) say of `value`: the rule
    the forms, the API and the services apply, run here on a file's cell."""
    try:
        model._meta.get_field(field).run_validators(value)  # type: ignore[union-attr]
    except ValidationError as error:
        return refusal_texts(error)
    return []


def context_setting(variable: ContextVariable, raw: str) -> tuple[ContextSetting | None, str]:
    """The value `raw` means for `variable` (ContextVariable.parse_value), or None and why not."""
    try:
        value = variable.parse_value(raw)
    except ValidationError as error:
        return None, refusal_texts(error)[0]
    if isinstance(value, ContextValue):
        return ContextSetting(value_id=value.pk), ""
    if isinstance(value, Decimal):
        return ContextSetting(number=value), ""
    return ContextSetting(text=value), ""


def resource_specs(resources: list[TaskResource]) -> list[ResourceSpec]:
    """The database's resources in the shape of the file's, to compare them."""
    specs = []
    for resource in sorted(resources, key=lambda r: (r.order, r.pk)):
        # Titled by the file's name, as the export writes it ("Picture cards" is written
        # as "Picture cards.md"): an exported benchmark imported again changes nothing.
        name = resource_file_name(resource)
        if resource.kind == TaskResource.Kind.FILE:
            with resource.file.open("rb") as handle:
                specs.append(ResourceSpec(name, resource.kind, content=handle.read()))
        else:
            specs.append(ResourceSpec(name, resource.kind, text=resource.text))
    return specs
