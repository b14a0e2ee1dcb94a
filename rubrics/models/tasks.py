"""Tasks: what a model is asked to do, in which teaching context, with which resources."""

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, RegexValidator
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from audit.editing import OrderedQuerySet
from core import languages
from rubrics.models.criteria import (
    LAYER_RANK,
    OTHER_FRAMEWORK,
    Criterion,
    CriterionVersion,
    EffectiveCriterion,
    Layer,
)
from rubrics.models.material import AbstractContextValue, AbstractResource
from taxonomy.models import ContextValue, Framework, SubCompetency

# Each of a task's texts (instruction, system prompt, reference answer): a long reading passage
# fits, a 3 MB paste does not. docs/rubrics.md, "Bounds"; one rule, the field's validator.
TASK_TEXT_MAX = 50_000


class Task(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        IN_REVIEW = "in_review", _("In review")
        PUBLISHED = "published", _("Published")
        RETIRED = "retired", _("Retired")

    class Difficulty(models.TextChoices):
        EASY = "easy", _("Easy")
        MEDIUM = "medium", _("Medium")
        HARD = "hard", _("Hard")

    class TaskType(models.TextChoices):
        OPEN_ENDED = "open_ended", _("Open-ended")
        STRUCTURED = "structured", _("Structured")

    framework = models.ForeignKey(
        Framework, on_delete=models.PROTECT, related_name="tasks", verbose_name=_("framework")
    )
    key = models.CharField(
        max_length=64,
        validators=[RegexValidator(r"^[\w.-]+$", _("Letters, digits, '.', '_' and '-' only."))],
        help_text=_("The task's id in files and criterion codes, e.g. 137. Kept as text."),
        verbose_name=_("key"),
    )
    sub_competency = models.ForeignKey(
        SubCompetency,
        on_delete=models.PROTECT,
        related_name="tasks",
        verbose_name=_("sub-competency"),
    )
    instruction = models.TextField(
        help_text=_("What the model is asked to do."),
        max_length=TASK_TEXT_MAX,
        validators=[MaxLengthValidator(TASK_TEXT_MAX)],
        verbose_name=_("instruction"),
    )
    system_prompt = models.TextField(
        blank=True,
        max_length=TASK_TEXT_MAX,
        validators=[MaxLengthValidator(TASK_TEXT_MAX)],
        verbose_name=_("system prompt"),
    )
    reference_answer = models.TextField(
        blank=True,
        help_text=_("The experts' reference answer."),
        max_length=TASK_TEXT_MAX,
        validators=[MaxLengthValidator(TASK_TEXT_MAX)],
        verbose_name=_("reference answer"),
    )
    difficulty = models.CharField(
        max_length=8, choices=Difficulty.choices, blank=True, verbose_name=_("difficulty")
    )
    language = models.CharField(
        max_length=8,
        choices=languages.CHOICES,
        default="en",
        help_text=_("Target language: its ISO 639-1 code (core.languages)."),
        verbose_name=_("language"),
    )
    task_type = models.CharField(
        max_length=16,
        choices=TaskType.choices,
        default=TaskType.OPEN_ENDED,
        verbose_name=_("task type"),
    )
    status = models.CharField(
        max_length=16,
        choices=Status.choices,
        default=Status.DRAFT,
        editable=False,
        verbose_name=_("status"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    # Fields a person edits through rubrics.services.edit_task.
    CONTENT_FIELDS = (
        "key",
        "sub_competency",
        "instruction",
        "system_prompt",
        "reference_answer",
        "difficulty",
        "language",
        "task_type",
    )

    class Meta:
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        ordering = ["framework", "key"]
        constraints = [
            models.UniqueConstraint(
                fields=["framework", "key"],
                name="task_key_unique_in_framework",
                violation_error_message=_("This key is already used by another task."),
            )
        ]

    def __str__(self) -> str:
        return f"Task {self.key}"

    def clean(self) -> None:
        if self.sub_competency_id and self.framework_id is None:
            self.framework_id = self.sub_competency.competency.framework_id
        if (
            self.sub_competency_id
            and self.sub_competency.competency.framework_id != self.framework_id
        ):
            raise ValidationError({"sub_competency": OTHER_FRAMEWORK})

    def effective_rubric(self) -> list[EffectiveCriterion]:
        """The criteria this task is graded on now, each at its latest version, in rubric order:
        the framework's universal criteria (those excluded for this task are kept, marked not
        applicable with the reason), the consensus criteria of the task's sub-competency, then
        the task's own criteria. Retired criteria are left out. Three queries."""
        return Task.effective_rubrics([self], scale_points=True)[self.pk]

    @staticmethod
    def effective_rubrics(
        tasks: Sequence["Task"], scale_points: bool = False
    ) -> dict[int, list[EffectiveCriterion]]:
        """effective_rubric() of many tasks at once, by task id, in two queries (three with the
        `scale_points` of each version prefetched)."""
        if not tasks:
            return {}
        latest = CriterionVersion.objects.filter(criterion=OuterRef("criterion")).order_by(
            "-number"
        )
        owned = (
            Q(
                criterion__layer=Layer.UNIVERSAL,
                criterion__framework_id__in={task.framework_id for task in tasks},
            )
            | Q(
                criterion__layer=Layer.CONSENSUS,
                criterion__sub_competency__in={task.sub_competency_id for task in tasks},
            )
            | Q(criterion__layer=Layer.TASK, criterion__task__in=[task.pk for task in tasks])
        )
        versions = (
            CriterionVersion.objects.filter(owned, criterion__retired=False)
            .filter(number=Subquery(latest.values("number")[:1]))
            .select_related("criterion")
        )
        if scale_points:
            versions = versions.prefetch_related("scale_points")
        universal: dict[int, list[CriterionVersion]] = defaultdict(list)
        consensus: dict[int, list[CriterionVersion]] = defaultdict(list)
        own: dict[int, list[CriterionVersion]] = defaultdict(list)
        for version in versions:
            criterion = version.criterion
            if criterion.layer == Layer.UNIVERSAL:
                universal[criterion.framework_id].append(version)
            elif criterion.layer == Layer.CONSENSUS:
                consensus[criterion.sub_competency_id].append(version)  # type: ignore[index]  # a consensus criterion has its sub-competency
            else:
                own[criterion.task_id].append(version)  # type: ignore[index]  # a task criterion has its task
        excluded: dict[int, dict[int, str]] = defaultdict(dict)
        exclusions = UniversalExclusion.objects.filter(task__in=[task.pk for task in tasks])
        for task_id, criterion_id, reason in exclusions.values_list(
            "task_id", "criterion_id", "reason"
        ):
            excluded[task_id][criterion_id] = reason
        rubrics = {}
        for task in tasks:
            out = excluded[task.pk]
            rubric = [
                EffectiveCriterion(
                    criterion=version.criterion,
                    version=version,
                    layer=version.criterion.layer,
                    weight=version.weight,
                    applicable=version.criterion_id not in out,
                    na_reason=out.get(version.criterion_id, ""),
                )
                for version in (
                    universal[task.framework_id] + consensus[task.sub_competency_id] + own[task.pk]
                )
            ]
            rubric.sort(key=lambda e: (LAYER_RANK[Layer(e.layer)], e.criterion.order, e.code))
            rubrics[task.pk] = rubric
        return rubrics

    def task_criteria(self) -> models.QuerySet[Criterion]:
        return self.criteria.filter(retired=False)


class TaskResource(AbstractResource):
    """Material handed to the model with the task: a markdown text or an uploaded file."""

    # The L2-Bench tasks file has three resource columns: a task with more cannot be exported.
    L2BENCH_LIMIT = 3

    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="resources", verbose_name=_("task")
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    kind = models.CharField(
        max_length=16,
        choices=AbstractResource.Kind.choices,
        default=AbstractResource.Kind.MARKDOWN,
        verbose_name=_("kind"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("task resource")
        verbose_name_plural = _("task resources")
        ordering = ["task", "order", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="markdown", file="") & ~Q(text=""))
                | (Q(kind="file") & ~Q(file="")),
                name="task_resource_content_matches_kind",
                violation_error_message=_(
                    "A text resource needs its text; a file resource a file."
                ),
            )
        ]

    def clean(self) -> None:
        if self.kind == self.Kind.MARKDOWN and not self.text.strip():
            raise ValidationError({"text": _("A text resource needs its text.")})
        if self.kind == self.Kind.MARKDOWN and self.file:
            raise ValidationError({"file": _("A text resource has no file.")})
        if self.kind == self.Kind.FILE and not self.file:
            raise ValidationError({"file": _("A file resource needs a file.")})


class TaskContextValue(AbstractContextValue):
    """The value of one context variable for one task: a listed value, a text or a number,
    according to the variable's kind."""

    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="context_values", verbose_name=_("task")
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    class Meta:
        verbose_name = _("task context value")
        verbose_name_plural = _("task context values")
        ordering = ["task", "variable__order", "variable__key"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "variable"],
                name="task_context_value_one_per_variable",
                violation_error_message=_("This task already has a value for this variable."),
            ),
            models.CheckConstraint(
                condition=Q(value__isnull=False, number__isnull=True, text="")
                | Q(value__isnull=True, number__isnull=False, text="")
                | (Q(value__isnull=True, number__isnull=True) & ~Q(text="")),
                name="task_context_value_exactly_one_value",
                violation_error_message=_(
                    "Give exactly one of a listed value, a text or a number."
                ),
            ),
        ]

    def set_value(self, value: ContextValue | Decimal | str) -> None:
        """Store a value parsed by ContextVariable.parse_value in the column its type takes."""
        self.value = value if isinstance(value, ContextValue) else None
        self.number = value if isinstance(value, Decimal) else None
        self.text = value if isinstance(value, str) else ""

    def clean(self) -> None:
        """Check the value against its variable (ContextVariable.parse_value: kind, allowed
        values, range) and the task's framework. Every message names the variable, so a list
        of errors from an import reads well."""
        variable = self.variable
        if self.task_id and variable.framework_id != self.task.framework_id:
            raise ValidationError(
                {
                    "variable": _("%(variable)s belongs to another framework.")
                    % {"variable": variable.name}
                }
            )
        given = [x for x in (self.value, self.number, self.text.strip()) if x not in (None, "")]
        if len(given) != 1:
            raise ValidationError(_("Give exactly one of a listed value, a text or a number."))
        self.set_value(variable.parse_value(given[0]))


