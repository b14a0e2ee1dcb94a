from collections.abc import Mapping
from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import ProhibitNullCharactersValidator
from django.http import QueryDict
from rest_framework import serializers
from rest_framework.fields import empty

TEXT_FIELDS = (
    *(serializers.CharField, serializers.ChoiceField, serializers.SlugRelatedField),
    *(serializers.DateTimeField, serializers.DateField),
)


def json_type_error(field: serializers.Field[Any, Any, Any, Any], value: Any) -> str | None:
    """Why `value`, read from a JSON body, is not of the type the schema gives `field`; None
    when it is (or when the field's own validation decides, as for null). A list's items are
    checked one by one."""
    if value is None or value is empty or field.read_only:
        return None
    if isinstance(field, (serializers.ListField, serializers.ManyRelatedField)):
        if not isinstance(value, list):  # DRF would read an object as the list of its keys
            return "Must be a list."
        if len(value) > settings.API_MAX_LIST_ITEMS:  # before DRF looks each one up
            return f"At most {settings.API_MAX_LIST_ITEMS:,} items; this list has {len(value):,}."
        child = field.child if isinstance(field, serializers.ListField) else field.child_relation
        return next(
            (
                f"Item {index}: {message}"
                for index, item in enumerate(value)
                if (message := json_type_error(child, item))
            ),
            None,
        )
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "Must be true or false."
    if isinstance(field, (serializers.IntegerField, serializers.PrimaryKeyRelatedField)):
        whole = isinstance(value, int) and not isinstance(value, bool)
        return None if whole else "Must be a whole number."
    if isinstance(field, serializers.ChoiceField) and not all(
        isinstance(choice, str) for choice in field.choices
    ):
        return None
    if isinstance(field, TEXT_FIELDS):
        return None if isinstance(value, str) else "Must be a string."
    return None


class SlugRelatedField(serializers.SlugRelatedField[Any]):
    """DRF's, refusing a NUL character as a text field does, before the lookup: PostgreSQL
    cannot take one in a query and would fail with an error."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            raise serializers.ValidationError(ProhibitNullCharactersValidator.message)
        return super().to_internal_value(data)


class StrictJsonTypes(serializers.Serializer[Any]):
    """JSON objects are taken as the schema describes them: values of the types it gives and
    no field it does not name (the schema says `additionalProperties: false`). DRF would read
    0 as "0" for a text field and "3" or 3.0 as 3 for a number, and would drop a misspelt
    field without a word. A form post (a QueryDict: every value a string) is left to the
    fields."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and not isinstance(data, QueryDict):
            errors = {
                name: [message]
                for name, field in self.fields.items()
                if (message := json_type_error(field, data.get(field.field_name, empty)))
            }
            named = {field.field_name for field in self.fields.values()}
            errors |= {str(key): ["Unknown field."] for key in data if key not in named}
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class ApiSerializer(StrictJsonTypes, serializers.Serializer[Any]):
    """The base of the API's plain serializers."""


class ApiModelSerializer(StrictJsonTypes, serializers.ModelSerializer[Any]):
    """The base of the API's model serializers."""


class RevisionedSerializer(ApiModelSerializer):
    """A model with a `revision`: readers get it, writers send it back to prove they saw the
    latest version (or use If-Match). `parent_field` can be set on creation only."""

    parent_field: ClassVar[str | None] = None

    revision = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**31 - 1,
        help_text="Increases with every saved change. Send back the one you read when you "
        "change the object: if someone saved since, the change is refused with 409.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        parent = self.parent_field
        moved = (
            self.instance is not None
            and parent in attrs
            and attrs[parent] != getattr(self.instance, parent)
        )
        if moved and parent is not None:
            raise serializers.ValidationError(
                {parent: ["Cannot be changed: create a new object under the other one."]}
            )
        validated: dict[str, Any] = super().validate(attrs)
        return validated
