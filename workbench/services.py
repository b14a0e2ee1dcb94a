"""Running the LLM judge on a study: the one service the "Run the judge" page and the
`run_judge` command share.

`start_run` records a queued `JudgeRun` (the judge, the prompt version it will send, its
parameters, how many calls) and enqueues the job; `execute_run` (the job, or the command in
process) fills the prompt for every (response, criterion) unit of the study, evaluates them
with Inspect AI, keeps the `.eval` log and reads it back through the Inspect importer, so a run
made here and a log made elsewhere land the same way.

API keys are never handled here: Inspect reads them from the environment by its own names.

`resolve` is what a maintainer does with one of a run's disagreements with the experts, in one
transaction, through the services of the app that owns what it changes (rubrics for a
criterion's next version, grading for adjudication)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from audit.services import record
from core.prompting import render
from core.refusals import Conflict, NotFound
from grading import adjudication
from grading.models import Study, StudyItem
from jobs.models import Job
from judging.models import (
    JudgeConfig,
    JudgeRun,
    JudgeVerdict,
    PromptVersion,
    TriageResolution,
)
from judging.providers import check_model
from judging.services import default_prompt, save_config
from rubrics import services as rubrics
from rubrics.models import CriterionVersion
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
    limit: int | None = None,
    by: User | None,
    enqueue: bool = True,
) -> JudgeRun:
    """Record a judge run on `study` and (with `enqueue`) queue it for the worker.

    The judge is a saved configuration (`config`), or the one these values make: saved under
    `name` to be reused, or found by its values (`judging.services.save_config`). The run
    keeps the configuration's parameters and model family (self-preference compares with it)."""
    if limit is not None and limit < 1:
        raise ValidationError({"limit": gettext("The limit is at least 1.")})
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
            by=by,
        )
    check_model(config.model)  # a saved configuration too: the allowed providers may change
    units = len(study_units(study, limit=limit))
    if not units:
        raise RunNotPossible(
            gettext("Study '%(study)s' has no response with a binary criterion to judge.")
            % {"study": study.name}
        )
    run = JudgeRun.objects.create(
        judge_model=config.model,
        prompt_version=str(config.prompt),
        run_id=f"l2annot-{uuid.uuid4().hex[:12]}",
        prompt=config.prompt,
        config=config,
        model_family=config.model_family,
        parameters=config.parameters() | {"study": study.pk, "limit": limit},
        status=JudgeRun.Status.QUEUED,
        calls_total=units * config.epochs,
        job=Job.objects.create(kind=Job.Kind.JUDGE_RUN, created_by=by),
    )
    record(
        run,
        "created",
        by,
        comment=f"Judge run queued on study '{study.name}' with configuration '{config.name}'.",
    )
    if enqueue:
        _enqueue(run)
    return run


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
    record(locked, "updated", by, comment="Judge run cancelled.")
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
    record(locked, "updated", by, comment="Judge run queued again.")
    if enqueue:
        _enqueue(locked)
    return locked


Kind = TriageResolution.Kind


class AlreadyResolved(Conflict):
    def __init__(self, found: TriageResolution) -> None:
        super().__init__(
            gettext("This disagreement was resolved meanwhile: %(resolution)s.")
            % {"resolution": found.get_kind_display()}
        )
        self.found = found


class NotJudged(NotFound):
    def __init__(self) -> None:
        super().__init__(gettext("This run gave no verdict on this response and criterion."))


@transaction.atomic
def resolve(
    run: JudgeRun,
    study_item: StudyItem,
    criterion_version: CriterionVersion,
    *,
    kind: str,
    note: str,
    by: User,
) -> TriageResolution:
    """Resolve one disagreement of `run` on a (study item, criterion version) unit.

    "ambiguous" opens the draft of the criterion's next version (prefilled with the version
    the experts graded) and links it; "judge_error" keeps the note on the run's prompt version
    (on the run when it has none) and needs a note; "experts_wrong" sends the unit to
    adjudication. A unit is resolved once per run (AlreadyResolved)."""
    note = note.strip()
    if kind not in Kind.values:
        raise ValidationError({"kind": gettext("Choose how this disagreement is resolved.")})
    if kind == Kind.JUDGE_ERROR and not note:
        raise ValidationError(
            {"note": gettext("Say what the judge got wrong: the note is for the prompt.")}
        )
    judged = JudgeVerdict.objects.per_response().filter(
        run=run, response_id=study_item.response_id, criterion_version=criterion_version
    )
    if not judged.exists():
        raise NotJudged()
    existing = TriageResolution.objects.filter(
        run=run, response_id=study_item.response_id, criterion_version=criterion_version
    ).first()
    if existing is not None:
        raise AlreadyResolved(existing)
    resolution = TriageResolution(
        run=run,
        prompt_id=run.prompt_id,
        response_id=study_item.response_id,
        criterion_version=criterion_version,
        kind=kind,
        note=note,
        by=by,
    )
    reason = note or f"Judge run {run} disagreed with the experts."
    if kind == Kind.AMBIGUOUS:
        resolution.draft = rubrics.open_draft_version(
            criterion_version.criterion, by, reason=f"found ambiguous: {reason}"
        )
    elif kind == Kind.EXPERTS_WRONG:
        adjudication.request_adjudication(
            study_item, criterion_version.pk, reason=f"The experts may be wrong: {reason}", by=by
        )
    try:
        with transaction.atomic():
            resolution.save()
    except IntegrityError:  # resolved by someone else between our read and write
        raise AlreadyResolved(
            TriageResolution.objects.get(
                run=run, response_id=study_item.response_id, criterion_version=criterion_version
            )
        ) from None
    audit.record_creation(resolution, ["kind", "note"], actor=by)
    return resolution


