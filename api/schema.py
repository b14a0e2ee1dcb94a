"""OpenAPI additions every resource gets without writing them: the error responses (their
bodies are shaped by api.exceptions), If-Match on changes, the ETag header on reads and the
NUL character that request texts may not hold."""

import copy
import re
from functools import cache
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular import openapi
from drf_spectacular.plumbing import force_instance
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.settings import api_settings

from api.serializers import ApiSerializer, RevisionedSerializer, SlugRelatedField, StrictJsonTypes
from api.viewsets import RevisionedModelViewSet
from core.formats.jsonl import MAX_INTEGER_DIGITS


class GivenVerdictField(serializers.ChoiceField):
    """A grader's verdict: pass, fail or na when sent; read back empty ("") while none is
    given (a rationale saved first, or a level chosen on an ordinal criterion)."""


class ErrorSerializer(ApiSerializer):
    detail = serializers.CharField()


class ValidationErrorSerializer(ApiSerializer):
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


class SubmitRefusedSerializer(ErrorSerializer):
    """Why an assignment cannot be submitted."""

    problems = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="What is still missing, in page order (only for an incomplete assignment).",
    )


SUBMIT_REFUSED = _error(
    "The assignment is not complete (`problems` lists what is missing), the study is closed, "
    "or you set the response aside with a flag.",
    SubmitRefusedSerializer,
)

IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description='The ETag you read, e.g. "3". If the object has changed since: 412. The API '
    "takes it instead of the body's `revision`, which this schema requires.",
)
ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 201],
    required=True,
    description="The object's revision, quoted: send it back as If-Match.",
)


# A text field refuses the NUL character (DRF's CharField, as PostgreSQL cannot store it in
# text): the request schema says so for every text it does not already restrict, as what the
# text may not be (`not`: holds a NUL). A text that may not be blank is read without its
# surrounding whitespace (Python's str.strip: the characters below), so it may not be only
# that either. Said with `not`, not as one anchored pattern (`^[^\u0000]*$`): generators such
# as Schemathesis fold a text's maxLength into an anchored pattern (`[^\u0000]{0,50000}`) and
# build an automaton of that length for each body they draw, seconds for a task's.
WHITESPACE = r"\t-\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
HOLDS_A_NUL = {"pattern": r"\u0000"}
NO_NUL = HOLDS_A_NUL  # the `not` of a text that may be blank
NOT_BLANK = {"anyOf": [HOLDS_A_NUL, {"pattern": rf"^[{WHITESPACE}]*$"}]}
ORDERING = api_settings.ORDERING_PARAM


# A change must say which revision it changes: `revision` in the body or an If-Match header
# (api.viewsets). A schema cannot say "this field or that header", so the body of a PUT/PATCH
# requires `revision`: a client that follows the schema always works, and If-Match alone is
# still accepted, as the field's description says.
REVISION_TO_CHANGE = (
    "The revision you read (a GET answers it, and its ETag). Required by this schema; the API "
    "also takes a change with an If-Match header instead. If someone saved since, the change "
    "is refused with 409 and the object as saved now."
)


