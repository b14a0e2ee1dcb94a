"""Judge runs side by side: two to four runs of a study on the units they share, and every
pair of runs tested (McNemar) criterion by criterion, and each run's levels on the ordinal
criteria. Maintainers only."""

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.models import AnalysisSettings
from core.analysis.comparison import (
    PairComparison,
    PairTest,
    RunComparison,
    RunGroup,
    RunLevels,
    RunSummary,
)
from core.analysis.comparison_summary import comparison_summary
from core.analysis.ratings import CriterionInfo
from grading.models import Study
from judging.calibration import run_comparison
from judging.data import judge_runs_for
from judging.forms import CompareForm
from judging.models import JudgeRun
from judging.resolution import resolution_counts
from l2annot.htmx import render_page, wants_fragment

PAGE = "judging/compare.html"

# Criteria shown per page, as on the agreement page: with four runs, six pairs and the ordinal
# levels, every criterion adds a dozen rows, and a study of a few hundred criteria made a page
# over 100,000 pixels tall.
CRITERIA_PER_PAGE = 25


@dataclass(frozen=True)
class CriterionRows:
    criterion: CriterionInfo
    runs: list[tuple[str, RunGroup]]  # (run name, its figures on the criterion)


def criterion_rows(comparison: RunComparison, indices: range) -> list[CriterionRows]:
    return [
        CriterionRows(
            comparison.criteria[n], [(run.name, run.criteria[n]) for run in comparison.runs]
        )
        for n in indices
    ]


@dataclass(frozen=True)
class PairRows:
    pair: PairComparison
    criteria: tuple[PairTest, ...]  # the pair's tests on the criteria of the page


def pair_rows(comparison: RunComparison, indices: range) -> list[PairRows]:
    # A pair's tests are in the order of RunComparison.criteria (compare_runs).
    return [
        PairRows(pair, pair.criteria[indices.start : indices.stop]) for pair in comparison.pairs
    ]


@dataclass(frozen=True)
class LevelRows:
    criterion: CriterionInfo
    runs: list[tuple[str, RunLevels]]  # (run name, its levels on the ordinal criterion)


def level_rows(comparison: RunComparison, keys: set[int]) -> list[LevelRows]:
    """The ordinal criteria among `keys` (the criteria of the page), each run's levels on it."""
    return [
        LevelRows(info, [(run.name, run.levels[n]) for run in comparison.runs])
        for n, info in enumerate(comparison.ordinal)
        if info.key in keys
    ]


def overall_rows(
    comparison: RunComparison, runs: list[JudgeRun]
) -> list[tuple[RunSummary, JudgeRun]]:
    """Each run's figures beside the run itself, in the order compared (its cost is not part
    of the cached comparison: the run keeps it)."""
    return list(zip(comparison.runs, runs, strict=True))


def paged_criteria(comparison: RunComparison) -> list[CriterionInfo]:
    """The criteria the pages go through: those with verdicts (RunComparison.criteria), then
    the ordinal criteria graded by level only."""
    binary = {info.key for info in comparison.criteria}
    return [*comparison.criteria, *(o for o in comparison.ordinal if o.key not in binary)]


def criteria_page(comparison: RunComparison, number: str | None) -> dict[str, object]:
    """One page of the per-criterion tables: the runs' figures, each pair's tests and the
    ordinal criteria's levels, all on the same criteria."""
    every = paged_criteria(comparison)
    page: Page[CriterionInfo] = Paginator(every, CRITERIA_PER_PAGE).get_page(number)
    start = page.start_index() - 1 if len(page) else 0
    # The first len(comparison.criteria) of `every` are the criteria with verdicts.
    binary = range(
        min(start, len(comparison.criteria)), min(start + len(page), len(comparison.criteria))
    )
    return {
        "criteria_page": page,
        "criteria": criterion_rows(comparison, binary),
        "pair_criteria": pair_rows(comparison, binary) if binary else [],
        "levels": level_rows(comparison, {info.key for info in page}),
    }


@require(Action.MANAGE_STUDIES)
def compare(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = CompareForm(request.GET or None, runs=judge_runs_for(study))
    comparison = resolutions = None
    if form.is_valid():
        comparison = run_comparison(study, form.cleaned_data["run"])
    query = request.GET.copy()
    query.pop("page", None)  # the pager adds its own
    paged = {
        "study": study,
        "comparison": comparison,
        "query": query.urlencode(),
        **(criteria_page(comparison, request.GET.get("page")) if comparison else {}),
    }
    if comparison and "page" in request.GET and wants_fragment(request):
        return render_page(request, PAGE, paged, fragment="criteria")
    if comparison:
        resolutions = resolution_counts(study, form.cleaned_data["run"])
    context = {
        **paged,
        "form": form,
        "settings": AnalysisSettings.for_study(study),
        "summary": comparison_summary(comparison) if comparison else None,
        "overall": overall_rows(comparison, form.cleaned_data["run"]) if comparison else [],
        "resolutions": resolutions,
        "runs": form.cleaned_data["run"] if comparison else [],
    }
    status = 422 if form.is_bound and not form.is_valid() else 200
    return render_page(request, PAGE, context, fragment="results", status=status)
