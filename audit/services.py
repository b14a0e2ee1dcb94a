"""Recording changes. Call these from the service that makes the change, inside its transaction."""

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models

from accounts.models import User
from audit.models import AuditEvent
from core.messages import Text
from l2annot.bulk_insert import insert, insert_rows


def snapshot(obj: models.Model, fields: Iterable[str]) -> dict[str, Any]:
    """Plain JSON-able values of `fields` (foreign keys as their string form)."""
    values: dict[str, Any] = {}
    for name in fields:
        value = getattr(obj, name)
        if isinstance(value, models.Model):
            value = str(value)
        elif isinstance(value, Decimal):
            value = format(value.normalize(), "f")
        elif value is not None and not isinstance(value, str | int | float | bool | list | dict):
            value = str(value)
        values[name] = value
    return values


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        name: [before.get(name), after.get(name)]
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    }


BATCH = 500


def event(
    obj: models.Model,
    kind: AuditEvent.Kind | str,
    actor: User | None = None,
    changes: dict[str, list[Any]] | None = None,
    comment: str = "",
) -> AuditEvent:
    """The unsaved event saying that `actor` made `changes` to `obj`: `record` saves one,
    `record_many` saves a batch of them in bulk. A comment the code writes is a stored message
    (`core.messages.gettext_noop`), read in the reader's language; a person's own words are
    a plain text."""
    # Ids, not objects: an import makes thousands of events, and setting a foreign key by
    # its object (then checking it again before the insert) is most of an event's cost.
    return AuditEvent(
        content_type_id=ContentType.objects.get_for_model(obj, for_concrete_model=False).pk,
        object_id=str(obj.pk),
        object_repr=str(obj)[:300],
        actor_id=_actor_id(actor),
        kind=kind,
        changes=changes or {},
        comment=str(comment),
        message=_message(comment),
    )


def record(
    obj: models.Model,
    kind: AuditEvent.Kind | str,
    actor: User | None = None,
    changes: dict[str, list[Any]] | None = None,
    comment: str = "",
) -> AuditEvent:
    saved = event(obj, kind, actor, changes, comment)
    saved.save()
    return saved


def record_many(events: Iterable[AuditEvent]) -> list[AuditEvent]:
    """Save events made by `event` in bulk inserts (an import records thousands)."""
    return insert(AuditEvent, events)


# The columns of an event that record_rows fills (`at` is stamped on insert).
EVENT_FIELDS = (
    "content_type_id",
    "object_id",
    "object_repr",
    "actor_id",
    "kind",
    "changes",
    "comment",
    "message",
)


def record_rows(
    model: type[models.Model],
    kind: AuditEvent.Kind | str,
    actor: User | None,
    objects: Iterable[tuple[Any, str, dict[str, list[Any]] | None]],
    comment: str = "",
) -> list[int]:
    """Save the events `record_many` saves for `event(obj, kind, actor, changes, comment)` of
    each object of `model`, given as its (primary key, `str(obj)`, changes): no instance of the
    object or of its event is made (an import records tens of thousands). Returns their ids."""
    content_type = ContentType.objects.get_for_model(model, for_concrete_model=False).pk
    actor_id = _actor_id(actor)
    kind = AuditEvent.Kind(kind).value
    message = _message(comment)
    return insert_rows(
        AuditEvent,
        EVENT_FIELDS,
        (
            (
                content_type,
                str(pk),
                text[:300],
                actor_id,
                kind,
                changes or {},
                str(comment),
                message,
            )
            for pk, text, changes in objects
        ),
    )


def _message(comment: str) -> dict[str, object]:
    return comment.as_json() if isinstance(comment, Text) else {}


def _actor_id(actor: User | None) -> int | None:
    return actor.pk if actor is not None and actor.is_authenticated else None


def record_creation(
    obj: models.Model, fields: Iterable[str], actor: User | None = None
) -> AuditEvent:
    after = snapshot(obj, fields)
    return record(obj, AuditEvent.Kind.CREATED, actor, {k: [None, v] for k, v in after.items()})


def record_deletion(
    obj: models.Model, fields: Iterable[str], actor: User | None = None
) -> AuditEvent:
    before = snapshot(obj, fields)
    return record(obj, AuditEvent.Kind.DELETED, actor, {k: [v, None] for k, v in before.items()})
