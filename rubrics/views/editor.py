"""The task editor: creating a task, then its fields, context values, resources and universal
criteria, each a fragment of the editor page that htmx swaps (l2annot.htmx.respond), or a
redirect or the whole page without JavaScript. Every change goes through rubrics.services."""

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from audit.editing import EditConflict
from l2annot.errors import status_for
from l2annot.htmx import respond
from rubrics import services
from rubrics.forms import (
    ContextValuesForm,
    ExclusionForm,
    ResourceEditForm,
    ResourceForm,
    TaskForm,
    add_errors,
)
from rubrics.models import Criterion, Layer, Task, TaskResource
from rubrics.views.tasks import task_or_404
from taxonomy.models import ContextVariable

EDITOR = "rubrics/task_edit.html"


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def task_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = TaskForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        fields = form.changes()
        try:
            task = services.create_task(
                fields.pop("sub_competency"),
                fields.pop("key"),
                fields.pop("instruction"),
                request.user,
                **fields,
            )
        except ValidationError as exc:
            add_errors(form, exc)
        else:
            messages.success(
                request,
                _("%(task)s was created. Now set its context and criteria.") % {"task": task},
            )
            return redirect("rubrics:task_edit", task.pk)
    status = 422 if form.errors else 200
    return render(request, "rubrics/task_create.html", {"form": form}, status=status)


def _editor_context(task: Task, **state: Any) -> dict[str, Any]:
    variables = list(
        ContextVariable.objects.filter(framework=task.framework_id).prefetch_related("values")
    )
    current = list(task.context_values.select_related("value"))
    universal = [line for line in task.effective_rubric() if line.layer == Layer.UNIVERSAL]
    context = {
        "task": task,
        "editable": task.status not in (Task.Status.IN_REVIEW, Task.Status.RETIRED),
        "task_form": TaskForm(instance=task),
        "context_form": ContextValuesForm(variables, current),
        "resources": task.resources.all(),
        "resource_limit": TaskResource.L2BENCH_LIMIT,
        "resource_form": ResourceForm(),
        "universal": universal,
        "exclusion_form": ExclusionForm(),
    }
    return context | state


def _editor_response(
    request: AuthenticatedHttpRequest, task: Task, fragment: str, status: int = 200, **state: Any
) -> HttpResponse:
    """The editor's `fragment` for htmx; otherwise a redirect after a success or the whole page
    showing what went wrong."""
    task = task_or_404(task.pk)
    done_url = reverse("rubrics:task_edit", args=[task.pk]) + f"#{fragment}"
    context = _editor_context(task, **state)
    return respond(request, EDITOR, context, fragment=fragment, done_url=done_url, status=status)


def _locked(
    request: AuthenticatedHttpRequest, task: Task, fragment: str, exc: services.RubricError
) -> HttpResponse:
    return _editor_response(request, task, fragment, status_for(exc), errors=exc.problems)


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def task_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    if request.method == "GET":
        return render(request, EDITOR, _editor_context(task))
    form = TaskForm(request.POST, instance=task_or_404(pk))
    if not form.is_valid():
        return _editor_response(request, task, "fields", 422, task_form=form)
    try:
        services.edit_task(task, form.changes(), form.cleaned_data["revision"] or 0, request.user)
    except EditConflict as conflict:
        data = request.POST.copy()
        data["revision"] = str(conflict.current.revision)
        retry = TaskForm(data, instance=task_or_404(pk))
        retry.is_valid()
        theirs = conflict.differences(form.changes())
        return _editor_response(
            request, task, "fields", status_for(conflict), task_form=retry, conflict=theirs
        )
    except ValidationError as exc:
        add_errors(form, exc)
        return _editor_response(request, task, "fields", 422, task_form=form)
    except services.RubricError as exc:
        return _locked(request, task, "fields", exc)
    return _editor_response(request, task, "fields", saved="fields")


