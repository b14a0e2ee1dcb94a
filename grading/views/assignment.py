"""The annotator's pages: their studies, and the blind grading page with autosave.

Every lookup is among the user's own (`Assignment.objects.of`), so another person's assignment
is a 404 and nothing on these pages can show another grader's work or a model's identity.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.db.models import Count, OuterRef, Q, Subquery, prefetch_related_objects
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from core.keystrokes import is_shortcut_run
from core.scoring import adverse_verdict, verdict_label, verdict_labels
from grading import flags, gold, services
from grading.forms import FlagForm
from grading.models import Assignment, Grade, LikertItem, LikertRating, Study, TurnGrade
from grading.templatetags.grading_verdicts import shown
from l2annot.errors import message_of, status_for
from l2annot.htmx import render_page, respond, wants_fragment
from rubrics.models import EffectiveCriterion, Response, RubricItem, Turn
from rubrics.models.responses import versions_count

PAGE = "grading/assignment.html"


@dataclass(frozen=True)
class Choice:
    """An answer button: the stored value, its label on this criterion, its key and whether
    it is the answer given. A verdict's key is its label's initial (p, f, n; on a penalty
    p(resent), a(bsent), n); a level of an ordinal scale is a `level` button keyed by a digit."""

    value: str
    # The English label of a verdict (so its key is the same in every interface language),
    # or a scale point's "<level> <label>" as its author wrote it.
    name: str
    pressed: bool = False
    field: str = "verdict"  # the form field the button sets: "verdict" or "level"
    digit: str = ""

    @property
    def label(self) -> str:
        return shown(self.name) if self.field == "verdict" else self.name

    @property
    def key(self) -> str:
        return self.digit if self.field == "level" else self.name[0].lower()


def level_choices(version: Any, level: int | None) -> list[Choice]:
    """The points of an ordinal scale as buttons, min to max. Keys: the level itself on a
    scale within 0 to 9, else the point's place (1 to 9; a tenth point on has no key)."""
    scale = version.scale()
    digits_are_levels = scale[0][0] >= 0 and scale[-1][0] <= 9
    choices = []
    for place, (value, label) in enumerate(scale, start=1):
        digit = str(value) if digits_are_levels else (str(place) if place <= 9 else "")
        text = f"{value} {label}".strip()
        choices.append(Choice(str(value), text, value == level, "level", digit))
    return choices


@dataclass(frozen=True)
class Answer:
    """What takes one verdict on the page: a criterion, or one tutor turn under a turn-level
    criterion, with this annotator's grade on it."""

    effective: EffectiveCriterion
    grade: Grade | TurnGrade | None
    rationale_required: bool

    @property
    def version(self) -> Any:
        return self.effective.version

    @property
    def verdict(self) -> str:
        return self.grade.verdict if self.grade else ""

    @property
    def level(self) -> int | None:
        return getattr(self.grade, "level", None) if self.grade else None

    @property
    def ordinal(self) -> bool:
        return bool(self.effective.version.is_ordinal)

    @property
    def answer(self) -> str:
        """The answer as a CSS-class word: the verdict, or "level" for a level."""
        return "level" if self.level is not None else self.verdict

    @property
    def outcome(self) -> str:
        """A verdict's colour as a CSS-class word: "adverse" for Fail or, on a penalty,
        Present (stored "pass"); "favourable" for Pass or Absent; "" otherwise."""
        if self.level is not None or self.verdict not in ("pass", "fail"):
            return ""
        adverse = self.verdict == adverse_verdict(penalty=self.penalty)
        return "adverse" if adverse else "favourable"

    @property
    def rationale(self) -> str:
        return self.grade.rationale if self.grade else ""

    @property
    def penalty(self) -> bool:
        return self.effective.weight < 0

    @property
    def choices(self) -> list[Choice]:
        labels = verdict_labels(penalty=self.penalty)
        if self.ordinal:  # the scale's points, then N/A
            na = Choice("na", labels["na"], self.verdict == "na")
            return [*level_choices(self.version, self.level), na]
        return [Choice(v, label, self.verdict == v) for v, label in labels.items()]

    @property
    def adverse_label(self) -> str:
        """The finding that needs a rationale: Fail, or Present on a penalty; on an ordinal
        scale the level that earns nothing."""
        version = self.version
        if self.ordinal:
            level = version.scale_max if self.penalty else version.scale_min
            return str(services.answer_label(version, "", level))
        return shown(verdict_label(adverse_verdict(penalty=self.penalty), penalty=self.penalty))

    @property
    def needs_rationale(self) -> bool:
        adverse = services.is_adverse(self.version, self.verdict, self.level)
        return self.rationale_required and adverse and not self.rationale

    @property
    def rationale_is_keys(self) -> bool:
        """A required rationale that is only shortcut keys: submitting refuses it."""
        adverse = services.is_adverse(self.version, self.verdict, self.level)
        return self.rationale_required and adverse and is_shortcut_run(self.rationale)


