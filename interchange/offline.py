"""Offline grading: one annotator's work in a study as a signed workbook, and its upload back.

The upload is recorded as that annotator through `grading.services` (`save_grade`,
`save_likert`, `submit`), so a closed study, a criterion outside the rubric, a Fail without its
rationale and revisions after submission behave exactly as in the browser. A turn-level
criterion on a dialogue has a row per tutor turn (id `<criterion version>.<turn>`), saved
through `save_turn_grade`. All or nothing: one
problem and the whole transaction is rolled back.

Blind: the workbook holds the task, the response and the rubric, never the model's name,
family or version, nor anyone else's grades.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext

from accounts.models import User
from core.formats.offline_workbook import (
    CriterionRow,
    GradedRow,
    GradeVerdict,
    GradingItem,
    GradingSheet,
    LikertQuestion,
    RatedRow,
    SheetWords,
    read_grading_workbook,
    write_grading_workbook,
)
from core.formats.problems import Problem, Text, gettext_noop
from core.scoring import verdict_labels
from grading import services
from grading.models import (
    Assignment,
    Grade,
    LikertItem,
    LikertRating,
    Study,
    TurnGrade,
    Verdict,
)
from interchange.importers.report import ChangedCriterion, Counts, NewVersion, problem_lines
from interchange.refusals import refusal_texts
from l2annot.errors import message_of
from rubrics.models import (
    CriterionVersion,
    PublishedResource,
    Response,
    RubricItem,
    TaskResource,
    Turn,
)

# The signing key is derived from SECRET_KEY for this one purpose, so a workbook signature can
# never be replayed as another signed value of the app; rotating SECRET_KEY voids old workbooks.
SIGNING_SALT = "l2annot.interchange.offline.grading-workbook"

TO_WORKBOOK = {Verdict.PASS: GradeVerdict.PASS, Verdict.FAIL: GradeVerdict.FAIL}
TO_WORKBOOK[Verdict.NA] = GradeVerdict.NA
FROM_WORKBOOK = {value: key for key, value in TO_WORKBOOK.items()}

Report = Callable[[int | None, str | None, str], None]


def signing_key() -> bytes:
    return salted_hmac(SIGNING_SALT, "signing key", algorithm="sha256").digest()


def workbook_filename(study: Study, annotator: User) -> str:
    return f"grading-study{study.pk}-{annotator.username}.xlsx"


# ----- export -----------------------------------------------------------------------------------
def annotator_assignments(
    study: Study, annotator: User, *, unfinished_only: bool = True
) -> list[Assignment]:
    """The annotator's assignments in the study, in their order, with everything the workbook
    shows. A fixed number of queries, whatever the number of assignments."""
    items = (
        RubricItem.objects.select_related("criterion_version__criterion")
        .prefetch_related("criterion_version__scale_points")
        .order_by("order")
    )
    assignments = (
        Assignment.objects.filter(study_item__study=study, annotator=annotator)
        .select_related("study_item__rubric_version", "study_item__response__task")
        .prefetch_related(
            Prefetch("study_item__rubric_version__items", queryset=items),
            "study_item__response__turns",
            "study_item__rubric_version__context_values__variable",
            "study_item__rubric_version__context_values__value",
            Prefetch(
                "study_item__rubric_version__resources",
                queryset=PublishedResource.objects.order_by("order", "pk"),
            ),
            "grades",
            "turn_grades",
            "likert_ratings",
        )
        .order_by("position", "pk")
    )
    if unfinished_only:
        assignments = assignments.exclude(status=Assignment.Status.SUBMITTED)
    return list(assignments)


def grading_sheet(study: Study, annotator: User, *, unfinished_only: bool = True) -> GradingSheet:
    """What the annotator grades, as the pure workbook format takes it, filled with the answers
    they have already given."""
    questions = list(LikertItem.objects.filter(study=study))
    return GradingSheet(
        annotator=annotator.username,
        study_id=str(study.pk),
        items=tuple(
            _item(assignment, questions)
            for assignment in annotator_assignments(
                study, annotator, unfinished_only=unfinished_only
            )
        ),
    )


def write_workbook(
    target: Path | IO[bytes], study: Study, annotator: User, *, unfinished_only: bool = True
) -> int:
    """Write the signed workbook, in the annotator's interface language (the active one when
    they chose none); returns the number of responses in it."""
    with translation.override(annotator.language or translation.get_language()):
        sheet = grading_sheet(study, annotator, unfinished_only=unfinished_only)
        words = sheet_words()
    write_grading_workbook(target, sheet, signing_key(), words)
    return len(sheet.items)


def sheet_words() -> SheetWords:
    """The workbook's words in the active language (the annotator's, on a download)."""
    plain, penalty = verdict_labels(penalty=False), verdict_labels(penalty=True)
    yes, no, na = (gettext(plain[v]) for v in ("pass", "fail", "na"))
    present, absent = gettext(penalty["pass"]), gettext(penalty["fail"])
    return SheetWords(
        header=(
            "item id",  # the hidden id columns keep their names
            "criterion version id",
            gettext("Item / code"),
            gettext("Task / criterion"),
            gettext("Response / guidance"),
            gettext("Verdict"),
            gettext("Rationale"),
        ),
        item=gettext("Item %(number)s"),
        rating=gettext("Rating"),
        verdicts=(yes, no, na),
        penalty_verdicts=(present, absent, na),
        verdict_title=gettext("Verdict"),
        verdict_error=gettext("Choose %(pass)s, %(fail)s or %(na)s.")
        % {"pass": yes, "fail": no, "na": na},
        penalty_title=gettext("Verdict on a penalty"),
        penalty_error=gettext("Choose %(present)s (the response does it), %(absent)s or %(na)s.")
        % {"present": present, "absent": absent, "na": na},
        rating_error=gettext("Choose a whole number from 1 to 5."),
        level_title=gettext("Level"),
        level_error=gettext("Choose a level from %(low)s to %(high)s, or %(na)s."),
    )


def every_languages_words() -> list[SheetWords]:
    """The workbook's words in each interface language: a workbook downloaded in one is read
    whatever the language of whoever uploads it."""
    words = []
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            words.append(sheet_words())
    return words


def _turn_rows(
    assignment: Assignment, version: CriterionVersion, tutor: list[Turn]
) -> list[CriterionRow]:
    """A turn-level criterion on a dialogue: one row per tutor turn, the turn quoted."""
    grades = {
        g.turn_id: g for g in assignment.turn_grades.all() if g.criterion_version_id == version.pk
    }
    rows = []
    for turn in tutor:
        grade = grades.get(turn.pk)
        label = gettext("Turn %(number)s") % {"number": turn.index + 1}
        rows.append(
            CriterionRow(
                criterion_version_id=f"{version.pk}.{turn.pk}",
                code=_code(f"{version.criterion.code} {label}", version),
                penalty=version.is_penalty,
                wording=f"{version.wording}\n{label}: {turn.content}",
                guidance=_guidance(version),
                verdict=TO_WORKBOOK[Verdict(grade.verdict)] if grade and grade.verdict else None,
                rationale=grade.rationale if grade else "",
            )
        )
    return rows


def _item(assignment: Assignment, questions: list[LikertItem]) -> GradingItem:
    grades = {g.criterion_version_id: g for g in assignment.grades.all()}
    ratings = {r.item_id: r.value for r in assignment.likert_ratings.all()}
    tutor = [t for t in assignment.study_item.response.turns.all() if t.role == Turn.Role.ASSISTANT]
    criteria = []
    for rubric_item in assignment.study_item.rubric_version.items.all():
        if not rubric_item.applicable:
            continue  # takes no verdict: save_grade would refuse one
        version = rubric_item.criterion_version
        if version.per_turn and tutor:
            criteria.extend(_turn_rows(assignment, version, sorted(tutor, key=lambda t: t.index)))
            continue
        grade = grades.get(version.pk)
        scale = _scale(version)
        criteria.append(
            CriterionRow(
                criterion_version_id=str(version.pk),
                code=_code(version.criterion.code, version),
                penalty=version.is_penalty,
                wording=version.wording,
                guidance=_guidance(version),
                verdict=TO_WORKBOOK[Verdict(grade.verdict)] if grade and grade.verdict else None,
                rationale=grade.rationale if grade else "",
                scale=scale,
                level=grade.level if grade and scale else None,
            )
        )
    likert = tuple(
        LikertQuestion(
            str(q.pk), q.prompt, tuple(label for _, label in q.scale()), ratings.get(q.pk)
        )
        for q in questions
    )
    return GradingItem(
        item_id=str(assignment.pk),
        task_text=_task_text(assignment),
        response_text=_response_text(assignment.study_item.response),
        criteria=tuple(criteria),
        likert=likert,
    )


def _scale(version: CriterionVersion) -> tuple[int, int] | None:
    """An ordinal criterion's (min, max); None for a binary one."""
    if not version.is_ordinal or version.scale_min is None or version.scale_max is None:
        return None
    return version.scale_min, version.scale_max


def _code(code: str, version: CriterionVersion) -> str:
    return gettext("%(code)s (penalty)") % {"code": code} if version.is_penalty else code


def _guidance(version: CriterionVersion) -> str:
    parts = [
        (gettext("What passes"), version.passes),
        (gettext("What fails"), version.fails),
        (gettext("Pass example"), version.pass_example),
        (gettext("Fail example"), version.fail_example),
    ]
    if version.is_ordinal:  # each level with its label, as the grading page shows them
        points = "; ".join(f"{v} = {label}" if label else str(v) for v, label in version.scale())
        parts.insert(0, (gettext("Levels (choose one, or N/A)"), points))
    return "\n".join(f"{label}: {text.strip()}" for label, text in parts if text.strip())


def _task_text(assignment: Assignment) -> str:
    rubric = assignment.study_item.rubric_version  # the task as published for this study
    parts = [rubric.instruction.strip()]
    if rubric.system_prompt.strip():
        parts.append(f"{gettext('System prompt')}:\n{rubric.system_prompt.strip()}")
    context = [f"{v.variable}: {v.display_value}" for v in rubric.context_values.all()]
    if context:
        parts.append(f"{gettext('Teaching context')}:\n" + "\n".join(context))
    for resource in rubric.resources.all():
        if resource.kind == TaskResource.Kind.MARKDOWN:
            title = gettext("Resource “%(title)s”:") % {"title": resource.title}
            parts.append(f"{title}\n{resource.text.strip()}")
        else:
            parts.append(
                gettext("Resource “%(title)s”: a file, shown in the web app.")
                % {"title": resource.title}
            )
    return "\n\n".join(parts)


