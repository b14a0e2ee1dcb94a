"""The agreement report as JSON-ready data and as an XLSX workbook (every figure with its CI).

Pure: no Django. A judge run is named by `str(run)`, so any object that names itself will do.
"""

import csv
from collections.abc import Iterator, Sequence
from typing import IO, Any

from core.analysis.calibration import JudgeScale, TurnCalibration
from core.analysis.comparison import RunGroup, RunSummary
from core.analysis.labels import COLUMNS as LABEL_COLUMNS
from core.analysis.labels import FinalLabel, label_document, label_row
from core.analysis.leaderboard import Leaderboard, ModelRow
from core.analysis.leaderboard import Score as BoardScore
from core.analysis.reports import GroupAgreement, StudyAgreement
from core.formats.formulas import spreadsheet_safe
from core.formats.sheets_xlsx import Column, Table, write_tables_xlsx
from core.stats import Calibration, Coefficient, Interval, LevelAgreement, Ratio, wilson_interval

# Each judge run that scored the study's 1-5 questions (a `judging.JudgeRun` in the app), with
# its comparison per question.
type JudgeScales = Sequence[tuple[object, Sequence[JudgeScale]]]

GROUP_COLUMNS = [
    "group", "items", "ratings", "units", "pairable units", "units left out (one rating)",
    "N/A grades left out", "percent agreement",
    "percent agreement CI low", "percent agreement CI high", "alpha", "alpha CI low",
    "alpha CI high", "alpha undefined because", "alpha interval unreliable because", "AC1",
    "AC1 CI low", "AC1 CI high", "Brennan-Prediger", "Scott's pi", "pass rate",
    "positive agreement", "negative agreement", "alpha unstable (prevalence)",
]  # fmt: skip


def _coefficient(c: Coefficient) -> float | None:
    return c.value


def _ratio(r: Ratio) -> float | None:
    return r.value


def group_row(group: GroupAgreement) -> list[Any]:
    s = group.summary
    return [
        group.label,
        group.n_items,
        s.n_ratings,
        group.n_units,
        s.n_units,
        group.n_single,
        group.n_na,
        _coefficient(s.percent_agreement),
        group.percent_agreement.low,
        group.percent_agreement.high,
        _coefficient(group.alpha.estimate),
        group.alpha.low,
        group.alpha.high,
        group.alpha.estimate.undefined_reason or group.alpha.undefined_reason or "",
        group.alpha.unreliable_reason or "",
        _coefficient(s.ac1),
        group.ac1.low,
        group.ac1.high,
        _coefficient(s.brennan_prediger),
        _coefficient(s.scott_pi),
        _ratio(s.prevalence),
        _ratio(s.positive_agreement),
        _ratio(s.negative_agreement),
        s.alpha_unstable_prevalence,
    ]


def _group_dict(group: GroupAgreement) -> dict[str, Any]:
    return dict(zip(GROUP_COLUMNS, group_row(group), strict=True)) | {
        "confidence": group.alpha.confidence,
        "interval method": group.alpha.method,
        "resamples": group.alpha.n_resamples,
        "AC1 and agreement interval method": group.ac1.method,
    }


def _interval(prefix: str, interval: Interval) -> dict[str, Any]:
    return {
        prefix: interval.estimate.value,
        f"{prefix} n": interval.estimate.n_units,
        f"{prefix} CI low": interval.low,
        f"{prefix} CI high": interval.high,
        f"{prefix} undefined because": interval.estimate.undefined_reason or "",
        f"{prefix} interval unreliable because": interval.unreliable_reason or "",
    }


