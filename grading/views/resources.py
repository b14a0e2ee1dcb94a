from django.http import Http404
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading.models import Assignment
from rubrics.models import PublishedResource
from rubrics.views.resources import file_response


@require(Action.GRADE)
def assignment_resource(
    request: AuthenticatedHttpRequest, assignment_id: int, resource_id: int
) -> HttpResponseBase:
    """A resource of the task an annotator is grading, as published in the rubric version they
    grade against: their own assignment only."""
    assignment = get_object_or_404(
        Assignment.objects.of(request.user).select_related("study_item"), pk=assignment_id
    )
    resource = PublishedResource.objects.filter(
        pk=resource_id, rubric_version_id=assignment.study_item.rubric_version_id
    ).first()
    if resource is None:
        raise Http404("No such resource for this task.")
    return file_response(resource)
