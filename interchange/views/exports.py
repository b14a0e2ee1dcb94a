"""Downloads: the rubrics workbook, the benchmark archive, a study's grades and scores."""

import tempfile
from pathlib import Path

from django.http import FileResponse, Http404, HttpRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from accounts.permissions import require
from accounts.roles import Action
from grading.models import Study
from interchange import grades_export
from interchange.exporters import BenchmarkNotExportable, export_l2bench_zip, export_rubrics_xlsx
from interchange.forms import RubricsExportForm
from l2annot.errors import status_for
from taxonomy.models import Framework


@require(Action.EXPORT_DATA)
def export_rubrics(request: HttpRequest) -> HttpResponseBase:
    """The rubrics workbook; `?validated_by=<study id>|all` adds each criterion's validation in
    those studies, `&only_validated=1` keeps only the validated ones (RubricsExportForm)."""
    framework = _framework(request)
    form = RubricsExportForm(request.GET, framework=framework)
    if not form.is_valid():
        problems = [error for errors in form.errors.values() for error in errors]
        context = {"framework": framework, "problems": problems}
        return render(request, "interchange/rubrics_refused.html", context, status=422)
    studies = form.cleaned_data["studies"]
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    only_validated = form.cleaned_data["only_validated"]
    export_rubrics_xlsx(framework, handle, studies, only_validated=only_validated)
    handle.seek(0)
    validated = "-validated" if studies is not None else ""
    name = f"rubrics{validated}-{framework.code}-{timezone.now():%Y%m%d}.xlsx"
    return FileResponse(handle, as_attachment=True, filename=name)


def _framework(request: HttpRequest) -> Framework:
    code = request.GET.get("framework")
    if code:
        return get_object_or_404(Framework, code=code)
    first = Framework.objects.order_by("pk").first()
    if first is None:
        raise Http404("No framework yet.")
    return first


@require(Action.EXPORT_DATA)
def export_benchmark(request: HttpRequest) -> HttpResponseBase:
    framework = _framework(request)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    try:
        with tempfile.TemporaryDirectory(prefix="l2annot-export-") as workdir:
            export_l2bench_zip(framework, handle, Path(workdir))
    except BenchmarkNotExportable as error:
        handle.close()
        context = {"framework": framework, "problems": error.problems}
        return render(request, "interchange/export_refused.html", context, status=status_for(error))
    handle.seek(0)
    name = f"l2-bench-{framework.code}-{timezone.now():%Y%m%d}.zip"
    return FileResponse(handle, as_attachment=True, filename=name)


@require(Action.EXPORT_DATA)
def export_grades_csv(request: HttpRequest, study_id: int) -> StreamingHttpResponse:
    return _csv(get_object_or_404(Study, pk=study_id), scores=False)


@require(Action.EXPORT_DATA)
def export_scores_csv(request: HttpRequest, study_id: int) -> StreamingHttpResponse:
    return _csv(get_object_or_404(Study, pk=study_id), scores=True)


def _csv(study: Study, *, scores: bool) -> StreamingHttpResponse:
    name = grades_export.export_filename(study, "scores.csv" if scores else "grades.csv")
    return StreamingHttpResponse(
        grades_export.csv_lines(study, scores=scores),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@require(Action.EXPORT_DATA)
def export_grades_xlsx(request: HttpRequest, study_id: int) -> FileResponse:
    study = get_object_or_404(Study, pk=study_id)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    grades_export.write_xlsx(study, handle)
    handle.seek(0)
    name = grades_export.export_filename(study, "grades.xlsx")
    return FileResponse(handle, as_attachment=True, filename=name)
