"""Maintainers' pages: studies with their progress, a form to start one, assignment, closing."""

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Sum
from django.http import HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading import adjudication, services
from grading.forms import GradesPlanForm, StudyForm, StudySelectionForm, published_tasks
from grading.models import Flag, Study
from l2annot.htmx import render_page, wants_fragment
from rubrics.models import Response
from taxonomy.models import Framework


@require(Action.MANAGE_STUDIES)
def study_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = services.studies_with_progress(Study.objects.select_related("framework"))
    studies.sort(key=lambda study: study.is_closed())  # open ones first, each newest first
    return render(request, "grading/study_list.html", {"studies": studies})


SETUP_TASKS_PER_PAGE = 25


def _selection_form(data: QueryDict | None) -> StudySelectionForm:
    tasks = published_tasks()
    languages = list(tasks.order_by("language").values_list("language", flat=True).distinct())
    models = list(
        Response.objects.current()
        .filter(task__in=tasks.values("pk"))
        .order_by("model_name")
        .values_list("model_name", flat=True)
        .distinct()
    )
    return StudySelectionForm(data, languages=languages, models=models)


def _setup_context(
    request: AuthenticatedHttpRequest, form: StudyForm, selection: StudySelectionForm
) -> dict[str, Any]:
    """The study form, the filters, one page of the matching tasks with their response counts,
    and the preview of the assignment: a fixed number of queries, whatever the number of tasks."""
    data = form.cleaned_data if form.is_bound else {}
    framework = data.get("framework")
    if framework is None and not form.is_bound and form.initial.get("framework"):
        framework = Framework.objects.filter(pk=form.initial["framework"]).first()
    matching = selection.matching(framework)
    list_key = selection.list_key(framework)
    page = Paginator(matching, SETUP_TASKS_PER_PAGE).get_page(_page_number(request, list_key))
    chosen = selection.chosen_ids()
    responses = selection.responses(framework)
    annotators = list(data.get("annotators") or [])
    sampled = data.get("sampling_run") is not None and data.get("sampling_budget") is not None
    preview = services.preview_assignment(
        responses.values_list("pk", "task__sub_competency_id", "task__language", "model_name"),
        annotators,
        overlap=data.get("overlap") or Study._meta.get_field("overlap").get_default(),
        overlap_percent=data.get("overlap_percent") or 100,
        match_expertise=bool(data.get("match_expertise")),
        sampling_budget=data["sampling_budget"] if sampled else None,
    )
    shown = {task.pk for task in page.object_list}
    plan_form = GradesPlanForm(request.POST or None)
    return {
        "plan_form": plan_form,
        "plan": _grades_plan(framework, responses, plan_form, data.get("sampling_run")),
        "form": form,
        "selection": selection,
        "page": page,
        "matching_tasks": page.paginator.count,
        "matching_responses": _sum_responses(matching),
        "chosen": chosen,
        "chosen_elsewhere": sorted(chosen - shown),
        "scope": selection.scope_value,
        "preview": preview,
        "pool_size": len(annotators),
        "list_key": list_key,
    }


def _grades_plan(
    framework: Framework | None, responses: Any, form: GradesPlanForm, sampling_run: Any
) -> Any:
    """How many expert grades reach the half-width asked for on each model's score, for the
    model with the fewest responses in the selection (None with fewer than two), measured on
    the run chosen to sample the study by, if any."""
    counts = responses.order_by().values("model_name").annotate(n=Count("pk")).values_list("n")
    pool = min((n for (n,) in counts), default=0)
    if pool < 2:
        return None
    half_width, accuracy = form.target()
    return services.plan_expert_grades(
        framework,
        half_width=half_width,
        pool=pool,
        accuracy=accuracy,
        sampling_run=sampling_run.pk if sampling_run is not None else None,
    )


def _page_number(request: AuthenticatedHttpRequest, list_key: str) -> str | None:
    """The page of tasks asked for (a pager button), else the page shown while the list it
    showed is the same (a tick, the scope or a field of the study changed), else the first."""
    if request.POST.get("page"):
        return request.POST["page"]
    if request.POST.get("listed") == list_key:
        return request.POST.get("shown_page")
    return None


def _sum_responses(tasks: Any) -> int:
    return int(tasks.aggregate(n=Sum("responses_count"))["n"] or 0)


@require(Action.MANAGE_STUDIES)
def study_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A new study over the responses of the published tasks chosen by filters (all that match,
    or those ticked), with a preview of each annotator's load before it is created."""
    form = StudyForm(request.POST or None)
    selection = _selection_form(request.POST or None)
    if request.method == "POST" and form.is_valid() and selection.is_valid():
        data = form.cleaned_data
        options = {f: data[f] for f in StudyForm.Meta.fields if f not in ("name", "framework")}
        responses = list(selection.responses(data["framework"]).only("pk", "model_name"))
        others = [
            t.key for t in selection.cleaned_data["tasks"] if t.framework_id != data["framework"].pk
        ]
        try:
            if selection.scope_value == selection.CHOSEN and not selection.chosen_ids():
                raise ValidationError(_("Tick at least one task, or take all tasks that match."))
            if others and selection.scope_value == selection.CHOSEN:
                raise ValidationError(
                    _("Not in %(framework)s: %(tasks)s.")
                    % {"framework": data["framework"], "tasks": ", ".join(others)}
                )
            if not responses:
                raise ValidationError(
                    _("No response is selected: change the filters or tick tasks.")
                )
            _check_count_shown(request, len(responses))
            study, created = services.create_and_assign_study(
                name=data["name"],
                framework=data["framework"],
                responses=responses,
                annotators=data["annotators"],
                assign_now=data["assign_now"],
                by=request.user,
                **options,
            )
        except ValidationError as error:  # also: a study of that name was created meanwhile
            form.add_error(None, error)
        else:
            if data["assign_now"]:
                messages.success(
                    request, _("Study created; %(count)s assignments made.") % {"count": created}
                )
            else:
                messages.success(
                    request, _("Study created. Assign graders when the pool is ready.")
                )
            if study.sampling_run_id is not None:
                drawn = study.items.count()
                messages.info(
                    request,
                    ngettext(
                        "Sampled for the judge's scores: %(drawn)s of the %(count)s response "
                        "selected was drawn for the experts.",
                        "Sampled for the judge's scores: %(drawn)s of the %(count)s responses "
                        "selected were drawn for the experts.",
                        len(responses),
                    )
                    % {"drawn": drawn, "count": len(responses)},
                )
            return redirect("grading:study", study.pk)
    status = 422 if form.is_bound else 200
    return render_page(
        request, "grading/study_form.html", _setup_context(request, form, selection), status=status
    )