@dataclass(frozen=True)
class Line(Answer):
    """One criterion of the rubric with this annotator's grade, as the page shows it. A
    turn-level criterion on a dialogue has its `turns`, each graded on its own; its grade is
    the one derived for the whole dialogue."""

    turns: "tuple[TurnLine, ...]" = ()


@dataclass(frozen=True)
class TurnLine(Answer):
    """One tutor turn of a dialogue under a turn-level criterion."""

    turn: Turn | None = None

    @property
    def label(self) -> str:
        assert self.turn is not None
        return services.turn_label(self.turn)

    @property
    def anchor(self) -> str:
        assert self.turn is not None
        return f"criterion-{self.effective.version.pk}-turn-{self.turn.pk}"


def _turn_lines(
    effective: EffectiveCriterion,
    turns: list[Turn],
    grades: Mapping[tuple[int, int], TurnGrade],
    required: bool,
) -> tuple[TurnLine, ...]:
    if not (effective.version.per_turn and effective.applicable):
        return ()
    pk = effective.version.pk
    return tuple(TurnLine(effective, grades.get((pk, t.pk)), required, turn=t) for t in turns)


def _own(request: AuthenticatedHttpRequest, assignment_id: int) -> Assignment:
    return get_object_or_404(
        Assignment.objects.of(request.user)
        .select_related(
            "study_item__study", "study_item__rubric_version", "study_item__response__task"
        )
        .annotate(response_versions=versions_count("study_item__response__")),
        pk=assignment_id,
    )


def _own_locked(request: AuthenticatedHttpRequest, assignment_id: int) -> Assignment:
    """_own for a save, inside its transaction: the ownership check and the row lock the
    service needs in one query (only the assignment's row is locked, as in the service)."""
    return get_object_or_404(
        Assignment.objects.of(request.user)
        .select_for_update(of=("self",))
        .select_related("study_item__study", "study_item__rubric_version"),
        pk=assignment_id,
    )


def _lines(assignment: Assignment) -> list[Line]:
    """The published rubric with this annotator's grades: RubricVersion.effective_rubric()
    without its scale-point prefetch, which this page does not show (one query fewer)."""
    required = assignment.study_item.study.require_rationale_on_fail
    grades = {g.criterion_version_id: g for g in assignment.grades.all()}
    items = list(
        assignment.study_item.rubric_version.items.select_related("criterion_version__criterion")
    )
    ordinal = [item for item in items if item.criterion_version.is_ordinal]
    if ordinal:  # one query more, only then
        prefetch_related_objects(ordinal, "criterion_version__scale_points")
    turns: list[Turn] = []
    turn_grades: dict[tuple[int, int], TurnGrade] = {}
    if any(item.criterion_version.per_turn for item in items):  # two queries more, only then
        turns = services.tutor_turns(assignment.study_item.response_id)
        turn_grades = {(g.criterion_version_id, g.turn_id): g for g in assignment.turn_grades.all()}
    lines = []
    for item in items:
        effective = item.as_effective()
        grade = grades.get(item.criterion_version_id)
        turn_lines = _turn_lines(effective, turns, turn_grades, required)
        lines.append(Line(effective, grade, required, turn_lines))
    return lines