def judge_scale_row(run: object, scale: JudgeScale) -> dict[str, Any]:
    """One judge run on one 1-5 question: kappas with their intervals, Bland-Altman and the
    judge's stability across epochs."""
    found, limits, stable = scale.agreement, scale.agreement.bland_altman, scale.stability
    row: dict[str, Any] = {
        "judge": str(run),
        "question": scale.key,
        "prompt": scale.prompt,
        "responses": found.n_items,
        "responses for kappa": found.n_kappa_items,
        "judge mean": found.judge_mean,
        "experts mean": found.experts_mean,
    }
    for comparison in found.comparisons:
        name = f"{comparison.weights} kappa"
        row |= _interval(f"{name} judge vs experts", comparison.judge)
        row |= _interval(f"{name} experts vs experts", comparison.experts)
        row |= {
            f"{name} gap": comparison.gap,
            f"{name} gap CI low": comparison.gap_low,
            f"{name} gap CI high": comparison.gap_high,
            f"{name} gap interval unreliable because": comparison.gap_unreliable_reason or "",
        }
    return row | {
        "bias": limits.mean_difference,
        "bias CI low": limits.bias_low,
        "bias CI high": limits.bias_high,
        "sd of differences": limits.sd_difference,
        "lower limit of agreement": limits.lower_limit,
        "upper limit of agreement": limits.upper_limit,
        "bland-altman undefined because": limits.undefined_reason or "",
        "epochs": stable.epochs,
        "responses scored in two epochs or more": stable.n_responses,
        "same score in every epoch": stable.identical,
        "alpha across epochs": stable.alpha.value,
        "alpha across epochs undefined because": stable.alpha.undefined_reason or "",
    }


def _accuracy(prefix: str, found: Calibration | None) -> dict[str, Any]:
    accuracy = found.accuracy if found else Ratio(0, 0)
    low, high = wilson_interval(accuracy)
    return {
        f"accuracy vs {prefix}": accuracy.value,
        f"accuracy vs {prefix} CI low": low,
        f"accuracy vs {prefix} CI high": high,
        f"accuracy vs {prefix} n": accuracy.denominator,
        f"kappa vs {prefix}": found.kappa.value if found else None,
        f"kappa vs {prefix} n": found.n_items if found else 0,
        f"kappa vs {prefix} undefined because": (
            found.kappa.undefined_reason or "" if found else "no unit to compare"
        ),
        **_share(f"sensitivity vs {prefix}", found.sensitivity if found else None),
        **_share(f"specificity vs {prefix}", found.specificity if found else None),
    }


def _share(name: str, ratio: Ratio | None) -> dict[str, Any]:
    """A proportion and its n (its denominator: the reference's passes or fails)."""
    ratio = ratio or Ratio(0, 0)
    return {name: ratio.value, f"{name} n": ratio.denominator}


def judge_group_row(judge: str, group: RunGroup) -> dict[str, Any]:
    """One judge run on one group of units (a criterion, or all of them): every figure with its
    95% interval and its n. Accuracy intervals are Wilson score intervals; alpha's a BCa
    bootstrap over responses (withheld where unreliable, with the reason), AC1's Wilson-type,
    leniency's Newcombe's paired score interval over responses (withheld below 15 responses,
    with the reason)."""
    found = group.calibration
    alt = found.alt_test
    lenient = found.leniency
    return (
        {
            "judge": judge,
            "group": group.label,
            "units": group.n_shared,
            "units with a verdict": found.n_units,
            "units left out vs majority (experts tied)": found.n_tied,
            "units left out vs gold (no gold verdict)": found.n_without_gold,
            "unparseable": group.unparseable.numerator,
            "unparseable rate": group.unparseable.value,
        }
        | _interval("alpha with judge", group.alpha)
        | _interval("AC1 with judge", group.ac1)
        | _accuracy("majority", found.vs_majority)
        | _accuracy("gold", found.vs_gold)
        | {
            "leniency": lenient.difference if lenient else None,
            "leniency CI low": lenient.low if lenient else None,
            "leniency CI high": lenient.high if lenient else None,
            "leniency n": lenient.n_items if lenient else 0,
            "leniency responses": lenient.n_responses if lenient else 0,
            "leniency interval unreliable because": (
                lenient.unreliable_reason or "" if lenient else ""
            ),
            "accuracy gap vs experts (leave one out)": found.mean_accuracy_gap,
            "accuracy gap vs experts (leave one out) n": found.n_gap_units,
            "accuracy gap experts held out": found.n_gap_experts,
            "alpha experts": found.alpha_experts.value,
            "alpha experts n": found.alpha_experts.n_units,
            "alpha experts undefined because": found.alpha_experts.undefined_reason or "",
            "alt-test winning rate": alt.winning_rate,
            "alt-test advantage probability": alt.advantage_probability,
            "alt-test experts tested": alt.n_tested,
            "alt-test experts": alt.n_experts,
            "alt-test fewest units of a tested expert": alt.min_items,
            "alt-test verdict": alt.verdict,
            "confidence": group.alpha.confidence,
            "resamples": group.alpha.n_resamples,
        }
    )