def _check_count_shown(request: AuthenticatedHttpRequest, count: int) -> None:
    """Refuses to create a study of another number of responses than the preview showed (a
    tick or a filter changed after it, or responses were added meanwhile)."""
    shown = request.POST.get("shown_responses", "")
    if shown.isdigit() and int(shown) != count:
        raise ValidationError(
            ngettext(
                "The selection now holds %(count)s response, not the %(shown)s the preview "
                "showed: check the preview, then create the study.",
                "The selection now holds %(count)s responses, not the %(shown)s the preview "
                "showed: check the preview, then create the study.",
                count,
            )
            % {"count": count, "shown": shown}
        )


@require(Action.MANAGE_STUDIES)
@require_POST
def study_preview(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The matching tasks and the load preview for the form as it is filled (htmx swaps them
    in; without JavaScript the whole page comes back with them). Creates nothing."""
    form = StudyForm(request.POST)
    form.is_valid()  # only the valid fields are used; the study's own errors wait for Create
    context = _setup_context(request, form, _selection_form(request.POST))
    if not wants_fragment(request):
        context["form"] = StudyForm(initial=dict(form.cleaned_data))
    return render_page(request, "grading/study_form.html", context, fragment="selection")


OVERDUE_SHOWN = 50


def _idle_days(request: AuthenticatedHttpRequest) -> int:
    try:
        days = int(request.GET.get("idle_days", services.OVERDUE_IDLE_DAYS))
    except ValueError:
        return services.OVERDUE_IDLE_DAYS
    return min(max(days, 1), 365)


# The dashboard's criteria table is shown this many rows at a time (a study of a large
# benchmark has over a thousand criteria).
CRITERIA_PER_PAGE = 50


@require(Action.MANAGE_STUDIES)
def study_detail(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The study's dashboard: overall progress, per annotator, task and criterion (a page of
    criteria at a time; htmx swaps the next page alone), overdue work and disagreements to
    adjudicate. A fixed number of queries, whatever the size."""
    study = get_object_or_404(Study.objects.select_related("framework"), pk=study_id)
    idle_days = _idle_days(request)
    criteria = Paginator(services.progress_per_criterion(study), CRITERIA_PER_PAGE).get_page(
        request.GET.get("page")
    )
    if "page" in request.GET and wants_fragment(request):  # htmx: another page of criteria
        context = {"study": study, "criteria": criteria, "query": f"idle_days={idle_days}"}
        return render_page(request, "grading/study_detail.html", context, fragment="criteria")
    [progress] = services.studies_with_progress(Study.objects.filter(pk=study.pk))
    overdue = services.overdue_assignments(study, idle_days)
    context = {
        "study": study,
        "progress": progress,
        "responses": progress.items_count - progress.gold_checks_count,
        "percent": round(100 * progress.submitted_count / (progress.assignments_count or 1)),
        "annotators": services.progress_per_annotator(study),
        "tasks": services.progress_per_task(study),
        "criteria": criteria,
        "query": f"idle_days={idle_days}",
        "overdue": list(overdue[:OVERDUE_SHOWN]),
        "overdue_count": overdue.count(),
        "idle_days": idle_days,
        "past_deadline": study.deadline is not None and timezone.now() >= study.deadline,
        "unresolved": adjudication.unresolved_count(study),
        "open_flags": Flag.objects.open().filter(study_item__study=study).count(),
        "likert_items": study.likert_items.all(),
    }
    return render(request, "grading/study_detail.html", context)


@require(Action.MANAGE_STUDIES)
@require_POST
def study_assign(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    created = services.assign_study(study)
    messages.success(request, _("%(count)s assignments made.") % {"count": created})
    return redirect("grading:study", study.pk)


@require(Action.MANAGE_STUDIES)
def study_close(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The step before closing a study: what closing does, and the button that does it (a page,
    so the question is asked with or without JavaScript)."""
    study = get_object_or_404(Study, pk=study_id)
    if study.status != Study.Status.OPEN:
        return redirect("grading:study", study.pk)
    return render(request, "grading/study_close.html", {"study": study})


@require(Action.MANAGE_STUDIES)
@require_POST
def study_status(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    status = request.POST.get("status", Study.Status.CLOSED)
    if status not in Study.Status.values:
        messages.error(request, _("Unknown status."))
        return redirect("grading:study", study.pk)
    services.set_status(study, Study.Status(status), by=request.user)
    messages.success(
        request, _("The study is now %(status)s.") % {"status": study.get_status_display().lower()}
    )
    return redirect("grading:study", study.pk)
