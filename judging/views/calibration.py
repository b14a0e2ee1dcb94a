"""The judge's calibration against the experts of a study (its page, its downloads, the run's
model family) and the study's model leaderboard, with a judge's scores when one is chosen. The
paths stay under /agreement/ beside the study's agreement report."""

from dataclasses import replace
from io import BytesIO

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.models import AnalysisSettings
from agreement.views.reports import CRITERIA_PER_PAGE, XLSX, decimal_mark
from core.analysis import charts
from core.analysis.calibration import JudgeScale
from core.analysis.export import (
    judge_calibration_rows,
    judge_level_row,
    judge_turn_row,
    write_judge_calibration_xlsx,
)
from core.analysis.leaderboard import Leaderboard
from grading.models import Study
from judging.calibration import (
    judge_calibration_summary,
    judge_report,
    judge_scale_report,
    study_leaderboard,
)
from judging.data import judge_runs_for, study_run, unmatched_questions
from judging.models import JudgeRun
from judging.services import set_run_family
from l2annot.htmx import render_page, wants_fragment
from taxonomy.models import Competency

# The leaderboard's breakdowns (core.analysis.leaderboard names them in English): each
# heading and empty note is one whole sentence for the translators.
BREAKDOWN_TEXTS = {
    "Competency": (
        gettext_lazy("By competency"),
        gettext_lazy("No competency recorded on these tasks."),
    ),
    "Layer": (gettext_lazy("By layer"), gettext_lazy("No layer recorded on these tasks.")),
    "Difficulty": (
        gettext_lazy("By difficulty"),
        gettext_lazy("No difficulty recorded on these tasks."),
    ),
    "Task type": (
        gettext_lazy("By task type"),
        gettext_lazy("No task type recorded on these tasks."),
    ),
    "Language": (
        gettext_lazy("By language"),
        gettext_lazy("No language recorded on these tasks."),
    ),
    "Context value": (
        gettext_lazy("By context value"),
        gettext_lazy("No context value recorded on these tasks."),
    ),
}


def _study_run(study: Study, run_id: int) -> JudgeRun:
    """One of the study's judge runs (judging.data.study_run); another's is a 404."""
    run = study_run(study, run_id)
    if run is None:
        raise Http404("This run judged none of this study's own responses.")
    return run


@require(Action.EXPORT_DATA)
def judge_calibration_download(
    request: AuthenticatedHttpRequest, study_id: int, run_id: int, fmt: str
) -> HttpResponse:
    """The judge's calibration overall and per criterion, every figure with its interval and
    n, as JSON or XLSX."""
    study = get_object_or_404(Study, pk=study_id)
    run = _study_run(study, run_id)
    summary = judge_calibration_summary(study, run)
    report = judge_report(study, run)
    levels = [judge_level_row(run, criterion) for criterion in report.ordinal]
    turns = [judge_turn_row(run, turn) for turn in report.turns]
    filename = f"judge-{run.pk}-{slugify(study.name) or study.pk}"
    if fmt == "json":
        data = {
            "study": study.name,
            "judge": str(run),
            "rows": judge_calibration_rows(summary),
            "ordinal criteria": levels,
            "turn-level criteria, per turn": turns,
        }
        response: HttpResponse = JsonResponse(data)
        response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return response
    buffer = BytesIO()
    write_judge_calibration_xlsx(summary, buffer, levels, turns)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response


@require(Action.VIEW_BENCHMARK)
def judge_calibration(
    request: AuthenticatedHttpRequest, study_id: int, run_id: int
) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    run = _study_run(study, run_id)
    calibration = judge_report(study, run)
    criteria = Paginator(calibration.by_criterion, CRITERIA_PER_PAGE).get_page(
        request.GET.get("page")
    )
    if "page" in request.GET and wants_fragment(request):
        context = {"study": study, "run": run, "criteria": criteria}
        return render_page(request, "judging/calibration.html", context, fragment="criteria")
    report = replace(calibration, scales=judge_scale_report(study, run))
    confusion = report.overall.vs_majority.confusion if report.overall.vs_majority else None
    return render_page(
        request,
        "judging/calibration.html",
        {
            "study": study,
            "run": run,
            "report": report,
            "criteria": criteria,
            "settings": AnalysisSettings.for_study(study),
            "confusion": confusion.tolist() if confusion is not None else None,
            "scales": [(scale, _bland_altman_chart(scale)) for scale in report.scales],
            "ordinal_criteria": [(scale, _bland_altman_chart(scale)) for scale in report.ordinal],
            "unmatched_questions": unmatched_questions(study, run),
        },
    )


