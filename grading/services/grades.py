"""Grading: verdicts, levels and rationales per criterion or tutor turn, 1-5 ratings, and the
submission that checks nothing is missing."""

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.keystrokes import is_shortcut_run
from core.scoring import adverse_verdict, turn_verdict, verdict_label, verdict_labels
from grading import escalation, tallies
from grading.models import (
    Assignment,
    Grade,
    GradeRevision,
    LikertItem,
    LikertRating,
    ResultsRevision,
    Study,
    TurnGrade,
    TurnGradeRevision,
    Verdict,
)
from grading.services.claiming import record_activity, touch
from grading.services.refusals import (
    GradingError,
    Incomplete,
    SubmittedIncomplete,
    check_open,
    own_locked,
)
from rubrics.models import CriterionVersion, RubricItem, Turn

# Time per criterion (docs/grading.md, "Time per criterion"): the grading page counts a stretch
# without input as at most CRITERION_IDLE_CAP, and one save adds at most
# CRITERION_TIME_PER_SAVE_CAP to a criterion, whatever a client sends.
CRITERION_IDLE_CAP = timedelta(seconds=60)
CRITERION_TIME_PER_SAVE_CAP = timedelta(minutes=30)


def _check_in_rubric(assignment: Assignment, criterion_version_id: int) -> RubricItem:
    item = (
        RubricItem.objects.filter(
            rubric_version_id=assignment.study_item.rubric_version_id,
            criterion_version_id=criterion_version_id,
        )
        .select_related("criterion_version__criterion")
        .first()
    )
    if item is None:
        raise GradingError(
            gettext("This criterion is not part of the rubric this response is graded on.")
        )
    if not item.applicable:
        raise GradingError(
            gettext("This criterion does not apply to this task; it takes no verdict.")
        )
    return item


def _own_row[Row: (Grade, TurnGrade)](
    model: type[Row], assignment: Assignment, /, **key: object
) -> Row:
    """The assignment's grade row named by `key`; a new one, not yet saved, where there is
    none and the assignment is not submitted, so that a first answer is one INSERT carrying
    it (not get_or_create's INSERT in a savepoint, then an UPDATE). No other transaction can
    add the row meanwhile: every writer of grades holds the assignment's row lock (own_locked)
    or, on SQLite, the database's write lock. After submission a missing row is saved empty
    first, so the change that follows keeps what it replaced in a revision as any other does."""
    found = model.objects.filter(**key).first()
    if found is not None:
        return found
    if assignment.is_submitted:
        return model.objects.create(**key)
    return model(**key)


@contextmanager
def locked_for_saves(assignment: Assignment, by: User) -> Iterator[Assignment]:
    """`assignment` as the grading page's autosave reads it before a save: `by`'s own,
    row-locked, in a transaction that saves made with it (`locked=True`) stay in. For a caller
    saving many answers on one assignment at once (the demo's grader, the tests'), which then
    reads and locks it once, not once per save."""
    with transaction.atomic():
        yield own_locked(assignment, by)


def save_grade(
    assignment: Assignment,
    criterion_version_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    level: int | None = None,
    active_ms: int | None = None,
) -> Grade:
    """Save one verdict (or, on an ordinal criterion, a level of its scale) and/or rationale
    (None leaves it as it is). After submission the old value is first copied to a
    GradeRevision, so a submitted grade is never lost. `active_ms`: time the grader spent on
    the criterion since its last save (the grading page measures it), added to the grade's
    until the response is submitted."""
    grade, _ = save_grade_line(
        assignment,
        criterion_version_id,
        verdict=verdict,
        level=level,
        rationale=rationale,
        by=by,
        active_ms=active_ms,
    )
    return grade


def _answer(
    version: CriterionVersion, grade: Grade, verdict: str | None, level: int | None
) -> tuple[str, int | None]:
    """The (verdict, level) a save leaves: a level replaces a verdict and the verdict N/A a
    level; an ordinal criterion takes a level or N/A, a binary one a verdict."""
    if level is not None:
        error = version.level_error(level)
        if error:
            raise GradingError(error)
        return "", level
    if verdict is None:
        return grade.verdict, grade.level
    if verdict not in Verdict.values:
        raise GradingError(gettext("Choose Pass, Fail or N/A."))
    if version.is_ordinal and verdict != Verdict.NA:
        low, high = version.scale_min, version.scale_max
        raise GradingError(
            gettext("%(code)s: choose a level from %(low)s to %(high)s or N/A."),
            params={"code": version.criterion.code, "low": low, "high": high},
        )
    return verdict, None