def _line(assignment: Assignment, grade: Grade, item: RubricItem) -> Line:
    """The one criterion line a save swaps back, from the rubric item the save checked (with
    its criterion version and criterion), without rebuilding the whole rubric."""
    return Line(item.as_effective(), grade, assignment.study_item.study.require_rationale_on_fail)


def _steps(lines: list[Line]) -> list[Answer]:
    """What takes an answer on the page: each criterion, or each turn of a turn-level one."""
    return [step for line in lines for step in (line.turns or (line,))]


def _likert(assignment: Assignment) -> list[tuple[LikertItem, int | None]]:
    """The study's Likert questions with this annotator's answers, in one query."""
    rating = LikertRating.objects.filter(assignment=assignment, item=OuterRef("pk"))
    items = assignment.study_item.study.likert_items.annotate(
        answer=Subquery(rating.order_by().values("value")[:1])
    )
    return [(item, item.answer) for item in items]


def _page_context(
    request: AuthenticatedHttpRequest, assignment: Assignment, **state: Any
) -> dict[str, Any]:
    item = assignment.study_item
    response, task = item.response, item.response.task
    lines = _lines(assignment)
    gradable = [line for line in lines if line.effective.applicable]
    likert = _likert(assignment)
    counts = (
        Assignment.objects.of(request.user).filter(study_item__study=item.study_id)
    ).aggregate(total=Count("pk"), done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)))
    return {
        "assignment": assignment,
        "study": item.study,
        "rubric_version": item.rubric_version,
        "task": task,
        # As published: an author's later edits reach graders once published again.
        "resources": item.rubric_version.resources.all(),
        "context_values": item.rubric_version.context_values.select_related("variable", "value"),
        "response": response,
        # How many versions the response has had (the study grades `response.version`).
        "response_versions": getattr(assignment, "response_versions", None)
        or Response.objects.count_versions(response),
        "lines": gradable,
        "not_applicable": [line for line in lines if not line.effective.applicable],
        "likert": likert,
        "answered": sum(1 for step in _steps(gradable) if step.verdict)
        + sum(1 for _, answer in likert if answer),
        "to_answer": len(_steps(gradable)) + len(likert),
        "counts": counts,
        "closed": item.study.is_closed(),
        "my_flags": flags.flags_of(assignment).select_related("criterion_version__criterion"),
        "flag_form": FlagForm(),
        "idle_cap_ms": int(services.CRITERION_IDLE_CAP.total_seconds() * 1000),
        "gold_feedback": _gold_feedback(assignment),
    } | state


@dataclass(frozen=True)
class GoldFeedback:
    """A criterion of a qualification gold check where the grader differed from the gold."""

    code: str
    wording: str
    yours: str
    gold: str
    why: str


def _gold_feedback(assignment: Assignment) -> list[GoldFeedback] | None:
    """What the page shows after a qualification gold check is submitted (grading.gold)."""
    differences = gold.qualification_feedback(assignment)
    if differences is None:
        return None
    return [
        GoldFeedback(
            d.version.criterion.code,
            d.version.wording,
            str(services.answer_label(d.version, d.verdict, d.level)),
            str(services.answer_label(d.version, d.gold_verdict, d.gold_level)),
            d.why,
        )
        for d in differences
    ]


