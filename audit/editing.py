"""Saving edits made by people: refuse stale ones, refuse deletes that would orphan data, and
keep the history. Every editable model has a `revision` integer that each save increments."""

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import models, transaction
from django.db.models import Max, ProtectedError
from django.utils.translation import gettext

from accounts.models import User
from audit import services
from audit.models import AuditEvent
from core.refusals import Conflict


class EditConflict(Conflict):
    """Someone saved the object after this editor loaded it."""

    def __init__(self, current: models.Model, theirs: Mapping[str, Any]) -> None:
        super().__init__(
            gettext("%(object)s was changed by someone else while you were editing it.")
            % {"object": current}
        )
        self.current: Any = current  # a model with a `revision`
        self.theirs = dict(theirs)

    def differences(self, mine: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
        """(field, their value, my value) for each field where the two differ: the rows of the
        conflict partial (templates/_conflict.html)."""
        return [
            (name.replace("_", " "), value, mine.get(name))
            for name, value in self.theirs.items()
            if str(value if value is not None else "") != str(mine.get(name) or "")
        ]


class DeleteRefused(Conflict):
    """Other data still refers to the object; the message names it."""

    def __init__(self, obj: models.Model, dependents: Iterable[models.Model]) -> None:
        by_kind: dict[str, list[str]] = defaultdict(list)
        for dep in dependents:
            by_kind[str(dep._meta.verbose_name_plural)].append(str(dep))
        parts = []
        for kind, names in sorted(by_kind.items()):
            shown = ", ".join(sorted(names)[:5]) + (" ..." if len(names) > 5 else "")
            parts.append(f"{len(names)} {kind} ({shown})")
        super().__init__(
            gettext("%(object)s cannot be deleted: it is used by %(dependents)s.")
            % {"object": obj, "dependents": "; ".join(parts)}
        )


class OrderedQuerySet[M: models.Model](models.QuerySet[M]):
    """Siblings kept in an order column (`order` unless a subclass names another): `move`
    renumbers them, `next_order` says where a new one goes."""

    order_field = "order"

    def next_order(self) -> int:
        """The place of a new sibling: after the last one, whatever gaps deletions left."""
        return (self.aggregate(last=Max(self.order_field))["last"] or 0) + 1


def _editable_fields(changes: Mapping[str, Any]) -> list[str]:
    return [name for name in changes if name != "revision"]


@transaction.atomic
def create[M: models.Model](instance: M, actor: User | None, fields: Iterable[str]) -> M:
    instance.full_clean()
    instance.save()
    services.record_creation(instance, fields, actor)
    return instance


@transaction.atomic
def update[M: models.Model](
    instance: M, changes: Mapping[str, Any], expected_revision: int, actor: User | None
) -> M:
    """Apply `changes` if nobody saved since `expected_revision`; else raise EditConflict."""
    model = type(instance)
    # NO KEY: the edit never changes the key, and a row that others' foreign keys point at
    # stays referable while it is edited (a plain FOR UPDATE blocks their key-share checks,
    # so two edits pointing at each other's rows would deadlock).
    current = model._default_manager.select_for_update(no_key=True, of=("self",)).get(
        pk=instance.pk
    )
    names = _editable_fields(changes)
    if current.revision != expected_revision:  # type: ignore[attr-defined]
        raise EditConflict(current, services.snapshot(current, names))
    before = services.snapshot(current, names)
    for name in names:
        setattr(current, name, changes[name])
    current.full_clean()
    after = services.snapshot(current, names)
    delta = services.diff(before, after)
    if delta:
        current.revision += 1  # type: ignore[attr-defined]
        current.save()
        services.record(current, AuditEvent.Kind.UPDATED, actor, delta)
    return current


@transaction.atomic
def delete(instance: models.Model, actor: User | None, fields: Iterable[str]) -> None:
    # Record first so the event carries the object's id; a refused delete rolls it back.
    services.record_deletion(instance, fields, actor)
    try:
        instance.delete()
    except ProtectedError as exc:
        raise DeleteRefused(instance, exc.protected_objects) from exc


@transaction.atomic
def move[M: models.Model](
    instance: M, siblings: models.QuerySet[M], offset: int, actor: User | None
) -> M:
    """Move `instance` up (-1) or down (+1) among `siblings`, renumbering them 1..n."""
    ordered = list(siblings.select_for_update(of=("self",)).order_by("order", "pk"))
    index = next(i for i, obj in enumerate(ordered) if obj.pk == instance.pk)
    target = max(0, min(len(ordered) - 1, index + offset))
    if target == index:
        return ordered[index]
    moved = ordered.pop(index)
    ordered.insert(target, moved)
    for position, obj in enumerate(ordered, start=1):
        if obj.order != position:  # type: ignore[attr-defined]
            obj.order = position  # type: ignore[attr-defined]
            obj.save(update_fields=["order"])
    services.record(moved, AuditEvent.Kind.MOVED, actor, {"position": [index + 1, target + 1]})
    return moved
