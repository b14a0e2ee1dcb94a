"""Time per criterion in a study, for maintainers and researchers: medians per criterion and per
annotator with their n, so slow or rushed criteria stand out (docs/grading.md)."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core import timing
from grading import services
from grading.models import Study


@require(Action.VIEW_BENCHMARK)
def study_times(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    summary = services.criterion_times(study)
    annotators = [row.key for row in summary.per_annotator]
    matrix = [
        (row, [summary.per_pair.get((row.key, name)) for name in annotators])
        for row in summary.per_criterion
    ]
    context = {
        "study": study,
        "summary": summary,
        "annotators": annotators,
        "matrix": matrix,
        "slow_factor": timing.SLOW_FACTOR,
        "min_n": timing.MIN_N,
        "idle_cap": int(services.CRITERION_IDLE_CAP.total_seconds()),
    }
    return render(request, "grading/times.html", context)
