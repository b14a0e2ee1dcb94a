"""The criteria editor, one page per owner: a task's own criteria (with a live preview of the
task's effective rubric), a sub-competency's consensus criteria, a framework's universal ones.

Every action answers with the `#criteria` fragment for htmx (the preview rides along as an
out-of-band swap on the task page), and with a redirect or the whole page otherwise.
"""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from audit.editing import DeleteRefused, EditConflict
from l2annot.errors import status_for
from l2annot.htmx import respond, wants_fragment
from rubrics import services
from rubrics.forms import CriterionForm, add_errors
from rubrics.models import Criterion, CriterionVersion, Layer, Task
from taxonomy.models import Framework, SubCompetency

PAGE = "rubrics/criteria.html"
Owner = Task | SubCompetency | Framework
EDITABLE = (Task.Status.DRAFT, Task.Status.PUBLISHED)


class UniversalCriterionForm(CriterionForm):
    code = forms.CharField(max_length=80, help_text=_("Aspect number, u, number: e.g. 06u1."))
    field_order = ["code"]


def _owner_filter(owner: Owner) -> dict[str, Any]:
    if isinstance(owner, Task):
        return {"task": owner}
    if isinstance(owner, SubCompetency):
        return {"sub_competency": owner}
    return {"framework": owner, "layer": Layer.UNIVERSAL}


def _lines(owner: Owner) -> list[tuple[Criterion, CriterionVersion]]:
    """The owner's current criteria in order, each with its latest version. Three queries."""
    latest = CriterionVersion.objects.filter(criterion=OuterRef("criterion")).order_by("-number")
    versions = (
        CriterionVersion.objects.filter(
            **{f"criterion__{k}": v for k, v in _owner_filter(owner).items()},
            criterion__retired=False,
        )
        .filter(number=Subquery(latest.values("number")[:1]))
        .select_related("criterion")
        .prefetch_related("scale_points")
        .order_by("criterion__order", "criterion__code")
    )
    return [(version.criterion, version) for version in versions]


def _owner_of(criterion: Criterion) -> Owner:
    if criterion.layer == Layer.TASK:
        return Task.objects.select_related("framework", "sub_competency").get(pk=criterion.task_id)  # type: ignore[misc]  # a task criterion has a task
    if criterion.layer == Layer.CONSENSUS:
        return SubCompetency.objects.select_related("competency__framework").get(
            pk=criterion.sub_competency_id  # type: ignore[misc]  # and a consensus one its own
        )
    return criterion.framework


def _page_url(owner: Owner) -> str:
    if isinstance(owner, Task):
        return reverse("rubrics:task_criteria", args=[owner.pk])
    if isinstance(owner, SubCompetency):
        return reverse("rubrics:consensus", args=[owner.pk])
    return reverse("rubrics:universal", args=[owner.code])


def _create_url(owner: Owner) -> str:
    if isinstance(owner, Task):
        return reverse("rubrics:criterion_create", args=[owner.pk])
    if isinstance(owner, SubCompetency):
        return reverse("rubrics:consensus_create", args=[owner.pk])
    return reverse("rubrics:universal_create", args=[owner.code])


def _new_form(owner: Owner, data: Any = None) -> CriterionForm:
    form_class = UniversalCriterionForm if isinstance(owner, Framework) else CriterionForm
    return form_class(data, prefix="new")


def _layer_of(owner: Owner) -> Layer:
    if isinstance(owner, Task):
        return Layer.TASK
    return Layer.CONSENSUS if isinstance(owner, SubCompetency) else Layer.UNIVERSAL


def _context(owner: Owner, **state: Any) -> dict[str, Any]:
    task = owner if isinstance(owner, Task) else None
    context: dict[str, Any] = {
        "owner": owner,
        "task": task,
        "layer": _layer_of(owner),
        "lines": _lines(owner),
        "editable": task is None or task.status in EDITABLE,
        "page_url": _page_url(owner),
        "create_url": _create_url(owner),
        "new_form": _new_form(owner),
    }
    if task is not None:
        rubric = task.effective_rubric()
        context["rubric"] = rubric
        context["possible"] = sum(x.weight for x in rubric if x.applicable and x.weight > 0)
    return context | state


def _respond(
    request: AuthenticatedHttpRequest, owner: Owner, status: int = 200, **state: Any
) -> HttpResponse:
    if isinstance(owner, Task):
        owner = Task.objects.select_related("framework", "sub_competency").get(pk=owner.pk)
    anchor = f"#criterion-{state['saved']}" if state.get("saved") else "#criteria"
    # The task's preview rides along with the fragment as an out-of-band swap.
    context = _context(owner, oob=wants_fragment(request), **state)
    return respond(
        request,
        PAGE,
        context,
        fragment="criteria",
        done_url=_page_url(owner) + anchor,
        status=status,
    )


