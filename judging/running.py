"""Running a queued judge run to its end: the job's body (`judging.jobs`), which the
`run_judge` command also calls in process. Only the job and the command import this module (it
loads Inspect AI, which takes a second or two; the worker loads it when it starts,
`judging.apps`)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from inspect_ai.model import GenerateConfig

from core.formats.problems import gettext_noop, stored_message
from core.prompting import AnswerStyle, render
from grading.models import Study
from interchange.problem_text import stored_problems
from jobs.lease import this_worker
from jobs.models import Job
from judging import batching
from judging.batch_runs import generate_options, keep_batches, ledger_for
from judging.evaluation import evaluate, prepare_processes
from judging.judge_task import Asking, JudgeCall, Watch
from judging.models import JudgeRun
from judging.providers import is_allowed
from judging.units import study_units
from judging.verdict_import import import_verdicts
from webhooks.models import Event
from webhooks.services import notify


def prepare() -> None:
    """Make the worker ready for judge runs before the first is queued (its `db_worker` calls
    this when it starts): importing this module has loaded Inspect AI; this starts the process
    a large run's children fork from, which loads it once more, unless JUDGE_PROCESSES keeps
    every run in the worker's process."""
    if settings.JUDGE_PROCESSES > 1:
        prepare_processes()


def execute_run(run_pk: int, *, on_progress: Any = None) -> JudgeRun:
    """Run a queued judge run to its end (the job's body; the command calls it in process)."""
    started = timezone.now()
    claimed = JudgeRun.objects.filter(pk=run_pk, status=JudgeRun.Status.QUEUED).update(
        status=JudgeRun.Status.RUNNING, started=started, finished=None
    )
    run = JudgeRun.objects.select_related("prompt__template", "config", "job").get(pk=run_pk)
    if not claimed:
        return run  # cancelled while queued, or already run by another worker
    if run.job is None:  # queued before runs had jobs
        run.job = Job.objects.create(kind=Job.Kind.JUDGE_RUN)
        run.save(update_fields=["job"])
    run.job.claim(this_worker())
    if not is_allowed(run.judge_model):  # queued before the allowed providers changed
        refused = gettext_noop(
            "The judge model %(model)s calls a provider this server no longer allows "
            "(JUDGE_ALLOWED_PROVIDERS): no call was made.",
            model=run.judge_model,
        )
        JudgeRun.objects.filter(pk=run.pk).update(
            status=JudgeRun.Status.FAILED,
            finished=timezone.now(),
            problems=[stored_message(refused)],
        )
        run.job.finish()
        run.refresh_from_db()
        return run
    job = run.job
    try:
        return _judge(run, job, on_progress)
    except BaseException as error:  # the run must end failed, never stay "running"
        # `started` names this attempt: a run queued again since is another's to end.
        JudgeRun.objects.filter(pk=run.pk, started=started).update(
            status=JudgeRun.Status.FAILED,
            finished=timezone.now(),
            problems=[
                stored_message(gettext_noop("The run stopped: %(error)s", error=repr(error)))
            ],
        )
        job.fail(repr(error))  # only while this worker still holds it
        raise