def save_grade_line(
    assignment: Assignment,
    criterion_version_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    level: int | None = None,
    locked: bool = False,
    active_ms: int | None = None,
) -> tuple[Grade, RubricItem]:
    """save_grade, also answering the rubric line it checked (with its criterion version and
    criterion), so the autosave can show the saved line without reading it again.

    `locked`: the caller has already read `assignment` as own_locked() does, among `by`'s own
    (`Assignment.objects.of(by)`) with its row lock and study, in the transaction it is still
    in (the autosave view finds it so, in the same query); it is not read again."""
    # The caller's transaction is the one to roll back: no savepoint (a round trip each way).
    with transaction.atomic(savepoint=not locked):
        now = timezone.now()
        if not (locked and transaction.get_connection().in_atomic_block):
            assignment = own_locked(assignment, by)
        check_open(assignment, now)
        item = _check_in_rubric(assignment, criterion_version_id)
        if verdict is None and level is None and rationale is None:
            raise GradingError(gettext("Nothing to save: choose a verdict or write a rationale."))
        version = item.criterion_version
        if verdict is not None and not version.is_ordinal and verdict not in Verdict.values:
            raise GradingError(gettext("Choose Pass, Fail or N/A."))
        if item.criterion_version.per_turn and tutor_turns(assignment.study_item.response_id):
            raise GradingError(
                gettext(
                    "This criterion is graded on each tutor turn of the dialogue: grade the turns."
                )
            )
        _check_time(active_ms)
        grade = _own_row(
            Grade, assignment, assignment=assignment, criterion_version_id=criterion_version_id
        )
        new_verdict, new_level = _answer(version, grade, verdict, level)
        new_rationale = grade.rationale if rationale is None else rationale.strip()
        if assignment.is_submitted and _rationale_missing(
            assignment, version, new_verdict, new_level, new_rationale
        ):
            label = answer_label(version, new_verdict, new_level)
            raise SubmittedIncomplete(
                gettext("This grade is submitted: write the rationale before choosing %(answer)s."),
                params={"answer": label},
            )
        changed: list[str] = []
        recount = False  # a submitted verdict changes: its pair's counts too (PairTally)
        answered = (new_verdict, new_level, new_rationale)
        answer_changed = answered != (grade.verdict, grade.level, grade.rationale)
        if answer_changed:
            if assignment.is_submitted:
                GradeRevision.objects.create(
                    grade=grade,
                    verdict=grade.verdict,
                    level=grade.level,
                    rationale=grade.rationale,
                    written_at=grade.updated_at,
                    replaced_by=by,
                )
            recount = assignment.is_submitted and (grade.verdict, grade.level) != (
                new_verdict,
                new_level,
            )
            grade.verdict, grade.level, grade.rationale = new_verdict, new_level, new_rationale
            changed = ["verdict", "level", "rationale", "updated_at"]
        if _add_time(grade, assignment, active_ms):
            changed.append("active_ms")
        if grade._state.adding:  # a first answer: one INSERT with its time
            grade.save()
        elif changed:  # one write for the answer and its time
            grade.save(update_fields=changed)
        if recount:
            tallies.refresh([assignment.study_item_id], criterion_version_id)
        if answer_changed and assignment.is_submitted:  # after the item's lock: see bump()
            ResultsRevision.objects.bump(assignment.study_item.study_id)
        record_activity(assignment, now)
        return grade, item


def tutor_turns(response_id: int) -> list[Turn]:
    """The tutor's (assistant's) turns of a dialogue response, in order: what a turn-level
    criterion is graded on. Empty for a text response, which is graded as a whole."""
    return list(
        Turn.objects.filter(response_id=response_id, role=Turn.Role.ASSISTANT).order_by("index")
    )


def turn_label(turn: Turn) -> str:
    """How a turn is named to people, in their language: its place in the dialogue, counted
    from 1. A turn-level grade's rationale is joined under these names in the grader's
    language, as the rationales themselves are written."""
    return gettext("Turn %(number)s") % {"number": turn.index + 1}


def _check_time(active_ms: int | None) -> None:
    if active_ms is not None and active_ms < 0:
        raise GradingError(gettext("active_ms: the time spent cannot be negative."))


def _add_time(grade: Grade, assignment: Assignment, active_ms: int | None) -> bool:
    """Add the time a save carries to the criterion's grade (capped; not saved here), while
    the response is not submitted: a later change is a correction, not grading time. Whether
    it changed the grade."""
    if active_ms is None or assignment.is_submitted:
        return False
    cap = int(CRITERION_TIME_PER_SAVE_CAP.total_seconds() * 1000)
    grade.active_ms = (grade.active_ms or 0) + min(active_ms, cap)
    return True


