"""OpenAPI additions every resource gets without writing them: the error responses (their
bodies are shaped by api.exceptions), If-Match on changes and the ETag header on reads."""

from functools import cache
from typing import Any

from drf_spectacular import openapi
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from api.viewsets import RevisionedModelViewSet


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class ValidationErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(  # type: ignore[assignment]  # a field, not Serializer.errors
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Messages by field, e.g. {"code": ["This field is required."]}; '
        "`non_field_errors` for the object as a whole.",
    )


def _error(description: str, serializer: Any = ErrorSerializer) -> OpenApiResponse:
    return OpenApiResponse(serializer, description=description)


UNAUTHENTICATED = _error("No credentials, or an invalid or revoked token.")
FORBIDDEN = _error("Your role does not allow this action.")
NOT_FOUND = _error("No such object (or page).")
INVALID = _error("Invalid input: messages by field.", ValidationErrorSerializer)
PRECONDITION_REQUIRED = _error("Neither If-Match nor `revision` was sent.")


class RefusedSerializer(ErrorSerializer):
    problems = serializers.ListField(child=serializers.CharField())


REFUSED = _error("The task's state does not allow this; `problems` says why.", RefusedSerializer)

IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description='The ETag you read, e.g. "3". If the object has changed since: 412.',
)
ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 201],
    required=True,
    description="The object's revision, quoted: send it back as If-Match.",
)


class AutoSchema(openapi.AutoSchema):
    def _revisioned(self) -> bool:
        return isinstance(self.view, RevisionedModelViewSet)

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._revisioned():
            if self.method in ("PUT", "PATCH", "DELETE"):
                parameters.append(IF_MATCH)
            if not self._is_list_view() and self.method != "DELETE":
                parameters.append(ETAG)
        return parameters

    def get_response_serializers(self) -> Any:
        success = super().get_response_serializers()
        if isinstance(success, dict):  # the view said exactly what it answers
            return success
        if self.method == "DELETE":
            responses: dict[int, Any] = {204: OpenApiResponse(description="Deleted.")}
        elif self._is_create_operation():
            responses = {201: success}
        else:
            responses = {200: success}
        responses |= {401: UNAUTHENTICATED, 403: FORBIDDEN}
        if self.method == "GET":
            responses |= (
                {400: INVALID, 404: NOT_FOUND} if self._is_list_view(success) else {404: NOT_FOUND}
            )
            return responses
        if self.method in ("POST", "PUT", "PATCH"):
            responses[400] = INVALID
        if self.method != "POST":
            responses[404] = NOT_FOUND
        conflict = self._conflict_serializer(success)
        if self.method in ("PUT", "PATCH"):
            responses[409] = _error(
                "`revision` is stale (`current` is the object as saved now), or the change "
                "clashes with data saved at the same time.",
                conflict,
            )
        elif self.method == "DELETE":
            responses[409] = _error("Something depends on the object: the message names it.")
        else:
            responses[409] = _error("The object clashes with data saved at the same time.")
        if self._revisioned() and self.method != "POST":
            responses[412] = _error("If-Match names another revision.", conflict)
            if self.method != "DELETE":
                responses[428] = PRECONDITION_REQUIRED
        return dict(sorted(responses.items()))

    def _conflict_serializer(self, success: Any) -> Any:
        if not isinstance(success, serializers.Serializer):
            return ErrorSerializer
        return conflict_serializer(type(success), self._get_serializer_name(success, "response"))


@cache  # one class per resource, or drf-spectacular sees two components with one name
def conflict_serializer(serializer_class: type[serializers.Serializer], name: str) -> Any:
    return inline_serializer(
        name=f"{name}Conflict",
        fields={"detail": serializers.CharField(), "current": serializer_class(required=False)},
    )
