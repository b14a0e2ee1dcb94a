"""A study's offline grading: each annotator's workbook to download, and its upload back."""

import secrets
import tempfile
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Count, Q
from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.models import User
from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading.models import Assignment, Study
from interchange import jobs, offline
from interchange.forms import OfflineUploadForm
from interchange.models import ImportJob
from jobs.models import Job


def _graders(study: Study) -> Any:
    return User.objects.filter(assignments__study_item__study=study).distinct().order_by("username")


@require(Action.IMPORT_DATA)
@require_http_methods(["GET", "POST"])
def offline_grading(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """Download an annotator's workbook; upload it filled, recorded as them (all or nothing).

    The upload is stored and read by the background worker (an ImportJob), never in the request:
    a large or hostile workbook costs the web process nothing but the upload."""
    study = get_object_or_404(Study, pk=study_id)
    form = OfflineUploadForm(_graders(study), request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        with transaction.atomic():
            job = ImportJob(
                kind=ImportJob.Kind.OFFLINE,
                framework_id=study.framework_id,
                study=study,
                annotator=form.cleaned_data["annotator"],
                submit=form.cleaned_data["submit"],
                original_name=Path(upload.name).name[:255],
                token=secrets.token_hex(16),
                created_by=request.user,
                job=Job.objects.create(kind=Job.Kind.IMPORT, created_by=request.user),
            )
            job.file.save("upload", upload, save=False)
            job.save()
            jobs.enqueue(job)
        return redirect("interchange:job", pk=job.pk)
    progress = (
        Assignment.objects.filter(study_item__study=study)
        .values("annotator__username")
        .annotate(
            total=Count("pk"),
            unfinished=Count("pk", filter=~Q(status=Assignment.Status.SUBMITTED)),
        )
        .order_by("annotator__username")
    )
    uploads = ImportJob.objects.filter(study=study).select_related("annotator")[:10]
    context = {"study": study, "form": form, "progress": progress, "uploads": uploads}
    return render(request, "interchange/offline.html", context)


@require(Action.EXPORT_DATA)
def offline_workbook(request: HttpRequest, study_id: int) -> HttpResponseBase:
    study = get_object_or_404(Study, pk=study_id)
    username = request.GET.get("annotator")
    if not username:  # choose the annotator on the study's page
        return redirect("interchange:offline", study_id=study.pk)
    annotator = get_object_or_404(_graders(study), username=username)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    offline.write_workbook(handle, study, annotator, unfinished_only=not request.GET.get("all"))
    handle.seek(0)
    name = offline.workbook_filename(study, annotator)
    return FileResponse(handle, as_attachment=True, filename=name)
