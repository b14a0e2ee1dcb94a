"""Adjudication: the gold verdicts of a study's items, their replaced values, and the pairs
sent to adjudication although their graders agreed."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from grading.models.grades import ReplacedValue, Verdict, _shown
from grading.models.studies import StudyItem
from rubrics.models import CriterionVersion


class Confidence(models.TextChoices):
    """How sure an adjudicator is of a gold verdict."""

    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")


class GoldVerdict(models.Model):
    """The adjudicated verdict on one criterion of one study item.

    `revision` counts the saves: a change must name the revision it was based on, so two
    adjudicators cannot silently overwrite each other, and the replaced value is kept in a
    GoldVerdictRevision row. On an ordinal criterion the gold is a `level` of its scale (or
    the verdict N/A), as for a grade."""

    study_item = models.ForeignKey(
        StudyItem, on_delete=models.PROTECT, related_name="gold", verbose_name=_("study item")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="gold_verdicts",
        verbose_name=_("criterion version"),
    )
    verdict = models.CharField(
        max_length=4, choices=Verdict.choices, blank=True, verbose_name=_("verdict")
    )
    level = models.IntegerField(null=True, blank=True, verbose_name=_("level"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    # Why the experts split (one of the study's `split_reasons`) and how sure the adjudicator
    # is: what the agreement page sums per criterion, so an unclear criterion stands out.
    split_reason = models.CharField(
        max_length=100, blank=True, verbose_name=_("why the experts split")
    )
    confidence = models.CharField(
        max_length=6, choices=Confidence.choices, blank=True, verbose_name=_("confidence")
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(auto_now=True, verbose_name=_("recorded at"))
    revision = models.PositiveIntegerField(default=1, verbose_name=_("revision"))

    class Meta:
        verbose_name = _("gold verdict")
        verbose_name_plural = _("gold verdicts")
        ordering = ["study_item", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["study_item", "criterion_version"], name="gold_verdict_one_per_criterion"
            ),
            models.CheckConstraint(
                condition=(Q(level__isnull=True) & ~Q(verdict=""))
                | (Q(level__isnull=False) & Q(verdict="")),
                name="gold_verdict_level_or_verdict",
                violation_error_message=_("A gold answer is a verdict or a level, not both."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study_item} {self.criterion_version}: {_shown(self.verdict, self.level)}"


class GoldVerdictRevision(ReplacedValue):
    """A gold verdict's value as it was before an adjudicator changed it."""

    gold = models.ForeignKey(
        GoldVerdict, on_delete=models.PROTECT, related_name="revisions", verbose_name=_("gold")
    )
    revision = models.PositiveIntegerField(verbose_name=_("revision"))
    verdict = models.CharField(
        max_length=4, choices=Verdict.choices, blank=True, verbose_name=_("verdict")
    )
    level = models.IntegerField(null=True, blank=True, verbose_name=_("level"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )

    class Meta:
        verbose_name = _("gold verdict revision")
        verbose_name_plural = _("gold verdict revisions")
        ordering = ["gold", "-revision"]
        constraints = [
            models.UniqueConstraint(fields=["gold", "revision"], name="gold_revision_once")
        ]

    def __str__(self) -> str:
        return f"{self.gold} was {_shown(self.verdict, self.level)} (revision {self.revision})"


class AdjudicationRequest(models.Model):
    """A pair sent to adjudication although its graders agreed (e.g. a maintainer, reading
    why a judge disagreed with them, believes the experts were wrong): it joins the
    adjudication queue beside the pairs whose grades differ."""

    study_item = models.ForeignKey(
        StudyItem,
        on_delete=models.CASCADE,
        related_name="adjudication_requests",
        verbose_name=_("study item"),
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("criterion version"),
    )
    reason = models.TextField(verbose_name=_("reason"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("requested at"))

    class Meta:
        verbose_name = _("adjudication request")
        verbose_name_plural = _("adjudication requests")
        ordering = ["study_item", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["study_item", "criterion_version"], name="adjudication_requested_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.study_item} {self.criterion_version}: adjudication requested"
