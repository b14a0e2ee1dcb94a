"""Maintainers' adjudication screens: the disagreeing pairs of a study, and one pair with every
grade and a form for its gold verdict. Recording a verdict moves on to the next unresolved pair
(an htmx swap of the pair fragment, or a redirect without JavaScript)."""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import push_url

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from grading import adjudication
from grading.adjudication import Filters
from grading.forms import GoldVerdictForm
from grading.models import GoldVerdict, Grade, Study, StudyItem
from l2annot.errors import message_of, status_for
from l2annot.htmx import redirect_to, render_page, wants_fragment
from rubrics.models.criteria import Layer
from rubrics.models.responses import versions_count

LIST = "grading/adjudication_list.html"
PAGE = "grading/adjudication.html"
PER_PAGE = 25


class CountedPaginator(Paginator[dict[str, Any]]):  # disagreements' rows
    """A paginator told its count, when the page has it already."""

    def __init__(self, object_list: Any, per_page: int, count: int) -> None:
        super().__init__(object_list, per_page)
        self.known_count = count

    @cached_property
    def count(self) -> int:
        return self.known_count


@dataclass(frozen=True)
class GraderRow:
    label: str  # the grader's username, or "Grader n" when the study hides names
    grade: Grade | None
    submitted: bool


def pair_url(study_id: int, item_id: int, criterion_version_id: int, filters: Filters) -> str:
    url = reverse("grading:adjudicate", args=[study_id, item_id, criterion_version_id])
    query = filters.as_query()
    return f"{url}?{urlencode(query)}" if query else url


def list_url(study_id: int, filters: Filters) -> str:
    query = filters.as_query()
    url = reverse("grading:adjudication", args=[study_id])
    return f"{url}?{urlencode(query)}" if query else url


def code_options(codes: list[str], chosen: str) -> SafeString:
    """The criterion filter's <option> elements, joined here: a large study has over a
    thousand codes, and the template's loop took longer than the page's queries (and
    format_html's per-call checks a third of the rest)."""
    options = []
    for code in codes:
        text = escape(code)
        selected = " selected" if code == chosen else ""
        options.append(f'<option value="{text}"{selected}>{text}</option>')
    return mark_safe("".join(options))  # each code escaped above