class AutoSchema(openapi.AutoSchema):
    _direction: str | None = None  # of the serializer being mapped (they nest)

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        states_revision = self._states_revision(serializer, direction)
        outer, self._direction = self._direction, direction
        try:
            mapped: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        finally:
            self._direction = outer
        if direction == "request" and isinstance(serializer, StrictJsonTypes):
            mapped["additionalProperties"] = False  # StrictJsonTypes refuses unknown fields
        if states_revision:
            mapped["properties"]["revision"]["description"] = REVISION_TO_CHANGE
            mapped["required"] = [*mapped.get("required", []), "revision"]
        if direction == "request" and _one_of_required(serializer):
            mapped["anyOf"] = [_present(mapped, name) for name in _one_of_required(serializer)]
        return mapped

    def _map_serializer(
        self, serializer: Any, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        mapped: dict[str, Any] = super()._map_serializer(serializer, direction, bypass_extensions)
        if "oneOf" in mapped and "discriminator" not in mapped and _shapes_nest(serializer):
            # A body of the larger shape is also one of the smaller (an admin's flag holds a
            # grader's): JSON Schema's oneOf would refuse it for matching both.
            mapped["anyOf"] = mapped.pop("oneOf")
        return mapped

    def _get_request_for_media_type(self, serializer: Any, direction: str = "request") -> Any:
        schema, required = super()._get_request_for_media_type(serializer, direction)
        return schema, required or bool(_one_of_required(serializer))

    def _states_revision(self, serializer: Any, direction: str) -> bool:
        """Whether `serializer` is the body of a change that must name its revision (not a
        serializer nested in one)."""
        return (
            direction == "request"
            and self._direction is None
            and self.method in ("PUT", "PATCH")
            and self._revisioned()
            and isinstance(serializer, RevisionedSerializer)
        )

    def _get_serializer_name(
        self, serializer: Any, direction: str, bypass_extensions: bool = False
    ) -> str:
        name: str = super()._get_serializer_name(serializer, direction, bypass_extensions)
        if self.method == "PUT" and self._states_revision(serializer, direction):
            # A PUT's body requires `revision`, a POST's (same serializer) does not.
            name = name.removesuffix("Request") + "UpdateRequest"
        return name

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        super()._insert_field_validators(field, schema)
        if any(isinstance(v, ProhibitNullCharactersValidator) for v in field.validators):
            trimmed = getattr(field, "trim_whitespace", False) and not field.allow_blank
            self._refuse_nul(schema, refused=NOT_BLANK if trimmed else NO_NUL)
        blank = self._direction == "response" and _blank_in_model(field)
        if blank and schema.get("format") == "email":
            # An address the model lets be blank is read back empty (an account made without).
            schema["anyOf"] = [{"format": schema.pop("format")}, {"maxLength": 0}]

    def _map_serializer_field(self, field: Any, direction: str, *args: Any) -> Any:
        mapped = super()._map_serializer_field(field, direction, *args)
        if isinstance(field, SlugRelatedField) and isinstance(mapped, dict):
            self._refuse_nul(mapped)
        if direction == "response" and isinstance(mapped, dict):
            given = isinstance(field, GivenVerdictField)
            if (given or _blank_in_model(field)) and "" not in mapped.get("enum", [""]):
                # Read back empty while none is chosen (a flag's `outcome` until it is resolved).
                mapped["enum"] = [*mapped["enum"], ""]
            if field.default is None and "$ref" not in mapped:
                # A field read through a relation that may be missing (`resolved_by.username`
                # of an open flag) answers its default.
                mapped["nullable"] = True
        return mapped

    def _refuse_nul(
        self, schema: dict[str, Any], *, request: bool = False, refused: dict[str, Any] = NO_NUL
    ) -> None:
        unrestricted = not {"pattern", "format", "enum", "not"} & set(schema)
        request = request or self._direction == "request"
        if request and schema.get("type") == "string" and unrestricted:
            schema["not"] = copy.deepcopy(refused)

    def _get_filter_parameters(self) -> list[dict[str, Any]]:
        # A filter's text is read by a form field or by SearchFilter, both of which refuse a
        # NUL; `ordering` ignores what it does not know.
        parameters: list[dict[str, Any]] = super()._get_filter_parameters()
        for parameter in parameters:
            if parameter["name"] != ORDERING:
                self._refuse_nul(parameter["schema"], request=True)
        return parameters

    def _get_paginator(self) -> Any:
        # Only a viewset's `list` pages its answer (DRF's ListModelMixin); an action answering
        # a list (a study's gold checks, its questions) answers it whole.
        if getattr(self.view, "action", "list") != "list":
            return None
        return super()._get_paginator()

    def _revisioned(self) -> bool:
        return isinstance(self.view, RevisionedModelViewSet)

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._revisioned():
            if self.method in ("PUT", "PATCH", "DELETE"):
                parameters.append(IF_MATCH)
            # The object's own reads and writes answer its ETag; a download (a GET action
            # such as a framework's rubrics workbook) is not the object and has none.
            read = self.method == "GET"
            if (
                not self._is_list_view()
                and self.method != "DELETE"
                and (not read or getattr(self.view, "action", None) == "retrieve")
            ):
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
                "`revision` is stale (`current` is the object as saved now), the object's state "
                "refuses the change (the message says why), or the change clashes with data "
                "saved at the same time.",
                conflict,
            )
        elif self.method == "DELETE":
            responses[409] = _error(
                "Something depends on the object, or its state refuses the delete: the message "
                "says which."
            )
        else:
            responses[409] = _error(
                "The state of the data refuses it (the message says why), or the object clashes "
                "with data saved at the same time."
            )
        if self._revisioned() and self.method != "POST":
            responses[412] = _error("If-Match names another revision.", conflict)
            if self.method != "DELETE":
                responses[428] = PRECONDITION_REQUIRED
        return dict(sorted(responses.items()))

    def _conflict_serializer(self, success: Any) -> Any:
        if not isinstance(success, serializers.Serializer):
            return ErrorSerializer
        return conflict_serializer(type(success), self._get_serializer_name(success, "response"))


