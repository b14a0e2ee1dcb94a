"""Loading a framework from files: update in place by code, create what is new, keep history.

Nothing is deleted by a load: an item missing from the file may still be used by tasks, so it is
reported and left for a person to retire."""

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, transaction
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    Framework,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)
from taxonomy.scales import sync_scale_values
from taxonomy.seedfile import FrameworkSpec, ScaleSpec, SeedFileError, VariableSpec


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    not_in_file: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """What was loaded, in the active language (a command's: the shell's)."""
        values = {
            "created": len(self.created),
            "updated": len(self.updated),
            "unchanged": self.unchanged,
            "kept": ", ".join(self.not_in_file),
        }
        if self.not_in_file:
            return (
                gettext(
                    "%(created)s created, %(updated)s updated, %(unchanged)s unchanged; kept "
                    "but not in the file: %(kept)s"
                )
                % values
            )
        return gettext("%(created)s created, %(updated)s updated, %(unchanged)s unchanged") % values


type Row = tuple[Hashable, dict[str, Any], dict[str, Any]]


def _upsert_all[M: models.Model](
    model: type[M],
    existing: dict[Hashable, M],
    rows: Iterable[Row],
    report: LoadReport,
    actor: User | None,
) -> dict[Hashable, M]:
    """Create or update one object per row, in bulk: a row is (key, the fields that identify a
    new object, the values the file gives); `existing` holds the saved objects by key. A changed
    object gets its revision bumped (so an open edit form sees the change) and an history entry."""
    loaded: dict[Hashable, M] = {}
    new: list[tuple[M, dict[str, Any]]] = []
    changed: list[tuple[M, dict[str, list[Any]]]] = []
    fields: set[str] = set()
    for key, identity, values in rows:
        fields.update(values)
        obj = existing.get(key)
        if obj is None:
            obj = model(**identity, **values)
            new.append((obj, values))
        else:
            before = audit.snapshot(obj, values)
            for name, value in values.items():
                setattr(obj, name, value)
            delta = audit.diff(before, audit.snapshot(obj, values))
            if delta:
                if hasattr(obj, "revision"):
                    obj.revision += 1
                changed.append((obj, delta))
            else:
                report.unchanged += 1
        loaded[key] = obj
    _check_fields([obj for obj, _ in new] + [obj for obj, _ in changed])
    model._default_manager.bulk_create([obj for obj, _ in new])
    if changed:
        if hasattr(model, "revision"):
            fields.add("revision")
        model._default_manager.bulk_update([obj for obj, _ in changed], sorted(fields))
    events = []
    for obj, values in new:
        after = audit.snapshot(obj, values)
        events.append(
            audit.event(
                obj, AuditEvent.Kind.IMPORTED, actor, {k: [None, v] for k, v in after.items()}
            )
        )
        report.created.append(str(obj))
    for obj, delta in changed:
        events.append(audit.event(obj, AuditEvent.Kind.IMPORTED, actor, delta))
        report.updated.append(str(obj))
    audit.record_many(events)
    return loaded