def _bland_altman_chart(scale: JudgeScale) -> str:
    found = scale.agreement
    limits = found.bland_altman
    return mark_safe(  # charts.py escapes every text it writes
        charts.bland_altman_plot(
            found.differences_x,
            found.differences_y,
            bias=limits.mean_difference,
            lower=limits.lower_limit,
            upper=limits.upper_limit,
            title=gettext("Judge minus experts' mean on '%(question)s', by the mean of both")
            % {"question": scale.prompt},
            decimal=decimal_mark(),
            words={
                "axis": gettext("mean of judge and experts"),
                "upper": gettext("upper limit"),
                "bias": gettext("bias"),
                "lower": gettext("lower limit"),
            },
        )
    )


def _score_rows(board: Leaderboard) -> list[charts.ForestRow]:
    rows = []
    for row in board.rows:
        rows.append(
            charts.ForestRow(
                gettext("%(model)s (experts, n = %(n)s)")
                % {"model": row.model, "n": row.experts.n_responses},
                row.experts.mean,
                row.experts.low,
                row.experts.high,
            )
        )
        if row.judge is not None:
            rows.append(
                charts.ForestRow(
                    gettext("%(model)s (judge, n = %(n)s)")
                    % {"model": row.model, "n": row.judge.n_responses},
                    row.judge.mean,
                    row.judge.low,
                    row.judge.high,
                )
            )
        if row.ppi is not None:
            found = row.ppi.score
            shown = found.unreliable_reason is None
            rows.append(
                charts.ForestRow(
                    gettext("%(model)s (prediction-powered, n = %(n_labeled)s + %(n_unlabeled)s)")
                    % {
                        "model": row.model,
                        "n_labeled": found.n_labeled,
                        "n_unlabeled": found.n_unlabeled,
                    },
                    found.estimate,
                    found.low if shown else None,
                    found.high if shown else None,
                )
            )
    return rows


@require(Action.VIEW_BENCHMARK)
def leaderboard(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    runs = judge_runs_for(study)
    run = next((r for r in runs if str(r.pk) == request.GET.get("judge")), None)
    board = study_leaderboard(study, run)
    # Competencies are grouped by code ("02"): show their names beside it.
    names = dict(
        Competency.objects.filter(framework=study.framework_id).values_list("code", "name")
    )
    breakdowns = [
        (
            dimension,
            *BREAKDOWN_TEXTS[dimension],
            [
                (
                    f"{g.label} {names[g.label]}"
                    if dimension == "Competency" and g.label in names
                    else g.label,
                    g,
                )
                for g in groups
            ],
        )
        for dimension, groups in board.breakdowns
    ]
    chart = charts.forest_plot(
        _score_rows(board),
        threshold=None,
        title=gettext("Model scores with 95%% interval") % {},
        decimal=decimal_mark(),
    )
    return render(
        request,
        "judging/leaderboard.html",
        {
            "study": study,
            "runs": runs,
            "run": run,
            "board": board,
            "breakdowns": breakdowns,
            "chart": mark_safe(chart),  # charts.py escapes every text it writes
        },
    )


@require(Action.MANAGE_STUDIES)
@require_http_methods(["POST"])
def judge_family(request: AuthenticatedHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    """Name an imported run's model family, so that self-preference can be measured."""
    study = get_object_or_404(Study, pk=study_id)
    run = _study_run(study, run_id)
    try:
        set_run_family(run, request.POST.get("model_family", ""), by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    return redirect("judging:calibration", study.pk, run.pk)
