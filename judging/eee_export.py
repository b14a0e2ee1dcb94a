"""A study's model leaderboard as "Every Eval Ever" records: the figures of the agreement
leaderboard (judging.calibration.study_leaderboard), so the exported scores and intervals are
exactly those the leaderboard page shows; `core.formats.eee` writes them."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
from django.utils.translation import gettext

from agreement.data import last_graded_at, load_study_ratings
from core.analysis.leaderboard import Leaderboard, ModelRow, response_scores
from core.analysis.leaderboard import Score as BoardScore
from core.formats import eee
from grading.models import Study, StudyItem
from judging.calibration import study_leaderboard
from judging.data import judge_runs_for, load_judge_data
from judging.models import JudgeRun
from taxonomy.models import Competency

SOURCES = ("experts", "judge")
_SCORED_BY = {
    "experts": "the experts (a response's score is the mean of its graders' task scores)",
    "judge": "the LLM judge (its verdicts on the criteria the experts graded)",
}
# A judge export adds, beside each result, the prediction-powered score of the same group
# (`<key>:prediction-powered`): the leaderboard's, from every response the run judged.


class ExportProblem(Exception):
    """The export cannot be written as asked; nothing was written."""


@dataclass(frozen=True)
class Options:
    source: str = "experts"
    benchmark: str = "l2-bench"
    dataset_name: str = "L2-Bench"
    organization: str = eee.UNKNOWN
    organization_url: str | None = None
    relationship: str = "third_party"
    developers: Mapping[str, str] | None = None  # model name -> developer, over the families


def judge_run_for(study: Study, run_id: int | None) -> JudgeRun:
    """The judge run to export: the one named, or the study's only one."""
    runs = judge_runs_for(study)
    if run_id is not None:
        for run in runs:
            if run.pk == run_id:
                return run
        raise ExportProblem(
            gettext("Judge run %(id)s is not one of this study's judge runs.") % {"id": run_id}
        )
    if len(runs) == 1:
        return runs[0]
    if not runs:
        raise ExportProblem(gettext("No judge run has verdicts on this study's responses."))
    listed = ", ".join(f"{run.pk} ({run})" for run in runs)
    raise ExportProblem(
        gettext("The study has several judge runs: give one with --judge-run (%(runs)s).")
        % {"runs": listed}
    )


def _score(score: BoardScore | None) -> eee.Score | None:
    if score is None or score.mean is None:
        return None
    return eee.Score(score.mean, score.low, score.high, score.n_responses)


def _groups(
    board: Leaderboard, model: str, names: Mapping[str, str]
) -> list[tuple[str, str, str, ModelRow]]:
    """(result id, evaluation name, what the score covers, leaderboard row) of `model`: the
    whole benchmark, then each competency and each layer."""
    groups = [
        ("overall", "L2-Bench", "every criterion of every task", row)
        for row in board.rows
        if row.model == model
    ]
    for dimension, breakdowns in board.breakdowns:
        for breakdown in breakdowns:
            label = breakdown.label
            for row in breakdown.rows:
                if row.model != model:
                    continue
                if dimension == "Competency":
                    title = names.get(label, label)
                    groups.append(
                        (
                            f"competency:{label}",
                            f"L2-Bench competency {label}: {title}",
                            f"the tasks of competency {label} ({title})",
                            row,
                        )
                    )
                elif dimension == "Layer":
                    groups.append(
                        (
                            f"layer:{label}",
                            f"L2-Bench {label} criteria",
                            f"only the {label}-layer criteria of every task",
                            row,
                        )
                    )
    return groups


def _results(
    board: Leaderboard, model: str, source: str, study: Study, names: Mapping[str, str]
) -> tuple[eee.Result, ...]:
    results = []
    for key, name, scope, row in _groups(board, model, names):
        score = _score(row.judge if source == "judge" else row.experts)
        if score is None:
            continue
        description = (
            f"Mean L2-Bench task score of the model's responses in study '{study.name}', over "
            f"{scope}, scored by {_SCORED_BY[source]}. Task score: weights of the criteria met, "
            "penalties subtracted, over the positive weights; negative scores count as 0."
        )
        baseline = row.experts.mean if source == "judge" else None
        results.append(eee.Result(key, name, description, score, expert_baseline=baseline))
        if source == "judge" and row.ppi is not None:
            results.append(_prediction_powered(key, name, scope, study, row))
    return tuple(results)


