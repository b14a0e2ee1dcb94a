"""Judge runs side by side: two to four runs of a study on the units they share, and every
pair of runs tested (McNemar) criterion by criterion, and each run's levels on the ordinal
criteria. Maintainers only."""

from dataclasses import dataclass

from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.models import AnalysisSettings
from core.analysis.comparison import RunComparison, RunGroup, RunLevels, RunSummary
from core.analysis.comparison_summary import comparison_summary
from core.analysis.ratings import CriterionInfo
from grading.models import Study
from judging.calibration import run_comparison
from judging.data import judge_runs_for
from judging.forms import CompareForm
from judging.models import JudgeRun
from judging.resolution import resolution_counts
from l2annot.htmx import render_page

PAGE = "judging/compare.html"


@dataclass(frozen=True)
class CriterionRows:
    criterion: CriterionInfo
    runs: list[tuple[str, RunGroup]]  # (run name, its figures on the criterion)


def criterion_rows(comparison: RunComparison) -> list[CriterionRows]:
    return [
        CriterionRows(info, [(run.name, run.criteria[n]) for run in comparison.runs])
        for n, info in enumerate(comparison.criteria)
    ]


@dataclass(frozen=True)
class LevelRows:
    criterion: CriterionInfo
    runs: list[tuple[str, RunLevels]]  # (run name, its levels on the ordinal criterion)


def level_rows(comparison: RunComparison) -> list[LevelRows]:
    return [
        LevelRows(info, [(run.name, run.levels[n]) for run in comparison.runs])
        for n, info in enumerate(comparison.ordinal)
    ]


def overall_rows(
    comparison: RunComparison, runs: list[JudgeRun]
) -> list[tuple[RunSummary, JudgeRun]]:
    """Each run's figures beside the run itself, in the order compared (its cost is not part
    of the cached comparison: the run keeps it)."""
    return list(zip(comparison.runs, runs, strict=True))


@require(Action.MANAGE_STUDIES)
def compare(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = CompareForm(request.GET or None, runs=judge_runs_for(study))
    comparison = resolutions = None
    if form.is_valid():
        comparison = run_comparison(study, form.cleaned_data["run"])
        resolutions = resolution_counts(study, form.cleaned_data["run"])
    context = {
        "study": study,
        "form": form,
        "settings": AnalysisSettings.for_study(study),
        "comparison": comparison,
        "summary": comparison_summary(comparison) if comparison else None,
        "criteria": criterion_rows(comparison) if comparison else [],
        "levels": level_rows(comparison) if comparison else [],
        "overall": overall_rows(comparison, form.cleaned_data["run"]) if comparison else [],
        "resolutions": resolutions,
        "runs": form.cleaned_data["run"] if comparison else [],
    }
    status = 422 if form.is_bound and not form.is_valid() else 200
    return render_page(request, PAGE, context, fragment="results", status=status)