# Why a universal criterion does not apply, as the benchmark import writes it for one its file
# does not list for a task: stored in English, as a person's reason is stored as written, and
# shown in the reader's language (`shown_reason`).
IMPORTED_EXCLUSION_REASON = gettext_noop("Not listed for this task in the imported L2-Bench file.")


def shown_reason(reason: str) -> str:
    """Why a criterion does not apply, as a reader reads it: the import's reason translated,
    a person's as written."""
    return gettext(reason) if reason == IMPORTED_EXCLUSION_REASON else reason


class UniversalExclusion(models.Model):
    """ "This universal criterion does not apply to this task", with the reason."""

    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="universal_exclusions", verbose_name=_("task")
    )
    criterion = models.ForeignKey(
        Criterion, on_delete=models.PROTECT, related_name="exclusions", verbose_name=_("criterion")
    )
    reason = models.TextField(verbose_name=_("reason"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("universal exclusion")
        verbose_name_plural = _("universal exclusions")
        ordering = ["task", "criterion__code"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "criterion"],
                name="universal_exclusion_once_per_task",
                violation_error_message=_("This criterion is already excluded for this task."),
            ),
            models.CheckConstraint(
                condition=~Q(reason=""),
                name="universal_exclusion_has_reason",
                violation_error_message=_("Say why the criterion does not apply."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion} not applicable to {self.task}"

    def clean(self) -> None:
        self.reason = self.reason.strip()
        if not self.reason:
            raise ValidationError({"reason": _("Say why the criterion does not apply.")})
        if self.criterion.layer != Layer.UNIVERSAL:
            raise ValidationError({"criterion": _("Only universal criteria can be excluded.")})
        if self.task_id and self.criterion.framework_id != self.task.framework_id:
            raise ValidationError({"criterion": _("This criterion belongs to another framework.")})


class Review(models.Model):
    """One step of the review workflow, kept as history."""

    class Action(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted for review")
        APPROVED = "approved", _("Approved and published")
        RETURNED = "returned", _("Returned for changes")

    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="reviews", verbose_name=_("task")
    )
    action = models.CharField(max_length=16, choices=Action.choices, verbose_name=_("action"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("reviewed at"))
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    rubric_version = models.ForeignKey(
        "rubrics.RubricVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The version an approval published."),
        verbose_name=_("rubric version"),
    )

    class Meta:
        verbose_name = _("review")
        verbose_name_plural = _("reviews")
        ordering = ["task", "at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(action="returned", comment=""),
                name="review_return_has_comment",
                violation_error_message=_("Say what needs changing."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.task}: {self.get_action_display()}"
