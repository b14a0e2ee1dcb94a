"""Flags: a grader's note that something stops them grading well."""

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from grading.models.studies import StudyItem
from rubrics.models import CriterionVersion


class FlagQuerySet(models.QuerySet["Flag"]):
    def open(self) -> "FlagQuerySet":
        return self.filter(status=Flag.Status.OPEN)


class Flag(models.Model):
    """A grader's note that something stops them grading well: a criterion unclear, a response
    broken, or another problem, on one response of a study (and one of its criteria, or the
    response as a whole).

    Only its grader and the study's maintainers see it: graders never see each other's flags.
    A flag may set the grader's assignment aside (`skipped`, Assignment.skipped_at) until a
    maintainer resolves it: returned to the grader, or given to another grader."""

    class Kind(models.TextChoices):
        CRITERION_UNCLEAR = "criterion_unclear", _("Criterion unclear")
        RESPONSE_BROKEN = "response_broken", _("Response broken")
        OTHER = "other", _("Other")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVED = "resolved", _("Resolved")

    class Outcome(models.TextChoices):
        """What became of a skipped response when its flag was resolved."""

        RETURNED = "returned", _("Returned to its grader")
        REASSIGNED = "reassigned", _("Given to another grader")

    study_item = models.ForeignKey(
        StudyItem, on_delete=models.PROTECT, related_name="flags", verbose_name=_("study item")
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="flags",
        help_text=_("The criterion flagged; empty for the response as a whole."),
        verbose_name=_("criterion version"),
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, verbose_name=_("kind"))
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    skipped = models.BooleanField(
        default=False,
        help_text=_("The grader set the response aside with this flag."),
        verbose_name=_("skipped"),
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="flags_raised",
        verbose_name=_("by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.OPEN, verbose_name=_("status")
    )
    resolution_note = models.TextField(blank=True, verbose_name=_("resolution note"))
    outcome = models.CharField(
        max_length=10, choices=Outcome.choices, blank=True, verbose_name=_("outcome")
    )
    reassigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reassigned to"),
    )
    draft = models.ForeignKey(
        CriterionVersion,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The draft of the criterion's next version this flag's resolution opened."),
        verbose_name=_("draft"),
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )
    resolved_at = models.DateTimeField(null=True, blank=True, verbose_name=_("resolved at"))

    objects = FlagQuerySet.as_manager()
    # Set by the study's flags page only: who could take a response set aside.
    candidates: list[Any]

    class Meta:
        verbose_name = _("flag")
        verbose_name_plural = _("flags")
        ordering = ["-created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(kind="criterion_unclear") | Q(criterion_version__isnull=False),
                name="flag_unclear_names_a_criterion",
            ),
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True)
                | Q(status="resolved", resolved_at__isnull=False),
                name="flag_resolved_at_matches_status",
            ),
        ]
        indexes = [models.Index(fields=["status", "study_item"])]

    def __str__(self) -> str:
        target = self.criterion_version or "the response"
        return f"{self.get_kind_display()} on {target} ({self.study_item})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN
