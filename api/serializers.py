from typing import Any, ClassVar

from rest_framework import serializers


class RevisionedSerializer(serializers.ModelSerializer):
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
        return super().validate(attrs)