class NotResolved(Conflict):
    def __init__(self) -> None:
        super().__init__(gettext("This disagreement is not resolved: it was reopened meanwhile."))


def still_requested(study_item: StudyItem, criterion_version_id: int) -> bool:
    """Whether a judge run's resolution ("the experts were wrong") sends the pair's response
    and criterion version to adjudication."""
    return TriageResolution.objects.filter(
        kind=TriageResolution.Kind.EXPERTS_WRONG,
        response_id=study_item.response_id,
        criterion_version_id=criterion_version_id,
    ).exists()


@transaction.atomic
def reopen(
    run: JudgeRun, study_item: StudyItem, criterion_version: CriterionVersion, *, by: User
) -> list[str]:
    """Undo the resolution of one of `run`'s disagreements, which goes back to the queue.

    The resolution is deleted, its kind, note and draft kept in the history. What it did
    elsewhere is undone only where nobody has built on it: the adjudication request of "the
    experts were wrong" is withdrawn while the unit awaits adjudication (a gold verdict, once
    recorded, stands); the criterion draft of "ambiguous" stays a draft, to be edited or
    deleted on the criterion's page. Returns what happened, in words."""
    resolution = (
        TriageResolution.objects.select_for_update()
        .filter(run=run, response_id=study_item.response_id, criterion_version=criterion_version)
        .first()
    )
    if resolution is None:
        raise NotResolved()
    done = [
        gettext("Reopened: “%(kind)s” is undone (kept in the history).")
        % {"kind": resolution.get_kind_display()}
    ]
    audit.record(
        resolution,
        AuditEvent.Kind.DELETED,
        by,
        {
            field: [value, None]
            for field, value in audit.snapshot(resolution, ["kind", "note", "draft"]).items()
        },
        comment="Triage resolution reopened.",
    )
    resolution.delete()  # first: what it did elsewhere is undone only if nothing else needs it
    if resolution.kind == Kind.EXPERTS_WRONG:

        def wanted() -> bool:
            return still_requested(study_item, criterion_version.pk)

        if adjudication.withdraw_request(
            study_item, criterion_version.pk, by=by, still_wanted=wanted
        ):
            done.append(gettext("The adjudication request is withdrawn."))
        elif wanted():
            done.append(
                gettext(
                    "Another judge run's resolution still sends the unit to adjudication: the "
                    "request stays."
                )
            )
        else:
            done.append(gettext("The unit was already adjudicated: its gold verdict stands."))
    elif resolution.kind == Kind.AMBIGUOUS and resolution.draft_id is not None:
        done.append(
            gettext(
                "The draft of the criterion's next version stays a draft: edit or delete it on "
                "the criterion's page."
            )
        )
    elif resolution.kind == Kind.JUDGE_ERROR:
        done.append(gettext("The note on the prompt version goes with it (kept in the history)."))
    return done


@dataclass(frozen=True)
class ResolutionCounts:
    """Resolutions of the chosen runs on a study's units: (label, counts in the order of
    `kinds`) rows."""

    by_criterion: list[tuple[str, list[int]]]
    by_prompt: list[tuple[str, list[int]]]

    @property
    def kinds(self) -> list[str]:
        return [str(label) for _, label in Kind.choices]


def _rows(counts: dict[str, Counter[str]]) -> list[tuple[str, list[int]]]:
    return [
        (label, [found[kind] for kind in Kind.values]) for label, found in sorted(counts.items())
    ]


def resolution_counts(study: Study, runs: Sequence[JudgeRun]) -> ResolutionCounts:
    """How the chosen runs' disagreements on `study` were resolved, per criterion and per
    prompt version (the run's label when it has no prompt version). One query."""
    rows = (
        TriageResolution.objects.filter(
            run__in=[run.pk for run in runs],
            response__in=StudyItem.objects.filter(study=study).values("response"),
        )
        .values(
            "criterion_version__criterion__code",
            "prompt__template__name",
            "prompt__number",
            "run__prompt_version",
            "kind",
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    criteria: dict[str, Counter[str]] = {}
    prompts: dict[str, Counter[str]] = {}
    for row in rows:
        if row["prompt__template__name"]:
            prompt = f"{row['prompt__template__name']}@{row['prompt__number']}"
        else:
            prompt = row["run__prompt_version"] or "no prompt version"
        code = row["criterion_version__criterion__code"]
        criteria.setdefault(code, Counter())[row["kind"]] += row["n"]
        prompts.setdefault(prompt, Counter())[row["kind"]] += row["n"]
    return ResolutionCounts(_rows(criteria), _rows(prompts))
