"""Pages for tasks: the list, the task page with its review actions, the task editor and the
version diff. Every change goes through rubrics.services; these views parse and render.

htmx requests get the fragment of the page template they swap (`page.html#fragment`), plain
requests the whole page or a redirect, so every page also works without JavaScript.
"""

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import require
from accounts.roles import Action
from audit.editing import EditConflict
from l2annot.errors import status_for
from l2annot.htmx import render_page, respond
from rubrics import services
from rubrics.diff import TASK_TEXT_FIELDS, RubricDiff, diff_rubric_versions, diff_rubrics
from rubrics.forms import (
    ContextValuesForm,
    ExclusionForm,
    ResourceEditForm,
    ResourceForm,
    TaskFilterForm,
    TaskForm,
    add_errors,
)
from rubrics.models import Criterion, Layer, Review, RubricVersion, Task, TaskResource
from taxonomy.models import ContextVariable

TASKS_PER_PAGE = 25
EDITOR = "rubrics/task_edit.html"


# ----- reading ------------------------------------------------------------------------------


@require(Action.VIEW_BENCHMARK)
def task_list(request: HttpRequest) -> HttpResponse:
    languages = list(
        Task.objects.order_by("language").values_list("language", flat=True).distinct()
    )
    form = TaskFilterForm(request.GET or None, languages=languages)
    tasks = Task.objects.select_related("sub_competency__competency").annotate(
        criteria_count=Count("criteria", distinct=True),
        responses_count=Count("responses", distinct=True),
    )
    if form.is_bound:
        tasks = form.filter(tasks) if form.is_valid() else tasks.none()
    page = Paginator(tasks.order_by("key", "pk"), TASKS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    return render_page(request, "rubrics/task_list.html", context, fragment="results")


def _detail_context(task: Task) -> dict[str, Any]:
    rubric = task.effective_rubric()
    return {
        "task": task,
        "rubric": rubric,
        "possible": sum(line.weight for line in rubric if line.applicable and line.weight > 0),
        "resources": task.resources.all(),
        "context_values": task.context_values.select_related("variable", "value"),
        "versions": task.rubric_versions.select_related("published_by").annotate(
            items_count=Count("items")
        ),
        "reviews": task.reviews.select_related("by", "rubric_version"),
        "responses": task.responses.prefetch_related("turns"),
    }


def _task(pk: int) -> Task:
    return get_object_or_404(
        Task.objects.select_related("framework", "sub_competency__competency"), pk=pk
    )


@require(Action.VIEW_BENCHMARK)
def task_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "rubrics/task_detail.html", _detail_context(_task(pk)))


# ----- review workflow ------------------------------------------------------------------------


def _refused(request: HttpRequest, task: Task, error: Exception) -> HttpResponse:
    problems = error.messages if isinstance(error, ValidationError) else error.problems
    context = _detail_context(task) | {"problems": problems}
    return render(request, "rubrics/task_detail.html", context, status=status_for(error))


