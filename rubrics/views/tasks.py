"""Pages for tasks: the list, the task page with its review actions, the review queue and the
version diff. Every change goes through rubrics.services; these views parse and render."""

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, IntegerField, Model, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from l2annot.errors import status_for
from l2annot.htmx import render_page
from rubrics import services
from rubrics.diff import TASK_TEXT_FIELDS, RubricDiff, diff_rubric_versions, diff_rubrics
from rubrics.forms import (
    TaskFilterForm,
)
from rubrics.models import Criterion, Response, Review, RubricVersion, Task, TaskResource

TASKS_PER_PAGE = 25


def _count_of(model: type[Model], field: str, **conditions: Any) -> Coalesce:
    """The number of `model` rows whose `field` is the outer row (and that meet `conditions`),
    as a correlated subquery."""
    rows = model._default_manager.filter(**{field: OuterRef("pk")}, **conditions).order_by()
    counted = rows.values(field).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


# ----- reading ------------------------------------------------------------------------------


@require(Action.VIEW_BENCHMARK)
def task_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    languages = list(
        Task.objects.order_by("language").values_list("language", flat=True).distinct()
    )
    form = TaskFilterForm(request.GET or None, languages=languages)
    tasks: QuerySet[Task] = Task.objects.select_related("sub_competency__competency")
    if form.is_bound:
        tasks = form.filter(tasks) if form.is_valid() else tasks.none()
    # Counted per row of the page (two joined Count(distinct) multiplied every task's criteria
    # by its responses, over every task, before the page was cut).
    tasks = tasks.annotate(
        criteria_count=_count_of(Criterion, "task"),
        # A response's versions are one response.
        responses_count=_count_of(Response, "task", superseded_at__isnull=True),
    )
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
        "resource_limit": TaskResource.L2BENCH_LIMIT,
        "context_values": task.context_values.select_related("variable", "value"),
        "versions": task.rubric_versions.select_related("published_by").annotate(
            items_count=Count("items")
        ),
        "reviews": task.reviews.select_related("by", "rubric_version"),
        "responses": _responses_with_history(task),
    }


@dataclass(frozen=True)
class ResponseHistory:
    response: Response  # the current version
    earlier: list[Response]  # the versions it superseded, newest first


def _responses_with_history(task: Task) -> list[ResponseHistory]:
    """The task's current responses, each with the versions it superseded (a response changed
    after it was graded or judged). Two queries, and two for their turns."""
    earlier: dict[str, list[Response]] = {}
    superseded = task.responses.filter(superseded_at__isnull=False).order_by("-version")
    for old in superseded.prefetch_related("turns"):
        earlier.setdefault(old.external_id, []).append(old)
    return [
        ResponseHistory(response, earlier.get(response.external_id, []))
        for response in task.responses.current().prefetch_related("turns")
    ]


def task_or_404(pk: int) -> Task:
    return get_object_or_404(
        Task.objects.select_related("framework", "sub_competency__competency"), pk=pk
    )


@require(Action.VIEW_BENCHMARK)
def task_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return render(request, "rubrics/task_detail.html", _detail_context(task_or_404(pk)))


# ----- review workflow ------------------------------------------------------------------------


def _refused(
    request: AuthenticatedHttpRequest, task: Task, error: ValidationError | services.WorkflowRefused
) -> HttpResponse:
    problems = error.messages if isinstance(error, ValidationError) else error.problems
    context = _detail_context(task) | {"problems": problems}
    return render(request, "rubrics/task_detail.html", context, status=status_for(error))


@require(Action.EDIT_RUBRICS)
@require_POST
def task_submit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    try:
        services.submit_for_review(task, request.user, request.POST.get("comment", "").strip())
    except services.WorkflowRefused as refused:
        return _refused(request, task_or_404(pk), refused)
    messages.success(request, _("%(task)s was submitted for review.") % {"task": task})
    return redirect("rubrics:task_detail", pk)


@require(Action.REVIEW_RUBRICS)
@require_POST
def task_approve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    try:
        version = services.approve(task, request.user, request.POST.get("comment", "").strip())
    except services.WorkflowRefused as refused:
        return _refused(request, task_or_404(pk), refused)
    messages.success(
        request,
        _("%(task)s was published as version %(number)s.")
        % {"task": task, "number": version.number},
    )
    return redirect("rubrics:task_detail", pk)


@require(Action.REVIEW_RUBRICS)
@require_POST
def task_return(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    task = task_or_404(pk)
    comment = request.POST.get("comment", "").strip()
    try:
        services.return_for_changes(task, request.user, comment)
    except (services.WorkflowRefused, ValidationError) as refused:
        return _refused(request, task_or_404(pk), refused)
    messages.success(request, _("%(task)s was returned to its authors.") % {"task": task})
    return redirect("rubrics:review_queue")


@require(Action.REVIEW_RUBRICS)
def review_queue(request: AuthenticatedHttpRequest) -> HttpResponse:
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
def task_diff(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Compare two published versions (?from=1&to=2), or one with the current draft (to=draft).
    Without parameters: the latest published version against the draft."""
    task = task_or_404(pk)
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
