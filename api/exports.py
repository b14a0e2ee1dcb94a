"""Downloads for maintainers (Action.EXPORT_DATA), the same files as the pages' download
buttons, built by interchange: a study's grades (CSV, XLSX) and a framework's rubrics (XLSX).

They answer a file, not JSON: the view returns a Django response itself (DRF's renderers are
bypassed), and the schema describes the success as a binary body of that media type; errors
stay JSON."""

import tempfile
from typing import Any

from django.http import FileResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse

from api import schema
from grading.models import Study
from interchange import grades_export
from interchange.exporters import export_rubrics_xlsx
from taxonomy.models import Framework

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def responses(media_type: str) -> dict[Any, Any]:
    """The schema of a download: the file on 200, JSON errors otherwise."""
    return {
        (200, media_type): OpenApiResponse(OpenApiTypes.BINARY, description="The file."),
        (401, "application/json"): schema.UNAUTHENTICATED,
        (403, "application/json"): schema.FORBIDDEN,
        (404, "application/json"): schema.NOT_FOUND,
    }


def grades_csv(study: Study) -> HttpResponseBase:
    name = grades_export.export_filename(study, "grades.csv")
    return StreamingHttpResponse(
        grades_export.csv_lines(study),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _file(write: Any, name: str) -> FileResponse:
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it)
    write(handle)
    handle.seek(0)
    return FileResponse(handle, as_attachment=True, filename=name, content_type=XLSX)


def grades_xlsx(study: Study) -> FileResponse:
    return _file(
        lambda handle: grades_export.write_xlsx(study, handle),
        grades_export.export_filename(study, "grades.xlsx"),
    )


def rubrics_xlsx(
    framework: Framework, studies: list[Study] | None = None, only_validated: bool = False
) -> FileResponse:
    validated = "-validated" if studies is not None else ""
    return _file(
        lambda handle: export_rubrics_xlsx(
            framework, handle, studies, only_validated=only_validated
        ),
        f"rubrics{validated}-{framework.code}-{timezone.now():%Y%m%d}.xlsx",
    )