@require(Action.EDIT_RUBRICS)
@require_POST
def task_context(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    variables = list(
        ContextVariable.objects.filter(framework=task.framework_id).prefetch_related("values")
    )
    form = ContextValuesForm(variables, list(task.context_values.all()), request.POST)
    if not form.is_valid():
        return _editor_response(request, task, "context", 422, context_form=form)
    conflicts = form.conflicts()
    if conflicts:
        again = form.taking_theirs_as_seen(conflicts)
        for key in conflicts:
            theirs = again.initial.get(key)
            again.add_error(
                key,
                f"Someone else saved {theirs if theirs not in (None, '') else 'no value'} here "
                "while you were editing. Your value is still in the form: save again to "
                "replace theirs.",
            )
        return _editor_response(request, task, "context", 409, context_form=again)
    try:
        services.set_context_values(task, form.changed_values(), request.user)
    except ValidationError as exc:
        add_errors(form, exc)
        return _editor_response(request, task, "context", 422, context_form=form)
    except services.RubricError as exc:
        return _locked(request, task, "context", exc)
    return _editor_response(request, task, "context", saved="context")


@require(Action.EDIT_RUBRICS)
@require_POST
def resource_create(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    form = ResourceForm(request.POST, request.FILES)
    if not form.is_valid():
        return _editor_response(request, task, "resources", 422, resource_form=form)
    data = form.cleaned_data
    try:
        services.add_resource(task, data["title"], request.user, data["text"], data["file"])
    except ValidationError as exc:
        add_errors(form, exc)
        return _editor_response(request, task, "resources", 422, resource_form=form)
    except services.RubricError as exc:
        return _locked(request, task, "resources", exc)
    return _editor_response(request, task, "resources", saved="resources")


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def resource_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    resource = get_object_or_404(TaskResource.objects.select_related("task"), pk=pk)
    task = resource.task
    if request.method == "GET":
        form = ResourceEditForm(instance=resource)
        return _editor_response(request, task, "resources", editing=pk, resource_edit_form=form)
    form = ResourceEditForm(request.POST, instance=get_object_or_404(TaskResource, pk=pk))
    state: dict[str, Any] = {"editing": pk}
    if not form.is_valid():
        return _editor_response(request, task, "resources", 422, resource_edit_form=form, **state)
    changes = {
        name: form.cleaned_data[name] for name in form._meta.fields or () if name in form.fields
    }
    try:
        services.edit_resource(resource, changes, form.cleaned_data["revision"] or 0, request.user)
    except EditConflict as conflict:
        data = request.POST.copy()
        data["revision"] = str(conflict.current.revision)
        retry = ResourceEditForm(data, instance=conflict.current)
        retry.is_valid()
        theirs = conflict.differences(changes)
        status = status_for(conflict)
        return _editor_response(
            request, task, "resources", status, resource_edit_form=retry, conflict=theirs, **state
        )
    except ValidationError as exc:
        add_errors(form, exc)
        return _editor_response(request, task, "resources", 422, resource_edit_form=form, **state)
    except services.RubricError as exc:
        return _locked(request, task, "resources", exc)
    return _editor_response(request, task, "resources", saved="resources")


@require(Action.EDIT_RUBRICS)
@require_POST
def resource_delete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    resource = get_object_or_404(TaskResource.objects.select_related("task"), pk=pk)
    try:
        services.delete_resource(resource, request.user)
    except services.RubricError as exc:
        return _locked(request, resource.task, "resources", exc)
    return _editor_response(request, resource.task, "resources", saved="resources")


def _universal_criterion(request: AuthenticatedHttpRequest, task: Task) -> Criterion | None:
    return Criterion.objects.filter(
        pk=request.POST.get("criterion") or 0, framework=task.framework_id, layer=Layer.UNIVERSAL
    ).first()


@require(Action.EDIT_RUBRICS)
@require_POST
def task_exclude(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Mark a universal criterion not applicable to this task, with the reason."""
    task = task_or_404(pk)
    criterion = _universal_criterion(request, task)
    form = ExclusionForm(request.POST)
    if criterion is None or not form.is_valid():
        if criterion is None:
            form.add_error(None, _("Choose one of the framework's universal criteria."))
        state = {"exclusion_form": form, "excluding": criterion.pk if criterion else None}
        return _editor_response(request, task, "universal", 422, **state)
    try:
        services.exclude_universal(task, criterion, form.cleaned_data["reason"], request.user)
    except ValidationError as exc:
        add_errors(form, exc)
        state = {"exclusion_form": form, "excluding": criterion.pk}
        return _editor_response(request, task, "universal", 422, **state)
    except services.RubricError as exc:
        return _locked(request, task, "universal", exc)
    return _editor_response(request, task, "universal", saved="universal")


@require(Action.EDIT_RUBRICS)
@require_POST
def task_include(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Undo task_exclude: the universal criterion applies again."""
    task = task_or_404(pk)
    criterion = _universal_criterion(request, task)
    if criterion is None:
        return _editor_response(
            request, task, "universal", 422, errors=["Choose a universal criterion."]
        )
    try:
        services.include_universal(task, criterion, request.user)
    except services.RubricError as exc:
        return _locked(request, task, "universal", exc)
    return _editor_response(request, task, "universal", saved="universal")
