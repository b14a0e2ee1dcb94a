"""What changed between two versions of a rubric, criterion by criterion, for a diff page."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rubrics.models import EffectiveCriterion, RubricVersion

TASK_TEXT_FIELDS = ("instruction", "system_prompt", "reference_answer")


@dataclass(frozen=True)
class CriterionChange:
    code: str
    change: Literal["added", "removed", "changed"]
    # {field: (old, new)}; for "added" old is None, for "removed" new is None.
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class RubricDiff:
    task_fields: dict[str, tuple[str, str]]
    criteria: list[CriterionChange]

    @property
    def is_empty(self) -> bool:
        return not self.task_fields and not self.criteria


def describe(line: EffectiveCriterion) -> dict[str, Any]:
    """The comparable content of one rubric line."""
    version = line.version
    return {
        "layer": line.layer,
        "version": version.number,
        "wording": version.wording,
        "passes": version.passes,
        "fails": version.fails,
        "pass_example": version.pass_example,
        "fail_example": version.fail_example,
        "weight": line.weight,
        "scoring_type": version.scoring_type,
        "scale": (version.scale_min, version.scale_max),
        "scale_labels": {p.value: p.label for p in version.scale_points.all()},
        "applicable": line.applicable,
        "na_reason": line.na_reason,
    }


def diff_rubrics(
    old: Sequence[EffectiveCriterion], new: Sequence[EffectiveCriterion]
) -> list[CriterionChange]:
    """Criteria added, removed or changed from `old` to `new`, matched by criterion identity
    (so a renamed code still counts as the same criterion); in `new`'s order, removed last."""
    before = {line.criterion.pk: line for line in old}
    after = {line.criterion.pk: line for line in new}
    changes: list[CriterionChange] = []
    for pk, line in after.items():
        now = describe(line)
        if pk not in before:
            changes.append(
                CriterionChange(line.code, "added", {k: (None, v) for k, v in now.items()})
            )
            continue
        was = describe(before[pk])
        fields = {k: (was[k], now[k]) for k in now if was[k] != now[k]}
        if before[pk].code != line.code:
            fields["code"] = (before[pk].code, line.code)
        if fields:
            changes.append(CriterionChange(line.code, "changed", fields))
    for pk, line in before.items():
        if pk not in after:
            was = describe(line)
            changes.append(
                CriterionChange(line.code, "removed", {k: (v, None) for k, v in was.items()})
            )
    return changes


def diff_rubric_versions(a: RubricVersion, b: RubricVersion) -> RubricDiff:
    """What changed from published version `a` to published version `b`."""
    task_fields = {
        name: (getattr(a, name), getattr(b, name))
        for name in TASK_TEXT_FIELDS
        if getattr(a, name) != getattr(b, name)
    }
    return RubricDiff(task_fields, diff_rubrics(a.effective_rubric(), b.effective_rubric()))