def judge_calibration_rows(summary: RunSummary) -> list[dict[str, Any]]:
    """A judge run's calibration, overall (with self-preference, tokens and time) and per
    criterion, as flat rows for a sheet or a JSON list."""
    own, others = summary.self_preference_n
    overall = judge_group_row(summary.name, summary.overall) | {
        "self-preference gap": summary.self_preference_gap,
        "self-preference n (own family)": own,
        "self-preference n (other families)": others,
        "tokens": summary.tokens,
        "seconds": summary.seconds,
    }
    run_only = dict.fromkeys(
        (
            "self-preference gap",
            "self-preference n (own family)",
            "self-preference n (other families)",
            "tokens",
            "seconds",
        )
    )
    criteria = [judge_group_row(summary.name, group) | run_only for group in summary.criteria]
    return [overall, *criteria]


def judge_level_row(run: object, criterion: JudgeScale) -> dict[str, Any]:
    """One judge run on one ordinal criterion: the figures of a 1-5 question on the
    criterion's scale, ordinal alpha of the experts, then with the judge, with intervals, and
    the judge's levels against the gold levels (exact, within one, n)."""
    row = judge_scale_row(run, criterion)
    row = {"criterion" if key == "question" else key: value for key, value in row.items()}
    row |= {"scale min": criterion.scale[0], "scale max": criterion.scale[1]}
    if criterion.alpha_experts is not None and criterion.alpha_with_judge is not None:
        row |= _interval("ordinal alpha experts", criterion.alpha_experts)
        row |= _interval("ordinal alpha with judge", criterion.alpha_with_judge)
    # Every row has the columns: a sheet's header is its first row's.
    row |= level_agreement_row("gold level", criterion.vs_gold)
    row |= level_agreement_row("experts' median level", criterion.vs_experts)
    return row


def level_agreement_row(prefix: str, found: LevelAgreement | None) -> dict[str, Any]:
    """The judge's levels against one reference (`prefix` names it): exact, within one,
    quadratic kappa and Bland-Altman, with n (None and 0 where there is no reference)."""
    kappa = found.quadratic_kappa if found else None
    limits = found.bland_altman if found else None
    return {
        f"{prefix} exact": found.exact.value if found else None,
        f"{prefix} within one": found.within_one.value if found else None,
        f"{prefix} n": found.n if found else 0,
        f"{prefix} quadratic kappa": kappa.value if kappa else None,
        f"{prefix} quadratic kappa undefined because": (
            kappa.undefined_reason or "" if kappa else ""
        ),
        f"{prefix} bias": limits.mean_difference if limits else None,
        f"{prefix} lower limit of agreement": limits.lower_limit if limits else None,
        f"{prefix} upper limit of agreement": limits.upper_limit if limits else None,
    }