def _shapes_nest(serializer: Any) -> bool:
    """Whether `serializer` says a body has one of several shapes, the fields of one of them
    all among another's."""
    serializer = force_instance(serializer)
    if not isinstance(serializer, PolymorphicProxySerializer):
        return False
    shapes = serializer.serializers
    fields = [
        set(force_instance(shape).fields)
        for shape in (shapes.values() if isinstance(shapes, dict) else shapes)
    ]
    return any(a < b for a in fields for b in fields)


def _one_of_required(serializer: Any) -> tuple[str, ...]:
    """A request serializer's `one_of_required`: fields of which a body must carry at least
    one, not null (a grade's verdict, level or rationale: a save of nothing is refused)."""
    return tuple(getattr(serializer, "one_of_required", ()))


def _present(mapped: dict[str, Any], name: str) -> dict[str, Any]:
    """The schema of a body that carries `name`, and not as null."""
    field = mapped["properties"][name]
    if field.get("nullable"):
        return {"required": [name], "properties": {name: {"type": field["type"]}}}
    return {"required": [name]}


def _blank_in_model(field: Any) -> bool:
    model = getattr(getattr(field.parent, "Meta", None), "model", None)
    try:
        return bool(model._meta.get_field(field.source).blank)  # type: ignore[union-attr]
    except (AttributeError, FieldDoesNotExist):
        return False


@cache  # one class per resource, or drf-spectacular sees two components with one name
def conflict_serializer(serializer_class: type[serializers.Serializer[Any]], name: str) -> Any:
    return inline_serializer(
        name=f"{name}Conflict",
        fields={"detail": serializers.CharField(), "current": serializer_class(required=False)},
    )


# drf-spectacular's pattern for a decimal string, which also matches "-", "." and "".
SPECTACULAR_DECIMAL = re.compile(r"\^-\?\\d\{0,(\d+)\}\(\?:\\\.\\d\{0,(\d+)\}\)\?\$")


def decimal_pattern(digits: int, places: int) -> str:
    """A decimal string DRF's DecimalField reads: at least one digit ("-", "." are not)."""
    return rf"^-?(?:\d{{1,{digits}}}(?:\.\d{{0,{places}}})?|\.\d{{1,{places}}})$"


def bound_integers(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every integer of a body is bounded by what the JSON reader takes
    (core.formats.jsonl.MAX_INTEGER_DIGITS), so the schema does not promise numbers a
    request may not carry; a decimal string needs a digit. An enum query parameter may also be
    empty: django-filter reads `?status=` as no filter."""
    largest = 10**MAX_INTEGER_DIGITS - 1

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "integer":
                node["minimum"] = max(node.get("minimum", -largest), -largest)
                node["maximum"] = min(node.get("maximum", largest), largest)
            found = SPECTACULAR_DECIMAL.fullmatch(str(node.get("pattern", "")))
            if node.get("format") == "decimal" and found:
                node["pattern"] = decimal_pattern(int(found[1]), int(found[2]))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result.get("components"))
    for operations in result.get("paths", {}).values():
        for operation in operations.values():  # bodies only: a query's numbers are not JSON
            visit(operation.get("requestBody"))
            visit(operation.get("responses"))
            for parameter in operation.get("parameters", []):
                enum = parameter["schema"].get("enum")
                if parameter["in"] == "query" and enum and "" not in enum:
                    parameter["schema"]["enum"] = [*enum, ""]
    return result
