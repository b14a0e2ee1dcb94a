import re
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

# A stored text and how to read it: a pattern it matches whole, and what it reads as then.
Reading = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def for_object(self, obj: models.Model) -> "AuditEventQuerySet":
        return self.filter(
            content_type=ContentType.objects.get_for_model(obj, for_concrete_model=False),
            object_id=str(obj.pk),
        )


class AuditEvent(models.Model):
    """One change to one object: who, when, what. Written by the services that make the change,
    in the same transaction, so history and data never disagree."""

    class Kind(models.TextChoices):
        CREATED = "created", _("created")
        UPDATED = "updated", _("updated")
        DELETED = "deleted", _("deleted")
        MOVED = "moved", _("reordered")
        IMPORTED = "imported", _("imported")
        STATUS = "status", _("status changed")

    content_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, verbose_name=_("content type")
    )
    object_id = models.CharField(max_length=64, verbose_name=_("object id"))
    object_repr = models.CharField(max_length=300, verbose_name=_("object"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("actor"),
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("recorded at"))
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    # {"field": [old, new], ...}; for a creation old is null, for a deletion new is null.
    changes = models.JSONField(default=dict, blank=True, verbose_name=_("changes"))
    comment = models.TextField(blank=True, verbose_name=_("comment"))

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["content_type", "object_id", "-at"])]

    def __str__(self) -> str:
        return f"{self.object_repr} {self.get_kind_display()} by {self.actor or 'system'}"

    def change_rows(self) -> list[tuple[str, Any, Any]]:
        """(what changed, before, after) as a person reads them: a field by its verbose name
        (or the name the model gives a change that is no field, in `HISTORY_LABELS`), a choice
        by its label, a list as its items, a text the model reads (`HISTORY_VALUES`: a stored
        key, an old wording) as it reads it; in the reader's language."""
        model = self._model()
        labels = getattr(model, "HISTORY_LABELS", {})
        values: Mapping[str, Callable[[str], str]] = getattr(model, "HISTORY_VALUES", {})
        rows = []
        for name, (old, new) in sorted(self.changes.items()):
            field, read = _field(model, name), values.get(name)
            label = labels.get(name) or (field.verbose_name if field is not None else name)
            rows.append((str(label), _shown(field, old, read), _shown(field, new, read)))
        return rows

    @property
    def shown_comment(self) -> str:
        """The comment in the reader's language where the model knows how to read it (its
        `HISTORY_COMMENTS`, for the comments its services store in English); else as stored."""
        readings: list[Reading] = getattr(self._model(), "HISTORY_COMMENTS", [])
        return read_text(self.comment, readings)

    def _model(self) -> type[models.Model] | None:
        return ContentType.objects.get_for_id(self.content_type_id).model_class()


def read_text(text: str, readings: list[Reading]) -> str:
    """`text` as the first of `readings` whose pattern it matches whole reads it; else as is."""
    for pattern, reading in readings:
        found = pattern.fullmatch(text)
        if found is not None:
            return reading(found)
    return text


def _field(model: type[models.Model] | None, name: str) -> models.Field[Any, Any] | None:
    try:
        found = model._meta.get_field(name) if model is not None else None
    except FieldDoesNotExist:
        return None
    return found if isinstance(found, models.Field) else None


def _shown(
    field: models.Field[Any, Any] | None, value: Any, read: Callable[[str], str] | None = None
) -> Any:
    if isinstance(value, list):
        return ", ".join(str(_shown(field, item, read)) for item in value) or None
    if read is not None and isinstance(value, str):
        return read(value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if field is not None and field.choices and value is not None:
        return dict(field.flatchoices).get(value, value)
    return value
