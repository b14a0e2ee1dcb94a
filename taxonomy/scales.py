"""Proficiency scales: keeping the values of scale-bound variables in step with the levels, and
the level reports group on.

A variable that takes a scale's levels (ContextVariable.scale) holds one ContextValue per level
(ContextValue.level), so tasks, forms, importers, the API and publishing treat it like any other
ordinal variable. The values follow the levels: whoever changes a scale or binds a variable calls
`sync_scale_values` in the same transaction (the outline views and the API do), never a signal."""

from collections.abc import Iterable

from django.db import transaction

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from taxonomy.models import ContextValue, ContextVariable, ProficiencyLevel, ProficiencyScale

SYNCED_FIELDS = ("code", "label", "description", "order", "level")


@transaction.atomic
def sync_scale_values(
    scales: Iterable[ProficiencyScale] = (),
    variables: Iterable[ContextVariable] = (),
    actor: User | None = None,
) -> int:
    """Give every variable bound to one of `scales`, and every one of `variables` that is bound
    to a scale, one value per level of its scale (matched by level, then by code), with the
    level's code, label, description and order; returns how many values were created or changed.

    A value tied to a level of another scale (one of `variables` changed scale or lost it) stays,
    untied: tasks may use it."""
    wanted = {v.pk: v for v in variables}
    for variable in ContextVariable.objects.filter(scale__in=list(scales)):
        wanted.setdefault(variable.pk, variable)
    if not wanted:
        return 0
    scale_ids = {v.scale_id for v in wanted.values() if v.scale_id is not None}
    levels: dict[int | None, list[ProficiencyLevel]] = {}
    in_order = ProficiencyLevel.objects.filter(scale__in=scale_ids).order_by("order", "pk")
    for level in in_order.select_related("scale"):
        levels.setdefault(level.scale_id, []).append(level)
    existing: dict[int, list[ContextValue]] = {}
    for value in ContextValue.objects.filter(variable__in=list(wanted)):
        existing.setdefault(value.variable_id, []).append(value)
    events: list[AuditEvent] = []
    touched = 0
    for variable in wanted.values():
        values = existing.get(variable.pk, [])
        by_level = {v.level_id: v for v in values if v.level_id is not None}
        by_code = {v.code: v for v in values}
        own = {level.pk for level in levels.get(variable.scale_id, [])}
        for stray in [v for v in values if v.level_id is not None and v.level_id not in own]:
            before = audit.snapshot(stray, ["level"])
            stray.level = None
            stray.revision += 1
            stray.save()
            delta = audit.diff(before, audit.snapshot(stray, ["level"]))
            events.append(audit.event(stray, AuditEvent.Kind.UPDATED, actor, delta))
            touched += 1
        for level in levels.get(variable.scale_id, []):
            target = {
                "code": level.code,
                "label": level.label,
                "description": level.description,
                "order": level.order,
                "level": level,
            }
            found = by_level.get(level.pk) or by_code.get(level.code)
            if found is None:
                value = ContextValue(variable=variable, **target)
                value.save()
                after = audit.snapshot(value, SYNCED_FIELDS)
                changes = {k: [None, v] for k, v in after.items()}
                events.append(audit.event(value, AuditEvent.Kind.CREATED, actor, changes))
                touched += 1
                continue
            before = audit.snapshot(found, SYNCED_FIELDS)
            for name, new in target.items():
                setattr(found, name, new)
            delta = audit.diff(before, audit.snapshot(found, SYNCED_FIELDS))
            if delta:
                found.revision += 1
                found.save()
                events.append(audit.event(found, AuditEvent.Kind.UPDATED, actor, delta))
                touched += 1
    audit.record_many(events)
    return touched


def reporting_levels(
    levels: Iterable[ProficiencyLevel], db: str = "default"
) -> dict[int, ProficiencyLevel]:
    """For each level, the level reports group it on: the start of the range it corresponds
    to, followed until a level maps to nothing (ACTFL Intermediate Mid -> CEFR B1; a CEFR level
    is itself). Levels loaded with `corresponds_to__scale` cost no query for one step; each
    further step of the longest chain costs one."""
    wanted = list(levels)
    mapping = ProficiencyLevel._meta.get_field("corresponds_to")
    known: dict[int, ProficiencyLevel] = {}
    for level in wanted:
        known[level.pk] = level
        if level.corresponds_to_id is not None and mapping.is_cached(level):
            known[level.corresponds_to_id] = level.corresponds_to  # type: ignore[assignment]
    while missing := {
        level.corresponds_to_id
        for level in known.values()
        if level.corresponds_to_id is not None and level.corresponds_to_id not in known
    }:
        found = ProficiencyLevel.objects.using(db).filter(pk__in=missing).select_related("scale")
        known |= {level.pk: level for level in found}
        if not missing <= known.keys():  # deleted meanwhile: stop where the chain breaks
            break
    grouped = {}
    for level in wanted:
        seen = {level.pk}
        current = level
        while (nxt := current.corresponds_to_id) is not None and nxt not in seen and nxt in known:
            seen.add(nxt)
            current = known[nxt]
        grouped[level.pk] = current
    return grouped


def reporting_label(level: ProficiencyLevel) -> tuple[str, str]:
    """The (group, value) pair a report shows for a task at `level`: ("CEFR level", "B1")."""
    return f"{level.scale.name} level", level.label
