"""A study as a dataset others can load (core.formats.hf_dataset): its final labels, each judge
verdict with the experts' label beside it (a calibration set), and the prediction-powered
scores of each model, with a card saying how the study was designed, how many, and how far
the experts and the judges agreed.

Pure: the app (agreement.dataset) loads the study and passes what it found."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from core.analysis.export import prediction_powered_rows
from core.analysis.labels import FinalLabel, Gold
from core.analysis.leaderboard import Leaderboard
from core.analysis.reports import GroupAgreement
from core.formats.hf_dataset import DatasetCard, DataTable, snake_rows
from core.stats import Interval

EXPERT = pa.struct(
    [
        ("grader", pa.string()),
        ("verdict", pa.string()),
        ("level", pa.int64()),
        ("rationale", pa.string()),
        ("submitted_at", pa.string()),
    ]
)

LABELS = pa.schema(
    [
        ("task", pa.string()),
        ("response", pa.int64()),
        ("response_version", pa.int64()),
        ("model", pa.string()),
        ("language", pa.string()),
        ("criterion", pa.string()),
        ("layer", pa.string()),
        ("wording", pa.string()),
        ("label", pa.string()),
        ("level", pa.int64()),
        ("basis", pa.string()),
        ("n_pass", pa.int64()),
        ("n_fail", pa.int64()),
        ("n_not_applicable", pa.int64()),
        ("experts", pa.list_(EXPERT)),
        ("gold", pa.string()),
        ("split_reason", pa.string()),
        ("split_reason_label", pa.string()),
        ("confidence", pa.string()),
        ("decided_by", pa.string()),
        ("decided_at", pa.string()),
    ]
)

CALIBRATION = pa.schema(
    [
        ("judge_run", pa.string()),
        ("judge_model", pa.string()),
        ("epoch", pa.int64()),
        ("task", pa.string()),
        ("response", pa.int64()),
        ("model", pa.string()),
        ("criterion", pa.string()),
        ("layer", pa.string()),
        ("judge_verdict", pa.string()),
        ("judge_level", pa.int64()),
        ("expert_label", pa.string()),
        ("expert_level", pa.int64()),
        ("basis", pa.string()),
        ("n_experts", pa.int64()),
    ]
)


@dataclass(frozen=True)
class JudgeAnswer:
    """One verdict of a judge run on a (response, criterion version) of the study."""

    run: str  # the run's name
    model: str  # the judge model
    response_id: int
    criterion_key: int  # criterion version id
    epoch: int
    verdict: bool | None  # None: unparseable, or an ordinal criterion
    level: int | None


@dataclass(frozen=True)
class StudyDesign:
    name: str
    description: str
    framework: str
    status: str
    overlap: int  # k: experts per response
    gold_rate: int  # percent of gold checks
    escalation: str
    created_at: str


def label_rows(labels: Sequence[FinalLabel]) -> list[dict[str, Any]]:
    return [
        {
            "task": found.unit.item.task_key,
            "response": found.unit.response_id,
            "response_version": found.unit.item.response_version,
            "model": found.unit.item.model,
            "language": found.unit.item.language,
            "criterion": found.unit.criterion.code,
            "layer": found.unit.criterion.layer,
            "wording": found.unit.criterion.wording,
            "label": found.label,
            "level": found.level,
            "basis": str(found.basis),
            "n_pass": found.n_pass,
            "n_fail": found.n_fail,
            "n_not_applicable": found.n_not_applicable,
            "experts": [
                {
                    "grader": expert.grader,
                    "verdict": expert.verdict or None,
                    "level": expert.level,
                    "rationale": expert.rationale,
                    "submitted_at": expert.submitted_at,
                }
                for expert in found.unit.experts
            ],
            **_gold_fields(found.unit.gold),
            "decided_by": found.decided_by or None,
            "decided_at": found.decided_at or None,
        }
        for found in labels
    ]


def _gold_fields(gold: Gold | None) -> dict[str, str | None]:
    """The gold answer, why the experts split and the confidence; null where not given."""
    if gold is None:
        return dict.fromkeys(("gold", "split_reason", "split_reason_label", "confidence"))
    return {
        "gold": gold.answer,
        "split_reason": gold.split_reason or None,
        "split_reason_label": gold.split_reason_label or None,
        "confidence": gold.confidence or None,
    }


def calibration_rows(
    labels: Sequence[FinalLabel], answers: Sequence[JudgeAnswer]
) -> list[dict[str, Any]]:
    """Each judge answer on a unit the experts labelled, the experts' label beside it (a unit
    without a final label, tied or all N/A, is left out: nothing to calibrate against)."""
    by_unit = {(f.unit.response_id, f.unit.criterion.key): f for f in labels}
    rows = []
    for answer in answers:
        found = by_unit.get((answer.response_id, answer.criterion_key))
        if found is None or (found.label is None and found.level is None):
            continue
        verdict = None if answer.verdict is None else ("pass" if answer.verdict else "fail")
        rows.append(
            {
                "judge_run": answer.run,
                "judge_model": answer.model,
                "epoch": answer.epoch,
                "task": found.unit.item.task_key,
                "response": answer.response_id,
                "model": found.unit.item.model,
                "criterion": found.unit.criterion.code,
                "layer": found.unit.criterion.layer,
                "judge_verdict": verdict,
                "judge_level": answer.level,
                "expert_label": found.label,
                "expert_level": found.level,
                "basis": str(found.basis),
                "n_experts": len(found.unit.experts),
            }
        )
    return rows


def ppi_rows(leaderboards: Sequence[Leaderboard]) -> list[dict[str, Any]]:
    return snake_rows(
        [
            row
            for board in leaderboards
            for row in prediction_powered_rows(board.judge_name or "", board)
        ]
    )


def study_tables(
    labels: Sequence[FinalLabel],
    answers: Sequence[JudgeAnswer],
    leaderboards: Sequence[Leaderboard],
) -> list[DataTable]:
    """The labels, and where a judge ran, the calibration set and the prediction-powered
    scores (left out without one: no rows, no columns to give)."""
    tables = [
        DataTable(
            "labels",
            "one row per graded response and criterion: the final label, how it was reached "
            "and each expert's verdict",
            label_rows(labels),
            LABELS,
        )
    ]
    calibration = calibration_rows(labels, answers)
    if calibration:
        tables.append(
            DataTable(
                "calibration",
                "each judge verdict on a labelled response and criterion, the experts' label "
                "beside it",
                calibration,
                CALIBRATION,
            )
        )
    scores = ppi_rows(leaderboards)
    if scores:
        tables.append(
            DataTable(
                "prediction_powered",
                "each model's prediction-powered score per judge run, overall and by group, "
                "with the judge-only and experts-only scores and their n",
                scores,
            )
        )
    return tables


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _interval(name: str, found: Interval) -> str:
    bounds = (
        f" [{_figure(found.low)}, {_figure(found.high)}]"
        if found.low is not None and found.high is not None
        else ""
    )
    return f"| {name} | {_figure(found.estimate.value)}{bounds} | {found.estimate.n_units} |"


def card_body(
    design: StudyDesign,
    overall: GroupAgreement | None,
    calibrations: Sequence[dict[str, Any]],
    tables: Sequence[DataTable],
) -> str:
    """The card's Markdown after its title: the design, n and the coefficients. `calibrations`
    are the overall rows of each judge run (core.analysis.export.judge_calibration_rows)."""
    labels = tables[0].rows
    labelled = sum(1 for row in labels if row["label"] is not None or row["level"] is not None)
    responses = len({row["response"] for row in labels})
    models = len({row["model"] for row in labels})
    criteria = len({row["criterion"] for row in labels})
    experts = len({expert["grader"] for row in labels for expert in row["experts"]})
    lines = [
        design.description.strip()
        or "Expert grades of AI tutors' responses against L2-Bench "
        "rubrics, collected with L2 Annot.",
        "",
        "## Study design",
        "",
        f"- Framework: {design.framework}; study status: {design.status}; "
        f"created {design.created_at}.",
        f"- {responses} model responses of {models} models, graded against {criteria} criteria "
        f"by {experts} experts; each response is assigned to k = {design.overlap} experts, "
        "blind to each other and to the model.",
        f"- Gold checks: {design.gold_rate}% of assignments; escalation: {design.escalation}.",
        "- A final label is the adjudicated verdict where there is one, else the experts' "
        "unanimous or majority verdict; a tie or N/A from all leaves it empty (`basis` says "
        "which).",
        "",
        "## n",
        "",
        f"- {len(labels)} graded (response, criterion) units, {labelled} with a final label.",
    ]
    lines += [f"- {table.name}: {len(table.rows)} rows." for table in tables[1:]]
    if overall is not None:
        lines += [
            "",
            "## Agreement among the experts",
            "",
            f"Over {overall.summary.n_units} units rated by two experts or more "
            f"({overall.alpha.confidence:.0%} intervals, {overall.alpha.method}):",
            "",
            "| coefficient | value [interval] | n |",
            "| --- | --- | --- |",
            _interval("Krippendorff's alpha", overall.alpha),
            _interval("Gwet's AC1", overall.ac1),
            _interval("percent agreement", overall.percent_agreement),
        ]
    if calibrations:
        lines += [
            "",
            "## The judges against the experts",
            "",
            "Each judge run's verdicts against the experts' majority (95% Wilson intervals for "
            "accuracy), and Krippendorff's alpha of the experts with the judge as one more rater.",
            "",
            "| judge | accuracy vs majority [interval] | n | kappa vs majority | n "
            "| alpha with judge [interval] | n |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for row in calibrations:
            lines.append(
                f"| {row['judge']} | {_figure(row['accuracy vs majority'])} "
                f"[{_figure(row['accuracy vs majority CI low'])}, "
                f"{_figure(row['accuracy vs majority CI high'])}] "
                f"| {row['accuracy vs majority n']} | {_figure(row['kappa vs majority'])} "
                f"| {row['kappa vs majority n']} | {_figure(row['alpha with judge'])} "
                f"[{_figure(row['alpha with judge CI low'])}, "
                f"{_figure(row['alpha with judge CI high'])}] | {row['alpha with judge n']} |"
            )
    return "\n".join(lines)


def study_card(
    design: StudyDesign,
    licence: str,
    overall: GroupAgreement | None,
    calibrations: Sequence[dict[str, Any]],
    tables: Sequence[DataTable],
) -> DatasetCard:
    return DatasetCard(
        title=design.name,
        licence=licence,
        body=card_body(design, overall, calibrations, tables),
        tags=("l2-bench", "llm-as-a-judge", "annotation", "education"),
    )
