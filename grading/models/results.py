"""Counts kept beside the grades: the submitted verdicts per pair, and how many times a
study's submitted data changed."""

from django.db import models
from django.db.models import F
from django.utils.translation import gettext_lazy as _

from grading.models.studies import Study, StudyItem
from rubrics.models import CriterionVersion


class PairTally(models.Model):
    """The submitted verdicts of one (study item, criterion version) pair, counted: what the
    study dashboard and the adjudication list read instead of grouping every grade of the
    study on each request. A row exists for each pair with at least one submitted verdict.

    Kept exact by grading.tallies.refresh, in the transaction that submits an assignment or
    changes a submitted verdict (grading.services.submit, save_grade_line, the turn-level
    grade derived by save_turn_grade, and a flag's reassignment), with the item's row locked.
    A new write path of submitted verdicts must call it too; `tallies.check_study` tells
    whether a study's rows agree with its grades."""

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="+", verbose_name=_("study")
    )
    study_item = models.ForeignKey(
        StudyItem, on_delete=models.CASCADE, related_name="tallies", verbose_name=_("study item")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("criterion version"),
    )
    passes = models.PositiveIntegerField(default=0, verbose_name=_("passes"))
    fails = models.PositiveIntegerField(default=0, verbose_name=_("fails"))
    nas = models.PositiveIntegerField(default=0, verbose_name=_("not applicable"))
    levels = models.PositiveIntegerField(
        default=0, verbose_name=_("levels")
    )  # grades with a level (ordinal criteria)
    low_level = models.IntegerField(null=True, blank=True, verbose_name=_("low level"))
    high_level = models.IntegerField(null=True, blank=True, verbose_name=_("high level"))
    split = models.BooleanField(
        default=False,
        help_text=_("The submitted verdicts are not all the same."),
        verbose_name=_("split"),
    )

    class Meta:
        verbose_name = _("pair tally")
        verbose_name_plural = _("pair tallies")
        ordering = ["study_item", "criterion_version"]
        constraints = [
            models.UniqueConstraint(
                fields=["study_item", "criterion_version"], name="pair_tally_once"
            )
        ]
        indexes = [models.Index(fields=["study", "split"], name="pair_tally_study_split")]

    def __str__(self) -> str:
        return f"{self.study_item} {self.criterion_version}: {self.passes}/{self.fails}/{self.nas}"


class ResultsRevisionQuerySet(models.QuerySet["ResultsRevision"]):
    def of(self, study_id: int) -> int:
        """The study's revision: 0 until its submitted data first changes."""
        return self.filter(study_id=study_id).values_list("value", flat=True).first() or 0

    def bump(self, study_id: int) -> None:
        """Count one more change, in the caller's transaction. The row is made on the first
        change; two first changes at once both count (the later waits for the first's row).

        The row is the study's one lock: take it last, after the rows of the change (the
        assignment, the study item that grading.tallies locks). A save that bumped first and
        then waited for an item deadlocked with a submission of that item holding the item
        and waiting here."""
        if self.filter(study_id=study_id).update(value=F("value") + 1):
            return
        self.get_or_create(study_id=study_id)
        self.filter(study_id=study_id).update(value=F("value") + 1)


class ResultsRevision(models.Model):
    """How many times the study's submitted data changed: an assignment submitted, a submitted
    grade, turn grade or 1-5 rating changed, a submitted response given to another grader.
    What the results computed from that data (agreement, calibration, leaderboard) are cached
    under (agreement.cache): reading it is one primary-key lookup, where counting the study's
    grades for a state took tens of milliseconds in a large study.

    Bumped by grading.services, grading.flags and grading.tallies.rebuild in the transaction
    that makes the change; a new write path of submitted data must bump it too. It lives
    beside the study rather than in it, so saving a study read before a change (the admin's
    form) cannot write an older value back. Not part of a backup: a restored study starts
    again from 0 in a database whose cache holds nothing of it."""

    study = models.OneToOneField(
        Study,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="results_revision",
        verbose_name=_("study"),
    )
    value = models.PositiveBigIntegerField(default=0, verbose_name=_("value"))

    objects = ResultsRevisionQuerySet.as_manager()

    class Meta:
        verbose_name = _("results revision")
        verbose_name_plural = _("results revisions")

    def __str__(self) -> str:
        return f"{self.study_id}: {self.value}"
