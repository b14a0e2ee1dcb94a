"""Read-only pages for tasks and their rubrics. Authoring screens build on rubrics.services."""

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.permissions import require
from accounts.roles import Action
from rubrics.models import Task


@require(Action.VIEW_BENCHMARK)
def task_list(request: HttpRequest) -> HttpResponse:
    tasks = Task.objects.select_related("framework", "sub_competency").annotate(
        criteria_count=Count("criteria", distinct=True),
        responses_count=Count("responses", distinct=True),
    )
    return render(request, "rubrics/task_list.html", {"tasks": tasks})


@require(Action.VIEW_BENCHMARK)
def task_detail(request: HttpRequest, pk: int) -> HttpResponse:
    task = get_object_or_404(
        Task.objects.select_related("framework", "sub_competency__competency"), pk=pk
    )
    rubric = task.effective_rubric()
    context = {
        "task": task,
        "rubric": rubric,
        "possible": sum(line.weight for line in rubric if line.applicable and line.weight > 0),
        "resources": task.resources.all(),
        "context_values": task.context_values.select_related("variable", "value"),
        "versions": task.rubric_versions.select_related("published_by").annotate(
            items_count=Count("items")
        ),
        "reviews": task.reviews.select_related("by"),
        "responses": task.responses.prefetch_related("turns"),
    }
    return render(request, "rubrics/task_detail.html", context)
