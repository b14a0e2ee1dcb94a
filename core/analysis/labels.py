"""A study's final labels: for each graded (response, criterion), the experts' verdicts, how the
label was reached and the label itself.

The rule, in order: an adjudicated (gold) verdict decides; otherwise the experts' pass/fail
verdicts decide when they are unanimous or when one side has more of them; a tie, or no pass/fail
verdict at all (only N/A), leaves the unit without a label, said as such. N/A is not a vote: it
says the criterion did not apply for that expert, and it is counted beside the votes. A label
resting on one expert's verdict (one vote, with or without others' N/A) is said as such
(single), never as unanimous: nobody agreed with it.

On an ordinal criterion the experts give levels, and the label is a `level`: the gold level
decides; otherwise the level every expert gave (unanimous, or single when one expert gave a
level), or the level more experts gave than any other (majority, a plurality); two levels given
equally often leave no level (tied).
"""

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.analysis.ratings import CriterionInfo, ItemInfo

PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "na"


class Basis(StrEnum):
    ADJUDICATED = "adjudicated"
    UNANIMOUS = "unanimous"
    SINGLE = "single"  # one expert's verdict (or level): nobody else voted
    MAJORITY = "majority"
    TIED = "tied"
    NOT_APPLICABLE = "not applicable"  # every expert said N/A


@dataclass(frozen=True)
class ExpertVerdict:
    grader: str  # "Annotator 1" where the reader may not see names
    verdict: str  # pass, fail or na; "" for a level
    rationale: str
    submitted_at: str  # ISO 8601
    level: int | None = None  # on an ordinal criterion

    @property
    def answer(self) -> str:
        """The verdict, or the level as text."""
        return self.verdict if self.level is None else str(self.level)


@dataclass(frozen=True)
class Gold:
    verdict: str  # pass or fail; "" for a level
    by: str
    at: str  # ISO 8601
    note: str
    level: int | None = None  # on an ordinal criterion
    # Why the experts split (a key of the study's list), as a person reads it, and how sure
    # the adjudicator was (low, medium, high); "" where the adjudicator did not say.
    split_reason: str = ""
    split_reason_label: str = ""
    confidence: str = ""

    @property
    def answer(self) -> str:
        return self.verdict if self.level is None else str(self.level)


@dataclass(frozen=True)
class LabelUnit:
    item: ItemInfo
    response_id: int
    criterion: CriterionInfo
    experts: tuple[ExpertVerdict, ...]
    gold: Gold | None


@dataclass(frozen=True)
class FinalLabel:
    unit: LabelUnit
    label: str | None  # pass or fail; None when tied or not applicable
    basis: Basis
    n_pass: int
    n_fail: int
    n_not_applicable: int
    decided_by: str  # the adjudicator, or "experts"; "" without a label
    decided_at: str  # when the gold verdict was saved, or the last expert submission
    level: int | None = None  # an ordinal criterion's final level; None when tied or N/A


def final_label(unit: LabelUnit) -> FinalLabel:
    if unit.criterion.scale is not None:
        return _final_level(unit)
    verdicts = [expert.verdict for expert in unit.experts]
    n_pass, n_fail = verdicts.count(PASS), verdicts.count(FAIL)
    counts = {
        "n_pass": n_pass,
        "n_fail": n_fail,
        "n_not_applicable": verdicts.count(NOT_APPLICABLE),
    }
    last_submission = max((expert.submitted_at for expert in unit.experts), default="")
    if unit.gold is not None:
        return FinalLabel(
            unit, unit.gold.verdict, Basis.ADJUDICATED, **counts,
            decided_by=unit.gold.by, decided_at=unit.gold.at,
        )  # fmt: skip
    if n_pass == n_fail:
        basis = Basis.TIED if n_pass else Basis.NOT_APPLICABLE
        return FinalLabel(unit, None, basis, **counts, decided_by="", decided_at="")
    label = PASS if n_pass > n_fail else FAIL
    if n_pass + n_fail == 1:
        basis = Basis.SINGLE
    else:
        basis = Basis.UNANIMOUS if n_pass == 0 or n_fail == 0 else Basis.MAJORITY
    return FinalLabel(
        unit, label, basis, **counts, decided_by="experts", decided_at=last_submission
    )


