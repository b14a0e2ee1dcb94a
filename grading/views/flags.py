"""Flags: a grader flags their response or one of its criteria, and may set the response aside;
the study's maintainers read the open flags per criterion and per response and resolve them.

A grader reaches only their own assignment (`_own`: another's is a 404) and reads only the
flags they raised (grading.flags.flags_of)."""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core.refusals import Conflict
from grading import flags, services
from grading.forms import FlagForm, ResolveFlagForm
from grading.models import Assignment, Flag, Study
from grading.views.assignment import PAGE, _own
from l2annot.errors import message_of, status_for
from l2annot.htmx import redirect_to, render_page, wants_fragment
from rubrics.models import RubricItem
from rubrics.models.responses import versions_count


def _refused(form: forms.Form, error: ValidationError | Conflict) -> int:
    """Puts a refusal on the form (a ValidationError by field keeps its fields); its status."""
    if isinstance(error, ValidationError) and hasattr(error, "error_dict"):
        form.add_error(None, error)
    else:
        form.add_error(None, message_of(error))
    return status_for(error)


def flag_target(assignment: Assignment, criterion_version_id: int | None) -> RubricItem | None:
    """The rubric line a flag names (with its criterion), None for the response as a whole or a
    criterion outside this response's rubric (the service refuses that one by name)."""
    if criterion_version_id is None:
        return None
    return (
        RubricItem.objects.filter(
            rubric_version=assignment.study_item.rubric_version_id,
            criterion_version=criterion_version_id,
        )
        .select_related("criterion_version__criterion")
        .first()
    )


def _criterion_id(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isdigit() else None


@require(Action.GRADE)
def flag(request: AuthenticatedHttpRequest, assignment_id: int) -> HttpResponse:
    """The flag form (a page of its own without JavaScript; the grading page's dialog with it)
    and raising the flag. Setting the response aside goes on to the next one."""
    assignment = _own(request, assignment_id)
    data = request.POST if request.method == "POST" else None
    criterion_id = _criterion_id((data or request.GET).get("criterion_version"))
    form = FlagForm(data, initial={"criterion_version": criterion_id})
    status = 200
    if data is not None and form.is_valid():
        values = form.cleaned_data
        try:
            raised = flags.raise_flag(
                assignment,
                kind=values["kind"],
                comment=values["comment"],
                criterion_version_id=values["criterion_version"],
                skip=values["skip"],
                by=request.user,
            )
        except (ValidationError, Conflict) as error:
            status = _refused(form, error)
        else:
            return _raised(request, assignment, raised)
    elif data is not None:
        status = 422
    context = {
        "assignment": assignment,
        "study": assignment.study_item.study,
        "flag_form": form,
        "flag_target": flag_target(assignment, criterion_id),
    }
    if wants_fragment(request):
        return render_page(request, PAGE, context, fragment="flag_form", status=status)
    return render_page(request, "grading/flag.html", context, status=status)


def _raised(
    request: AuthenticatedHttpRequest, assignment: Assignment, raised: Flag
) -> HttpResponse:
    page = reverse("grading:assignment", args=[assignment.pk])
    if raised.skipped:
        messages.success(
            request,
            _(
                "Set aside with your flag: a maintainer will return it to you or give it to "
                "another grader. Here is the next response."
            ),
        )
        following = services.claim_next(assignment.study_item.study, request.user)
        return redirect_to(
            request,
            reverse("grading:assignment", args=[following.pk])
            if following
            else reverse("grading:index"),
        )
    if not wants_fragment(request):
        messages.success(request, _("Flag sent: the study's maintainers will look at it."))
        return redirect_to(request, page + "#my-flags")
    context = {
        "assignment": assignment,
        "study": assignment.study_item.study,
        "flag_form": FlagForm(),
        "flag_sent": raised,
        "my_flags": flags.flags_of(assignment).select_related("criterion_version__criterion"),
    }
    return render_page(request, PAGE, context, fragment="flag_sent")


# ----- maintainers ------------------------------------------------------------------------------
RESOLVED_SHOWN = 20


def _with_candidates(study: Study, shown: list[Flag]) -> None:
    """Who could take each response set aside (`flag.candidates`), for the cards' forms."""
    candidates = flags.reassign_candidates(study, shown)
    for flag in shown:
        flag.candidates = candidates.get(flag.pk, [])


@require(Action.MANAGE_STUDIES)
def study_flags(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The study's open flags, per criterion or per response, each with its resolution form,
    and the latest resolved ones. A fixed number of queries, whatever the number of flags."""
    study = get_object_or_404(Study, pk=study_id)
    grouping = "response" if request.GET.get("by") == "response" else "criterion"
    current = flags.open_flags(study)
    resolved = (
        Flag.objects.filter(study_item__study=study, status=Flag.Status.RESOLVED)
        .select_related(
            "by",
            "resolved_by",
            "reassigned_to",
            "criterion_version__criterion",
            "study_item__response__task",
            "draft__criterion",
        )
        .annotate(response_versions=versions_count("study_item__response__"))
        .order_by("-resolved_at", "pk")[:RESOLVED_SHOWN]
    )
    context = {
        "study": study,
        "grouping": grouping,
        "groups": current.by_response if grouping == "response" else current.by_criterion,
        "open_count": len(current.flags),
        "resolved": list(resolved),
    }
    _with_candidates(study, current.flags)
    return render_page(request, "grading/flags.html", context)


@require(Action.MANAGE_STUDIES)
@require_POST
def flag_resolve(request: AuthenticatedHttpRequest, flag_id: int) -> HttpResponse:
    """Resolve one flag: htmx gets its card back (resolved, or with what to fix), a plain form
    goes back to the study's flags."""
    flag: Flag = get_object_or_404(
        Flag.objects.select_related(
            "by", "study_item__study", "criterion_version__criterion", "study_item__response__task"
        ).annotate(response_versions=versions_count("study_item__response__")),
        pk=flag_id,
    )
    study = flag.study_item.study
    _with_candidates(study, [flag])
    form = ResolveFlagForm(request.POST, candidates=flag.candidates)
    status = 200
    if form.is_valid():
        values = form.cleaned_data
        try:
            flag = flags.resolve_flag(
                flag,
                note=values["note"],
                outcome=values["outcome"],
                reassign_to=values["reassign_to"],
                open_draft=values["open_draft"],
                by=request.user,
            )
        except (ValidationError, Conflict) as error:
            status = _refused(form, error)
        else:
            if not wants_fragment(request):
                messages.success(request, _("Flag resolved."))
                return redirect_to(request, reverse("grading:study_flags", args=[study.pk]))
            flag = (
                Flag.objects.select_related(  # the resolved card
                    "by",
                    "resolved_by",
                    "reassigned_to",
                    "draft__criterion",
                    "criterion_version__criterion",
                    "study_item__response__task",
                )
                .annotate(response_versions=versions_count("study_item__response__"))
                .get(pk=flag.pk)
            )
    else:
        status = 422
    if flag.is_open:
        _with_candidates(study, [flag])
    context = {"study": study, "flag": flag, "form": form}
    if not wants_fragment(request) and status != 200:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect_to(request, reverse("grading:study_flags", args=[study.pk]))
    return render_page(request, "grading/flags.html", context, fragment="flag_card", status=status)
