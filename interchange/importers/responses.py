"""Import model responses (JSONL) into a framework's tasks. All or nothing, like every import.

A response is matched to an existing one by its id in the file (`id`), kept as the Response's
`external_id`; a response given without an `id` gets the id `<model>:<version>:e<epoch>` (see
`synthetic_response_id`), so importing it again updates the same row. Either way its epoch is
stored, and judge verdicts can name it by its id or by task, model and epoch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from audit import services as audit
from audit.models import AuditEvent
from interchange.formats.problems import Problem, gettext_noop
from interchange.formats.responses import ResponseRecord, read_responses_jsonl
from interchange.importers.collector import collector_paused
from interchange.importers.report import ImportReport, Progress, no_progress
from interchange.importers.writing import BATCH, COMMENT
from l2annot.bulk_insert import insert_rows
from rubrics.models import Response, Task, Turn
from taxonomy.models import Framework

# Both are CharFields: their max_length is set.
MAX_ID: int = Response._meta.get_field("external_id").max_length  # type: ignore[assignment]
MAX_NAME: int = Response._meta.get_field("model_name").max_length  # type: ignore[assignment]


def synthetic_response_id(model: str, version: str | None, epoch: int) -> str:
    """The external id of a response imported without one."""
    return f"{model}:{version or ''}:e{epoch}"


@dataclass
class ResponsePlan:
    record: ResponseRecord
    task: Task
    external_id: str
    existing: Response | None
    changed: bool = False
    response_id: int | None = None  # once written


class ResponsesPlanner:
    """Checks response records against a framework's tasks and works out what changes."""

    def __init__(self, framework: Framework, file_name: str, report: ImportReport) -> None:
        self.framework = framework
        self.file_name = file_name
        self.report = report
        self.tasks = {task.key: task for task in Task.objects.filter(framework=framework)}

    def problem(self, line: int | None, field: str | None, message: str) -> None:
        self.report.problems.append(Problem(self.file_name, line or None, field, message))

    def plan(self, records: Sequence[ResponseRecord]) -> list[ResponsePlan]:
        plans = []
        for record in records:
            task = self.tasks.get(record.task_key)
            external_id = record.external_id or synthetic_response_id(
                record.model, record.version, record.epoch
            )
            if task is None:
                self.problem(
                    record.line,
                    "task_key",
                    gettext_noop(
                        "no task '%(task_key)s' in framework '%(code)s'",
                        task_key=record.task_key,
                        code=self.framework.code,
                    ),
                )
            for name, value, limit in (
                ("model", record.model, MAX_NAME),
                ("family", record.family or "", MAX_NAME),
                ("version", record.version or "", MAX_NAME),
                ("id", external_id, MAX_ID),
            ):
                if len(value) > limit:
                    self.problem(
                        record.line,
                        name,
                        gettext_noop("is longer than %(limit)s characters", limit=limit),
                    )
            if record.response is not None and not record.response.strip():
                self.problem(record.line, "response", gettext_noop("is empty"))
            if task is not None:
                plans.append(ResponsePlan(record, task, external_id, None))
        existing = {
            (r.task_id, r.external_id): r
            for r in Response.objects.filter(task__framework=self.framework).exclude(external_id="")
        }
        for plan in plans:
            plan.existing = existing.get((plan.task.pk, plan.external_id))
        self.find_changes([p for p in plans if p.existing is not None])
        return plans

    def find_changes(self, plans: list[ResponsePlan]) -> None:
        turns: dict[int, list[tuple[str, str]]] = defaultdict(list)
        existing = [p.existing for p in plans if p.existing is not None]  # all of them
        conversations = [r.pk for r in existing if r.kind == "conversation"]
        for response_id, role, content in (
            Turn.objects.filter(response__in=conversations)
            .order_by("response_id", "index")
            .values_list("response_id", "role", "content")
        ):
            turns[response_id].append((role, content))
        graded = set(
            Turn.objects.filter(response__in=conversations, grades__isnull=False).values_list(
                "response_id", flat=True
            )
        )
        for plan, response in zip(plans, existing, strict=True):
            plan.changed = fields_of(plan.record) != current_fields(response) or (
                turns_of(plan.record) != turns[response.pk]
            )
            if plan.changed and response.pk in graded:
                # Turn grades hold the turns (a submitted grade is never lost).
                self.problem(
                    plan.record.line,
                    "turns",
                    gettext_noop(
                        "response %(external_id)s is a dialogue graded turn by turn in a study: it "
                        "cannot change",
                        external_id=repr(plan.external_id),
                    ),
                )


