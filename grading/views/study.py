"""Maintainers' pages: studies with their progress, a form to start one, assignment, closing."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading import adjudication, services
from grading.forms import StudyForm
from grading.models import Study
from rubrics.models import Response


@require(Action.MANAGE_STUDIES)
def study_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = services.studies_with_progress(Study.objects.select_related("framework"))
    studies.sort(key=lambda study: study.is_closed())  # open ones first, each newest first
    return render(request, "grading/study_list.html", {"studies": studies})


@require(Action.MANAGE_STUDIES)
def study_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = StudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = {f: data[f] for f in StudyForm.Meta.fields if f not in ("name", "framework")}
        try:
            study = services.create_study(
                name=data["name"],
                framework=data["framework"],
                responses=Response.objects.filter(task__in=data["tasks"]),
                annotators=data["annotators"],
                by=request.user,
                **options,
            )
        except ValidationError as error:  # a study of that name was created meanwhile
            form.add_error(None, error)
        else:
            if data["assign_now"]:
                created = services.assign_study(study)
                messages.success(request, f"Study created; {created} assignments made.")
            else:
                messages.success(request, "Study created. Assign graders when the pool is ready.")
            return redirect("grading:study", study.pk)
    status = 422 if form.is_bound and form.errors else 200
    return render(request, "grading/study_form.html", {"form": form}, status=status)


OVERDUE_SHOWN = 50


def _idle_days(request: AuthenticatedHttpRequest) -> int:
    try:
        days = int(request.GET.get("idle_days", services.OVERDUE_IDLE_DAYS))
    except ValueError:
        return services.OVERDUE_IDLE_DAYS
    return min(max(days, 1), 365)


@require(Action.MANAGE_STUDIES)
def study_detail(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The study's dashboard: overall progress, per annotator, task and criterion, overdue
    work and disagreements to adjudicate. A fixed number of queries, whatever the size."""
    study = get_object_or_404(Study.objects.select_related("framework"), pk=study_id)
    [progress] = services.studies_with_progress(Study.objects.filter(pk=study.pk))
    idle_days = _idle_days(request)
    overdue = services.overdue_assignments(study, idle_days)
    context = {
        "study": study,
        "progress": progress,
        "percent": round(100 * progress.submitted_count / (progress.assignments_count or 1)),
        "annotators": services.progress_per_annotator(study),
        "tasks": services.progress_per_task(study),
        "criteria": services.progress_per_criterion(study),
        "overdue": list(overdue[:OVERDUE_SHOWN]),
        "overdue_count": overdue.count(),
        "idle_days": idle_days,
        "past_deadline": study.deadline is not None and timezone.now() >= study.deadline,
        "unresolved": adjudication.unresolved_count(study),
        "likert_items": study.likert_items.all(),
    }
    return render(request, "grading/study_detail.html", context)


@require(Action.MANAGE_STUDIES)
@require_POST
def study_assign(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    created = services.assign_study(study)
    messages.success(request, f"{created} assignments made.")
    return redirect("grading:study", study.pk)


@require(Action.MANAGE_STUDIES)
@require_POST
def study_status(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    status = request.POST.get("status", Study.Status.CLOSED)
    if status not in Study.Status.values:
        messages.error(request, "Unknown status.")
        return redirect("grading:study", study.pk)
    services.set_status(study, Study.Status(status), by=request.user)
    messages.success(request, f"The study is now {study.get_status_display().lower()}.")
    return redirect("grading:study", study.pk)
