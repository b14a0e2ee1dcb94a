"""A study's final labels as downloads (CSV, XLSX, JSON)."""

from io import BytesIO, StringIO

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.services import final_labels
from agreement.views.reports import XLSX
from core.analysis.export import labels_to_dict, write_labels_csv, write_labels_xlsx
from grading.models import Study

TRUE = ("1", "true", "on", "yes")


@require(Action.EXPORT_DATA)
def download(request: AuthenticatedHttpRequest, study_id: int, fmt: str) -> HttpResponse:
    """Every graded (response, criterion) with the experts' verdicts, how its label was reached
    (adjudicated, unanimous, majority, single, tied) and the label; `?without_single=1` leaves
    out the labels resting on a single expert's verdict."""
    study = get_object_or_404(Study, pk=study_id)
    without_single = request.GET.get("without_single", "") in TRUE
    labels = final_labels(study, single=not without_single)
    suffix = "-without-single" if without_single else ""
    filename = f"labels-{slugify(study.name) or study.pk}{suffix}.{fmt}"
    response: HttpResponse
    if fmt == "json":
        response = JsonResponse(labels_to_dict(study.name, labels))
    elif fmt == "csv":
        text = StringIO()
        write_labels_csv(labels, text)
        response = HttpResponse(text.getvalue(), content_type="text/csv; charset=utf-8")
    else:
        buffer = BytesIO()
        write_labels_xlsx(labels, buffer)
        response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
