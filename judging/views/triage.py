"""The triage queue: the units where one judge run disagrees with the experts of a study, most
important first, each with what a maintainer needs to resolve it; beside it, the responses
where the run's level on an ordinal criterion differs and the tutor turns where its verdict
differs. Maintainers only."""

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core.analysis.ratings import CriterionInfo, ItemInfo
from core.analysis.triage import LevelDisagreement, TriageUnit, TurnDisagreement
from core.refusals import Conflict
from grading.models import Study, StudyItem
from judging import resolution
from judging.calibration import Triage, triage
from judging.data import judge_runs_for
from judging.forms import ResolveForm
from judging.models import JudgeRun, TriageResolution
from judging.unit_details import UnitDetail, load_unit_details
from l2annot.errors import message_of, status_for
from l2annot.htmx import render_page, respond
from rubrics.markdown import markdown_excerpt
from rubrics.models import CriterionVersion, Turn

PAGE = "judging/triage.html"
PER_PAGE = 20


@dataclass
class Card:
    """One unit of the queue as the page shows it."""

    unit: TriageUnit
    detail: UnitDetail
    context: tuple[tuple[str, str], ...]
    resolution: TriageResolution | None
    form: ResolveForm
    error: str = ""
    reopened: list[str] = field(default_factory=list)  # what reopening it did, in words
    status: int = 200

    @property
    def anchor(self) -> str:
        return f"unit-{self.detail.study_item.pk}-{self.detail.criterion_version.pk}"


def _study_and_run(study_id: int, run_id: int) -> tuple[Study, JudgeRun]:
    study = get_object_or_404(Study, pk=study_id)
    run = next((run for run in judge_runs_for(study) if run.pk == run_id), None)
    if run is None:
        raise Http404("This run judged none of this study's responses.")
    return study, run


def _cards(study: Study, run: JudgeRun, found: Triage, units: list[TriageUnit]) -> list[Card]:
    details = load_unit_details(study, run, [found.pair(unit) for unit in units])
    resolutions = {
        (r.response_id, r.criterion_version_id): r
        for r in TriageResolution.objects.filter(
            run=run,
            response_id__in=[d.study_item.response_id for d in details],
            criterion_version_id__in=[d.criterion_version.pk for d in details],
        ).select_related("draft")
    }
    return [
        Card(
            unit=unit,
            detail=detail,
            context=found.items[unit.item].context,
            resolution=resolutions.get(
                (detail.study_item.response_id, detail.criterion_version.pk)
            ),
            form=ResolveForm(),
        )
        for unit, detail in zip(units, details, strict=True)
    ]


@dataclass(frozen=True)
class LevelLine:
    """A response where the run's level differs, as the page lists it."""

    found: LevelDisagreement
    criterion: CriterionInfo
    item: ItemInfo


@dataclass(frozen=True)
class TurnLine:
    """A tutor turn where the run's verdict differs, with the start of what the tutor said."""

    found: TurnDisagreement
    criterion: CriterionInfo
    item: ItemInfo
    number: int  # the turn's index + 1, as the cards number turns
    excerpt: str


TURN_EXCERPT = 200  # characters of a turn's text shown beside its disagreement


def _level_lines(found: Triage) -> list[LevelLine]:
    return [
        LevelLine(line, found.criteria[line.criterion], found.items[line.item])
        for line in found.levels
    ]


def _turn_lines(found: Triage) -> list[TurnLine]:
    """The turn disagreements with their turns' text: one query."""
    turns = {
        pk: (index, content)
        for pk, index, content in Turn.objects.filter(
            pk__in=[line.turn for line in found.turns]
        ).values_list("pk", "index", "content")
    }
    return [
        TurnLine(
            line,
            found.turn_criteria[line.criterion],
            found.turn_items[line.item],
            turns[line.turn][0] + 1,
            markdown_excerpt(turns[line.turn][1], TURN_EXCERPT),
        )
        for line in found.turns
        if line.turn in turns
    ]