def _prediction_powered(key: str, name: str, scope: str, study: Study, row: ModelRow) -> eee.Result:
    """The row's prediction-powered score as a result of its own, its uncertainty in full."""
    assert row.ppi is not None
    found = row.ppi.score
    shown = found.unreliable_reason is None
    description = (
        f"L2-Bench score of the model over {scope}, estimated by prediction-powered inference "
        f"(PPI++, Angelopoulos, Duchi & Zrnic 2023) from the LLM judge's task scores of every "
        f"response of the model it judged, corrected by the {found.n_labeled} responses of "
        f"study '{study.name}' both the experts and the judge scored "
        f"({found.n_unlabeled} responses judged only). Task score: weights of the criteria met, "
        "penalties subtracted, over the positive weights; negative scores count as 0."
    )
    details = [
        ("n_labeled", str(found.n_labeled)),
        ("n_unlabeled", str(found.n_unlabeled)),
        ("lambda", repr(found.lam)),
        ("method", str(found.method)),
        ("experts_alone", "true" if row.ppi.experts_alone else "false"),
    ]
    if row.ppi.effective_n is not None:
        details.append(("effective_n", repr(row.ppi.effective_n)))
    if not shown:
        details.append(("interval_withheld_because", str(found.unreliable_reason)))
    score = eee.Score(
        found.estimate,
        found.low if shown else None,
        found.high if shown else None,
        found.n_labeled + found.n_unlabeled,
        standard_error=found.standard_error,
        method="PPI++ estimate with a Newcombe-type hybrid score interval (L2 Annot)",
    )
    return eee.Result(
        f"{key}:prediction-powered",
        f"{name} (prediction-powered)",
        description,
        score,
        expert_baseline=row.experts.mean,
        details=tuple(details),
    )


def _model_facts(study: Study) -> dict[str, tuple[set[str], set[str]]]:
    """Per model name: the families (vendors) and versions its responses in the study carry."""
    facts: dict[str, tuple[set[str], set[str]]] = {}
    rows = StudyItem.objects.filter(study=study).values_list(
        "response__model_name", "response__model_family", "response__model_version"
    )
    for name, family, version in rows.distinct():
        families, versions = facts.setdefault(name, (set(), set()))
        if family:
            families.add(family)
        if version:
            versions.add(version)
    return facts


def _instances(study: Study, source: str, run: JudgeRun | None) -> dict[str, list[eee.Instance]]:
    """Per model name: each of its responses scored by the source, with its task score (the
    same per-response scores the leaderboard averages). A few queries."""
    ratings = load_study_ratings(study)
    judge = load_judge_data(study, run, ratings) if source == "judge" and run else None
    mask = np.ones(len(ratings.unit_item), dtype=bool)
    experts, judged = response_scores(ratings, mask, judge)
    scores = judged if source == "judge" else experts
    keys = {ratings.items[i].key: max(0.0, score) for i, score in scores.items()}
    items = (
        StudyItem.objects.filter(pk__in=keys)
        .select_related("response__task", "rubric_version")
        .prefetch_related("response__turns")
        .order_by("response__task__key", "response__epoch", "pk")
    )
    found: dict[str, list[eee.Instance]] = {}
    for item in items:
        response = item.response
        epoch = f"#{response.epoch}" if response.epoch > 1 else ""
        found.setdefault(response.model_name, []).append(
            eee.Instance(
                sample_id=f"{response.task.key}{epoch}",
                task=item.rubric_version.instruction,
                reference=item.rubric_version.reference_answer,
                score=keys[item.pk],
                text=response.text,
                turns=tuple((t.role, t.content) for t in response.turns.all()),
                metadata=(
                    ("task_key", response.task.key),
                    ("epoch", str(response.epoch)),
                    ("response_id", response.external_id or str(response.pk)),
                    ("response_version", str(response.version)),
                    ("language", response.task.language),
                ),
            )
        )
    return found


