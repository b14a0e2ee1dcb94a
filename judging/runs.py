"""Running the LLM judge on a study: the one service the "Run the judge" page and the
`run_judge` command share.

`start_run` records a queued `JudgeRun` (the judge, the prompt version it will send, its
parameters, how many calls, its estimated cost: judging.costs, which fills no prompt) and
enqueues the job; `execute_run` (judging.running: the job, or
the command in process) fills the prompt for every (response, criterion) unit of the study,
evaluates them with Inspect AI, keeps the `.eval` log and reads it back through the verdict
importer (judging.verdict_import), so a run made here and a log made elsewhere land the same way.

API keys are never handled here: Inspect reads them from the environment by its own names."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from audit.services import record
from core.messages import gettext_noop
from core.prompting import render
from core.refusals import Conflict
from grading.models import Study
from jobs.models import Job
from judging.costs import Costing, check_budget, costing, freeze_price
from judging.jobs import run_judge_job
from judging.models import (
    JudgeBatch,
    JudgeConfig,
    JudgeRun,
    PromptVersion,
)
from judging.providers import check_batch, check_model
from judging.services import config_values, default_prompt, save_config
from judging.units import study_units

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
    raise RunNotPossible(gettext("No study has a response to fill the prompt with."))


@transaction.atomic
def start_run(
    study: Study,
    *,
    config: JudgeConfig | None = None,
    name: str = "",
    model: str = "",
    prompt: PromptVersion | None = None,
    model_family: str = "",
    temperature: float = 0.0,
    epochs: int = 1,
    max_connections: int = MAX_CONNECTIONS,
    parse_retries: int = 3,
    retry_temperature: float = 0.2,
    ask_probability: bool = False,
    limit: int | None = None,
    confirm_cost: bool = False,
    batch: bool = False,
    by: User | None,
    enqueue: bool = True,
) -> JudgeRun:
    """Record a judge run on `study` and (with `enqueue`) queue it for the worker; with
    `batch`, its calls go through the provider's batch API (judging.batching).

    The judge is a saved configuration (`config`), or the one these values make: saved under
    `name` to be reused, or found by its values (`judging.services.save_config`). A `name`
    other than the chosen configuration's saves its values under that name: the name typed is
    kept, never dropped. The run keeps the configuration's parameters and model family
    (self-preference compares with it) and is named after it (`run_name`); it keeps the
    model's price with the run's estimate (judging.costs), and a run estimated above the
    budget (settings.JUDGE_RUN_BUDGET) is refused unless `confirm_cost`."""
    if limit is not None and limit < 1:
        raise ValidationError({"limit": gettext("The limit is at least 1.")})
    if config is not None and name and name != config.name:
        config = save_config(name=name, **config_values(config), by=by)
    if config is None:
        config = save_config(
            name=name,
            model=model,
            prompt=prompt or default_prompt(),
            model_family=model_family,
            temperature=temperature,
            epochs=epochs,
            max_connections=max_connections,
            parse_retries=parse_retries,
            retry_temperature=retry_temperature,
            ask_probability=ask_probability,
            by=by,
        )
    check_model(config.model)  # a saved configuration too: the allowed providers may change
    if batch:
        check_batch(config.model)
    planned = costing(
        study,
        model=config.model,
        prompt=config.prompt,
        epochs=config.epochs,
        limit=limit,
        batch=batch,
        ask_probability=config.ask_probability,
    )
    if not planned.estimate.calls:
        raise RunNotPossible(
            gettext("Study '%(study)s' has no response with a binary criterion to judge.")
            % {"study": study.name}
        )
    check_budget(planned.estimate, confirmed=confirm_cost)
    run = JudgeRun(
        name=run_name(study, config),
        judge_model=config.model,
        prompt_version=str(config.prompt),
        run_id=f"l2annot-{uuid.uuid4().hex[:12]}",
        prompt=config.prompt,
        config=config,
        model_family=config.model_family,
        parameters=config.parameters() | {"study": study.pk, "limit": limit, "batch": batch},
        status=JudgeRun.Status.QUEUED,
        calls_total=planned.estimate.calls,
        job=Job.objects.create(kind=Job.Kind.JUDGE_RUN, created_by=by),
    )
    freeze_price(run, planned.estimate, planned.price)
    run.save(force_insert=True)
    record(
        run,
        "created",
        by,
        comment=QUEUED.fill(study=study.name, config=config.name),
    )
    if enqueue:
        _enqueue(run)
    return run


# What a run's history says of it (judging.apps registers them, audit.history).
QUEUED = gettext_noop("Judge run queued on study '%(study)s' with configuration '%(config)s'.")
CANCELLED = gettext_noop("Judge run cancelled.")
QUEUED_AGAIN = gettext_noop("Judge run queued again.")
HISTORY_MESSAGES = (QUEUED, CANCELLED, QUEUED_AGAIN)


def run_name(study: Study, config: JudgeConfig) -> str:
    """The next run of `config` on `study`, named by the configuration and its version:
    "strict-sonnet v2" for its second run there (the first number no run of the study holds,
    so the name stays one run's even after a configuration was renamed)."""
    of_study = JudgeRun.objects.filter(parameters__study=study.pk)
    taken = set(of_study.values_list("name", flat=True))
    version = of_study.filter(config=config).count() + 1
    while f"{config.name} v{version}" in taken:
        version += 1
    return f"{config.name} v{version}"


def estimate_run(
    study: Study,
    *,
    config: JudgeConfig | None = None,
    model: str = "",
    prompt: PromptVersion | None = None,
    epochs: int = 1,
    limit: int | None = None,
    batch: bool = False,
    ask_probability: bool = False,
) -> Costing:
    """What `start_run` with these values would send and cost (the run form's estimate): a
    saved configuration's model, prompt, epochs and request for a probability, or the values
    given."""
    if config is not None:
        model, prompt, epochs = config.model, config.prompt, config.epochs
        ask_probability = config.ask_probability
    return costing(
        study,
        model=model,
        prompt=prompt or default_prompt(),
        epochs=epochs,
        limit=limit,
        batch=batch,
        ask_probability=ask_probability,
    )


def _enqueue(run: JudgeRun) -> None:
    transaction.on_commit(lambda: run_judge_job.enqueue(run.pk))


@transaction.atomic
def cancel_run(run: JudgeRun, *, by: User | None) -> JudgeRun:
    """Ask a queued or running run to stop: the calls not yet made are not made. A queued run
    stops at once; a running one is stopping until its worker, which reads the request between
    calls, ends it (`finished`). Under the run's row lock, as `resume_run` and the worker's
    last write take it, so a cancel and a "Run it again" are never both half done."""
    locked = JudgeRun.objects.select_for_update(of=("self",)).select_related("job").get(pk=run.pk)
    if locked.status not in (JudgeRun.Status.QUEUED, JudgeRun.Status.RUNNING):
        raise RunNotPossible(gettext("This run is not running: there is nothing to cancel."))
    queued = locked.status == JudgeRun.Status.QUEUED
    locked.status = JudgeRun.Status.CANCELLED
    if queued:  # no worker has it: nothing is left to stop
        locked.finished = timezone.now()
        if locked.job is not None:
            locked.job.cancel()
    locked.save(update_fields=["status", "finished"])
    record(locked, "updated", by, comment=CANCELLED)
    return locked


@transaction.atomic
def resume_run(run: JudgeRun, *, by: User | None, enqueue: bool = True) -> JudgeRun:
    """Queue a cancelled or failed run again, or one whose worker died (`is_stale`). Calls
    already answered come from Inspect's cache, so only the calls not yet made are paid for.
    A cancelled run whose worker is still stopping is refused until it has stopped: queued
    again meanwhile, the stopping worker would end the new attempt as its own (the run would
    never run again) or never see the cancel."""
    locked = JudgeRun.objects.select_for_update(of=("self",)).select_related("job").get(pk=run.pk)
    now = timezone.now()
    if locked.is_stopping(now):
        raise RunNotPossible(
            gettext("This run is still stopping: run it again once it has stopped.")
        )
    stopped = (JudgeRun.Status.CANCELLED, JudgeRun.Status.FAILED)
    if locked.status not in stopped and not locked.is_stale(now):
        raise RunNotPossible(gettext("Only a cancelled, failed or stopped run can be run again."))
    check_model(locked.judge_model)
    locked.status, locked.calls_done, locked.errors, locked.problems = (
        JudgeRun.Status.QUEUED,
        0,
        0,
        [],
    )
    locked.started = locked.finished = None
    if locked.job is None:  # a run from before runs had jobs
        locked.job = Job.objects.create(kind=Job.Kind.JUDGE_RUN, created_by=by)
    else:
        locked.job.requeue()
    locked.save(
        update_fields=[
            *("status", "calls_done", "errors", "problems"),
            *("started", "finished", "job"),
        ]
    )
    record(locked, "updated", by, comment=QUEUED_AGAIN)
    if enqueue:
        _enqueue(locked)
    return locked


def resume_stalled_batch_runs() -> list[JudgeRun]:
    """Queue again every run whose worker is gone while a batch of its calls is pending at the
    provider, as "Run it again" would: the new attempt waits for that batch instead of sending
    its calls again (judging.batching), and the batch's answers, which may take hours, are not
    left waiting for someone to click. The run pages call it, as the import pages end the
    imports whose worker is gone; one query when there is nothing to do."""
    pending = JudgeBatch.objects.filter(run=OuterRef("pk"), ended_at__isnull=True)
    running = JudgeRun.objects.filter(Exists(pending), status=JudgeRun.Status.RUNNING)
    now, resumed = timezone.now(), []
    for run in running.select_related("job"):
        if not run.is_stale(now):
            continue
        try:
            resumed.append(resume_run(run, by=None))
        except (RunNotPossible, ValidationError):  # resumed by another request meanwhile, or
            continue  # its provider is no longer allowed: left stalled, as the page says
    return resumed