@require(Action.GRADE)
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The studies this person grades in, open ones first, with their own progress."""
    submitted = (
        Assignment.objects.of(request.user)
        .filter(status=Assignment.Status.SUBMITTED)
        .order_by("position")
    )
    by_study: dict[int, list[Mapping[str, Any]]] = {}
    for assignment in submitted.values("pk", "position", "study_item__study"):
        by_study.setdefault(assignment["study_item__study"], []).append(assignment)
    rows = [
        {
            "study": row.study,
            "closed": row.closed,
            "total": row.total,
            "done": row.done,
            "in_progress": row.in_progress,
            "left": row.left,
            "submitted": by_study.get(row.study.pk, []),
        }
        for row in services.annotator_queue(request.user)
    ]
    return render(request, "grading/index.html", {"rows": rows})


@require(Action.GRADE)
@require_POST
def next_item(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    # Only a study this person grades in (its pool, or one holding their work): any other is a
    # 404, as in the API, so its name never reaches someone outside it.
    mine = Q(pool__annotator=request.user) | Q(items__assignments__annotator=request.user)
    study = get_object_or_404(Study.objects.filter(mine).distinct(), pk=study_id)
    assignment = services.claim_next(study, request.user)
    if assignment is None:
        messages.info(request, services.why_nothing_to_grade(study, request.user))
        return redirect("grading:index")
    return redirect("grading:assignment", assignment.pk)


@require(Action.GRADE)
def assignment_page(request: AuthenticatedHttpRequest, assignment_id: int) -> HttpResponse:
    # Opened from a link rather than "next": the page starts it as it loads (`start`), never
    # the GET itself, which a link or an image in someone's text could send.
    return render(request, PAGE, _page_context(request, _own(request, assignment_id)))


@require(Action.GRADE)
@require_POST
def start(request: AuthenticatedHttpRequest, assignment_id: int) -> HttpResponse:
    """Mark the assignment in progress (its time counts from now), sent by its page as it
    loads; nothing to answer."""
    assignment = _own(request, assignment_id)
    if (
        assignment.status == Assignment.Status.ASSIGNED
        and not assignment.study_item.study.is_closed()
    ):
        services.start(assignment, by=request.user)
    return HttpResponse(status=204)


def _fragment(
    request: AuthenticatedHttpRequest,
    assignment: Assignment,
    name: str,
    status: int = 200,
    **state: Any,
) -> HttpResponse:
    context = _part_context(assignment) | state
    return render_page(request, PAGE, context, fragment=name, status=status)


def _part_context(assignment: Assignment) -> dict[str, Any]:
    """What every part of the grading page needs of its assignment."""
    study = assignment.study_item.study
    return {"assignment": assignment, "study": study, "closed": study.is_closed()}


def _saved(
    request: AuthenticatedHttpRequest, assignment: Assignment, name: str, anchor: str, **state: Any
) -> HttpResponse:
    """A save went through: htmx gets the saved part back, a plain form goes back to it."""
    return respond(
        request,
        PAGE,
        _part_context(assignment) | state | {"saved": True},
        fragment=name,
        done_url=reverse("grading:assignment", args=[assignment.pk]) + anchor,
    )


def _refused(
    request: AuthenticatedHttpRequest,
    assignment: Assignment,
    error: Exception,
    name: str,
    **state: Any,
) -> HttpResponse:
    """A save refused: htmx gets the part with the message (or the message alone when the part
    is not on the page), a plain form the whole page with the message on top."""
    status, message = status_for(error), message_of(error)
    if wants_fragment(request) and state:
        return _fragment(request, assignment, name, status, error=message, **state)
    if wants_fragment(request):
        return render_page(request, PAGE, {"error": message}, fragment="error", status=status)
    context = _page_context(request, assignment, page_error=message)
    return render_page(request, PAGE, context, status=status)


def _active_ms(request: AuthenticatedHttpRequest) -> int | None:
    """The time on the criterion the grading page sends with a save (docs/grading.md, "Time
    per criterion"); None when it sends none (a page without JavaScript)."""
    raw = request.POST.get("active_ms", "")
    if not raw:
        return None
    if not raw.isdigit():
        raise services.GradingError(_("active_ms: send a whole number of milliseconds."))
    return int(raw)


@require(Action.GRADE)
@require_POST
def save_grade(
    request: AuthenticatedHttpRequest, assignment_id: int, criterion_version_id: int
) -> HttpResponse:
    verdict = request.POST.get("verdict")
    level_text = request.POST.get("level")
    rationale = request.POST.get("rationale")
    assignment = None
    try:
        with transaction.atomic():
            assignment = _own_locked(request, assignment_id)
            level = services.parse_level(level_text)
            active_ms = _active_ms(request)
            grade, item = services.save_grade_line(
                assignment,
                criterion_version_id,
                verdict=verdict,
                level=level,
                rationale=rationale,
                by=request.user,
                locked=True,
                active_ms=active_ms,
            )
    except services.SAVE_REFUSALS as error:
        assert assignment is not None  # a refusal comes after the lookup
        line = next((x for x in _lines(assignment) if x.version.pk == criterion_version_id), None)
        state = {"line": line} if line else {}
        return _refused(request, assignment, error, "criterion", **state)
    anchor = f"#criterion-{criterion_version_id}"
    return _saved(request, assignment, "criterion", anchor, line=_line(assignment, grade, item))


@require(Action.GRADE)
@require_POST
def save_turn_grade(
    request: AuthenticatedHttpRequest, assignment_id: int, criterion_version_id: int, turn_id: int
) -> HttpResponse:
    """A verdict or rationale on one tutor turn: the turn's part comes back, with the
    dialogue's derived verdict on the criterion swapped out of band."""
    verdict = request.POST.get("verdict")
    rationale = request.POST.get("rationale")
    assignment = None
    try:
        with transaction.atomic():
            assignment = _own_locked(request, assignment_id)
            active_ms = _active_ms(request)
            turn_grade, grade, item = services.save_turn_grade(
                assignment,
                criterion_version_id,
                turn_id,
                verdict=verdict,
                rationale=rationale,
                by=request.user,
                locked=True,
                active_ms=active_ms,
            )
    except services.SAVE_REFUSALS as error:
        assert assignment is not None  # a refusal comes after the lookup
        line = next((x for x in _lines(assignment) if x.version.pk == criterion_version_id), None)
        turns = line.turns if line else ()
        turn_line = next((t for t in turns if t.turn and t.turn.pk == turn_id), None)
        state = {"turn_line": turn_line, "line": line} if turn_line else {}
        return _refused(request, assignment, error, "turn_criterion", **state)
    required = assignment.study_item.study.require_rationale_on_fail
    effective = item.as_effective()
    turn_line = TurnLine(effective, turn_grade, required, turn=turn_grade.turn)
    line = Line(effective, grade, required)
    anchor = f"#{turn_line.anchor}"
    return _saved(request, assignment, "turn_criterion", anchor, turn_line=turn_line, line=line)


@require(Action.GRADE)
@require_POST
def save_likert(
    request: AuthenticatedHttpRequest, assignment_id: int, likert_item_id: int
) -> HttpResponse:
    assignment = _own(request, assignment_id)
    try:
        value = int(request.POST.get("value", ""))
    except ValueError:
        value = 0
    try:
        services.save_likert(assignment, likert_item_id, value, by=request.user)
    except services.SAVE_REFUSALS as error:
        entry = next((e for e in _likert(assignment) if e[0].pk == likert_item_id), None)
        return _refused(request, assignment, error, "likert", **({"entry": entry} if entry else {}))
    entry = next(e for e in _likert(assignment) if e[0].pk == likert_item_id)
    return _saved(request, assignment, "likert", f"#likert-{likert_item_id}", entry=entry)


@require(Action.GRADE)
@require_POST
def submit(request: AuthenticatedHttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _own(request, assignment_id)
    try:
        services.submit(assignment, by=request.user)
    except (*services.SAVE_REFUSALS, services.Incomplete) as error:
        status = status_for(error)
        assignment.refresh_from_db()
        problems = services.missing_answers(assignment)
        context = _page_context(
            request,
            assignment,
            problems=problems,
            page_error=message_of(error) if not problems else "",
        )
        return render(request, PAGE, context, status=status)
    assignment.refresh_from_db(fields=["status", "submitted_at"])
    if gold.qualification_feedback(assignment) is not None:
        # A qualification round teaches: its page now compares the answers with the gold.
        messages.success(request, _("Submitted. Here is how your answers compare with the gold."))
        return redirect("grading:assignment", assignment.pk)
    following = services.claim_next(assignment.study_item.study, request.user)
    if following is None:
        messages.success(
            request,
            _("Submitted. That was the last response assigned to you in this study."),
        )
        return redirect("grading:index")
    messages.success(request, _("Submitted. Here is the next response."))
    return redirect("grading:assignment", following.pk)
