"""Bulk creation through the file importers, so a POST and an uploaded file obey the same rules.

The body is a JSON list of objects (or JSON Lines, one object a line). It is written to a
temporary JSONL file, one item a line, and handed to the importer (interchange.importers), which
checks every item, writes nothing if any has a problem, and otherwise writes all in one
transaction. Problems come back as the API's 400, keyed by item index and field:

    {"detail": "Invalid input.", "errors": {"2.task_key": ["no task '999' in framework 'x'"]}}
"""

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, parsers, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from api.parsers import JSONParser
from api.schema import FORBIDDEN, UNAUTHENTICATED, ErrorSerializer, ValidationErrorSerializer
from api.serializers import ApiSerializer
from interchange.importers.report import ImportReport
from taxonomy.models import Framework

Importer = Callable[..., ImportReport]

FRAMEWORK = OpenApiParameter(
    "framework",
    {"type": "string", "minLength": 1},
    OpenApiParameter.QUERY,
    required=True,
    description="Code of the framework whose tasks and criteria the items name.",
)
DRY_RUN = OpenApiParameter(
    "dry_run",
    OpenApiTypes.BOOL,
    OpenApiParameter.QUERY,
    description="Check everything and count what would change, but write nothing.",
)


class JsonLinesParser(parsers.BaseParser):
    """`Content-Type: application/x-ndjson`: the body is passed on as bytes, one item a line."""

    media_type = "application/x-ndjson"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return stream.read()


class JsonlParser(JsonLinesParser):
    media_type = "application/jsonl"


PARSERS = [JSONParser, JsonLinesParser, JsonlParser]


class CountsSerializer(ApiSerializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()


class NewVersionSerializer(ApiSerializer):
    item = serializers.IntegerField(
        allow_null=True, help_text="The item's index in the request (from 0)."
    )
    task_key = serializers.CharField()
    response_id = serializers.CharField(help_text="The response's `id`.")
    version = serializers.IntegerField(help_text="The new version's number.")
    previous_version = serializers.IntegerField(
        help_text="The version it superseded, kept as it was with its grades and verdicts."
    )
    changed = serializers.ListField(
        child=serializers.CharField(),
        help_text="What changed: model_name, model_family, model_version, epoch, kind, text, "
        "turns.",
    )
    studies = serializers.ListField(
        child=serializers.CharField(),
        help_text="Names of the studies that hold the previous version (they keep grading it).",
    )


class ImportResultSerializer(ApiSerializer):
    dry_run = serializers.BooleanField(help_text="True: nothing was written.")
    counts = serializers.DictField(
        child=CountsSerializer(), help_text='By kind, e.g. {"responses": {"created": 3, ...}}.'
    )
    new_versions = NewVersionSerializer(
        many=True,
        help_text="The responses that changed while graded or judged: each got a new version "
        "(in a dry run: would get), the previous version kept as it was. Counted as updated.",
    )


def _framework(request: Request) -> Framework:
    code = request.query_params.get("framework", "")
    if not code:
        raise exceptions.ValidationError({"framework": ["Name the framework by its code."]})
    framework = Framework.objects.filter(code=code).first() if "\x00" not in code else None
    if framework is None:
        raise exceptions.ValidationError({"framework": [f"No framework with the code {code!r}."]})
    return framework


def _dry_run(request: Request) -> bool:
    raw = request.query_params.get("dry_run", "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise exceptions.ValidationError({"dry_run": ["Must be true or false."]})
    return raw in ("true", "1")


def _lines(data: Any) -> bytes:
    """The body as JSON Lines: item i on line i + 1."""
    if isinstance(data, bytes):
        return data
    if not isinstance(data, list) or not data:
        raise exceptions.ValidationError(
            {api_settings.NON_FIELD_ERRORS_KEY: ["Send a non-empty JSON list of objects."]}
        )
    return "\n".join(json.dumps(item, ensure_ascii=False) for item in data).encode()


def _nul_errors(lines: bytes) -> dict[str, list[str]]:
    # PostgreSQL cannot store NUL in text: refuse it by item rather than fail in the database.
    return {
        f"{index}.{api_settings.NON_FIELD_ERRORS_KEY}": ["Null characters are not allowed."]
        for index, line in enumerate(lines.split(b"\n"))
        if b"\x00" in line or b"\\u0000" in line
    }


def problems_by_item(report: ImportReport) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for problem in report.problems:
        parts = [] if problem.line_or_row is None else [str(problem.line_or_row - 1)]
        parts.append(problem.field or api_settings.NON_FIELD_ERRORS_KEY)
        errors.setdefault(".".join(parts), []).append(problem.message)
    return errors


def _new_version(found: dict[str, Any]) -> dict[str, Any]:
    """A new version as the API names it: by the item's index rather than its line."""
    line = found.pop("line")
    return {"item": None if line is None else line - 1, **found}


def bulk_import(request: Request, importer: Importer) -> Response:
    """Run `importer` on the request body; 201 with the counts, or 400 with every problem."""
    framework, dry_run = _framework(request), _dry_run(request)
    lines = _lines(request.data)
    if errors := _nul_errors(lines):
        raise exceptions.ValidationError(errors)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "request.jsonl"
        path.write_bytes(lines)
        report = importer(path, framework, dry_run=dry_run, by=request.user)
    if report.problems:
        raise exceptions.ValidationError(problems_by_item(report))
    body = {
        "dry_run": dry_run,
        "counts": {k: c.as_dict() for k, c in report.counts.items()},
        "new_versions": [_new_version(found.as_json()) for found in report.new_versions],
    }
    return Response(body, status=status.HTTP_200_OK if dry_run else status.HTTP_201_CREATED)


IMPORT_RESPONSES = {
    200: ImportResultSerializer,
    201: ImportResultSerializer,
    400: OpenApiResponse(
        ValidationErrorSerializer,
        description="Nothing was written: messages by item index and field (`2.task_key`).",
    ),
    401: UNAUTHENTICATED,
    403: FORBIDDEN,
    409: OpenApiResponse(ErrorSerializer, description="Clashed with data saved at the same time."),
}
