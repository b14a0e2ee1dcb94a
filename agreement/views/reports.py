from dataclasses import replace
from io import BytesIO

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import get_format
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRefresh

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement import cache as agreement_cache
from agreement import jobs
from agreement.data import (
    calibration_runs,
    disagreements,
    judge_runs_for,
    study_run,
    unmatched_questions,
)
from agreement.forms import AnalysisSettingsForm
from agreement.models import AnalysisSettings
from agreement.services import (
    cached_study_report,
    download_parts,
    is_large,
    judge_calibration_summary,
    judge_calibrations,
    judge_leaderboards,
    judge_report,
    judge_scale_report,
    judge_scales_by_run,
    study_leaderboard,
    study_report,
)
from audit import services as audit
from audit.models import AuditEvent
from core.analysis import charts
from core.analysis.calibration import JudgeScale
from core.analysis.export import (
    judge_calibration_rows,
    judge_level_row,
    judge_turn_row,
    report_to_dict,
    write_judge_calibration_xlsx,
    write_report_xlsx,
)
from core.analysis.leaderboard import Leaderboard
from core.analysis.reports import CriterionAgreement, GroupAgreement, StudyAgreement
from grading.adjudication import split_reasons_per_criterion
from grading.models import Study, StudyItem
from judging.models import JudgeRun
from judging.services import set_run_family
from l2annot.htmx import render_page, wants_fragment
from l2annot.shown import grader_name, message_text
from taxonomy.models import Competency

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _forest_rows(groups: list[GroupAgreement]) -> list[charts.ForestRow]:
    return [
        charts.ForestRow(
            label=g.label,
            estimate=g.alpha.estimate.value,
            low=g.alpha.low,
            high=g.alpha.high,
            note=message_text(g.alpha.estimate.undefined_reason or g.alpha.unreliable_reason or ""),
        )
        for g in groups
    ]


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


def _decimal() -> str:
    """The interface language's decimal mark, for the numbers the charts print."""
    return str(get_format("DECIMAL_SEPARATOR"))


# Criteria shown per page of the report: a study of a thousand tasks has over a thousand
# criteria, and all of them made a page of a megabyte (the downloads keep every one).
CRITERIA_PER_PAGE = 50


# Chart titles with a percent sign write it %% and are formatted: xgettext reads "% i" as a
# placeholder and marks the text python-format, which its translation must then follow.
def _criteria_chart(criteria: list[CriterionAgreement], threshold: float) -> str:
    return mark_safe(  # charts.py escapes every text it writes
        charts.forest_plot(
            _forest_rows([c.agreement for c in criteria]),
            threshold=threshold,
            title=gettext("Krippendorff's alpha per criterion with 95%% interval") % {},
            decimal=_decimal(),
        )
    )


def _charts(report: StudyAgreement) -> dict[str, str]:
    matrix = [[cell.percent if cell else None for cell in row] for row in report.rater_matrix]
    return {
        "layer_chart": mark_safe(
            charts.forest_plot(
                _forest_rows(list(report.by_layer)),
                threshold=report.threshold,
                title=gettext("Krippendorff's alpha per layer with 95%% interval") % {},
                decimal=_decimal(),
            )
        ),
        "rater_chart": mark_safe(
            charts.heatmap(
                [grader_name(name) for name in report.rater_names],
                matrix,
                title=gettext("Pairwise percent agreement of annotators"),
                decimal=_decimal(),
            )
        ),
    }