def judge_turn_row(run: object, turn: TurnCalibration) -> dict[str, Any]:
    """One judge run on one turn-level criterion (or all of them), judged turn by turn: its
    verdict on each tutor turn against the experts' majority on that turn, accuracy and kappa
    with their n and percentile intervals resampling dialogues, and the turns left out."""
    found = turn.vs_majority
    return (
        {
            "judge": str(run),
            "criterion": turn.label,
            "graded turns": turn.n_turns,
            "turns compared": turn.n_compared,
            "dialogues": turn.n_responses,
            "turns left out: not judged": turn.not_judged,
            "turns left out: judge answer unreadable": turn.unparseable,
            "turns left out: experts tied": turn.tied,
            "turn grades N/A": turn.graded_na,
        }
        | _interval("accuracy vs majority per turn", found.accuracy)
        | _interval("kappa vs majority per turn", found.kappa)
        | {"confidence": found.kappa.confidence, "resamples": found.kappa.n_resamples}
        | _turn_agreement(turn)
    )


def _turn_agreement(turn: TurnCalibration) -> dict[str, Any]:
    """Alpha and AC1 of the experts, then with the judge, and the alternative annotator test,
    turns as units (None where not computed)."""
    group = turn.agreement
    row: dict[str, Any] = {}
    for prefix, found in (
        ("alpha experts per turn", group.alpha_experts if group else None),
        ("alpha with judge per turn", group.alpha_with_judge if group else None),
        ("AC1 experts per turn", turn.ac1_experts),
        ("AC1 with judge per turn", turn.ac1_with_judge),
    ):
        row |= {
            prefix: found.value if found else None,
            f"{prefix} n": found.n_units if found else 0,
            f"{prefix} undefined because": found.undefined_reason or "" if found else "",
        }
    alt = group.alt_test if group else None
    return row | {
        "alt-test per turn winning rate": alt.winning_rate if alt else None,
        "alt-test per turn advantage probability": alt.advantage_probability if alt else None,
        "alt-test per turn experts tested": alt.n_tested if alt else 0,
        "alt-test per turn fewest turns of a tested expert": alt.min_items if alt else 0,
        "alt-test per turn verdict": alt.verdict if alt else "",
    }


def write_judge_calibration_xlsx(
    summary: RunSummary,
    out: IO[bytes],
    levels: Sequence[dict[str, Any]] = (),
    turns: Sequence[dict[str, Any]] = (),
) -> None:
    """The calibration rows, and (`levels`, judge_level_row) a sheet of ordinal criteria, and
    (`turns`, judge_turn_row) one of turn-level criteria judged turn by turn."""
    rows = judge_calibration_rows(summary)
    sheets = [("Judge calibration", list(rows[0]), [list(row.values()) for row in rows])]
    if levels:
        sheets.append(("Ordinal criteria", list(levels[0]), [list(r.values()) for r in levels]))
    if turns:
        sheets.append(("Turn-level criteria", list(turns[0]), [list(r.values()) for r in turns]))
    write_sheets_xlsx(iter(sheets), out)


NO_PPI = "needs two responses scored by both the experts and the judge, and one judged only"


def _board_score(prefix: str, score: BoardScore | None) -> dict[str, Any]:
    found = score or BoardScore(None, None, None, 0)
    return {
        prefix: found.mean,
        f"{prefix} n": found.n_responses,
        f"{prefix} CI low": found.low,
        f"{prefix} CI high": found.high,
    }


def _ppi_row(judge: str, group: str, row: ModelRow) -> dict[str, Any]:
    ppi = row.ppi
    score = ppi.score if ppi is not None else None
    return (
        {
            "judge": judge,
            "group": group,
            "model": row.model,
            "prediction-powered score": score.estimate if score else None,
            "prediction-powered score n": score.n_labeled + score.n_unlabeled if score else 0,
            "prediction-powered score CI low": score.low if score else None,
            "prediction-powered score CI high": score.high if score else None,
            "prediction-powered score undefined because": "" if score else NO_PPI,
            "prediction-powered score interval unreliable because": (
                score.unreliable_reason or "" if score else ""
            ),
            "standard error": score.standard_error if score else None,
            "lambda": score.lam if score else None,
            "experts alone (lambda near 0)": ppi.experts_alone if ppi else None,
            "expert-graded responses (labelled)": score.n_labeled if score else 0,
            "judged only responses (unlabelled)": score.n_unlabeled if score else 0,
            "method": score.method if score else "",
            "effective n (expert-graded responses)": ppi.effective_n if ppi else None,
            "worth in more expert-graded responses": ppi.gain if ppi else None,
        }
        | _board_score("judge-only score", ppi.judge_only if ppi else None)
        | _board_score("experts score", row.experts)
    )