@require(Action.EDIT_RUBRICS)
@require_POST
def task_submit(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
    try:
        services.submit_for_review(task, request.user, request.POST.get("comment", "").strip())
    except services.WorkflowRefused as refused:
        return _refused(request, _task(pk), refused)
    messages.success(request, f"{task} was submitted for review.")
    return redirect("rubrics:task_detail", pk)


@require(Action.REVIEW_RUBRICS)
@require_POST
def task_approve(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
    try:
        version = services.approve(task, request.user, request.POST.get("comment", "").strip())
    except services.WorkflowRefused as refused:
        return _refused(request, _task(pk), refused)
    messages.success(request, f"{task} was published as version {version.number}.")
    return redirect("rubrics:task_detail", pk)


@require(Action.REVIEW_RUBRICS)
@require_POST
def task_return(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
    comment = request.POST.get("comment", "").strip()
    try:
        services.return_for_changes(task, request.user, comment)
    except (services.WorkflowRefused, ValidationError) as refused:
        return _refused(request, _task(pk), refused)
    messages.success(request, f"{task} was returned to its authors.")
    return redirect("rubrics:review_queue")


@require(Action.REVIEW_RUBRICS)
def review_queue(request: HttpRequest) -> HttpResponse:
    tasks = (
        Task.objects.filter(status=Task.Status.IN_REVIEW)
        .select_related("sub_competency")
        .annotate(versions_count=Count("rubric_versions"))
        .order_by("updated_at", "pk")
    )
    submitted = {
        review.task_id: review
        for review in Review.objects.filter(
            task__status=Task.Status.IN_REVIEW, action=Review.Action.SUBMITTED
        ).select_related("by")
    }  # ordered by time, so the latest submission of each task wins
    rows = [(task, submitted.get(task.pk)) for task in tasks]
    return render(request, "rubrics/review_queue.html", {"rows": rows})


# ----- versions -------------------------------------------------------------------------------


def _draft_diff(version: RubricVersion, task: Task) -> RubricDiff:
    task_fields = {
        name: (getattr(version, name), getattr(task, name))
        for name in TASK_TEXT_FIELDS
        if getattr(version, name) != getattr(task, name)
    }
    return RubricDiff(
        task_fields, diff_rubrics(version.effective_rubric(), task.effective_rubric())
    )


@require(Action.VIEW_BENCHMARK)
def task_diff(request: HttpRequest, pk: int) -> HttpResponse:
    """Compare two published versions (?from=1&to=2), or one with the current draft (to=draft).
    Without parameters: the latest published version against the draft."""
    task = _task(pk)
    versions = list(task.rubric_versions.order_by("number"))
    if not versions:
        return render(request, "rubrics/task_diff.html", {"task": task, "versions": []})
    by_number = {str(v.number): v for v in versions}
    old = by_number.get(request.GET.get("from", ""), versions[-1])
    new = by_number.get(request.GET.get("to", "draft"))
    diff = diff_rubric_versions(old, new) if new else _draft_diff(old, task)
    context = {
        "task": task,
        "versions": versions,
        "old": old,
        "new": new,
        "new_key": str(new.number) if new else "draft",
        "diff": diff,
    }
    return render(request, "rubrics/task_diff.html", context)


# ----- the task editor ------------------------------------------------------------------------


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def task_create(request: HttpRequest) -> HttpResponse:
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
            messages.success(request, f"{task} was created. Now set its context and criteria.")
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
        "resource_form": ResourceForm(),
        "universal": universal,
        "exclusion_form": ExclusionForm(),
    }
    return context | state


def _editor_response(
    request: HttpRequest, task: Task, fragment: str, status: int = 200, **state: Any
) -> HttpResponse:
    """The editor's `fragment` for htmx; otherwise a redirect after a success or the whole page
    showing what went wrong."""
    task = _task(task.pk)
    done_url = reverse("rubrics:task_edit", args=[task.pk]) + f"#{fragment}"
    context = _editor_context(task, **state)
    return respond(request, EDITOR, context, fragment=fragment, done_url=done_url, status=status)


def _locked(
    request: HttpRequest, task: Task, fragment: str, exc: services.RubricError
) -> HttpResponse:
    return _editor_response(request, task, fragment, status_for(exc), errors=exc.problems)


@require(Action.EDIT_RUBRICS)
@require_http_methods(["GET", "POST"])
def task_edit(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
    if request.method == "GET":
        return render(request, EDITOR, _editor_context(task))
    form = TaskForm(request.POST, instance=_task(pk))
    if not form.is_valid():
        return _editor_response(request, task, "fields", 422, task_form=form)
    try:
        services.edit_task(task, form.changes(), form.cleaned_data["revision"] or 0, request.user)
    except EditConflict as conflict:
        data = request.POST.copy()
        data["revision"] = str(conflict.current.revision)
        retry = TaskForm(data, instance=_task(pk))
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
def task_context(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
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
def resource_create(request: HttpRequest, pk: int) -> HttpResponse:
    task = _task(pk)
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
def resource_edit(request: HttpRequest, pk: int) -> HttpResponse:
    resource = get_object_or_404(TaskResource.objects.select_related("task"), pk=pk)
    task = resource.task
    if request.method == "GET":
        form = ResourceEditForm(instance=resource)
        return _editor_response(request, task, "resources", editing=pk, resource_edit_form=form)
    form = ResourceEditForm(request.POST, instance=get_object_or_404(TaskResource, pk=pk))
    state: dict[str, Any] = {"editing": pk}
    if not form.is_valid():
        return _editor_response(request, task, "resources", 422, resource_edit_form=form, **state)
    changes = {name: form.cleaned_data[name] for name in form._meta.fields if name in form.fields}
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
def resource_delete(request: HttpRequest, pk: int) -> HttpResponse:
    resource = get_object_or_404(TaskResource.objects.select_related("task"), pk=pk)
    try:
        services.delete_resource(resource, request.user)
    except services.RubricError as exc:
        return _locked(request, resource.task, "resources", exc)
    return _editor_response(request, resource.task, "resources", saved="resources")


def _universal_criterion(request: HttpRequest, task: Task) -> Criterion | None:
    return Criterion.objects.filter(
        pk=request.POST.get("criterion") or 0, framework=task.framework_id, layer=Layer.UNIVERSAL
    ).first()


@require(Action.EDIT_RUBRICS)
@require_POST
def task_exclude(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark a universal criterion not applicable to this task, with the reason."""
    task = _task(pk)
    criterion = _universal_criterion(request, task)
    form = ExclusionForm(request.POST)
    if criterion is None or not form.is_valid():
        if criterion is None:
            form.add_error(None, "Choose one of the framework's universal criteria.")
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
def task_include(request: HttpRequest, pk: int) -> HttpResponse:
    """Undo task_exclude: the universal criterion applies again."""
    task = _task(pk)
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