def _response_text(response: Response) -> str:
    if response.kind == Response.Kind.CONVERSATION:
        return "\n\n".join(f"{turn.role}: {turn.content}" for turn in response.turns.all())
    return response.text


# ----- import -----------------------------------------------------------------------------------
@dataclass
class OfflineImport:
    """What an upload did, or every problem that stopped it (then nothing was written)."""

    problems: list[Problem] = field(default_factory=list)
    answers_changed: int = 0
    answers_unchanged: int = 0
    ratings_changed: int = 0
    ratings_unchanged: int = 0
    submitted: int = 0
    incomplete: list[str] = field(default_factory=list)

    # What a background job (interchange.jobs) reads of any import's report: no counts of
    # rows created and updated, no response given a new version, no criterion changed; what
    # it did is said by its notes.
    counts: ClassVar[dict[str, Counts]] = {}
    new_versions: ClassVar[tuple[NewVersion, ...]] = ()
    changed_criteria: ClassVar[tuple[ChangedCriterion, ...]] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem_lines(self) -> list[str]:
        return problem_lines(self.problems)

    @property
    def notes(self) -> list[Text]:
        """What the upload did, as messages read in the reader's language (a job's page)."""
        if self.problems:
            return []
        counts = {
            "answers_changed": self.answers_changed,
            "answers_unchanged": self.answers_unchanged,
            "ratings_changed": self.ratings_changed,
            "ratings_unchanged": self.ratings_unchanged,
            "submitted": self.submitted,
        }
        if not self.incomplete:
            done = gettext_noop(
                "answers: %(answers_changed)s changed, %(answers_unchanged)s unchanged; "
                "ratings: %(ratings_changed)s changed, %(ratings_unchanged)s unchanged; "
                "%(submitted)s submitted",
                **counts,
            )
        else:
            done = gettext_noop(
                "answers: %(answers_changed)s changed, %(answers_unchanged)s unchanged; "
                "ratings: %(ratings_changed)s changed, %(ratings_unchanged)s unchanged; "
                "%(submitted)s submitted; %(incomplete)s not complete, so not submitted",
                incomplete=len(self.incomplete),
                **counts,
            )
        return [done]

    def summary(self) -> str:
        if self.problems:
            count = len(self.problems)
            return f"{count} problem{'s' if count != 1 else ''}: nothing was imported"
        return " ".join(self.notes)


