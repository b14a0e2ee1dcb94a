"""Import model responses (JSONL) into a framework's tasks. All or nothing, like every import.

A response is matched to an existing one by its id in the file (`id`), kept as the Response's
`external_id`; a response given without an `id` gets the id `<model>:<version>:e<epoch>` (see
`synthetic_response_id`), so importing it again finds the same response. Either way its epoch is
stored, and judge verdicts can name it by its id or by task, model and epoch.

What is written is decided by `rubrics.responses.save_responses`, the one path of every
response write: an unchanged response is left as it is; a changed one is updated in place while
nothing points at it, and otherwise gets a new version, the graded one kept as it was. The
report lists every new version (`ImportReport.new_versions`): its line, task and id, and the
studies that keep grading the version before it. A dry run lists the same, writing nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from accounts.models import User
from core.formats.problems import Problem, gettext_noop
from core.formats.responses import ResponseRecord, read_responses_jsonl
from grading.models import StudyItem
from interchange.importers.collector import collector_paused
from interchange.importers.report import ImportReport, NewVersion, Progress, no_progress
from rubrics.models import Response, Task
from rubrics.responses import Outcome, ResponseChangedMeanwhile, ResponseSpec, save_responses
from taxonomy.models import Framework

# Both are CharFields: their max_length is set.
MAX_ID: int = Response._meta.get_field("external_id").max_length  # type: ignore[assignment]
MAX_NAME: int = Response._meta.get_field("model_name").max_length  # type: ignore[assignment]
# What a response's history says of an import (interchange.apps registers them).
COMMENT = gettext_noop("Imported from a file.")
CHANGE_COMMENT = gettext_noop("Changed by an import.")


def synthetic_response_id(model: str, version: str | None, epoch: int) -> str:
    """The external id of a response imported without one."""
    return f"{model}:{version or ''}:e{epoch}"


@dataclass
class ResponsePlan:
    record: ResponseRecord
    task: Task
    external_id: str
    response_id: int | None = None  # once written


class ResponsesPlanner:
    """Checks response records against a framework's tasks."""

    def __init__(self, framework: Framework, file_name: str, report: ImportReport) -> None:
        self.framework = framework
        self.file_name = file_name
        self.report = report
        self.tasks = {task.key: task for task in Task.objects.filter(framework=framework)}

    def problem(self, line: int | None, field: str | None, message: str) -> None:
        self.report.problems.append(Problem(self.file_name, line or None, field, message))

    def plan(self, records: Sequence[ResponseRecord]) -> list[ResponsePlan]:
        plans = []
        seen: dict[tuple[str, str], int] = {}
        for record in records:
            task = self.tasks.get(record.task_key)
            external_id = record.external_id or synthetic_response_id(
                record.model, record.version, record.epoch
            )
            # An id given in the file may equal the one made for a line without an id.
            first = seen.setdefault((record.task_key, external_id), record.line)
            if first != record.line:
                self.problem(
                    record.line,
                    "id",
                    gettext_noop(
                        "a second response with the id '%(external_id)s' for task "
                        "'%(task_key)s' (first at line %(first)s)",
                        external_id=external_id,
                        task_key=record.task_key,
                        first=first,
                    ),
                )
                continue
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
                plans.append(ResponsePlan(record, task, external_id))
        return plans


def spec_of(plan: ResponsePlan) -> ResponseSpec:
    record = plan.record
    return ResponseSpec(
        task=plan.task,
        model_name=record.model,
        external_id=plan.external_id,
        model_family=record.family or "",
        model_version=record.version or "",
        epoch=record.epoch,
        kind=(Response.Kind.CONVERSATION if record.turns is not None else Response.Kind.TEXT).value,
        text=record.response or "",
        turns=tuple((turn.role.value, turn.content) for turn in record.turns or ()),
    )


def write_responses(
    plans: list[ResponsePlan], report: ImportReport, by: User | None, source: str = ""
) -> None:
    """Save the planned responses (rubrics.responses.save_responses), count them and list the
    new versions with the studies that keep the version before each. A response another import
    changed meanwhile is a problem of `source` (the caller rolls back)."""
    counts = report.count("responses")
    try:
        saved = save_responses(
            [spec_of(plan) for plan in plans], by, comment=COMMENT, change_comment=CHANGE_COMMENT
        )
    except ResponseChangedMeanwhile as error:
        report.problems.append(
            Problem(
                source,
                None,
                None,
                gettext_noop(
                    "response '%(id)s' was changed by another import at the same time: nothing "
                    "was imported; import the file again",
                    id=error.external_id,
                ),
            )
        )
        return
    for plan, result in zip(plans, saved, strict=True):
        plan.response_id = result.response_id
    counts.created += sum(1 for r in saved if r.outcome == Outcome.CREATED)
    counts.updated += sum(1 for r in saved if r.outcome in (Outcome.UPDATED, Outcome.NEW_VERSION))
    counts.unchanged += sum(1 for r in saved if r.outcome == Outcome.UNCHANGED)
    versioned = [(plan, r) for plan, r in zip(plans, saved, strict=True) if r.previous_id]
    studies: dict[int, set[str]] = defaultdict(set)
    for response_id, name in StudyItem.objects.filter(
        response__in=[r.previous_id for _, r in versioned]
    ).values_list("response_id", "study__name"):
        studies[response_id].add(name)
    report.new_versions.extend(
        NewVersion(
            line=plan.record.line or None,
            task_key=plan.task.key,
            response_id=plan.external_id,
            version=result.version,
            previous_version=result.previous_version or 0,
            changed=result.changed,
            studies=tuple(sorted(studies[result.previous_id or 0])),
        )
        for plan, result in versioned
    )


@collector_paused
def import_responses(
    path: Path | str,
    framework: Framework,
    *,
    dry_run: bool = False,
    by: User | None = None,
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
        write_responses(plans, report, by, path.name)
        if dry_run or report.problems:
            transaction.set_rollback(True)
    progress(3, 3, "done")
    return report
