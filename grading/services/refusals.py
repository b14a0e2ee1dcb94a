"""What the grading rules refuse, and the checks every save of an assignment makes first:
its grader asks (ownership, through `Assignment.objects.of(user)`) and its study is open."""

from collections.abc import Mapping, Sequence
from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from accounts.models import User
from core.refusals import Conflict, NotFound
from grading.models import Assignment


class GradingError(ValidationError):
    """A save or submission the study's rules refuse; the message is shown to the annotator."""


class StudyClosed(Conflict):
    """The study is closed (by a maintainer or its deadline): no grade, rating or pool
    changes."""


class Incomplete(Conflict):
    """The assignment still lacks answers (`problems`, in page order): its state, not the
    request, refuses the submission, so a retry succeeds once they are given (409)."""

    summary = "The assignment is not complete"

    def __init__(self, problems: Sequence[ValidationError]) -> None:
        self.problems = ValidationError(list(problems)).messages
        super().__init__(" ".join(self.problems))


class SubmittedIncomplete(Conflict):
    """A change to a submitted grade that would leave its assignment incomplete (an adverse
    finding without the rationale the study asks for): the grade's state refuses it (409).
    Raised with its values apart, as a ValidationError is, so that an import keeps it to be
    read in its reader's language (`as_validation_error`, interchange.refusals)."""

    def __init__(self, message: str, params: Mapping[str, object]) -> None:
        super().__init__(message % params)
        self.message, self.params = message, params

    def as_validation_error(self) -> ValidationError:
        return ValidationError(self.message, params=dict(self.params))


class SetAside(Conflict):
    """The grader set the response aside with a flag: it waits for a maintainer."""

    def __init__(self) -> None:
        super().__init__(
            gettext(
                "You set this response aside with a flag: a maintainer will return it to you or "
                "give it to another grader."
            )
        )


# What a save of a grade, turn grade or 1-5 rating may refuse, for the callers that show it
# (the grading page, the offline workbook's import): bad input or the assignment's state.
SAVE_REFUSALS = (GradingError, StudyClosed, SubmittedIncomplete, SetAside)


class NotYourAssignment(NotFound):
    """Only an assignment's own grader opens, grades, rates or submits it."""

    def __init__(self) -> None:
        super().__init__(gettext("No such assignment among yours."))


class QuestionsAnswered(Conflict):
    """A study's 1-5 questions are fixed once someone has answered one."""


def own_locked(assignment: Assignment, by: User, *, rubric: bool = False) -> Assignment:
    """The assignment, row-locked, with its item and study (and rubric version, with
    `rubric`), found among `by`'s own (`Assignment.objects.of`): NotYourAssignment otherwise.
    Only the assignment's row is locked (`of`): locking the joined study row too would make
    every grader of the study wait for each other's saves on PostgreSQL."""
    related = ["study_item__study", *(["study_item__rubric_version"] if rubric else [])]
    found = (
        Assignment.objects.of(by)
        .select_for_update(of=("self",))
        .select_related(*related)
        .filter(pk=assignment.pk)
        .first()
    )
    if found is None:
        raise NotYourAssignment
    return found


def check_study_open(assignment: Assignment, now: datetime) -> None:
    study = assignment.study_item.study
    if study.is_closed(now):
        raise StudyClosed(
            gettext("The study “%(study)s” is closed: grades can no longer change.")
            % {"study": study.name}
        )


def check_open(assignment: Assignment, now: datetime) -> None:
    """The assignment takes grades: its study is open and the grader has not set it aside."""
    check_study_open(assignment, now)
    if assignment.skipped_at is not None:
        raise SetAside()