class _RollBack(Exception):
    pass


def import_workbook(
    path: Path,
    study: Study,
    annotator: User,
    *,
    submit: bool = False,
    filename: str | None = None,
) -> OfflineImport:
    """Record the answers of an uploaded workbook as `annotator`, all or nothing.

    A blank cell changes nothing (it never erases an answer given in the browser). With
    `submit`, every assignment of the workbook that is then complete is submitted; the others
    are listed in `incomplete`.
    """
    name = filename or path.name
    report = OfflineImport()
    result, problems = read_grading_workbook(path, signing_key(), every_languages_words())
    report.problems = [dataclasses.replace(p, file=name) for p in problems]
    if report.problems:
        return report

    def problem(row: int | None, column: str | None, message: str) -> None:
        report.problems.append(Problem(name, row, column, message, unit="row"))

    if result.annotator != annotator.username:
        problem(
            None,
            None,
            gettext_noop(
                "was written for '%(annotator)s', not '%(username)s'",
                annotator=result.annotator,
                username=annotator.username,
            ),
        )
    if result.study_id != str(study.pk):
        problem(
            None,
            None,
            gettext_noop(
                "was written for study %(study_id)s, not study %(pk)s",
                study_id=result.study_id,
                pk=study.pk,
            ),
        )
    if study.is_closed():
        problem(
            None,
            None,
            gettext_noop(
                "the study “%(name)s” is closed: grades can no longer change", name=study.name
            ),
        )
    if report.problems:
        return report
    assignments = _own_assignments(result.rows, result.ratings, study, annotator, problem)
    if report.problems:
        return report
    try:
        with transaction.atomic():
            _record(result.rows, result.ratings, assignments, annotator, report, problem)
            if submit:
                _submit(assignments.values(), annotator, report)
            if report.problems:
                raise _RollBack
    except _RollBack:
        report.submitted, report.incomplete = 0, []
    return report


def _own_assignments(
    rows: Iterable[GradedRow],
    ratings: Iterable[RatedRow],
    study: Study,
    annotator: User,
    problem: Report,
) -> dict[str, Assignment]:
    """The assignments the workbook names, each checked to be the annotator's in this study
    (defence in depth: the signature already ties ids to the annotator)."""
    first_row: dict[str, int] = {}
    named: list[GradedRow | RatedRow] = [*rows, *ratings]
    for row in named:
        first_row.setdefault(row.item_id, row.row)
    ids = {int(i) for i in first_row if i.isdecimal()}
    own = Assignment.objects.of(annotator).filter(pk__in=ids, study_item__study=study)
    found = {str(a.pk): a for a in own.select_related("study_item__study")}
    # Only a workbook naming an assignment not its own reads which of them exist.
    others = ids - {int(pk) for pk in found}
    existing = set(Assignment.objects.filter(pk__in=others).values_list("pk", flat=True))
    for item_id, line in sorted(first_row.items(), key=lambda pair: pair[1]):
        if item_id in found:
            continue
        if not item_id.isdecimal() or int(item_id) not in existing:
            problem(
                line, "item id", gettext_noop("there is no assignment %(item_id)s", item_id=item_id)
            )
        else:
            message = gettext_noop(
                "assignment %(item_id)s is not %(username)s's in study %(study)s",
                item_id=item_id,
                username=annotator.username,
                study=study.pk,
            )
            problem(line, "item id", message)
    return found


