"""A study's final labels: for each graded (response, criterion), the experts' verdicts, how the
label was reached and the label itself.

The rule, in order: an adjudicated (gold) verdict decides; otherwise the experts' pass/fail
verdicts decide when they are unanimous or when one side has more of them; a tie, or no pass/fail
verdict at all (only N/A), leaves the unit without a label, said as such. N/A is not a vote: it
says the criterion did not apply for that expert, and it is counted beside the votes.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agreement.analysis.ratings import CriterionInfo, ItemInfo

PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "na"


class Basis(StrEnum):
    ADJUDICATED = "adjudicated"
    UNANIMOUS = "unanimous"
    MAJORITY = "majority"
    TIED = "tied"
    NOT_APPLICABLE = "not applicable"  # every expert said N/A


@dataclass(frozen=True)
class ExpertVerdict:
    grader: str  # "Annotator 1" where the reader may not see names
    verdict: str  # pass, fail or na
    rationale: str
    submitted_at: str  # ISO 8601


@dataclass(frozen=True)
class Gold:
    verdict: str  # pass or fail
    by: str
    at: str  # ISO 8601
    note: str


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


def final_label(unit: LabelUnit) -> FinalLabel:
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
    basis = Basis.UNANIMOUS if n_pass == 0 or n_fail == 0 else Basis.MAJORITY
    return FinalLabel(
        unit, label, basis, **counts, decided_by="experts", decided_at=last_submission
    )


def final_labels(units: Iterable[LabelUnit]) -> list[FinalLabel]:
    return [final_label(unit) for unit in units]


COLUMNS = [
    "task", "response", "model", "criterion", "layer", "wording", "label", "basis", "pass",
    "fail", "n/a", "experts", "gold", "decided by", "decided at",
]  # fmt: skip


def _experts_text(experts: Sequence[ExpertVerdict]) -> str:
    return "; ".join(f"{expert.grader}: {expert.verdict}" for expert in experts)


def label_row(found: FinalLabel) -> list[Any]:
    """One flat row (CSV, XLSX) in the order of COLUMNS."""
    unit = found.unit
    return [
        unit.item.task_key,
        unit.response_id,
        unit.item.model,
        unit.criterion.code,
        unit.criterion.layer,
        unit.criterion.wording,
        found.label or "",
        str(found.basis),
        found.n_pass,
        found.n_fail,
        found.n_not_applicable,
        _experts_text(unit.experts),
        unit.gold.verdict if unit.gold else "",
        found.decided_by,
        found.decided_at,
    ]


def label_document(found: FinalLabel) -> dict[str, Any]:
    """One label as JSON: the row's fields, with the label and the gold verdict null where
    there is none, and each expert's verdict and rationale nested."""
    unit = found.unit
    return dict(zip(COLUMNS, label_row(found), strict=True)) | {
        "label": found.label,
        "experts": [
            {
                "grader": expert.grader,
                "verdict": expert.verdict,
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
                "by": unit.gold.by,
                "at": unit.gold.at,
                "note": unit.gold.note,
            }
        ),
    }