def model_results(
    study: Study, options: Options, run: JudgeRun | None = None
) -> tuple[list[eee.ModelResults], list[str]]:
    """Every model of the leaderboard with a score by the chosen source, and the names of the
    models left out (no response scored by that source). Raises ExportProblem listing every
    model whose developer is unknown."""
    board = study_leaderboard(study, run if options.source == "judge" else None)
    facts = _model_facts(study)
    developers = dict(options.developers or {})
    names = dict(
        Competency.objects.filter(framework_id=study.framework_id).values_list("code", "name")
    )
    instances = _instances(study, options.source, run)
    models, skipped, problems = [], [], []
    for row in board.rows:
        results = _results(board, row.model, options.source, study, names)
        if not results:
            skipped.append(row.model)
            continue
        families, versions = facts.get(row.model, (set(), set()))
        developer = developers.get(row.model)
        if developer is None and "/" not in row.model:
            if len(families) == 1:
                developer = next(iter(families))
            else:
                values = {"model": row.model, "families": ", ".join(sorted(families))}
                if families:
                    problem = gettext(
                        "model '%(model)s' has no single developer (families: %(families)s): "
                        "give it with --developer '%(model)s=NAME'"
                    )
                else:
                    problem = gettext(
                        "model '%(model)s' has no single developer: give it with --developer "
                        "'%(model)s=NAME'"
                    )
                problems.append(problem % values)
                continue
        models.append(
            eee.ModelResults(
                model=row.model,
                results=results,
                developer=developer,
                versions=tuple(sorted(versions)),
                instances=tuple(instances.get(row.model, ())),
            )
        )
    if problems:
        raise ExportProblem("\n".join(problems))
    return models, skipped


def _library_version() -> str:
    try:
        return metadata.version("l2annot")
    except metadata.PackageNotFoundError:
        return eee.UNKNOWN


def export(
    study: Study,
    folder: Path,
    options: Options,
    *,
    run: JudgeRun | None = None,
    now: Callable[[], float] = time.time,
    new_uuid: Callable[[], str] = lambda: str(uuid.uuid4()),
) -> tuple[list[Path], list[str]]:
    """Write one EEE record per model under `folder`; return the files and the skipped models.
    Checks every record before writing the first, so a refused export writes nothing."""
    if options.source not in SOURCES:
        raise ExportProblem(
            gettext("Unknown source '%(source)s': experts or judge.") % {"source": options.source}
        )
    if options.source == "judge" and run is None:
        raise ExportProblem(gettext("A judge export needs a judge run."))
    models, skipped = model_results(study, options, run)
    if not models:
        if options.source == "judge":
            refusal = gettext("No model of study '%(study)s' has a score by the judge.")
        else:
            refusal = gettext("No model of study '%(study)s' has a score by the experts.")
        raise ExportProblem(refusal % {"study": study.name})
    if options.source == "judge" and run is not None:
        prompt = run.prompt.text if run.prompt is not None else ""
        judge = eee.Judge(run.judge_model, run.prompt_version, run.run_id, prompt)
        evaluated = run.started.isoformat() if run.started else None
    else:
        judge = None
        latest = last_graded_at(study)
        evaluated = latest.isoformat() if latest else None
    shared = eee.Export(
        benchmark=options.benchmark,
        dataset_name=options.dataset_name,
        organization=options.organization,
        organization_url=options.organization_url,
        relationship=options.relationship,
        retrieved_at=now(),
        library_version=_library_version(),
        study=study.name,
        scored_by=options.source,
        evaluated_at=evaluated,
        judge=judge,
    )
    planned = [(model, new_uuid()) for model in models]
    try:
        for model, file_uuid in planned:
            eee.record(model, shared, file_uuid)  # its instance records too
            eee.relative_path(model, shared, file_uuid)
    except ValueError as error:
        raise ExportProblem(str(error)) from error
    return [eee.write_record(folder, model, shared, u) for model, u in planned], skipped
