"""Serving the files attached to tasks. Uploaded files are never served from MEDIA_URL: each
download goes through a view that checks who may see the task, and is sent as an attachment so
an uploaded HTML or SVG file can never run in the application's origin."""

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.text import slugify

from accounts.permissions import require
from accounts.roles import Action
from rubrics.models import PublishedResource, TaskResource


def file_response(resource: TaskResource | PublishedResource) -> HttpResponseBase:
    """The resource as a download: its uploaded file, or its markdown text as a .md file."""
    if resource.kind != TaskResource.Kind.FILE:
        response = HttpResponse(resource.text, content_type="text/markdown; charset=utf-8")
        name = f"{slugify(resource.title) or 'resource'}.md"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
    if not resource.file:
        raise Http404("This resource has no file.")
    try:
        handle = resource.file.open("rb")
    except FileNotFoundError:
        raise Http404("The file of this resource is missing.") from None
    name = (resource.file.name or "").rsplit("/", 1)[-1]
    return FileResponse(handle, as_attachment=True, filename=name)


@require(Action.VIEW_BENCHMARK)
def resource_file(request: HttpRequest, pk: int) -> HttpResponseBase:
    resource = TaskResource.objects.filter(pk=pk).first()
    if resource is None:
        raise Http404("No such resource.")
    return file_response(resource)