def _check_fields(objects: Sequence[models.Model]) -> None:
    """The models' own field rules (lengths, slugs, choices, clean()) for what a file would
    write, every problem at once, before anything is written. Relations and uniqueness are
    the loader's own business (it matches by code), so they are left out here."""
    problems = []
    for obj in objects:
        relations = [f.name for f in obj._meta.concrete_fields if f.is_relation]
        try:
            obj.full_clean(exclude=relations, validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                for message in messages:
                    problems.append(
                        gettext("%(object)s: %(field)s: %(message)s")
                        % {"object": obj, "field": name, "message": message}
                        if name != NON_FIELD_ERRORS
                        else gettext("%(object)s: %(message)s")
                        % {"object": obj, "message": message}
                    )
    if problems:
        raise SeedFileError(problems)


@transaction.atomic
def load_framework(spec: FrameworkSpec, actor: User | None = None) -> tuple[Framework, LoadReport]:
    report = LoadReport()
    saved = Framework.objects.filter(code=spec.code).first()
    framework = _upsert_all(
        Framework,
        {spec.code: saved} if saved else {},
        [
            (
                spec.code,
                {"code": spec.code},
                {"name": spec.name, "note": spec.note, "description": spec.description},
            )
        ],
        report,
        actor,
    )[spec.code]
    competencies = _upsert_all(
        Competency,
        {c.code: c for c in framework.competencies.all()},
        [
            (
                comp.code,
                {"framework": framework, "code": comp.code},
                {"name": comp.name, "order": comp.order, "description": comp.description},
            )
            for comp in spec.competencies
        ],
        report,
        actor,
    )
    # Matched by code across the framework, so a sub-competency moved to another competency in
    # the file is moved, not duplicated.
    subs = _upsert_all(
        SubCompetency,
        {
            s.code: s
            for s in SubCompetency.objects.filter(competency__framework=framework).select_related(
                "competency"
            )
        },
        [
            (
                sub.code,
                {"code": sub.code},
                {
                    "competency": competencies[comp.code],
                    "name": sub.name,
                    "order": sub.order,
                    "description": sub.description,
                    # The file names it: no longer a placeholder an import made.
                    "placeholder": False,
                },
            )
            for comp in spec.competencies
            for sub in comp.sub_competencies
        ],
        report,
        actor,
    )
    seen_competencies = {c.pk for c in competencies.values()}
    seen_subs = {s.pk for s in subs.values()}
    report.not_in_file += [
        str(c) for c in framework.competencies.exclude(pk__in=seen_competencies)
    ] + [
        str(s)
        for s in SubCompetency.objects.filter(competency__framework=framework).exclude(
            pk__in=seen_subs
        )
    ]
    return framework, report


@transaction.atomic
def load_context_variables(
    framework: Framework, specs: tuple[VariableSpec, ...], actor: User | None = None
) -> LoadReport:
    report = LoadReport()
    scales = {scale.code: scale for scale in framework.scales.all()}
    unknown = sorted({spec.scale for spec in specs if spec.scale and spec.scale not in scales})
    if unknown:
        raise SeedFileError(
            [
                gettext("No proficiency scale '%(code)s' in %(framework)s: load the scales first.")
                % {"code": code, "framework": framework}
                for code in unknown
            ]
        )
    variables = _upsert_all(
        ContextVariable,
        {v.key: v for v in framework.context_variables.all()},
        [
            (
                spec.key,
                {"framework": framework, "key": spec.key},
                {
                    "label": spec.label,
                    "kind": spec.kind,
                    "order": spec.order,
                    "group": spec.group,
                    "description": spec.description,
                    "source": spec.source,
                    "minimum": spec.minimum,
                    "maximum": spec.maximum,
                    "whole_numbers": spec.whole_numbers,
                    "scale": scales.get(spec.scale),
                },
            )
            for spec in specs
        ],
        report,
        actor,
    )
    _upsert_all(
        ContextValue,
        {
            (value.variable_id, value.code): value
            for value in ContextValue.objects.filter(variable__framework=framework)
        },
        [
            (
                (variables[spec.key].pk, value.code),
                {"variable": variables[spec.key], "code": value.code},
                {"label": value.label, "order": value.order},
            )
            for spec in specs
            for value in spec.values
        ],
        report,
        actor,
    )
    sync_scale_values(variables=variables.values(), actor=actor)
    seen = {v.pk for v in variables.values()}
    report.not_in_file += [str(v) for v in framework.context_variables.exclude(pk__in=seen)]
    return report


@transaction.atomic
def load_scales(
    framework: Framework, specs: tuple[ScaleSpec, ...], actor: User | None = None
) -> LoadReport:
    """Proficiency scales, their levels and the mapping between them, matched by code; the
    values of variables bound to a loaded scale follow its levels."""
    report = LoadReport()
    scales = _upsert_all(
        ProficiencyScale,
        {scale.code: scale for scale in framework.scales.all()},
        [
            (
                spec.code,
                {"framework": framework, "code": spec.code},
                {
                    "name": spec.name,
                    "order": spec.order,
                    "description": spec.description,
                    "source": spec.source,
                },
            )
            for spec in specs
        ],
        report,
        actor,
    )
    saved = ProficiencyLevel.objects.filter(scale__framework=framework).select_related("scale")
    levels = _upsert_all(
        ProficiencyLevel,
        {(level.scale.code, level.code): level for level in saved},
        [
            (
                (spec.code, level.code),
                {"scale": scales[spec.code], "code": level.code},
                {"label": level.label, "order": level.order, "description": level.description},
            )
            for spec in specs
            for level in spec.levels
        ],
        report,
        actor,
    )
    for level in saved:
        levels.setdefault((level.scale.code, level.code), level)
    problems: list[str] = []

    def find(scale: str, code: str, where: str) -> ProficiencyLevel | None:
        if not code:
            return None
        found = levels.get((scale, code))
        if found is None:
            problems.append(
                gettext("%(where)s: no level '%(code)s' in scale '%(scale)s'")
                % {"where": where, "code": code, "scale": scale}
            )
        return found

    mapped: list[Row] = []
    for spec in specs:
        for level_spec in spec.levels:
            if level_spec.corresponds_to is None:
                continue
            where = gettext("scale %(scale)s, level %(level)s") % {
                "scale": spec.code,
                "level": level_spec.label,
            }
            scale, low, high = level_spec.corresponds_to
            if scale == spec.code:
                problems.append(
                    gettext("%(where)s: a level corresponds to another scale's level")
                    % {"where": where}
                )
            mapped.append(
                (
                    (spec.code, level_spec.code),
                    {},
                    {
                        "corresponds_to": find(scale, low, where),
                        "corresponds_to_upper": find(scale, high, where),
                    },
                )
            )
    if problems:
        raise SeedFileError(problems)
    _upsert_all(ProficiencyLevel, levels, mapped, LoadReport(), actor)
    sync_scale_values(scales=scales.values(), actor=actor)
    return report