def prediction_powered_rows(judge: str, board: Leaderboard) -> list[dict[str, Any]]:
    """Each model's prediction-powered score (core.analysis.leaderboard) overall and in each
    breakdown of the leaderboard of judge run `judge`, with the judge-only and experts-only
    scores beside it: every figure with its n."""
    rows = [_ppi_row(judge, "overall", row) for row in board.rows]
    for dimension, groups in board.breakdowns:
        for group in groups:
            rows.extend(_ppi_row(judge, f"{dimension}: {group.label}", r) for r in group.rows)
    return rows


def report_to_dict(
    study_name: str,
    report: StudyAgreement,
    judges: JudgeScales = (),
    calibrations: Sequence[RunSummary] = (),
    leaderboards: Sequence[Leaderboard] = (),
) -> dict[str, Any]:
    """The report as JSON-ready data; `leaderboards` (one per judge run) add each model's
    prediction-powered scores."""
    return {
        "study": study_name,
        "validation threshold": report.threshold,
        "overall": _group_dict(report.overall),
        "criteria": [
            {"code": c.criterion.code, "layer": c.criterion.layer, "wording": c.criterion.wording}
            | _group_dict(c.agreement)
            | {"validated": c.validated, "verdict": c.verdict}
            for c in report.criteria
        ],
        "by layer": [_group_dict(g) for g in report.by_layer],
        "by competency": [_group_dict(g) for g in report.by_competency],
        "by sub-competency": [_group_dict(g) for g in report.by_sub_competency],
        "by context value": [_group_dict(g) for g in report.by_context],
        "by language": [_group_dict(g) for g in report.by_language],
        "turn-level criteria": [
            _group_dict(group)
            for per_turn, per_response in report.turns
            for group in (per_turn, per_response)
            if group is not None
        ],
        "ordinal criteria": [
            {
                "code": o.code,
                "scale": f"{o.scale_min}-{o.scale_max}",
                "responses": o.n_units,
                "responses left out (one level)": o.n_single,
                "N/A grades left out": o.n_na,
                "levels": o.n_ratings,
            }
            | _interval("alpha ordinal", o.alpha)
            | {
                f"kappa {weights}{suffix}": value
                for weights, found in (("linear", o.kappa_linear), ("quadratic", o.kappa_quadratic))
                for suffix, value in (
                    ("", found.estimate.value),
                    (" n", o.n_units),
                    (" CI low", found.low),
                    (" CI high", found.high),
                    (" undefined because", found.estimate.undefined_reason or ""),
                    (" interval unreliable because", found.unreliable_reason or ""),
                )
            }
            for o in report.ordinal
        ],
        "annotators": [
            {
                "annotator": r.rater,
                "ratings": r.n_ratings,
                "agreement with others": r.agreement_with_others,
                "agreement with others n (pairs)": r.n_pairs,
                "alpha without this annotator": r.alpha_without.value,
                "alpha without this annotator n": r.alpha_without.n_units,
                "alpha without this annotator undefined because": (
                    r.alpha_without.undefined_reason or ""
                ),
            }
            for r in report.raters
        ],
        "task-level ratings": [
            {
                "item": scale.prompt,
                "responses": scale.n_items,
                "ratings": scale.n_ratings,
                "mean": scale.mean,
                "sd": scale.sd,
            }
            | _interval("alpha ordinal", scale.alpha_ordinal)
            | {
                "alpha interval": scale.alpha_interval.value,
                "alpha interval n": scale.alpha_interval.n_units,
                "alpha interval undefined because": scale.alpha_interval.undefined_reason or "",
                "alpha ratio": scale.alpha_ratio.value,
                "alpha ratio n": scale.alpha_ratio.n_units,
                "alpha ratio undefined because": scale.alpha_ratio.undefined_reason or "",
            }
            for scale in report.scales
        ],
        "internal consistency": [
            {
                "group": c.label,
                "complete gradings": c.n_gradings,
                "gradings left out (incomplete)": c.n_incomplete,
                "items": c.n_items,
                "cronbach alpha": c.alpha.value,
                "undefined because": c.alpha.undefined_reason or "",
            }
            for c in report.consistency
        ],
        "pairwise agreement": [
            {
                "annotator a": report.rater_names[i],
                "annotator b": report.rater_names[j],
                "shared units": cell.shared_units,
                "percent agreement": cell.percent,
                "cohen kappa": cell.kappa.value,
                "cohen kappa undefined because": cell.kappa.undefined_reason or "",
            }
            for i, row in enumerate(report.rater_matrix)
            for j, cell in enumerate(row)
            if cell is not None and i < j
        ],
        "judge ratings": [
            judge_scale_row(run, scale) for run, scales in judges for scale in scales
        ],
        "judge calibration": [
            row for found in calibrations for row in judge_calibration_rows(found)
        ],
        "prediction-powered scores": [
            row
            for board in leaderboards
            for row in prediction_powered_rows(board.judge_name or "", board)
        ],
    }