# ----- pages ------------------------------------------------------------------------------------


@require(Action.EDIT_RUBRICS)
def task_criteria(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = get_object_or_404(Task.objects.select_related("framework", "sub_competency"), pk=pk)
    return render(request, PAGE, _context(task))


@require(Action.EDIT_RUBRICS)
def consensus(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    sub = get_object_or_404(SubCompetency.objects.select_related("competency__framework"), pk=pk)
    return render(request, PAGE, _context(sub))


@require(Action.EDIT_RUBRICS)
def universal(request: AuthenticatedHttpRequest, framework_code: str) -> HttpResponse:
    return render(request, PAGE, _context(get_object_or_404(Framework, code=framework_code)))


# ----- actions ----------------------------------------------------------------------------------


def _create(request: AuthenticatedHttpRequest, owner: Owner) -> HttpResponse:
    form = _new_form(owner, request.POST)
    if not form.is_valid():
        return _respond(request, owner, 422, new_form=form)
    content = form.content()
    labels = content.pop("scale_labels")
    code = form.cleaned_data.get("code", "")
    try:
        criterion = services.add_criterion(
            owner, by=request.user, code=code, scale_labels=labels, **content
        )
    except ValidationError as exc:
        add_errors(form, exc)
        return _respond(request, owner, 422, new_form=form)
    except services.RubricError as exc:
        return _respond(request, owner, status_for(exc), errors=exc.problems)
    return _respond(request, owner, saved=criterion.pk)


@require(Action.EDIT_RUBRICS)
@require_POST
def criterion_create(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _create(request, get_object_or_404(Task.objects.select_related("framework"), pk=pk))


@require(Action.EDIT_RUBRICS)
@require_POST
def consensus_create(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    sub = get_object_or_404(SubCompetency.objects.select_related("competency"), pk=pk)
    return _create(request, sub)


@require(Action.EDIT_RUBRICS)
@require_POST
def universal_create(request: AuthenticatedHttpRequest, framework_code: str) -> HttpResponse:
    return _create(request, get_object_or_404(Framework, code=framework_code))


@require(Action.EDIT_RUBRICS)
def criterion_card(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The editor as it stands (used by Cancel)."""
    criterion = get_object_or_404(Criterion, pk=pk)
    return _respond(request, _owner_of(criterion))


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def criterion_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    criterion = get_object_or_404(Criterion, pk=pk)
    owner = _owner_of(criterion)
    latest = services.latest_version(criterion)
    state: dict[str, Any] = {"editing": pk, "frozen": latest.frozen, "number": latest.number}
    if request.method == "GET":
        form = CriterionForm.for_version(latest, criterion.revision, prefix=f"c{pk}")
        return _respond(request, owner, edit_form=form, **state)
    form = CriterionForm(request.POST, prefix=f"c{pk}")
    if not form.is_valid():
        return _respond(request, owner, 422, edit_form=form, **state)
    try:
        services.edit_criterion(
            criterion, form.content(), form.cleaned_data["revision"] or 0, request.user
        )
    except EditConflict as conflict:
        data = request.POST.copy()
        data[f"c{pk}-revision"] = str(conflict.current.revision)
        retry = CriterionForm(data, prefix=f"c{pk}")
        retry.is_valid()
        theirs = conflict.differences(form.content())
        status = status_for(conflict)
        return _respond(request, owner, status, edit_form=retry, conflict=theirs, **state)
    except ValidationError as exc:
        add_errors(form, exc)
        return _respond(request, owner, 422, edit_form=form, **state)
    except services.RubricError as exc:
        return _respond(request, owner, status_for(exc), errors=exc.problems)
    return _respond(request, owner, saved=pk)


@require(Action.EDIT_RUBRICS)
@require_POST
def criterion_delete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    criterion = get_object_or_404(Criterion, pk=pk)
    owner = _owner_of(criterion)
    try:
        deleted = services.remove_criterion(criterion, request.user)
    except DeleteRefused as refused:
        return _respond(request, owner, status_for(refused), errors=[str(refused)])
    except services.RubricError as exc:
        return _respond(request, owner, status_for(exc), errors=exc.problems)
    verb = "deleted" if deleted else "retired (published versions keep it)"
    return _respond(request, owner, notice=f"{criterion.code} {verb}.")


@require(Action.EDIT_RUBRICS)
@require_POST
def criterion_move(request: AuthenticatedHttpRequest, pk: int, direction: str) -> HttpResponse:
    criterion = get_object_or_404(Criterion, pk=pk)
    owner = _owner_of(criterion)
    offset = {"up": -1, "down": 1}.get(direction, 0)
    try:
        services.move_criterion(criterion, offset, request.user)
    except services.RubricError as exc:
        return _respond(request, owner, status_for(exc), errors=exc.problems)
    return _respond(request, owner, moved=pk)
