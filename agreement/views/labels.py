"""A study's final labels as downloads (CSV, XLSX, JSON)."""

from io import BytesIO, StringIO

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.analysis.export import labels_to_dict, write_labels_csv, write_labels_xlsx
from agreement.services import final_labels
from agreement.views.reports import XLSX
from grading.models import Study


@require(Action.EXPORT_DATA)
def download(request: AuthenticatedHttpRequest, study_id: int, fmt: str) -> HttpResponse:
    """Every graded (response, criterion) with the experts' verdicts, how its label was reached
    (adjudicated, unanimous, majority, tied) and the label."""
    study = get_object_or_404(Study, pk=study_id)
    labels = final_labels(study)
    filename = f"labels-{slugify(study.name) or study.pk}.{fmt}"
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