@require(Action.MANAGE_STUDIES)
def adjudication_list(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """The disagreeing pairs, unresolved first, filterable by criterion and layer. A fixed
    number of queries; without a filter the count of pairs comes with the codes."""
    study = get_object_or_404(Study, pk=study_id)
    filters = Filters.from_query(request.GET)
    pairs, codes = adjudication.disagreement_summary(study)
    rows = adjudication.disagreements(study, filters)
    paginator = CountedPaginator(rows, PER_PAGE, pairs) if filters == Filters() else None
    page = (paginator or Paginator(rows, PER_PAGE)).get_page(request.GET.get("page"))
    for row in adjudication.with_task_keys(list(page.object_list)):
        row["url"] = pair_url(study.pk, row["item"], row["version"], filters)
    context = {
        "study": study,
        "page": page,
        "filters": filters,
        "query": urlencode(filters.as_query()),
        "code_options": code_options(codes, filters.criterion),
        "layers": Layer.choices,
        # The criterion's own page of disagreements says why its experts split.
        "split_summary": next(
            (
                summary
                for summary in adjudication.split_reasons_per_criterion(study)
                if summary.code == filters.criterion
            ),
            None,
        )
        if filters.criterion
        else None,
    }
    return render_page(request, LIST, context, fragment="table")


def _pair_context(
    study: Study, item_id: int, criterion_version_id: int, filters: Filters
) -> dict[str, Any]:
    item: StudyItem = get_object_or_404(
        StudyItem.objects.select_related("response__task", "rubric_version").annotate(
            response_versions=versions_count("response__")
        ),
        pk=item_id,
        study=study,
    )
    line = adjudication.rubric_item(item, criterion_version_id)
    if line is None:
        raise Http404(_("This criterion is not part of this response's rubric."))
    grades = {
        g.assignment_id: g
        for g in Grade.objects.filter(
            assignment__study_item=item, criterion_version_id=criterion_version_id
        )
    }
    graders = [
        GraderRow(
            a.annotator.username
            if study.show_grader_names_to_adjudicator
            else _("Grader %(number)s") % {"number": n},
            grades.get(a.pk),
            a.is_submitted,
        )
        for n, a in enumerate(item.assignments.select_related("annotator").order_by("pk"), 1)
    ]
    gold = (
        GoldVerdict.objects.filter(study_item=item, criterion_version_id=criterion_version_id)
        .select_related("by")
        .prefetch_related("revisions__by", "revisions__replaced_by")
        .first()
    )
    response = item.response
    return {
        "study": study,
        "item": item,
        "line": line,
        "version": line.criterion_version,
        "response": response,
        # The teaching context the graders saw: the published version's, as on the grading page.
        "context_values": item.rubric_version.context_values.select_related("variable", "value"),
        "graders": graders,
        "gold": gold,
        "penalty": line.criterion_version.is_penalty,
        "scale": line.criterion_version.scale(),
        "form": GoldVerdictForm(
            penalty=line.criterion_version.is_penalty,
            scale=line.criterion_version.scale(),
            reasons=study.split_reasons,
            initial={
                "verdict": _answer_choice(gold) if gold else None,
                "note": gold.note if gold else "",
                "split_reason": gold.split_reason if gold else "",
                "confidence": gold.confidence if gold else "",
                "revision": gold.revision if gold else 0,
            },
        ),
        "filters": filters,
        "remaining": adjudication.unresolved_count(study, filters),
        "action": pair_url(study.pk, item.pk, criterion_version_id, filters),
        "back": list_url(study.pk, filters),
    }


def _answer_choice(gold: Any) -> str:
    """The form's choice for a gold answer: its level's number, else its verdict."""
    return str(gold.level) if gold.level is not None else gold.verdict


@require(Action.MANAGE_STUDIES)
@require_http_methods(["GET", "POST"])
def adjudicate(
    request: AuthenticatedHttpRequest, study_id: int, study_item_id: int, criterion_version_id: int
) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    filters = Filters.from_query(request.GET)
    context = _pair_context(study, study_item_id, criterion_version_id, filters)
    if request.method == "GET":
        return render(request, PAGE, context)
    form = GoldVerdictForm(
        request.POST,
        penalty=context["penalty"],
        scale=context["scale"],
        reasons=study.split_reasons,
    )
    status = 422
    if form.is_valid():
        data = form.cleaned_data
        verdict, level = form.answer()
        try:
            adjudication.record_gold_verdict(
                context["item"],
                criterion_version_id,
                verdict=verdict,
                level=level,
                note=data["note"],
                split_reason=data["split_reason"],
                confidence=data["confidence"],
                by=request.user,
                base_revision=data["revision"],
            )
        except adjudication.StaleGoldVerdict as error:
            status = status_for(error)
            context = _pair_context(study, study_item_id, criterion_version_id, filters)
            form = GoldVerdictForm(
                initial=data | {"revision": error.current.revision},
                penalty=context["penalty"],
                scale=context["scale"],
                reasons=study.split_reasons,
            )
            context |= {"error": message_of(error)}
        except (adjudication.AdjudicationError, adjudication.GoldVerdictGone) as error:
            status = status_for(error)
            context |= {"error": message_of(error)}
        else:
            return _next(request, study, filters, context)
    context["form"] = form
    return render_page(request, PAGE, context, fragment="pair", status=status)


def _next(
    request: AuthenticatedHttpRequest, study: Study, filters: Filters, done: dict[str, Any]
) -> HttpResponse:
    code = done["version"].criterion.code
    recorded = _("Gold verdict recorded for %(code)s on response %(pk)s.") % {
        "code": code,
        "pk": done["item"].pk,
    }
    following = adjudication.next_unresolved(study, filters)
    url = (
        pair_url(study.pk, following["item"], following["version"], filters)
        if following
        else list_url(study.pk, filters)
    )
    if not wants_fragment(request):
        messages.success(request, recorded)
        return redirect_to(request, url)
    if following is None:
        context = {"study": study, "recorded": recorded, "back": url, "none_left": True}
    else:
        context = _pair_context(study, following["item"], following["version"], filters)
        context["recorded"] = recorded
    return push_url(render_page(request, PAGE, context, fragment="pair"), url)