def fields_of(record: ResponseRecord) -> dict[str, str | int]:
    return {
        "model_name": record.model,
        "model_family": record.family or "",
        "model_version": record.version or "",
        "epoch": record.epoch,
        "kind": (
            Response.Kind.CONVERSATION if record.turns is not None else Response.Kind.TEXT
        ).value,
        "text": record.response or "",
    }


def current_fields(response: Response) -> dict[str, str | int]:
    return {name: getattr(response, name) for name in fields_of_names()}


def fields_of_names() -> tuple[str, ...]:
    return ("model_name", "model_family", "model_version", "epoch", "kind", "text")


def turns_of(record: ResponseRecord) -> list[tuple[str, str]]:
    return [(turn.role.value, turn.content) for turn in record.turns or ()]


def write_responses(plans: list[ResponsePlan], report: ImportReport, by: Any) -> None:
    """Create and update the planned responses (and their turns) in bulk.

    New responses, their turns and their history go as plain rows (`insert_rows`,
    `audit.record_rows`): an import makes tens of thousands, and a model instance each cost
    more than writing them."""
    counts = report.count("responses")
    new = [p for p in plans if p.existing is None]
    names = fields_of_names()
    rows = []
    for plan in new:
        fields = fields_of(plan.record)
        rows.append((plan.task.pk, plan.external_id, *(fields[name] for name in names)))
    ids = insert_rows(Response, ("task_id", "external_id", *names), rows)
    for plan, response_id in zip(new, ids, strict=True):
        plan.response_id = response_id
    events: list[AuditEvent] = []
    changed = []
    for plan in plans:
        if plan.existing is None:
            continue
        plan.response_id = plan.existing.pk
        if not plan.changed:
            counts.unchanged += 1
            continue
        before = current_fields(plan.existing)
        for name, value in fields_of(plan.record).items():
            setattr(plan.existing, name, value)
        delta = {
            k: [v, getattr(plan.existing, k)]
            for k, v in before.items()
            if v != getattr(plan.existing, k)
        }
        events.append(
            audit.event(plan.existing, AuditEvent.Kind.UPDATED, by, delta, "Changed by an import.")
        )
        changed.append(plan.existing)
    Response.objects.bulk_update(changed, list(fields_of_names()), batch_size=BATCH)
    Turn.objects.filter(response__in=[r.pk for r in changed]).delete()
    insert_rows(
        Turn,
        ("response_id", "index", "role", "content"),
        (
            (plan.response_id, index, role, content)
            for plan in plans
            if plan.existing is None or plan.changed
            for index, (role, content) in enumerate(turns_of(plan.record))
        ),
    )
    audit.record_rows(
        Response,
        AuditEvent.Kind.IMPORTED,
        by,
        (
            (
                response_id,
                Response.describe(p.record.model, p.task),
                {"model_name": [None, p.record.model]},
            )
            for p, response_id in zip(new, ids, strict=True)
        ),
        COMMENT,
    )
    audit.record_many(events)
    counts.created += len(new)
    counts.updated += len(changed)


@collector_paused
def import_responses(
    path: Path | str,
    framework: Framework,
    *,
    dry_run: bool = False,
    by: Any = None,
    progress: Progress = no_progress,
) -> ImportReport:
    """Import a responses JSONL file into `framework`'s tasks; see the module docstring."""
    path = Path(path)
    report = ImportReport("responses", dry_run=dry_run)
    progress(0, 3, "reading the responses file")
    responses_file = read_responses_jsonl(path)
    report.problems.extend(responses_file.problems)
    with transaction.atomic():
        progress(1, 3, "checking responses")
        plans = ResponsesPlanner(framework, path.name, report).plan(responses_file.responses)
        if report.problems:
            return report
        progress(2, 3, "writing responses")
        write_responses(plans, report, by)
        if dry_run:
            transaction.set_rollback(True)
    progress(3, 3, "done")
    return report
