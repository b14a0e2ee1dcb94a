"""A study's Hugging Face dataset folder as a ZIP download (agreement.dataset)."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.dataset import study_dataset_zip
from grading.models import Study


@require(Action.EXPORT_DATA)
def download(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    response = HttpResponse(study_dataset_zip(study), content_type="application/zip")
    name = f"dataset-{slugify(study.name) or study.pk}.zip"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
