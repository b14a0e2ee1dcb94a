from io import BytesIO

from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import get_format
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRefresh

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement import cache as agreement_cache
from agreement import jobs
from agreement.data import disagreements
from agreement.forms import AnalysisSettingsForm
from agreement.judge_parts import judge_parts, judge_runs
from agreement.models import AnalysisSettings
from agreement.services import cached_study_report, download_parts, is_large, study_report
from audit import services as audit
from audit.models import AuditEvent
from core.analysis import charts
from core.analysis.export import (
    report_to_dict,
    write_report_xlsx,
)
from core.analysis.reports import CriterionAgreement, GroupAgreement, StudyAgreement
from grading.adjudication import split_reasons_per_criterion
from grading.models import Study, StudyItem
from l2annot.htmx import render_page, wants_fragment
from l2annot.shown import grader_name, message_text

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# The downloads that write the study report's and the judges' results (download_parts), by the
# `format` their page is asked with: the URL of the file, and the page's title.
DOWNLOADS = {
    "xlsx": ("agreement:study_report_xlsx", _("Agreement report (XLSX)")),
    "json": ("agreement:study_report_json", _("Agreement report (JSON)")),
    "dataset": ("agreement:dataset", _("Hugging Face dataset (Parquet and card, ZIP)")),
}


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


def decimal_mark() -> str:
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
            decimal=decimal_mark(),
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
                decimal=decimal_mark(),
            )
        ),
        "rater_chart": mark_safe(
            charts.heatmap(
                [grader_name(name) for name in report.rater_names],
                matrix,
                title=gettext("Pairwise percent agreement of annotators"),
                decimal=decimal_mark(),
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
        "judge_runs": judge_runs(study),
        # Not study data (grading.gold): said beside the units the figures use.
        "gold_checks": StudyItem.objects.filter(study=study).gold_checks().count(),
        "split_reasons": split_reasons_per_criterion(study),
        **_charts(report),
    }
    return render_page(request, "agreement/study.html", context)


@require(Action.EXPORT_DATA)
@vary_on_headers("HX-Request")
def study_report_prepare(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The way to a download of the report's results (the report, the dataset) that shows
    progress: the file at once when every result it writes is cached; otherwise the worker
    computes them while this page counts them ready (its status fragment, polled), then offers
    the file."""
    study = get_object_or_404(Study, pk=study_id)
    fmt = str(request.GET.get("format"))
    if fmt not in DOWNLOADS:
        fmt = "xlsx"
    name, title = DOWNLOADS[fmt]
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
        "title": title,
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
    judges = judge_parts(study)
    parts = (judges.scales, judges.calibrations, judges.leaderboards)
    if fmt == "json":
        data = report_to_dict(study.name, report, *parts)
        response: HttpResponse = JsonResponse(data)
        response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
        return response
    buffer = BytesIO()
    write_report_xlsx(study.name, report, buffer, *parts)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{filename}.xlsx"'
    return response


@require(Action.VIEW_BENCHMARK)
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = Study.objects.with_progress().order_by("-created_at", "pk")
    return render(request, "agreement/index.html", {"studies": studies})


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