def _sheet_rows(data: dict[str, Any]) -> Iterator[tuple[str, list[str], list[list[Any]]]]:
    yield "Overall", list(data["overall"]), [list(data["overall"].values())]
    for name in ["criteria", "by layer", "by competency", "by sub-competency", "by context value",
                 "by language", "turn-level criteria", "ordinal criteria",
                 "annotators", "pairwise agreement", "task-level ratings",
                 "internal consistency", "judge ratings", "judge calibration",
                 "prediction-powered scores"]:  # fmt: skip
        rows = data[name]
        header = list(rows[0]) if rows else ["(no data)"]
        yield name.capitalize()[:31], header, [list(row.values()) for row in rows]


def write_report_xlsx(
    study_name: str,
    report: StudyAgreement,
    out: IO[bytes],
    judges: JudgeScales = (),
    calibrations: Sequence[RunSummary] = (),
    leaderboards: Sequence[Leaderboard] = (),
) -> None:
    data = report_to_dict(study_name, report, judges, calibrations, leaderboards)
    write_sheets_xlsx(_sheet_rows(data), out)


def write_sheets_xlsx(
    sheets: Iterator[tuple[str, list[str], list[list[Any]]]], out: IO[bytes]
) -> None:
    """One sheet per (title, header, rows), through the one XLSX writer (bold frozen headers,
    a filter over the data, every text a text cell), each column as wide as its header."""
    write_tables_xlsx(
        out,
        (
            Table(
                title,
                [Column(name, width=max(12, min(40, len(name) + 4))) for name in header],
                rows,
            )
            for title, header, rows in sheets
        ),
    )


def write_labels_csv(labels: Sequence[FinalLabel], out: IO[str]) -> None:
    """The final labels as CSV (UTF-8, one row per response and criterion, text-safe cells)."""
    writer = csv.writer(out)
    writer.writerow(LABEL_COLUMNS)
    for found in labels:
        writer.writerow([spreadsheet_safe(value) for value in label_row(found)])


def write_labels_xlsx(labels: Sequence[FinalLabel], out: IO[bytes]) -> None:
    write_sheets_xlsx(
        iter([("Final labels", LABEL_COLUMNS, [label_row(found) for found in labels])]), out
    )


def labels_to_dict(study_name: str, labels: Sequence[FinalLabel]) -> dict[str, Any]:
    return {"study": study_name, "labels": [label_document(found) for found in labels]}