@require(Action.VIEW_BENCHMARK)
@vary_on_headers("HX-Request")
def study_agreement(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    settings = AnalysisSettings.for_study(study)
    report = cached_study_report(study)
    if report is None and is_large(study):
        jobs.request_study_report(study)
        if wants_fragment(request):  # the waiting page polls; nothing new yet
            return HttpResponse(status=204)
        return render(request, "agreement/computing.html", {"study": study}, status=202)
    paging = "page" in request.GET  # htmx asking for another page of criteria, not polling
    if report is not None and wants_fragment(request) and not paging:
        return HttpResponseClientRefresh()  # ready: the waiting page reloads as the full report
    report = report or study_report(study)
    criteria = Paginator(report.criteria, CRITERIA_PER_PAGE).get_page(request.GET.get("page"))
    page_context = {
        "study": study,
        "report": report,
        "criteria": criteria,
        "criteria_chart": _criteria_chart(list(criteria), report.threshold),
    }
    if paging and wants_fragment(request):
        return render_page(request, "agreement/study.html", page_context, fragment="criteria")
    weakest = report.least_reliable(5)
    context = {
        **page_context,
        "settings": settings,
        "weakest": weakest,
        "disagreements": disagreements(
            study,
            [c.criterion.key for c in weakest],
            blind=not settings.show_annotator_names,
        ),
        "judge_runs": calibration_runs(study),
        # Not study data (grading.gold): said beside the units the figures use.
        "gold_checks": StudyItem.objects.filter(study=study).gold_checks().count(),
        "split_reasons": split_reasons_per_criterion(study),
        **_charts(report),
    }
    return render_page(request, "agreement/study.html", context)


@require(Action.EXPORT_DATA)
@vary_on_headers("HX-Request")
def study_report_prepare(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The way to a report download that shows progress: the file at once when every result
    it writes is cached; otherwise the worker computes them while this page counts them ready
    (its status fragment, polled), then offers the file."""
    study = get_object_or_404(Study, pk=study_id)
    fmt = "json" if request.GET.get("format") == "json" else "xlsx"
    name = "agreement:study_report_json" if fmt == "json" else "agreement:study_report_xlsx"
    file_url = reverse(name, args=[study.pk])
    parts = download_parts(study)
    ready = agreement_cache.stored(parts)
    if ready == len(parts) and not wants_fragment(request):
        return redirect(file_url)
    if ready < len(parts):
        jobs.request_study_download(study, parts)
    context = {
        "study": study,
        "fmt": fmt,
        "file_url": file_url,
        "ready": ready,
        "total": len(parts),
    }
    return render_page(request, "agreement/download.html", context, fragment="status")


@require(Action.EXPORT_DATA)
def study_report_download(
    request: AuthenticatedHttpRequest, study_id: int, fmt: str
) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    report = study_report(study)
    filename = f"agreement-{slugify(study.name) or study.pk}"
    judges = judge_scales_by_run(study)
    calibrations = judge_calibrations(study)
    boards = judge_leaderboards(study)
    if fmt == "json":
        data = report_to_dict(study.name, report, judges, calibrations, boards)
        response: HttpResponse = JsonResponse(data)
        response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return response
    buffer = BytesIO()
    write_report_xlsx(study.name, report, buffer, judges, calibrations, boards)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response


def _study_run(study: Study, run_id: int) -> JudgeRun:
    """One of the study's judge runs (agreement.data.study_run); another's is a 404."""
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
        return render_page(request, "agreement/judge.html", context, fragment="criteria")
    report = replace(calibration, scales=judge_scale_report(study, run))
    confusion = report.overall.vs_majority.confusion if report.overall.vs_majority else None
    return render_page(
        request,
        "agreement/judge.html",
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
            decimal=_decimal(),
            words={
                "axis": gettext("mean of judge and experts"),
                "upper": gettext("upper limit"),
                "bias": gettext("bias"),
                "lower": gettext("lower limit"),
            },
        )
    )


@require(Action.VIEW_BENCHMARK)
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = Study.objects.with_progress().order_by("-created_at", "pk")
    return render(request, "agreement/index.html", {"studies": studies})


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
        decimal=_decimal(),
    )
    return render(
        request,
        "agreement/leaderboard.html",
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
@require_http_methods(["GET", "POST"])
def analysis_settings(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    instance = AnalysisSettings.for_study(study)
    form = AnalysisSettingsForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        creating = form.instance.pk is None
        saved = form.save()
        if creating:
            audit.record_creation(saved, AnalysisSettingsForm.Meta.fields, request.user)
        else:
            audit.record(saved, AuditEvent.Kind.UPDATED, request.user, _changes(form))
        return redirect("agreement:study", study.pk)
    status = 422 if request.method == "POST" else 200
    return render(request, "agreement/settings.html", {"study": study, "form": form}, status=status)


def _changes(form: AnalysisSettingsForm) -> dict[str, list[object]]:
    return {
        name: [str(form.initial.get(name)), str(form.cleaned_data[name])]
        for name in form.changed_data
    }


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
    return redirect("agreement:judge", study.pk, run.pk)
