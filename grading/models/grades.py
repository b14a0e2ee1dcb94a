"""What graders said: grades per criterion and per tutor turn, 1-5 ratings, and the values a
change after submission replaced."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from grading.models.studies import Assignment, LikertItem
from rubrics.models import CriterionVersion, Turn


class Verdict(models.TextChoices):
    PASS = "pass", _("Pass")
    FAIL = "fail", _("Fail")
    NA = "na", _("N/A")


class Grade(models.Model):
    """One annotator's verdict on one criterion of one response. An empty verdict is a draft
    holding only a rationale.

    On an ordinal criterion the grader picks a `level` of its scale and the verdict stays
    empty (or is N/A); a binary criterion's grade never has a level. A level is checked
    against its criterion's scale by CriterionVersion.level_error, which every writer calls
    (a check constraint cannot read the criterion's row)."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.PROTECT, related_name="grades", verbose_name=_("assignment")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="grades",
        verbose_name=_("criterion version"),
    )
    verdict = models.CharField(
        max_length=4, choices=Verdict.choices, blank=True, verbose_name=_("verdict")
    )
    level = models.IntegerField(
        null=True,
        blank=True,
        help_text=_("The scale point chosen on an ordinal criterion."),
        verbose_name=_("level"),
    )
    rationale = models.TextField(blank=True, verbose_name=_("rationale"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    active_ms = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_(
            "Active time the grader spent on this criterion before submitting, in "
            "milliseconds, as the grading page measures it (docs/grading.md); empty when not "
            "measured (the API, the offline workbook, a page without JavaScript)."
        ),
        verbose_name=_("active time (ms)"),
    )

    class Meta:
        verbose_name = _("grade")
        verbose_name_plural = _("grades")
        ordering = ["assignment", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "criterion_version"], name="grade_one_per_criterion"
            ),
            models.CheckConstraint(
                condition=Q(level__isnull=True) | Q(verdict=""),
                name="grade_level_or_verdict",
                violation_error_message=_(
                    "A grade is a verdict or a level of the scale, not both."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion_version}: {_shown(self.verdict, self.level)}"

    @property
    def answered(self) -> bool:
        """A verdict or a level was chosen (not a draft holding only a rationale)."""
        return bool(self.verdict) or self.level is not None


def _shown(verdict: str, level: int | None) -> str:
    return str(level) if level is not None else (verdict or "-")


class ReplacedValue(models.Model):
    """What a revision row keeps besides the value it holds: when that value was written, and
    when and by whom it was replaced."""

    written_at = models.DateTimeField(
        help_text=_("When this value was saved."), verbose_name=_("written at")
    )
    replaced_at = models.DateTimeField(auto_now_add=True, verbose_name=_("replaced at"))
    replaced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("replaced by"),
    )

    class Meta:
        abstract = True


class ReplacedVerdict(ReplacedValue):
    """A grader's verdict and rationale as they were before a change made after submission
    (GradeRevision, TurnGradeRevision)."""

    verdict = models.CharField(
        max_length=4, choices=Verdict.choices, blank=True, verbose_name=_("verdict")
    )
    rationale = models.TextField(blank=True, verbose_name=_("rationale"))

    class Meta:
        abstract = True


class GradeRevision(ReplacedVerdict):
    """A grade's value as it was before a change made after submission."""

    grade = models.ForeignKey(
        Grade, on_delete=models.PROTECT, related_name="revisions", verbose_name=_("grade")
    )
    level = models.IntegerField(null=True, blank=True, verbose_name=_("level"))

    class Meta:
        verbose_name = _("grade revision")
        verbose_name_plural = _("grade revisions")
        ordering = ["grade", "replaced_at", "pk"]

    def __str__(self) -> str:
        value = _shown(self.verdict, self.level)
        return f"{self.grade} was {value} until {self.replaced_at:%Y-%m-%d %H:%M}"


class TurnGrade(models.Model):
    """One annotator's verdict on a turn-level criterion for one tutor turn of a dialogue.

    The response's Grade on that criterion is derived from its turns' grades by the
    criterion's turn rule (core.scoring.turn_outcome) on every save, so everything that
    reads grades per response (agreement, scores, exports) sees the rule's verdict."""

    assignment = models.ForeignKey(
        Assignment,
        on_delete=models.PROTECT,
        related_name="turn_grades",
        verbose_name=_("assignment"),
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="turn_grades",
        verbose_name=_("criterion version"),
    )
    turn = models.ForeignKey(
        Turn, on_delete=models.PROTECT, related_name="grades", verbose_name=_("turn")
    )
    verdict = models.CharField(
        max_length=4, choices=Verdict.choices, blank=True, verbose_name=_("verdict")
    )
    rationale = models.TextField(blank=True, verbose_name=_("rationale"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("turn grade")
        verbose_name_plural = _("turn grades")
        ordering = ["assignment", "criterion_version", "turn__index"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "criterion_version", "turn"],
                name="turn_grade_one_per_turn_and_criterion",
            )
        ]

    def __str__(self) -> str:
        return f"{self.criterion_version} turn {self.turn_id}: {self.verdict or '-'}"


class TurnGradeRevision(ReplacedVerdict):
    """A turn grade's value as it was before a change made after submission."""

    turn_grade = models.ForeignKey(
        TurnGrade, on_delete=models.PROTECT, related_name="revisions", verbose_name=_("turn grade")
    )

    class Meta:
        verbose_name = _("turn grade revision")
        verbose_name_plural = _("turn grade revisions")
        ordering = ["turn_grade", "replaced_at", "pk"]

    def __str__(self) -> str:
        return f"{self.turn_grade} was {self.verdict or '-'}"


class LikertRating(models.Model):
    assignment = models.ForeignKey(
        Assignment,
        on_delete=models.PROTECT,
        related_name="likert_ratings",
        verbose_name=_("assignment"),
    )
    item = models.ForeignKey(
        LikertItem, on_delete=models.PROTECT, related_name="ratings", verbose_name=_("item")
    )
    value = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(5)], verbose_name=_("value")
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["assignment", "item__order"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "item"], name="likert_rating_once"),
            models.CheckConstraint(
                condition=Q(value__gte=1, value__lte=5), name="likert_rating_1_to_5"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item}: {self.value}"
