"""One shape for every error the API returns, and the domain's refusals mapped to HTTP.

    {"detail": "Invalid input.", "errors": {"code": ["This field is required."]}}   400
    {"detail": "Authentication credentials were not provided."}                     401, 403, 404
    {"detail": "... was changed by someone else ...", "current": {...}}             409, 412
    {"detail": "Task 7 cannot be submitted.", "problems": ["Task 7 has no ..."]}     409
    {"detail": "The assignment is not complete ...", "problems": ["01: choose ..."]} 409
    {"detail": "The request body is larger than the 32 MiB this server accepts ..."} 413
    {"detail": "The email could not be sent: ..."}                                   503

The domain's errors are mapped here by their kind (core.refusals), as l2annot/errors.py maps them
for pages: a Conflict (a stale edit, a refused delete, a closed study, a stale gold verdict, a
refusal of the rubric workflow or the submission of an incomplete assignment, both listing
their `problems`) is a 409, with `current` when the error carries the object as it now is;
a NotFound (another grader's assignment) is a 404, as if it did not exist; an Unavailable (the
mail server refused an invitation or did not answer) is a 503. Model validation
(full_clean in audit.editing) and the services' other refusals raise Django's
ValidationError: a 400 with field messages, like a serializer's.
"""

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from core import refusals as domain


class Conflict(exceptions.APIException):
    status_code: int = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state of the object."
    default_code = "conflict"

    def __init__(
        self, detail: str | None = None, current: Any = None, problems: list[str] | None = None
    ) -> None:
        super().__init__(detail)
        self.current = current
        self.problems = problems


class PreconditionFailed(Conflict):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "If-Match does not match the current ETag: reload the object and retry."
    default_code = "precondition_failed"


class PreconditionRequired(exceptions.APIException):
    status_code = status.HTTP_428_PRECONDITION_REQUIRED
    default_detail = (
        "Say which revision you are changing: send If-Match with the ETag you read, "
        "or the `revision` field."
    )
    default_code = "precondition_required"


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "A service this needs did not answer: try again later."
    default_code = "service_unavailable"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
        super().__init__(
            f"The request body is larger than the {limit:g} MiB this server accepts "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE). Nothing was saved: send the items in smaller "
            "batches, or import the file with the upload page or the import command."
        )


def flat_errors(detail: Any, prefix: str = "") -> Iterator[tuple[str, list[str]]]:
    """Nested serializer errors as {"values.0.code": [...]}: one level, typed in the schema."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            yield from flat_errors(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(detail, list) and detail and not all(isinstance(d, str) for d in detail):
        for index, value in enumerate(detail):
            yield from flat_errors(value, f"{prefix}.{index}" if prefix else str(index))
    else:
        messages = detail if isinstance(detail, list) else [detail]
        yield prefix or api_settings.NON_FIELD_ERRORS_KEY, [str(m) for m in messages]


# A 400 lists at most this many messages: a body of 100,000 unknown ids or fields would
# otherwise be answered with ten times its size.
SHOWN_ERRORS = 200


def shown_errors(errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """`errors` cut to their first SHOWN_ERRORS messages, the last saying how many more."""
    shown: dict[str, list[str]] = {}
    room = SHOWN_ERRORS
    for field, messages in errors.items():
        if room <= 0:
            break
        shown[field] = messages[:room]
        room -= len(shown[field])
    left = sum(len(messages) for messages in errors.values()) - SHOWN_ERRORS
    if left > 0:
        more = f"... and {left:,} more messages like these, not shown."
        shown.setdefault(api_settings.NON_FIELD_ERRORS_KEY, []).append(more)
    return shown


def _current(exc: Exception, context: dict[str, Any]) -> Any:
    current = getattr(exc, "current", None)
    view = context.get("view")
    if current is None or not hasattr(view, "get_serializer"):
        return None
    return view.get_serializer(current).data  # type: ignore[union-attr]


def _message(exc: Exception) -> str:
    return " ".join(exc.messages) if isinstance(exc, DjangoValidationError) else str(exc)


def _conflict(exc: domain.Conflict) -> Conflict:
    if exc.problems is not None and exc.summary is not None:
        return Conflict(f"{exc.summary}: see `problems`.", problems=exc.problems)
    return Conflict(_message(exc), current=exc.current)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, domain.NotFound):
        exc = exceptions.NotFound(_message(exc))
    elif isinstance(exc, domain.Conflict):
        exc = _conflict(exc)
    elif isinstance(exc, domain.Unavailable):
        exc = ServiceUnavailable(_message(exc))
    elif isinstance(exc, DjangoValidationError):
        errors = as_serializer_error(exc)
        if NON_FIELD_ERRORS in errors:  # Django's "__all__" is DRF's "non_field_errors"
            errors[api_settings.NON_FIELD_ERRORS_KEY] = errors.pop(NON_FIELD_ERRORS)
        exc = exceptions.ValidationError(errors)
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, IntegrityError):
        # Two writers raced past validation; the loser is told, not shown a 500.
        exc = Conflict("This change clashes with data saved at the same time; reload and retry.")

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {
            "detail": "Invalid input.",
            "errors": shown_errors(dict(flat_errors(exc.detail))),
        }
    elif response.status_code == status.HTTP_400_BAD_REQUEST:  # e.g. a body that is not JSON
        response.data = {"detail": str(exc.detail), "errors": {}}  # type: ignore[attr-defined]
    elif isinstance(exc, Conflict):
        response.data = {"detail": str(exc.detail)}
        if exc.problems is not None:
            response.data["problems"] = exc.problems
        current = _current(exc, context)
        if current is not None:
            response.data["current"] = current
            if "revision" in current:
                response["ETag"] = f'"{current["revision"]}"'
    return response