def _final_level(unit: LabelUnit) -> FinalLabel:
    """An ordinal criterion's final level (see the module docstring); no pass or fail."""
    levels = Counter(expert.level for expert in unit.experts if expert.level is not None)
    counts = {
        "n_pass": 0,
        "n_fail": 0,
        "n_not_applicable": sum(1 for e in unit.experts if e.verdict == NOT_APPLICABLE),
    }
    if unit.gold is not None:
        return FinalLabel(
            unit, None, Basis.ADJUDICATED, **counts,
            decided_by=unit.gold.by, decided_at=unit.gold.at, level=unit.gold.level,
        )  # fmt: skip
    ranked = levels.most_common()
    if not ranked:
        return FinalLabel(unit, None, Basis.NOT_APPLICABLE, **counts, decided_by="", decided_at="")
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return FinalLabel(unit, None, Basis.TIED, **counts, decided_by="", decided_at="")
    if levels.total() == 1:
        basis = Basis.SINGLE
    else:
        basis = Basis.UNANIMOUS if len(ranked) == 1 else Basis.MAJORITY
    last_submission = max((expert.submitted_at for expert in unit.experts), default="")
    return FinalLabel(
        unit, None, basis, **counts,
        decided_by="experts", decided_at=last_submission, level=ranked[0][0],
    )  # fmt: skip


def final_labels(units: Iterable[LabelUnit], *, single: bool = True) -> list[FinalLabel]:
    """The final label of each unit; without `single`, those resting on one expert's verdict
    (Basis.SINGLE) are left out, as a reference set built on agreement may want."""
    found = (final_label(unit) for unit in units)
    return [label for label in found if single or label.basis != Basis.SINGLE]


COLUMNS = [
    "task", "response", "response version", "model", "criterion", "layer", "wording", "label",
    "level", "basis", "pass", "fail", "n/a", "experts", "gold", "split reason",
    "split reason label", "confidence", "decided by", "decided at",
]  # fmt: skip


def _experts_text(experts: Sequence[ExpertVerdict]) -> str:
    return "; ".join(f"{expert.grader}: {expert.answer}" for expert in experts)


def _gold_cells(gold: Gold | None) -> tuple[str, str, str, str]:
    """The gold answer, why the experts split (key and label) and the confidence; empty
    without a gold verdict."""
    if gold is None:
        return "", "", "", ""
    return gold.answer, gold.split_reason, gold.split_reason_label, gold.confidence


def label_row(found: FinalLabel) -> list[Any]:
    """One flat row (CSV, XLSX) in the order of COLUMNS."""
    unit = found.unit
    return [
        unit.item.task_key,
        unit.response_id,
        unit.item.response_version,
        unit.item.model,
        unit.criterion.code,
        unit.criterion.layer,
        unit.criterion.wording,
        found.label or "",
        "" if found.level is None else found.level,
        str(found.basis),
        found.n_pass,
        found.n_fail,
        found.n_not_applicable,
        _experts_text(unit.experts),
        *_gold_cells(unit.gold),
        found.decided_by,
        found.decided_at,
    ]


def label_document(found: FinalLabel) -> dict[str, Any]:
    """One label as JSON: the row's fields, with the label and the gold verdict null where
    there is none, and each expert's verdict (or level) and rationale nested."""
    unit = found.unit
    return dict(zip(COLUMNS, label_row(found), strict=True)) | {
        "label": found.label,
        "level": found.level,
        "experts": [
            {
                "grader": expert.grader,
                "verdict": expert.verdict,
                "level": expert.level,
                "rationale": expert.rationale,
                "submitted at": expert.submitted_at,
            }
            for expert in unit.experts
        ],
        "gold": (
            None
            if unit.gold is None
            else {
                "verdict": unit.gold.verdict,
                "level": unit.gold.level,
                "by": unit.gold.by,
                "at": unit.gold.at,
                "note": unit.gold.note,
                "split reason": unit.gold.split_reason,
                "split reason label": unit.gold.split_reason_label,
                "confidence": unit.gold.confidence,
            }
        ),
    }
