"""Loading a framework from files: update in place by code, create what is new, keep history.

Nothing is deleted by a load: an item missing from the file may still be used by tasks, so it is
reported and left for a person to retire."""

from dataclasses import dataclass, field
from typing import Any

from django.db import models, transaction

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency
from taxonomy.seedfile import FrameworkSpec, VariableSpec


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    not_in_file: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"{len(self.created)} created, {len(self.updated)} updated, {self.unchanged} unchanged"
        )
        if self.not_in_file:
            text += f"; kept but not in the file: {', '.join(self.not_in_file)}"
        return text


def _upsert[M: models.Model](
    model: type[M],
    lookup: dict[str, Any],
    values: dict[str, Any],
    report: LoadReport,
    actor: User | None,
) -> M:
    obj = model._default_manager.filter(**lookup).first()
    if obj is None:
        obj = model._default_manager.create(**lookup, **values)
        after = audit.snapshot(obj, values)
        audit.record(obj, AuditEvent.Kind.IMPORTED, actor, {k: [None, v] for k, v in after.items()})
        report.created.append(str(obj))
        return obj
    before = audit.snapshot(obj, values)
    for name, value in values.items():
        setattr(obj, name, value)
    delta = audit.diff(before, audit.snapshot(obj, values))
    if delta:
        if hasattr(obj, "revision"):
            obj.revision += 1
        obj.save()
        audit.record(obj, AuditEvent.Kind.IMPORTED, actor, delta)
        report.updated.append(str(obj))
    else:
        report.unchanged += 1
    return obj


@transaction.atomic
def load_framework(spec: FrameworkSpec, actor: User | None = None) -> tuple[Framework, LoadReport]:
    report = LoadReport()
    framework = _upsert(
        Framework,
        {"code": spec.code},
        {"name": spec.name, "note": spec.note, "description": spec.description},
        report,
        actor,
    )
    seen_subs: set[int] = set()
    seen_competencies: set[int] = set()
    for comp_spec in spec.competencies:
        competency = _upsert(
            Competency,
            {"framework": framework, "code": comp_spec.code},
            {
                "name": comp_spec.name,
                "order": comp_spec.order,
                "description": comp_spec.description,
            },
            report,
            actor,
        )
        seen_competencies.add(competency.pk)
        for sub_spec in comp_spec.sub_competencies:
            # Matched by code across the framework, so a sub-competency moved to another
            # competency in the file is moved, not duplicated.
            existing = SubCompetency.objects.filter(
                competency__framework=framework, code=sub_spec.code
            ).first()
            lookup = {"pk": existing.pk} if existing else {"code": sub_spec.code}
            sub = _upsert(
                SubCompetency,
                lookup,
                {
                    "competency": competency,
                    "name": sub_spec.name,
                    "order": sub_spec.order,
                    "description": sub_spec.description,
                },
                report,
                actor,
            )
            seen_subs.add(sub.pk)
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
    seen: set[int] = set()
    for spec in specs:
        variable = _upsert(
            ContextVariable,
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
            },
            report,
            actor,
        )
        seen.add(variable.pk)
        for value in spec.values:
            _upsert(
                ContextValue,
                {"variable": variable, "code": value.code},
                {"label": value.label, "order": value.order},
                report,
                actor,
            )
    report.not_in_file += [str(v) for v in framework.context_variables.exclude(pk__in=seen)]
    return report