def save_turn_grade(
    assignment: Assignment,
    criterion_version_id: int,
    turn_id: int,
    *,
    verdict: str | None,
    rationale: str | None,
    by: User,
    locked: bool = False,
    active_ms: int | None = None,
) -> tuple[TurnGrade, Grade, RubricItem]:
    """Save one verdict and/or rationale on one tutor turn for a turn-level criterion (None
    leaves it as it is), then the response's grade on that criterion, derived from every turn's
    verdict by the criterion's turn rule (empty while a turn has none; its rationale is the
    turns' rationales, each after its turn's name). After submission the old values are first
    copied to revision rows, so a submitted grade is never lost. `locked` as in
    save_grade_line; `active_ms` as in save_grade, added to the criterion's grade."""
    with transaction.atomic(savepoint=not locked):
        now = timezone.now()
        if not (locked and transaction.get_connection().in_atomic_block):
            assignment = own_locked(assignment, by)
        check_open(assignment, now)
        item = _check_in_rubric(assignment, criterion_version_id)
        version = item.criterion_version
        if not version.per_turn:
            raise GradingError(
                gettext("This criterion is graded on the whole response, not per turn.")
            )
        turns = tutor_turns(assignment.study_item.response_id)
        turn = next((t for t in turns if t.pk == turn_id), None)
        if turn is None:
            raise GradingError(gettext("This is not one of the tutor's turns in this response."))
        if verdict is None and rationale is None:
            raise GradingError(gettext("Nothing to save: choose a verdict or write a rationale."))
        if verdict is not None and verdict not in Verdict.values:
            raise GradingError(gettext("Choose Pass, Fail or N/A."))
        _check_time(active_ms)
        turn_grade = _own_row(
            TurnGrade,
            assignment,
            assignment=assignment,
            criterion_version_id=criterion_version_id,
            turn=turn,
        )
        new_verdict = turn_grade.verdict if verdict is None else verdict
        new_rationale = turn_grade.rationale if rationale is None else rationale.strip()
        penalty = version.is_penalty
        if assignment.is_submitted and _rationale_missing(
            assignment, version, new_verdict, None, new_rationale
        ):
            label = shown_label(verdict_label(new_verdict, penalty=penalty))
            raise SubmittedIncomplete(
                gettext("This grade is submitted: write the rationale before choosing %(answer)s."),
                params={"answer": label},
            )
        changed = (new_verdict, new_rationale) != (turn_grade.verdict, turn_grade.rationale)
        if changed:
            if assignment.is_submitted:
                TurnGradeRevision.objects.create(
                    turn_grade=turn_grade,
                    verdict=turn_grade.verdict,
                    rationale=turn_grade.rationale,
                    written_at=turn_grade.updated_at,
                    replaced_by=by,
                )
            turn_grade.verdict, turn_grade.rationale = new_verdict, new_rationale
            if not turn_grade._state.adding:
                turn_grade.save(update_fields=["verdict", "rationale", "updated_at"])
        if turn_grade._state.adding:
            turn_grade.save()
        grade = _derive_grade(assignment, version, turns, by)
        if changed and assignment.is_submitted:  # the turn's grade, and any grade derived from it
            ResultsRevision.objects.bump(assignment.study_item.study_id)  # last: see bump()
        if _add_time(grade, assignment, active_ms):  # a turn's time is its criterion's
            grade.save(update_fields=["active_ms"])
        record_activity(assignment, now)
        return turn_grade, grade, item


def _derive_grade(
    assignment: Assignment, version: CriterionVersion, turns: Sequence[Turn], by: User
) -> Grade:
    """The response's grade on a turn-level criterion from its turns' grades (see
    save_turn_grade); a change after submission keeps the old value in a GradeRevision."""
    by_turn = {
        g.turn_id: g
        for g in TurnGrade.objects.filter(assignment=assignment, criterion_version=version)
    }
    verdicts = [by_turn[t.pk].verdict if t.pk in by_turn else "" for t in turns]
    verdict = turn_verdict(verdicts, version.turn_rule, version.turn_share)
    rationale = "\n".join(
        f"{turn_label(t)}: {by_turn[t.pk].rationale}"
        for t in turns
        if t.pk in by_turn and by_turn[t.pk].rationale
    )
    grade = _own_row(Grade, assignment, assignment=assignment, criterion_version=version)
    if grade._state.adding:
        grade.verdict, grade.rationale = verdict, rationale
        grade.save()
    elif (verdict, rationale) != (grade.verdict, grade.rationale):
        if assignment.is_submitted:
            GradeRevision.objects.create(
                grade=grade,
                verdict=grade.verdict,
                rationale=grade.rationale,
                written_at=grade.updated_at,
                replaced_by=by,
            )
        recount = assignment.is_submitted and grade.verdict != verdict
        grade.verdict, grade.rationale = verdict, rationale
        grade.save(update_fields=["verdict", "rationale", "updated_at"])
        if recount:
            tallies.refresh([assignment.study_item_id], version.pk)
    return grade


