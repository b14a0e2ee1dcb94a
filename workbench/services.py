"""Running the LLM judge on a study: the one service the "Run the judge" page and the
`run_judge` command share.

`start_run` records a queued `JudgeRun` (the judge, the prompt version it will send, its
parameters, how many calls) and enqueues the job; `execute_run` (the job, or the command in
process) fills the prompt for every (response, criterion) unit of the study, evaluates them
with Inspect AI, keeps the `.eval` log and reads it back through the Inspect importer, so a run
made here and a log made elsewhere land the same way.

API keys are never handled here: Inspect reads them from the environment by its own names."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import User
from audit.errors import Conflict
from audit.services import record
from grading.models import Study
from judging.models import JudgeRun, PromptVersion
from judging.prompting import render
from judging.services import config_for, default_prompt
from workbench.jobs import run_judge_job
from workbench.units import study_units

MAX_CONNECTIONS = 10


class RunNotPossible(Conflict):
    """The study has nothing the judge could judge, or the run is not in a state to do it."""


def preview(prompt_text: str, study: Study | None) -> str:
    """`prompt_text` filled with the first unit of `study` (or of any study): what the judge
    would read."""
    studies = [study] if study is not None else list(Study.objects.order_by("pk")[:5])
    for candidate in studies:
        units = study_units(candidate, limit=1)
        if units:
            return render(prompt_text, units[0].unit)
    raise RunNotPossible("No study has a response to fill the prompt with.")


@transaction.atomic
def start_run(
    study: Study,
    *,
    model: str,
    prompt: PromptVersion | None = None,
    epochs: int = 1,
    max_connections: int = MAX_CONNECTIONS,
    temperature: float = 0.0,
    model_family: str = "",
    limit: int | None = None,
    by: User | None,
    enqueue: bool = True,
) -> JudgeRun:
    """Record a judge run of `model` with `prompt` on `study` and (with `enqueue`) queue it
    for the worker. Refuses a model string that is not Inspect's `provider/model`."""
    if "/" not in model.strip("/"):
        raise ValidationError({"model": f"'{model}' is not an Inspect model (provider/model)."})
    if epochs < 1 or max_connections < 1 or (limit is not None and limit < 1):
        raise ValidationError("Epochs, connections and the limit are at least 1.")
    prompt = prompt or default_prompt()
    units = len(study_units(study, limit=limit))
    if not units:
        raise RunNotPossible(
            f"Study '{study.name}' has no response with a binary criterion to judge."
        )
    config = config_for(
        model,
        prompt,
        model_family=model_family,
        temperature=temperature,
        epochs=epochs,
        max_connections=max_connections,
    )
    run = JudgeRun.objects.create(
        judge_model=model,
        prompt_version=str(prompt),
        run_id=f"l2annot-{uuid.uuid4().hex[:12]}",
        prompt=prompt,
        config=config,
        model_family=model_family,
        parameters=config.parameters() | {"study": study.pk, "limit": limit},
        status=JudgeRun.Status.QUEUED,
        calls_total=units * epochs,
    )
    record(run, "created", by, comment=f"Judge run queued on study '{study.name}'.")
    if enqueue:
        _enqueue(run)
    return run


def _enqueue(run: JudgeRun) -> None:
    transaction.on_commit(lambda: run_judge_job.enqueue(run.pk))


def cancel_run(run: JudgeRun, *, by: User | None) -> JudgeRun:
    """Ask a queued or running run to stop: the calls not yet made are not made."""
    updated = JudgeRun.objects.filter(
        pk=run.pk, status__in=[JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING]
    ).update(status=JudgeRun.Status.CANCELLED)
    if not updated:
        raise RunNotPossible("This run is not running: there is nothing to cancel.")
    record(run, "updated", by, comment="Judge run cancelled.")
    run.refresh_from_db()
    return run


@transaction.atomic
def resume_run(run: JudgeRun, *, by: User | None, enqueue: bool = True) -> JudgeRun:
    """Queue a cancelled or failed run again. Calls already answered come from Inspect's
    cache, so only the calls the first attempt did not make are paid for."""
    if run.status not in (JudgeRun.Status.CANCELLED, JudgeRun.Status.FAILED):
        raise RunNotPossible("Only a cancelled or failed run can be run again.")
    run.status, run.calls_done, run.errors, run.problems = JudgeRun.Status.QUEUED, 0, 0, []
    run.save(update_fields=["status", "calls_done", "errors", "problems"])
    record(run, "updated", by, comment="Judge run queued again.")
    if enqueue:
        _enqueue(run)
    return run
