"""The import page (upload, then watch the job) and the export downloads."""

import secrets
import tempfile
from pathlib import Path

from django.db import transaction
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from accounts.permissions import require
from accounts.roles import Action
from interchange import jobs
from interchange.exporters import export_l2bench_zip, export_rubrics_xlsx
from interchange.forms import ImportForm
from interchange.models import ImportJob
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
    return render(
        request,
        "interchange/index.html",
        {"form": form, "jobs": recent, "frameworks": frameworks},
    )


@require(Action.IMPORT_DATA)
@vary_on_headers("HX-Request")
def job(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(ImportJob, pk=pk)
    template = "interchange/job.html" + ("#job-status" if request.htmx else "")
    return render(request, template, {"job": found})


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