def parse_level(text: str | None) -> int | None:
    """A level as a form or file gives it: None for nothing, else a whole number
    (GradingError otherwise)."""
    if text is None or not str(text).strip():
        return None
    try:
        return int(str(text).strip())
    except ValueError:
        raise GradingError(
            gettext("'%(text)s' is not a level: give a whole number of the scale."),
            params={"text": text},
        ) from None


def answer_label(version: CriterionVersion, verdict: str, level: int | None) -> str | Promise:
    """How an answer reads to a grader: a level with its scale point's label ("1 (Not at
    all)"), or the verdict as it reads on this criterion (Fail, Present, N/A...), translated
    where it is read."""
    if level is not None:
        label = dict(version.scale()).get(level, "")
        return f"{level} ({label})" if label else str(level)
    return shown_label(verdict_label(verdict, penalty=version.is_penalty))


def shown_label(label: str) -> str | Promise:
    """A verdict label of core.scoring (marked for the catalogue by the grading_verdicts
    template tags), translated in the language of whoever reads the message holding it."""
    return gettext_lazy(label)


def is_adverse(version: CriterionVersion, verdict: str, level: int | None) -> bool:
    """The finding against the response, which the study may ask a reason for: Fail on an
    ordinary criterion, Present (stored "pass") on a penalty; on an ordinal criterion the
    level that earns nothing (its minimum; its maximum on a penalty)."""
    if level is not None:
        return level == (version.scale_max if version.is_penalty else version.scale_min)
    return verdict == adverse_verdict(penalty=version.is_penalty)


def _rationale_missing(
    assignment: Assignment,
    version: CriterionVersion,
    verdict: str,
    level: int | None,
    rationale: str,
) -> bool:
    """The study asks for a reason for the adverse finding (`require_rationale_on_fail`) and
    none was written: nothing, or only the grading page's shortcut keys (`is_shortcut_run`),
    typed by a grader who thought the keys were shortcuts."""
    study = assignment.study_item.study
    adverse = is_adverse(version, verdict, level)
    missing = not rationale.strip() or is_shortcut_run(rationale)
    return study.require_rationale_on_fail and adverse and missing


@transaction.atomic
def save_likert(assignment: Assignment, item_id: int, value: int, *, by: User) -> LikertRating:
    now = timezone.now()
    assignment = own_locked(assignment, by)
    check_open(assignment, now)
    item = LikertItem.objects.filter(pk=item_id, study=assignment.study_item.study_id).first()
    if item is None:
        raise GradingError(gettext("This question does not exist in the study."))
    if value not in LikertItem.SCALE:
        raise GradingError(gettext("Choose a value from 1 to 5."))
    rating = LikertRating.objects.filter(assignment=assignment, item=item).first()
    changed = rating is None or rating.value != value
    if rating is None:
        rating = LikertRating.objects.create(assignment=assignment, item=item, value=value)
    elif changed:
        if assignment.is_submitted:  # kept in the audit trail, like any later change
            audit.record(rating, AuditEvent.Kind.UPDATED, by, {"value": [rating.value, value]})
        rating.value = value
        rating.save()
    if changed and assignment.is_submitted:
        ResultsRevision.objects.bump(assignment.study_item.study_id)
    record_activity(assignment, now)
    return rating


@dataclass(frozen=True)
class Problem:
    """One answer still missing: where it is on the grading page, and what to do, as a
    refusal whose values stay apart (read in the language of whoever reads it)."""

    anchor: str  # element id on the grading page
    refusal: ValidationError

    @property
    def message(self) -> str:
        return self.refusal.messages[0]


def _missing(anchor: str, message: str, **values: object) -> Problem:
    return Problem(anchor, ValidationError(message, params=values))


