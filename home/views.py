"""The start page: each person lands on what their role needs from them."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render

from accounts.permissions import AuthenticatedHttpRequest, user_can
from accounts.roles import Action, role_label
from accounts.services import role_of
from grading.flags import open_flag_counts
from grading.services import annotator_queue
from home import services


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Annotators see their queue; maintainers (and admins) what needs them; readers of the
    benchmark who run no study (researchers) the studies' agreement and the judge's runs."""
    user = request.user
    role = role_of(user)
    context: dict[str, Any] = {"role": role_label(role)}
    if user_can(user, Action.GRADE):
        context["queue"] = annotator_queue(user)
    if user_can(user, Action.MANAGE_STUDIES):
        context["studies"] = services.studies_by_progress()
        context["jobs"] = services.maintainer_jobs()
        context["open_flags"] = open_flag_counts()
    elif user_can(user, Action.VIEW_BENCHMARK):
        context["studies"] = services.studies_by_progress()
        context["runs"] = services.recent_judge_runs()
    if user_can(user, Action.REVIEW_RUBRICS):
        context["in_review"] = services.review_queue_count()
    return render(request, "home/home.html", context)
