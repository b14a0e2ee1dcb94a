from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from audit.history import read_text, readings_of
from l2annot.shown import message_text


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
    # The comment as a stored message (core.messages: its English template and values), for
    # the comments written as one; `comment` keeps its English text.
    message = models.JSONField(
        default=dict,
        blank=True,
        verbose_name=_("message"),
        help_text=_("The comment's English template and values, shown in the reader's language."),
    )

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
        (or the name its history gives a change that is no field, its `labels`), a choice by
        its label, a list as its items, a text its history reads (its `values`: a stored key,
        an old wording) as it reads it; in the reader's language (audit.history)."""
        model = self._model()
        readings = readings_of(model)
        rows = []
        for name, (old, new) in sorted(self.changes.items()):
            if (read_list := readings.lists.get(name)) is not None:
                old, new = (read_list(v) if isinstance(v, list) else v for v in (old, new))
            field, read = _field(model, name), readings.values.get(name)
            label = readings.labels.get(name) or (field.verbose_name if field is not None else name)
            rows.append((str(label), _shown(field, old, read), _shown(field, new, read)))
        return rows

    @property
    def shown_comment(self) -> str:
        """The comment in the reader's language: a stored message through the catalogue, an
        English text stored before as the model's history reads it (audit.history); else as
        stored (a person's own words)."""
        if self.message:
            return message_text(self.message)
        return read_text(self.comment, readings_of(self._model()).comments)

    def _model(self) -> type[models.Model] | None:
        return ContentType.objects.get_for_id(self.content_type_id).model_class()


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