def missing_answers(assignment: Assignment) -> list[Problem]:
    """What still stops the assignment from being submitted, in page order. Four queries."""
    rubric = assignment.study_item.rubric_version.effective_rubric()
    grades = {g.criterion_version_id: g for g in assignment.grades.all()}
    turns: list[Turn] | None = None
    problems = []
    for line in rubric:
        if not line.applicable:
            continue
        grade = grades.get(line.version.pk)
        anchor = f"criterion-{line.version.pk}"
        version = line.version
        penalty = version.is_penalty
        if version.per_turn:
            if turns is None:
                turns = tutor_turns(assignment.study_item.response_id)
                turn_grades = {
                    (g.criterion_version_id, g.turn_id): g for g in assignment.turn_grades.all()
                }
            if turns:
                problems += _missing_turn_answers(
                    assignment, version, line.code, turns, turn_grades
                )
                continue
        if grade is None or not grade.answered:
            labels = _choices(penalty)
            if version.is_ordinal:
                message = gettext("%(code)s: choose a level from %(low)s to %(high)s or %(na)s.")
                low, high = version.scale_min, version.scale_max
                problems.append(
                    _missing(anchor, message, code=line.code, low=low, high=high, **labels)
                )
            else:
                message = gettext("%(code)s: choose %(pass)s, %(fail)s or %(na)s.")
                problems.append(_missing(anchor, message, code=line.code, **labels))
        elif _rationale_missing(assignment, version, grade.verdict, grade.level, grade.rationale):
            label = answer_label(version, grade.verdict, grade.level)
            if grade.rationale.strip():
                message = gettext(
                    "%(code)s: the rationale “%(text)s” is only shortcut keys; "
                    "write why you chose %(answer)s."
                )
                text = grade.rationale.strip()
                problems.append(_missing(anchor, message, code=line.code, text=text, answer=label))
            else:
                message = gettext("%(code)s: %(answer)s needs a rationale.")
                problems.append(_missing(anchor, message, code=line.code, answer=label))
    rated = set(assignment.likert_ratings.values_list("item_id", flat=True))
    for item in assignment.study_item.study.likert_items.all():
        if item.pk not in rated:
            message = gettext("Rate: %(prompt)s")
            problems.append(_missing(f"likert-{item.pk}", message, prompt=item.prompt))
    return problems


def _choices(penalty: bool) -> dict[str, str | Promise]:
    """The verdicts a criterion offers, as the values `pass`, `fail` and `na` of a message."""
    return {key: shown_label(label) for key, label in verdict_labels(penalty=penalty).items()}


def _missing_turn_answers(
    assignment: Assignment,
    version: CriterionVersion,
    code: str,
    turns: Sequence[Turn],
    turn_grades: Mapping[tuple[int, int], TurnGrade],
) -> list[Problem]:
    problems = []
    version_id, penalty = version.pk, version.is_penalty
    for turn in turns:
        grade = turn_grades.get((version_id, turn.pk))
        anchor = f"criterion-{version_id}-turn-{turn.pk}"
        number = turn.index + 1  # as turn_label counts
        if grade is None or not grade.verdict:
            message = gettext("%(code)s, Turn %(turn)s: choose %(pass)s, %(fail)s or %(na)s.")
            problems.append(_missing(anchor, message, code=code, turn=number, **_choices(penalty)))
        elif _rationale_missing(assignment, version, grade.verdict, None, grade.rationale):
            label = shown_label(verdict_label(grade.verdict, penalty=penalty))
            values = {"code": code, "turn": number, "answer": label}
            if grade.rationale.strip():
                message = gettext(
                    "%(code)s, Turn %(turn)s: the rationale “%(text)s” is only shortcut keys; "
                    "write why you chose %(answer)s."
                )
                values["text"] = grade.rationale.strip()
            else:
                message = gettext("%(code)s, Turn %(turn)s: %(answer)s needs a rationale.")
            problems.append(_missing(anchor, message, **values))
    return problems


@transaction.atomic
def submit(assignment: Assignment, *, by: User) -> None:
    """Mark the assignment submitted; Incomplete listing what is missing otherwise."""
    now = timezone.now()
    assignment = own_locked(assignment, by, rubric=True)
    check_open(assignment, now)
    if assignment.is_submitted:
        return
    problems = missing_answers(assignment)
    if problems:
        raise Incomplete([p.refusal for p in problems])
    touch(assignment, now)
    assignment.status = Assignment.Status.SUBMITTED
    assignment.submitted_at = now
    assignment.save()
    tallies.refresh([assignment.study_item_id])
    ResultsRevision.objects.bump(assignment.study_item.study_id)
    if assignment.study_item.study.escalation != Study.Escalation.OFF:
        escalation.escalate(assignment.study_item_id, by=by)