def _judge(run: JudgeRun, job: Job, on_progress: Any) -> JudgeRun:
    study = Study.objects.get(pk=run.parameters["study"])
    assert run.prompt is not None and run.config is not None  # a run made here has both
    planned = study_units(study, limit=run.parameters.get("limit"))
    calls = [
        JudgeCall(
            sample_id=f"{p.response_pk}-{p.version_pk}"
            + (f"-t{p.turn}" if p.turn is not None else ""),
            prompt=render(run.prompt.text, p.unit),
            task_key=p.task_key,
            response_id=p.response_id,
            criterion_id=p.criterion_id,
            weight=p.weight,
            scale=p.scale,
            turn=p.turn,
            response_version=p.response_version,
        )
        for p in planned
    ]
    watch = Watch()
    ledger = ledger_for(run, watch.cancelled)  # a batch run's batches, sent and to come
    clock = time.monotonic()
    outcome: dict[str, Any] = {}
    # A daemon: a provider's call that ignores its timeout must not keep the worker from ending.
    worker = threading.Thread(
        target=_evaluate,
        args=(run, calls, watch, outcome, ledger),
        name=f"judge-run-{run.pk}",
        daemon=True,
    )
    deadline = clock + settings.JUDGE_RUN_TIMEOUT
    # Past the deadline the calls not yet made are not made; a call in flight gets its own
    # timeout to end, after which the run stops waiting for it.
    given_up = deadline + settings.JUDGE_CALL_TIMEOUT + 5
    worker.start()
    try:
        while worker.is_alive() and time.monotonic() < given_up:
            worker.join(timeout=0.5)
            mine = JudgeRun.objects.filter(pk=run.pk, started=run.started)
            status = mine.values_list("status", flat=True).first()
            if status != JudgeRun.Status.RUNNING:  # cancelled, or no longer this attempt's
                watch.cancelled.set()
            if time.monotonic() >= deadline and not outcome.get("timed_out"):
                outcome["timed_out"] = True
                watch.cancelled.set()
            mine.update(**live_counts(run, watch))
            keep_batches(run, ledger)
            job.beat()
            if on_progress is not None:
                on_progress(watch.done, run.calls_total)
    finally:
        if worker.is_alive():  # this thread failed: stop the calls not yet made
            watch.cancelled.set()
            worker.join(timeout=settings.JUDGE_CALL_TIMEOUT)
        keep_batches(run, ledger)
    return _finish(run, job, study, watch, outcome, time.monotonic() - clock)


def live_counts(run: JudgeRun, watch: Watch) -> dict[str, int]:
    """What the run's page shows as the run goes: calls done, the tokens paid so far (over
    every attempt: `run` holds the earlier attempts' as this one started) and the answers
    not read. At the end the log's usage and the stored verdicts replace them."""
    input_tokens = run.input_tokens + watch.input_tokens
    output_tokens = run.output_tokens + watch.output_tokens
    return {
        "calls_done": watch.done,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "unparseable": watch.unparseable,
    }


def generate_config(run: JudgeRun) -> GenerateConfig:
    """The run's generation settings as Inspect's model API takes them, passed to it unchanged
    (and recorded in the log's header): bounded calls, or a batch run's batches
    (`batch_runs.generate_options`)."""
    assert run.config is not None
    return GenerateConfig(
        temperature=run.config.temperature,
        max_retries=settings.JUDGE_MAX_RETRIES,
        **generate_options(run),
    )


