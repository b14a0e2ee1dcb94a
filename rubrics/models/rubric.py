"""Published rubrics: frozen snapshots that grades point at."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from rubrics.models.criteria import CriterionVersion, EffectiveCriterion, Layer
from rubrics.models.material import AbstractContextValue, AbstractResource
from rubrics.models.tasks import Task


class RubricVersion(models.Model):
    """One task's rubric as approved: the task's text, context values and resources
    (PublishedContextValue, PublishedResource) and the exact criterion versions (RubricItem).

    Nothing here changes after publication; later edits make the next version. Graders see only
    this: a draft edit of the task reaches them once it is published again."""

    task = models.ForeignKey(
        Task, on_delete=models.PROTECT, related_name="rubric_versions", verbose_name=_("task")
    )
    number = models.PositiveIntegerField(verbose_name=_("number"))
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("published by"),
    )
    published_at = models.DateTimeField(auto_now_add=True, verbose_name=_("published at"))
    instruction = models.TextField(verbose_name=_("instruction"))
    system_prompt = models.TextField(blank=True, verbose_name=_("system prompt"))
    reference_answer = models.TextField(blank=True, verbose_name=_("reference answer"))

    class Meta:
        verbose_name = _("rubric version")
        verbose_name_plural = _("rubric versions")
        ordering = ["task", "number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(fields=["task", "number"], name="rubric_version_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.task} rubric v{self.number}"

    def effective_rubric(self) -> list[EffectiveCriterion]:
        """The rubric as published, in the same shape as Task.effective_rubric(). Two queries."""
        items = self.items.select_related("criterion_version__criterion").prefetch_related(
            "criterion_version__scale_points"
        )
        return [item.as_effective() for item in items]


class RubricItem(models.Model):
    rubric_version = models.ForeignKey(
        RubricVersion,
        on_delete=models.CASCADE,
        related_name="items",
        verbose_name=_("rubric version"),
    )
    criterion_version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.PROTECT,
        related_name="rubric_items",
        verbose_name=_("criterion version"),
    )
    layer = models.CharField(max_length=16, choices=Layer.choices, verbose_name=_("layer"))
    order = models.PositiveIntegerField(verbose_name=_("order"))
    applicable = models.BooleanField(default=True, verbose_name=_("applicable"))
    na_reason = models.TextField(blank=True, verbose_name=_("why it does not apply"))

    class Meta:
        verbose_name = _("rubric item")
        verbose_name_plural = _("rubric items")
        ordering = ["rubric_version", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["rubric_version", "criterion_version"], name="rubric_item_once_per_version"
            ),
            models.CheckConstraint(
                condition=Q(applicable=True, na_reason="")
                | (Q(applicable=False) & ~Q(na_reason="")),
                name="rubric_item_na_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rubric_version}: {self.criterion_version}"

    def as_effective(self) -> EffectiveCriterion:
        """This line of the published rubric in the shape of Task.effective_rubric()."""
        return EffectiveCriterion(
            criterion=self.criterion_version.criterion,
            version=self.criterion_version,
            layer=self.layer,
            weight=self.criterion_version.weight,
            applicable=self.applicable,
            na_reason=self.na_reason,
        )


class PublishedResource(AbstractResource):
    """A resource of the task as it was published with `rubric_version`. A file resource names
    the same stored file as the task's resource did: uploads are never overwritten in place
    (each gets its own name) and deleting a resource leaves its file, so the published copy
    keeps its bytes whatever the author does to the draft."""

    rubric_version = models.ForeignKey(
        RubricVersion,
        on_delete=models.CASCADE,
        related_name="resources",
        verbose_name=_("rubric version"),
    )
    order = models.PositiveIntegerField(verbose_name=_("order"))
    kind = models.CharField(
        max_length=16, choices=AbstractResource.Kind.choices, verbose_name=_("kind")
    )

    class Meta:
        verbose_name = _("published resource")
        verbose_name_plural = _("published resources")
        ordering = ["rubric_version", "order", "pk"]


class PublishedContextValue(AbstractContextValue):
    """A context value of the task as it was published with `rubric_version`."""

    rubric_version = models.ForeignKey(
        RubricVersion,
        on_delete=models.CASCADE,
        related_name="context_values",
        verbose_name=_("rubric version"),
    )

    class Meta:
        verbose_name = _("published context value")
        verbose_name_plural = _("published context values")
        ordering = ["rubric_version", "variable__order", "variable__key"]
        constraints = [
            models.UniqueConstraint(
                fields=["rubric_version", "variable"], name="published_context_value_once"
            )
        ]
