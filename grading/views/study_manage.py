"""A running study's pool and settings: add and remove annotators, change the settings and the
1-5 questions, close and reopen (the study page links here). Every change goes through
grading.services and is recorded in the study's history."""

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.names import person_name
from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from audit.models import AuditEvent
from grading import gold, services
from grading.forms import (
    AddAnnotatorsForm,
    GoldChecksForm,
    LikertQuestionsForm,
    SplitReasonsForm,
    StudySettingsForm,
)
from grading.history_text import names_looked_up_once
from grading.models import LikertRating, Study, StudyItem
from l2annot.errors import message_of, status_for
from l2annot.htmx import redirect_to, render_page


def _study(study_id: int) -> Study:
    return get_object_or_404(Study.objects.select_related("framework"), pk=study_id)


def _page(
    request: AuthenticatedHttpRequest, study: Study, status: int = 200, **forms: Any
) -> HttpResponse:
    questions = list(study.likert_items.all())
    context = {
        "study": study,
        "annotators": services.progress_per_annotator(study),
        "add_form": forms.get("add_form") or AddAnnotatorsForm(study=study),
        "settings_form": forms.get("settings_form") or StudySettingsForm(instance=study),
        "questions_form": forms.get("questions_form")
        or LikertQuestionsForm(initial={"prompts": "\n".join(q.prompt for q in questions)}),
        "questions": questions,
        "split_reasons_form": forms.get("split_reasons_form")
        or SplitReasonsForm(initial={"reasons": study.split_reasons}),
        "questions_answered": LikertRating.objects.filter(item__study=study).exists(),
        "gold_checks": study.items.gold_checks()
        .select_related("response__task", "gold_source__study")
        .annotate(graders=Count("assignments")),
        "gold_form": forms.get("gold_form")
        or GoldChecksForm(candidates=gold.gold_candidates(study)),
        "accuracy": gold.accuracy_per_annotator(study),
        "events": AuditEvent.objects.for_object(study).select_related("actor")[:30],
        "error": message_of(forms["error"]) if forms.get("error") else "",
    }
    with names_looked_up_once():
        return render_page(request, "grading/study_manage.html", context, status=status)


def _done(request: AuthenticatedHttpRequest, study: Study, message: str) -> HttpResponse:
    messages.success(request, message)
    return redirect_to(request, reverse("grading:study_manage", args=[study.pk]))


@require(Action.MANAGE_STUDIES)
def study_manage(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    return _page(request, _study(study_id))


@require(Action.MANAGE_STUDIES)
@require_POST
def pool_add(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = _study(study_id)
    form = AddAnnotatorsForm(request.POST, study=study)
    if not form.is_valid():
        return _page(request, study, 422, add_form=form)
    try:
        planned = services.add_annotators(study, form.cleaned_data["annotators"], by=request.user)
    except (ValidationError, services.StudyClosed) as error:
        return _page(request, study, status_for(error), error=error)
    names = ", ".join(
        person_name(a.display_name, a.username) for a in form.cleaned_data["annotators"]
    )
    return _done(
        request,
        study,
        _("%(names)s added; %(count)s assignments planned.") % {"names": names, "count": planned},
    )


@require(Action.MANAGE_STUDIES)
@require_POST
def pool_remove(request: AuthenticatedHttpRequest, study_id: int, user_id: int) -> HttpResponse:
    study = _study(study_id)
    annotator = get_object_or_404(User, pk=user_id)
    taken = services.remove_annotator(study, annotator, by=request.user)
    return _done(
        request,
        study,
        _(
            "%(username)s removed: %(count)s unfinished assignments given to others; "
            "what they submitted is kept."
        )
        % {"username": person_name(annotator.display_name, annotator.username), "count": taken},
    )


@require(Action.MANAGE_STUDIES)
@require_POST
def study_settings(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = _study(study_id)
    form = StudySettingsForm(request.POST, instance=_study(study_id))
    if not form.is_valid():
        return _page(request, study, 422, settings_form=form)
    changes = {name: form.cleaned_data[name] for name in StudySettingsForm.Meta.fields}
    services.update_settings(study, changes, by=request.user)
    return _done(request, study, _("Settings saved."))


@require(Action.MANAGE_STUDIES)
@require_POST
def study_questions(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = _study(study_id)
    form = LikertQuestionsForm(request.POST)
    if not form.is_valid():
        return _page(request, study, 422, questions_form=form)
    try:
        services.set_likert_prompts(study, form.cleaned_data["prompts"], by=request.user)
    except (ValidationError, services.QuestionsAnswered) as error:
        return _page(request, study, status_for(error), questions_form=form, error=error)
    return _done(request, study, _("Questions saved."))


@require(Action.MANAGE_STUDIES)
@require_POST
def study_split_reasons(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = _study(study_id)
    form = SplitReasonsForm(request.POST)
    if not form.is_valid():
        return _page(request, study, 422, split_reasons_form=form)
    services.set_split_reasons(study, form.cleaned_data["reasons"], by=request.user)
    return _done(request, study, _("Reasons saved."))


@require(Action.MANAGE_STUDIES)
@require_POST
def gold_add(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = _study(study_id)
    form = GoldChecksForm(request.POST, candidates=gold.gold_candidates(study))
    if not form.is_valid():
        return _page(request, study, 422, gold_form=form)
    try:
        added, planned = services.add_gold_checks_and_assign(
            study, form.cleaned_data["sources"], by=request.user
        )
    except ValidationError as error:
        return _page(request, study, status_for(error), gold_form=form, error=error)
    message = "{} {}".format(
        ngettext("%(added)d gold check added;", "%(added)d gold checks added;", added),
        ngettext("%(planned)d assignment planned.", "%(planned)d assignments planned.", planned),
    )
    return _done(request, study, message % {"added": added, "planned": planned})


@require(Action.MANAGE_STUDIES)
@require_POST
def gold_remove(
    request: AuthenticatedHttpRequest, study_id: int, study_item_id: int
) -> HttpResponse:
    study = _study(study_id)
    item = get_object_or_404(StudyItem, pk=study_item_id, study=study)
    try:
        gold.remove_gold_check(study, item, by=request.user)
    except (ValidationError, gold.GoldCheckGraded) as error:
        return _page(request, study, status_for(error), error=error)
    return _done(request, study, _("Gold check removed."))
