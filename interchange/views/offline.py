"""A study's offline grading: each annotator's workbook to download, and its upload back."""

import tempfile
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.db.models import Count, Q
from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from accounts.models import User
from accounts.permissions import require
from accounts.roles import Action
from grading.models import Assignment, Study
from interchange import offline
from interchange.forms import OfflineUploadForm


def _graders(study: Study) -> Any:
    return User.objects.filter(assignments__study_item__study=study).distinct().order_by("username")


@require(Action.IMPORT_DATA)
@require_http_methods(["GET", "POST"])
def offline_grading(request: HttpRequest, study_id: int) -> HttpResponse:
    """Download an annotator's workbook; upload it filled, recorded as them (all or nothing)."""
    study = get_object_or_404(Study, pk=study_id)
    form = OfflineUploadForm(_graders(study), request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        annotator, upload = form.cleaned_data["annotator"], form.cleaned_data["file"]
        with tempfile.TemporaryDirectory(prefix="l2annot-offline-") as folder:
            path = Path(folder) / "upload.xlsx"
            with path.open("wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
            report = offline.import_workbook(
                path,
                study,
                annotator,
                submit=form.cleaned_data["submit"],
                filename=Path(upload.name).name,
            )
        if not report.problems:
            messages.success(request, f"{annotator.username}: {report.summary()}.")
            for note in report.incomplete:
                messages.info(request, f"Not submitted, {note}")
            return redirect("interchange:offline", study_id=study.pk)
    progress = (
        Assignment.objects.filter(study_item__study=study)
        .values("annotator__username")
        .annotate(
            total=Count("pk"),
            unfinished=Count("pk", filter=~Q(status=Assignment.Status.SUBMITTED)),
        )
        .order_by("annotator__username")
    )
    context = {"study": study, "form": form, "report": report, "progress": progress}
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