def processes_for(run: JudgeRun, calls: int) -> int:
    """How many processes make a run's calls: one per JUDGE_CALLS_PER_PROCESS calls, at most
    JUDGE_PROCESSES (a small run stays in the worker's process). A batch run stays in it too:
    its calls wait on the provider, not on a core, and its batches are kept by this process
    (`batching.active`)."""
    if run.sends_batches:
        return 1
    return max(1, min(settings.JUDGE_PROCESSES, calls // settings.JUDGE_CALLS_PER_PROCESS))


def _evaluate(
    run: JudgeRun,
    calls: list[JudgeCall],
    watch: Watch,
    outcome: dict[str, Any],
    ledger: batching.BatchLedger | None,
) -> None:
    """The judge's calls and their `.eval` log, in their own thread and event loop (the job's
    thread keeps the database)."""
    assert run.prompt is not None and run.config is not None
    os.environ["INSPECT_CACHE_DIR"] = str(settings.JUDGE_CACHE_DIR)
    try:
        with batching.active(ledger):
            outcome["log"] = asyncio.run(
                evaluate(
                    calls,
                    model=run.judge_model,
                    config=generate_config(run),
                    epochs=run.config.epochs,
                    asking=Asking(
                        style=AnswerStyle(run.prompt.style),
                        parse_retries=run.config.parse_retries,
                        retry_temperature=run.config.retry_temperature,
                        ask_probability=run.config.ask_probability,
                    ),
                    watch=watch,
                    log_dir=Path(settings.JUDGE_LOG_DIR) / str(run.pk),
                    metadata={"judge_model": run.judge_model, "prompt_version": run.prompt_version},
                    processes=processes_for(run, len(calls) * run.config.epochs),
                )
            )
    except BaseException as error:  # reported on the run, whatever it was
        outcome["error"] = error


@transaction.atomic
def _finish(
    run: JudgeRun, job: Job, study: Study, watch: Watch, outcome: dict[str, Any], seconds: float
) -> JudgeRun:
    """End the run, under its row lock (as cancel_run and resume_run take it): a cancel that
    came before is honoured, one after finds the run ended; and a run queued again since
    (its worker taken for dead) belongs to its new attempt, left alone."""
    mine = (
        JudgeRun.objects.select_for_update(of=("self",))
        .filter(pk=run.pk, started=run.started)
        .values_list("status", flat=True)
        .first()
    )
    if mine is None:
        return JudgeRun.objects.get(pk=run.pk)
    run.status = mine
    cancelled = run.status == JudgeRun.Status.CANCELLED
    log = outcome.get("log")
    problems: list[Any] = []  # stored as interchange.problem_text shows them
    # Tokens paid over every attempt: the earlier attempts' (`run` holds them as this one
    # started) and this one's, from its log when there is one (the calls answered from the
    # cache are not counted in either); the unparseable answers are this attempt's.
    paid = watch.input_tokens, watch.output_tokens
    if log is not None:
        run.log_path = log.location
        usage = log.stats.model_usage.values() if log.stats else []
        paid = sum(u.input_tokens for u in usage), sum(u.output_tokens for u in usage)
    run.input_tokens += paid[0]
    run.output_tokens += paid[1]
    run.total_tokens = run.input_tokens + run.output_tokens
    run.unparseable = watch.unparseable
    if log is not None:
        results = log.results
        # A call that failed, or was never made (the run stopped first), is an error.
        run.errors = (results.total_samples - results.completed_samples) if results else 0
    elif "error" in outcome or not outcome.get("timed_out"):
        stopped = gettext_noop(
            "The evaluation stopped: %(error)s", error=repr(outcome.get("error"))
        )
        problems.append(stored_message(stopped))
    timed_out = outcome.get("timed_out") and (log is None or run.errors)
    if timed_out:
        too_long = gettext_noop(
            "The run took longer than %(seconds)s seconds (JUDGE_RUN_TIMEOUT) and was stopped: "
            "run it again to go on (the answered calls come from the cache).",
            seconds=settings.JUDGE_RUN_TIMEOUT,
        )
        problems.append(stored_message(too_long))
    run.calls_done, run.duration, run.finished = watch.done, seconds, timezone.now()
    if log is not None and not cancelled and log.status == "success" and not run.errors:
        # The importer finds this run by (judge, prompt version, run id): Inspect's run id.
        run.run_id = log.eval.run_id
        run.save(update_fields=["run_id"])
        report = import_verdicts(Path(log.location), study.framework, judge_model=run.judge_model)
        problems.extend(stored_problems(report.problems))
        if report.ok:
            run.unparseable = (
                run.verdicts.per_response().filter(verdict__isnull=True, level__isnull=True).count()
            )
    elif log is not None and run.errors:
        failed = gettext_noop(
            "%(errors)s of %(total)s calls ended in an error: run it again to retry them (the "
            "answered calls come from the cache).",
            errors=run.errors,
            total=run.calls_total,
        )
        problems.append(stored_message(failed))
    status = (
        JudgeRun.Status.CANCELLED
        if cancelled and not timed_out
        else JudgeRun.Status.FAILED
        if problems
        else JudgeRun.Status.SUCCEEDED
    )
    run.status, run.problems = status, problems
    # Only what the run's end decides: a judge family set on the run's page meanwhile stays.
    run.save(update_fields=FINISHED_FIELDS)
    job.finish()
    notify(Event.JUDGE_RUN_FINISHED, {"run": run.pk, "study": study.pk, "status": run.status})
    return run


FINISHED_FIELDS = [
    *("status", "problems", "finished", "duration", "calls_done", "errors", "unparseable"),
    *("log_path", "input_tokens", "output_tokens", "total_tokens"),
]
