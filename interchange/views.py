"""The import page (upload, then watch the job), the export downloads, and a study's offline
grading workbooks and grade exports."""

import secrets
import tempfile
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.db.models import Count, Q
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.models import User
from accounts.permissions import require
from accounts.roles import Action
from grading.models import Assignment, Study
from interchange import grades_export, jobs, offline
from interchange.exporters import export_l2bench_zip, export_rubrics_xlsx
from interchange.forms import ImportForm, OfflineUploadForm
from interchange.models import ImportJob
from l2annot.htmx import render_page
from taxonomy.models import Framework


@require(Action.IMPORT_DATA)
@require_http_methods(["GET", "POST"])
def index(request: HttpRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            job = ImportJob(
                kind=form.cleaned_data["kind"],
                framework=form.cleaned_data["framework"],
                dry_run=form.cleaned_data["dry_run"],
                original_name=Path(form.cleaned_data["file"].name).name[:255],
                token=secrets.token_hex(16),
                created_by=request.user,
            )
            job.file.save("upload", form.cleaned_data["file"], save=False)
            job.save()
            jobs.enqueue(job)
        return redirect("interchange:job", pk=job.pk)
    recent = ImportJob.objects.select_related("created_by")[:20]
    frameworks = Framework.objects.all()
    studies = Study.objects.all()
    return render(
        request,
        "interchange/index.html",
        {"form": form, "jobs": recent, "frameworks": frameworks, "studies": studies},
    )


@require(Action.IMPORT_DATA)
def job(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(ImportJob, pk=pk)
    return render_page(request, "interchange/job.html", {"job": found}, fragment="job-status")


def _framework(request: HttpRequest) -> Framework:
    code = request.GET.get("framework")
    if code:
        return get_object_or_404(Framework, code=code)
    first = Framework.objects.order_by("pk").first()
    if first is None:
        raise Http404("No framework yet.")
    return first


@require(Action.EXPORT_DATA)
def export_rubrics(request: HttpRequest) -> HttpResponse:
    framework = _framework(request)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    export_rubrics_xlsx(framework, handle)
    handle.seek(0)
    name = f"rubrics-{framework.code}-{timezone.now():%Y%m%d}.xlsx"
    return FileResponse(handle, as_attachment=True, filename=name)


@require(Action.EXPORT_DATA)
def export_benchmark(request: HttpRequest) -> HttpResponse:
    framework = _framework(request)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    with tempfile.TemporaryDirectory(prefix="l2annot-export-") as workdir:
        export_l2bench_zip(framework, handle, Path(workdir))
    handle.seek(0)
    name = f"l2-bench-{framework.code}-{timezone.now():%Y%m%d}.zip"
    return FileResponse(handle, as_attachment=True, filename=name)


# ----- a study's offline grading workbooks and grade exports -------------------------------------
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
def offline_workbook(request: HttpRequest, study_id: int) -> HttpResponse:
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


@require(Action.EXPORT_DATA)
def export_grades_csv(request: HttpRequest, study_id: int) -> HttpResponse:
    return _csv(get_object_or_404(Study, pk=study_id), scores=False)


@require(Action.EXPORT_DATA)
def export_scores_csv(request: HttpRequest, study_id: int) -> HttpResponse:
    return _csv(get_object_or_404(Study, pk=study_id), scores=True)


def _csv(study: Study, *, scores: bool) -> StreamingHttpResponse:
    name = grades_export.export_filename(study, "scores.csv" if scores else "grades.csv")
    return StreamingHttpResponse(
        grades_export.csv_lines(study, scores=scores),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@require(Action.EXPORT_DATA)
def export_grades_xlsx(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    grades_export.write_xlsx(study, handle)
    handle.seek(0)
    name = grades_export.export_filename(study, "grades.xlsx")
    return FileResponse(handle, as_attachment=True, filename=name)