def _page(request: AuthenticatedHttpRequest, found: Triage) -> Page[TriageUnit]:
    return Paginator(found.units, PER_PAGE).get_page(request.GET.get("page"))


@require(Action.MANAGE_STUDIES)
def queue(request: AuthenticatedHttpRequest, study_id: int, run_id: int) -> HttpResponse:
    study, run = _study_and_run(study_id, run_id)
    found = triage(study, run)
    page = _page(request, found)
    context = {
        "study": study,
        "run": run,
        "triage": found,
        "page": page,
        "cards": _cards(study, run, found, list(page.object_list)),
        "resolved": TriageResolution.objects.filter(run=run).count(),
        "levels": _level_lines(found),
        "turns": _turn_lines(found) if found.turns else [],
    }
    return render_page(request, PAGE, context, fragment="queue")


def _unit(found: Triage, item: StudyItem, version: CriterionVersion) -> TriageUnit:
    unit = next((u for u in found.units if found.pair(u) == (item.pk, version.pk)), None)
    if unit is None:
        raise Http404("This run does not disagree with the experts on this unit.")
    return unit


def _respond_with_card(
    request: AuthenticatedHttpRequest, study: Study, run: JudgeRun, found: Triage, card: Card
) -> HttpResponse:
    queue_url = reverse("judging:triage", args=[study.pk, run.pk])
    context: dict[str, Any] = {"study": study, "run": run, "card": card}
    return respond(
        request,
        PAGE,
        context,
        fragment="card",
        done_url=f"{queue_url}#{card.anchor}",
        status=card.status,
        page_context=lambda: {
            "triage": found,
            "page": _page(request, found),
            "cards": [card],
            "resolved": TriageResolution.objects.filter(run=run).count(),
        },
    )


@require(Action.MANAGE_STUDIES)
@require_POST
def resolve(
    request: AuthenticatedHttpRequest,
    study_id: int,
    run_id: int,
    study_item_id: int,
    criterion_version_id: int,
) -> HttpResponse:
    study, run = _study_and_run(study_id, run_id)
    item = get_object_or_404(StudyItem, pk=study_item_id, study=study)
    version = get_object_or_404(CriterionVersion, pk=criterion_version_id)
    found = triage(study, run)
    unit = _unit(found, item, version)
    form = ResolveForm(request.POST)
    status, error = 422, ""
    if form.is_valid():
        try:
            resolution.resolve(
                run,
                item,
                version,
                kind=form.cleaned_data["kind"],
                note=form.cleaned_data["note"],
                by=request.user,
            )
            status = 200
        except Conflict as refused:  # resolved meanwhile, or the criterion's task is locked
            status, error = status_for(refused), message_of(refused)
        except ValidationError as refused:
            form.add_error(None, refused)
    card = _cards(study, run, found, [unit])[0]
    if status != 200:
        card.form, card.error, card.status = form, error, status
    return _respond_with_card(request, study, run, found, card)


@require(Action.MANAGE_STUDIES)
@require_POST
def reopen(
    request: AuthenticatedHttpRequest,
    study_id: int,
    run_id: int,
    study_item_id: int,
    criterion_version_id: int,
) -> HttpResponse:
    """Undo a unit's resolution: the unit is back in the queue with its form, and the card
    says what was undone and what stays (`resolution.reopen`)."""
    study, run = _study_and_run(study_id, run_id)
    item = get_object_or_404(StudyItem, pk=study_item_id, study=study)
    version = get_object_or_404(CriterionVersion, pk=criterion_version_id)
    found = triage(study, run)
    unit = _unit(found, item, version)
    done: list[str] = []
    status, error = 200, ""
    try:
        done = resolution.reopen(run, item, version, by=request.user)
    except Conflict as refused:  # reopened meanwhile
        status, error = status_for(refused), message_of(refused)
    card = _cards(study, run, found, [unit])[0]
    card.reopened, card.error, card.status = done, error, status
    return _respond_with_card(request, study, run, found, card)
