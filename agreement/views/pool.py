"""The annotator pool over time, and a study's agreement drift week by week."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext

from accounts.models import User
from accounts.names import person_name
from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from agreement.pool import annotator_history, pool_overview, study_drift
from grading.models import Study


@require(Action.VIEW_BENCHMARK)
def pool(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "agreement/pool.html", {"rows": pool_overview()})


@require(Action.VIEW_BENCHMARK)
def annotator(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    context = {
        "name": person_name(person.display_name, person.username),
        "history": annotator_history(person.pk),
    }
    return render(request, "agreement/annotator.html", context)


@require(Action.VIEW_BENCHMARK)
def drift(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    found = study_drift(study)
    weeks = found.drift
    context = {
        "study": study,
        "found": found,
        "rows": zip(found.weeks, weeks.overall, weeks.alpha, strict=True),
        "tables": [
            (gettext("By criterion"), gettext("Criterion"), weeks.criteria),
            (gettext("By annotator"), gettext("Annotator"), weeks.raters),
        ],
    }
    return render(request, "agreement/drift.html", context)