def _record(
    rows: Iterable[GradedRow],
    ratings: Iterable[RatedRow],
    assignments: dict[str, Assignment],
    annotator: User,
    report: OfflineImport,
    problem: Report,
) -> None:
    before = {
        (g.assignment_id, str(g.criterion_version_id)): (g.verdict, g.level, g.rationale)
        for g in Grade.objects.filter(assignment__in=assignments.values())
    }
    before |= {
        (g.assignment_id, f"{g.criterion_version_id}.{g.turn_id}"): (g.verdict, None, g.rationale)
        for g in TurnGrade.objects.filter(assignment__in=assignments.values())
    }
    rated_before = dict(
        ((r.assignment_id, r.item_id), r.value)
        for r in LikertRating.objects.filter(assignment__in=assignments.values())
    )
    started: set[int] = set()
    penalties = set(
        CriterionVersion.objects.filter(
            rubric_items__rubric_version__study_items__assignments__in=assignments.values(),
            weight__lt=0,
        ).values_list("pk", flat=True)
    )

    def begin(assignment: Assignment) -> None:
        if assignment.pk not in started:  # as opening the grading page does
            services.start(assignment, by=annotator)
            started.add(assignment.pk)

    for row in rows:
        if row.verdict is None and row.level is None and not row.rationale:
            continue
        version_id, _, turn_id = row.criterion_version_id.partition(".")
        if not version_id.isdecimal() or not (turn_id == "" or turn_id.isdecimal()):
            problem(
                row.row,
                "criterion version id",
                gettext_noop("'%(id)s' is not an id", id=row.criterion_version_id),
            )
            continue
        if row.penalty_wording and int(version_id) not in penalties:
            problem(
                row.row,
                "verdict",
                gettext_noop("Present and Absent are for penalties: choose Pass or Fail"),
            )
            continue
        assignment = assignments[row.item_id]
        begin(assignment)
        verdict = FROM_WORKBOOK[row.verdict] if row.verdict else None
        answer: Grade | TurnGrade
        try:
            if turn_id and row.level is not None:
                message = gettext_noop("%(level)s is not Pass, Fail or N/A", level=row.level)
                problem(row.row, "level", message)
                continue
            if turn_id:
                answer, _, _ = services.save_turn_grade(
                    assignment,
                    int(version_id),
                    int(turn_id),
                    verdict=verdict,
                    rationale=row.rationale or None,
                    by=annotator,
                )
            else:
                answer = services.save_grade(
                    assignment,
                    int(version_id),
                    verdict=verdict,
                    level=row.level,
                    rationale=row.rationale or None,
                    by=annotator,
                )
        except services.SAVE_REFUSALS as error:
            # The level's own field when a level was refused (off its scale, or on a binary
            # criterion): the message names the criterion and its scale.
            field_name = "level" if row.level is not None else "verdict"
            for refusal in _refusals(error, assignment):
                problem(row.row, field_name, refusal)
            continue
        old = before.get((assignment.pk, row.criterion_version_id))
        level = answer.level if isinstance(answer, Grade) else None
        if old == (answer.verdict, level, answer.rationale):
            report.answers_unchanged += 1
        else:
            report.answers_changed += 1
    for rating in ratings:
        if rating.value is None:
            continue
        if not rating.question_id.isdecimal():
            problem(
                rating.row,
                "criterion version id",
                gettext_noop("'%(id)s' is not an id", id=rating.question_id),
            )
            continue
        assignment = assignments[rating.item_id]
        begin(assignment)
        try:
            saved = services.save_likert(
                assignment, int(rating.question_id), rating.value, by=annotator
            )
        except services.SAVE_REFUSALS as error:
            for refusal in _refusals(error, assignment):
                problem(rating.row, "rating", refusal)
            continue
        if rated_before.get((assignment.pk, saved.item_id)) == saved.value:
            report.ratings_unchanged += 1
        else:
            report.ratings_changed += 1


def _refusals(error: Exception, assignment: Assignment) -> list[str]:
    """What a save refused, as messages to store; a study closed while the file was read (its
    deadline passed) in the words of the check before it (`import_workbook`)."""
    if isinstance(error, services.StudyClosed):
        name = assignment.study_item.study.name
        return [
            gettext_noop("the study “%(name)s” is closed: grades can no longer change", name=name)
        ]
    if isinstance(error, services.SubmittedIncomplete):
        return refusal_texts(error.as_validation_error())
    if isinstance(error, services.SetAside):
        return refusal_texts(ValidationError(str(error)))
    assert isinstance(error, ValidationError)
    return refusal_texts(error)


def _submit(assignments: Iterable[Assignment], annotator: User, report: OfflineImport) -> None:
    for assignment in sorted(assignments, key=lambda a: a.position):
        assignment.refresh_from_db(fields=["status", "submitted_at"])
        if assignment.is_submitted:
            continue
        try:
            services.submit(assignment, by=annotator)
        except (*services.SAVE_REFUSALS, services.Incomplete) as error:
            report.incomplete.append(
                gettext_noop(
                    "assignment %(id)s: %(reasons)s", id=assignment.pk, reasons=message_of(error)
                )
            )
        else:
            report.submitted += 1
