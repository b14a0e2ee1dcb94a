"""The study's judge page (its runs, and the "Run the judge" form) and a run's page, which
follows the run's progress until it ends. Maintainers only."""

from collections.abc import Callable

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core.costs import Estimate, over_budget
from grading.models import Study
from judging import costs, runs
from judging.forms import RunForm
from judging.models import JudgeConfig, JudgeRun
from judging.services import default_prompt
from l2annot.errors import status_for
from l2annot.htmx import redirect_to, render_page, respond

PAGE = "judging/judge.html"
RUN_PAGE = "judging/run.html"


def study_runs(study: Study) -> list[JudgeRun]:
    return list(
        JudgeRun.objects.filter(parameters__study=study.pk)
        .select_related("prompt__template", "job")
        .order_by("-created_at", "-pk")
    )


@require(Action.MANAGE_STUDIES)
def judge(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    runs.resume_stalled_batch_runs()  # a batch left pending by a worker that died
    refill_url = reverse("judging:judge", args=[study.pk])
    if request.method == "POST":
        form = RunForm(request.POST, refill_url=refill_url)
        known: Estimate | None = None
        if form.is_valid():
            try:
                run = runs.start_run(study, **form.cleaned_data, by=request.user)
            except runs.RunNotPossible as error:
                form.add_error(None, str(error))
            except costs.OverBudget as error:
                form.add_error(None, error)
                known = error.estimate  # counted once, for the refusal
            except ValidationError as error:
                form.add_error(None, error)
            else:
                return redirect_to(request, reverse("judging:run", args=[study.pk, run.pk]))
        context = {"study": study, "form": form, "runs": study_runs(study)}
        context |= estimate_context(study, form, known=known)
        return render_page(request, PAGE, context, fragment="run-form", status=422)
    config_id = request.GET.get("config", "")
    chosen = JudgeConfig.objects.filter(pk=config_id).first() if config_id.isdigit() else None
    initial = RunForm.initial_for(chosen) if chosen else {"prompt": _default_prompt_pk()}
    form = RunForm(initial=initial, refill_url=refill_url)
    context = {"study": study, "form": form, "runs": study_runs(study)}
    return render_page(request, PAGE, context, fragment="run-form")


@require(Action.MANAGE_STUDIES)
def estimate(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The run form's estimate of calls, tokens and cost for the values filled in (htmx asks
    as the form changes; without JavaScript, the whole page with it)."""
    study = get_object_or_404(Study, pk=study_id)
    form = RunForm(request.GET, refill_url=reverse("judging:judge", args=[study.pk]))
    context = {"study": study, "form": form, "runs": study_runs(study)}
    context |= estimate_context(study, form)
    return render_page(request, PAGE, context, fragment="run-estimate")


def estimate_context(
    study: Study, form: RunForm, *, known: Estimate | None = None
) -> dict[str, object]:
    """The estimate of the run a filled form asks for (none while the form does not name a
    judge), and whether it is above the budget; `known`: that estimate, already made."""
    if not form.is_bound or set(form.errors) - {"confirm_cost", NON_FIELD_ERRORS}:
        return {"estimate": None}
    values = form.cleaned_data
    if not values.get("model") and values.get("config") is None:
        return {"estimate": None}
    try:
        found = (
            known
            or runs.estimate_run(
                study,
                config=values.get("config"),
                model=values.get("model") or "",
                prompt=values.get("prompt"),
                epochs=values.get("epochs") or 1,
                limit=values.get("limit"),
                batch=bool(values.get("batch")),
                ask_probability=bool(values.get("ask_probability")),
            ).estimate
        )
    except ValidationError:  # no prompt to estimate with
        return {"estimate": None}
    limit = costs.budget()
    return {
        "estimate": found,
        "budget": limit,
        "over_budget": over_budget(found, limit),
        "priced_model": _model_of(values),
    }


def _model_of(values: dict[str, object]) -> str:
    config = values.get("config")
    return config.model if isinstance(config, JudgeConfig) else str(values.get("model", ""))


def _default_prompt_pk() -> int | None:
    try:
        return default_prompt().pk
    except ValidationError:
        return None


def _run(study_id: int, run_id: int) -> tuple[Study, JudgeRun]:
    study = get_object_or_404(Study, pk=study_id)
    run = get_object_or_404(
        JudgeRun.objects.select_related("prompt__template", "config", "job"),
        pk=run_id,
        parameters__study=study.pk,
    )
    return study, run


@require(Action.MANAGE_STUDIES)
def run(request: AuthenticatedHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    runs.resume_stalled_batch_runs()  # a batch left pending by a worker that died
    study, found = _run(study_id, run_id)
    return render_page(request, RUN_PAGE, run_context(study, found), fragment="progress")


def run_context(study: Study, run: JudgeRun) -> dict[str, object]:
    now = timezone.now()
    batches = list(run.batches.order_by("submitted_at", "pk")) if run.sends_batches else []
    pending = [batch for batch in batches if batch.ended_at is None]
    checked = [batch.checked_at for batch in batches if batch.checked_at is not None]
    return {
        "study": study,
        "run": run,
        "elapsed": run.elapsed(now),
        "remaining": None if run.sends_batches else run.remaining(now),
        "stale": run.is_stale(now),
        "batches": batches,
        "pending_batches": len(pending),
        "pending_requests": sum(batch.pending for batch in pending),
        "last_checked": max(checked, default=None),
        # Counted once the run has ended, not on each second's refresh while it runs.
        "stated": None if run.is_active else run.stated_probabilities(),
    }


@require(Action.MANAGE_STUDIES)
@require_POST
def cancel(request: AuthenticatedHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    return _act(request, study_id, run_id, runs.cancel_run)


@require(Action.MANAGE_STUDIES)
@require_POST
def resume(request: AuthenticatedHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    return _act(request, study_id, run_id, runs.resume_run)


def _act(
    request: AuthenticatedHttpRequest,
    study_id: int,
    run_id: int,
    action: Callable[..., JudgeRun],
) -> HttpResponse:
    study, found = _run(study_id, run_id)
    error, status = None, 200
    try:
        found = action(found, by=request.user)
    except runs.RunNotPossible as refusal:
        error, status = str(refusal), status_for(refusal)
    return respond(
        request,
        RUN_PAGE,
        run_context(study, found) | {"error": error},
        fragment="progress",
        done_url=reverse("judging:run", args=[study.pk, found.pk]),
        status=status,
    )
