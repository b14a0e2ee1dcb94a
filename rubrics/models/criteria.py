"""Criteria in three layers, each with an immutable history of versions.

A Criterion is the stable identity (its code is what files, judges and grades refer to); its
wording, guidance and weight live in CriterionVersion rows. A version becomes frozen once a
published rubric uses it and is never changed again: the next edit makes a new version.
"""

import re
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from audit.editing import OrderedQuerySet
from taxonomy.models import Framework, SubCompetency


class Layer(models.TextChoices):
    UNIVERSAL = "universal", _("Universal")
    CONSENSUS = "consensus", _("Consensus")
    TASK = "task", _("Task")


# The order in which layers appear in a rubric.
LAYER_RANK = {Layer.UNIVERSAL: 0, Layer.CONSENSUS: 1, Layer.TASK: 2}

OTHER_FRAMEWORK = _("This sub-competency is in another framework.")
# The L2-Bench reference pipeline cuts a criteria cell at every '|', so no wording may hold one.
CRITERION_BAR = "|"
BAR_IN_WORDING = _(
    "A criterion's wording cannot contain '|': the L2-Bench pipeline reads it as the end of "
    "the criterion. Use '/' or a word instead."
)
# Bounds on what authors write (docs/rubrics.md, "Bounds"). The fields' validators are the one
# rule: services run them (full_clean), forms and the API take them from the fields, and the
# benchmark importer runs them on each cell. A weight is a whole number from -100 to 100, not 0.
WEIGHT_LIMIT = 100
WORDING_MAX = 1_000  # a criterion is one statement a grader reads at a glance
GUIDANCE_MAX = 5_000  # what passes, what fails and the two examples, each
UNIVERSAL_CODE = re.compile(r"^\d{2}u\d+$")


class Criterion(models.Model):
    """A criterion's identity. Its owner follows its layer: the framework for a universal
    criterion, a sub-competency for a consensus one, a task for a task criterion."""

    framework = models.ForeignKey(
        Framework, on_delete=models.PROTECT, related_name="criteria", verbose_name=_("framework")
    )
    code = models.CharField(
        max_length=80,
        help_text=_("Universal 06u1, consensus 02a-05, task <task key>-06."),
        verbose_name=_("code"),
    )
    layer = models.CharField(max_length=16, choices=Layer.choices, verbose_name=_("layer"))
    sub_competency = models.ForeignKey(
        SubCompetency,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="consensus_criteria",
        verbose_name=_("sub-competency"),
    )
    task = models.ForeignKey(
        "rubrics.Task",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="criteria",
        verbose_name=_("task"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    retired = models.BooleanField(
        default=False,
        help_text=_("Retired criteria leave every rubric published after retiring."),
        verbose_name=_("retired"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("criterion")
        verbose_name_plural = _("criteria")
        ordering = ["framework", "layer", "order", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["framework", "code"],
                name="criterion_code_unique_in_framework",
                violation_error_message=_("This code is already used by another criterion."),
            ),
            models.CheckConstraint(
                condition=Q(layer=Layer.UNIVERSAL, sub_competency__isnull=True, task__isnull=True)
                | Q(layer=Layer.CONSENSUS, sub_competency__isnull=False, task__isnull=True)
                | Q(layer=Layer.TASK, sub_competency__isnull=True, task__isnull=False),
                name="criterion_owner_matches_layer",
                violation_error_message=_(
                    "A universal criterion belongs to the framework only, a consensus criterion "
                    "to a sub-competency, a task criterion to a task."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def owner(self) -> models.Model | None:
        return {
            Layer.UNIVERSAL: self.framework,
            Layer.CONSENSUS: self.sub_competency,
            Layer.TASK: self.task,
        }[Layer(self.layer)]

    def code_pattern(self) -> re.Pattern[str]:
        if self.layer == Layer.UNIVERSAL:
            return UNIVERSAL_CODE
        # A consensus criterion has a sub-competency and a task criterion a task (clean() says so).
        prefix = (
            self.sub_competency.code  # type: ignore[union-attr]
            if self.layer == Layer.CONSENSUS
            else self.task.key  # type: ignore[union-attr]
        )
        return re.compile(rf"^{re.escape(prefix)}-\d{{2,}}$")

    def clean(self) -> None:
        # The check constraint says the same; this says it in words before the database does.
        owners = {
            Layer.UNIVERSAL: (self.sub_competency_id is None and self.task_id is None),
            Layer.CONSENSUS: (self.sub_competency_id is not None and self.task_id is None),
            Layer.TASK: (self.task_id is not None and self.sub_competency_id is None),
        }
        if self.layer in owners and not owners[Layer(self.layer)]:
            raise ValidationError(
                {
                    Layer.UNIVERSAL: _(
                        "A universal criterion needs no sub-competency and no task."
                    ),
                    Layer.CONSENSUS: _("A consensus criterion needs a sub-competency and no task."),
                    Layer.TASK: _("A task criterion needs a task and no sub-competency."),
                }[Layer(self.layer)]
            )
        if self.sub_competency_id and (
            self.sub_competency.competency.framework_id  # type: ignore[union-attr]
            != self.framework_id
        ):
            raise ValidationError({"sub_competency": OTHER_FRAMEWORK})
        if self.task_id and self.task.framework_id != self.framework_id:  # type: ignore[union-attr]
            raise ValidationError({"task": _("This task is in another framework.")})
        if self.layer in owners and not self.code_pattern().match(self.code or ""):
            example = {
                Layer.UNIVERSAL: "06u1",
                Layer.CONSENSUS: f"{getattr(self.sub_competency, 'code', '02a')}-05",
                Layer.TASK: f"{getattr(self.task, 'key', '137')}-06",
            }[Layer(self.layer)]
            raise ValidationError(
                {
                    "code": _("%(code)r is not a %(layer)s criterion code (like %(example)s).")
                    % {"code": self.code, "layer": self.layer, "example": example}
                }
            )


class CriterionVersion(models.Model):
    """What a criterion says at one point in time, with the guidance graders need."""

    class ScoringType(models.TextChoices):
        BINARY = "binary", _("Met / not met")
        ORDINAL = "ordinal", _("Ordinal scale")

    class AppliesTo(models.TextChoices):
        RESPONSE = "response", _("The whole response")
        TURN = "turn", _("Each tutor turn of a dialogue")

    class TurnRule(models.TextChoices):
        ALL = "all", _("Every turn")
        SHARE = "share", _("A share of the turns")
        ANY = "any", _("Any turn")

    criterion = models.ForeignKey(
        Criterion, on_delete=models.CASCADE, related_name="versions", verbose_name=_("criterion")
    )
    number = models.PositiveIntegerField(verbose_name=_("number"))
    wording = models.TextField(
        max_length=WORDING_MAX,
        validators=[MaxLengthValidator(WORDING_MAX)],
        verbose_name=_("wording"),
    )
    passes = models.TextField(
        _("what passes"),
        blank=True,
        max_length=GUIDANCE_MAX,
        validators=[MaxLengthValidator(GUIDANCE_MAX)],
    )
    fails = models.TextField(
        _("what fails"),
        blank=True,
        max_length=GUIDANCE_MAX,
        validators=[MaxLengthValidator(GUIDANCE_MAX)],
    )
    pass_example = models.TextField(
        blank=True,
        max_length=GUIDANCE_MAX,
        validators=[MaxLengthValidator(GUIDANCE_MAX)],
        verbose_name=_("pass example"),
    )
    fail_example = models.TextField(
        blank=True,
        max_length=GUIDANCE_MAX,
        validators=[MaxLengthValidator(GUIDANCE_MAX)],
        verbose_name=_("fail example"),
    )
    weight = models.IntegerField(
        help_text=format_lazy(
            _(
                "A whole number from -{limit} to {limit}, not 0. Negative for a penalty: the "
                "criterion then names an undesirable behaviour."
            ),
            limit=WEIGHT_LIMIT,
        ),
        validators=[MinValueValidator(-WEIGHT_LIMIT), MaxValueValidator(WEIGHT_LIMIT)],
        verbose_name=_("weight"),
    )
    scoring_type = models.CharField(
        max_length=16,
        choices=ScoringType.choices,
        default=ScoringType.BINARY,
        verbose_name=_("scoring type"),
    )
    scale_min = models.IntegerField(null=True, blank=True, verbose_name=_("scale minimum"))
    scale_max = models.IntegerField(null=True, blank=True, verbose_name=_("scale maximum"))
    applies_to = models.CharField(
        max_length=8,
        choices=AppliesTo.choices,
        default=AppliesTo.RESPONSE,
        help_text=_(
            "A turn-level criterion is graded on each tutor turn of a dialogue (on a text "
            "response, once, as a whole)."
        ),
        verbose_name=_("applies to"),
    )
    turn_rule = models.CharField(
        max_length=8,
        choices=TurnRule.choices,
        default=TurnRule.ALL,
        help_text=_(
            "A turn-level criterion is judged true of the response when it is judged true "
            "of every turn, of at least the share below, or of any turn (docs/rubrics.md)."
        ),
        verbose_name=_("turn rule"),
    )
    turn_share = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text=_("For 'a share of the turns': the percentage of graded turns (1-100)."),
        verbose_name=_("turn share"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    needs_guidance = models.BooleanField(
        default=False,
        editable=False,
        help_text=_(
            "The wording or the sign of the weight changed and the guidance written for the "
            "version before was cleared: someone must write it again for this wording."
        ),
        verbose_name=_("needs guidance"),
    )
    frozen = models.BooleanField(
        default=False,
        editable=False,
        help_text=_("Used by a published rubric: never changes."),
        verbose_name=_("frozen"),
    )

    # What graders are told beside the wording: cleared when the wording or the weight's sign
    # changes without it (rubrics.bulk), since it was written for the criterion before.
    GUIDANCE_FIELDS = ("passes", "fails", "pass_example", "fail_example")

    # Fields an edit may change; everything else is identity or bookkeeping.
    CONTENT_FIELDS = (
        "wording",
        "passes",
        "fails",
        "pass_example",
        "fail_example",
        "weight",
        "scoring_type",
        "scale_min",
        "scale_max",
        "applies_to",
        "turn_rule",
        "turn_share",
    )

    class Meta:
        verbose_name = _("criterion version")
        verbose_name_plural = _("criterion versions")
        ordering = ["criterion", "number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(
                fields=["criterion", "number"], name="criterion_version_number_unique"
            ),
            models.CheckConstraint(
                condition=~Q(weight=0),
                name="criterion_version_weight_not_zero",
                violation_error_message=_(
                    "A weight of 0 would make the criterion count for nothing."
                ),
            ),
            models.CheckConstraint(
                condition=Q(scoring_type="binary", scale_min__isnull=True, scale_max__isnull=True)
                | Q(scoring_type="ordinal", scale_min__lt=models.F("scale_max")),
                name="criterion_version_scale_matches_type",
                violation_error_message=_(
                    "An ordinal criterion needs a scale minimum below its maximum; "
                    "a binary criterion has no scale."
                ),
            ),
            models.CheckConstraint(
                condition=Q(turn_rule="share", turn_share__gte=1, turn_share__lte=100)
                | (~Q(turn_rule="share") & Q(turn_share__isnull=True)),
                name="criterion_version_turn_share_matches_rule",
                violation_error_message=_(
                    "'A share of the turns' needs a percentage from 1 to 100; the other rules "
                    "take none."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion.code} v{self.number}"

    @property
    def is_penalty(self) -> bool:
        return self.weight < 0

    @property
    def is_ordinal(self) -> bool:
        return self.scoring_type == self.ScoringType.ORDINAL

    def level_error(self, level: int | None) -> ValidationError | None:
        """Why `level` cannot be this criterion's answer (None when it can): a binary criterion
        takes no level, an ordinal one a whole number within its scale. Every writer of a
        grade, gold answer or judge level asks this (the database cannot: the scale is in
        another row). The values stay apart from the message (`params`), so a refusal kept by
        an import is read in its reader's language."""
        if level is None:
            return None
        code = self.criterion.code
        if not self.is_ordinal:
            return ValidationError(
                _("%(code)s is met or not met: it takes no level."), params={"code": code}
            )
        low, high = self.scale_min, self.scale_max
        if low is None or high is None or not low <= level <= high:
            return ValidationError(
                _("%(code)s: %(level)s is outside its scale %(low)s to %(high)s."),
                params={"code": code, "level": level, "low": low, "high": high},
            )
        return None

    def scale(self) -> list[tuple[int, str]]:
        """(value, label) for every point of an ordinal scale, min to max; a point without a
        ScalePoint row has an empty label. Uses prefetched scale_points when present."""
        if not self.is_ordinal or self.scale_min is None or self.scale_max is None:
            return []
        labels = {point.value: point.label for point in self.scale_points.all()}
        return [(v, labels.get(v, "")) for v in range(self.scale_min, self.scale_max + 1)]

    def clean(self) -> None:
        if CRITERION_BAR in self.wording:
            raise ValidationError({"wording": BAR_IN_WORDING})
        if self.scoring_type == self.ScoringType.BINARY:
            self.scale_min = self.scale_max = None
        elif self.scale_min is None or self.scale_max is None or self.scale_min >= self.scale_max:
            raise ValidationError(
                {"scale_max": _("An ordinal criterion needs a scale minimum below its maximum.")}
            )
        if self.weight == 0:
            raise ValidationError(
                {"weight": _("A weight of 0 would make the criterion count for nothing.")}
            )
        if self.applies_to == self.AppliesTo.TURN and self.scoring_type == self.ScoringType.ORDINAL:
            raise ValidationError(
                {
                    "applies_to": _(
                        "A turn-level criterion is met or not met on each turn: "
                        "an ordinal criterion applies to the whole response."
                    )
                }
            )
        if self.turn_rule != self.TurnRule.SHARE:
            self.turn_share = None
        elif self.turn_share is None or not 1 <= self.turn_share <= 100:
            raise ValidationError(
                {"turn_share": _("'A share of the turns' needs a percentage from 1 to 100.")}
            )

    @property
    def per_turn(self) -> bool:
        """Graded on each tutor turn of a dialogue (on a text response, as a whole)."""
        return self.applies_to == self.AppliesTo.TURN

    @property
    def turn_rule_text(self) -> str:
        """How a turn-level criterion decides a dialogue, in words ("" for a whole-response
        criterion)."""
        if not self.per_turn:
            return ""
        rule = self.TurnRule(self.turn_rule)
        if rule == self.TurnRule.SHARE:
            return _(
                "Per tutor turn: true of a dialogue when true of at least %(share)s%% of the turns"
            ) % {"share": self.turn_share}
        if rule == self.TurnRule.ANY:
            return str(_("Per tutor turn: true of a dialogue when true of any turn"))
        return str(_("Per tutor turn: true of a dialogue when true of every turn"))


class ScalePoint(models.Model):
    """An optional label for one point of an ordinal criterion's scale."""

    version = models.ForeignKey(
        CriterionVersion,
        on_delete=models.CASCADE,
        related_name="scale_points",
        verbose_name=_("version"),
    )
    value = models.IntegerField(verbose_name=_("value"))
    label = models.CharField(max_length=200, verbose_name=_("label"))

    class Meta:
        verbose_name = _("scale point")
        verbose_name_plural = _("scale points")
        ordering = ["version", "value"]
        constraints = [
            models.UniqueConstraint(fields=["version", "value"], name="scale_point_value_unique")
        ]

    def __str__(self) -> str:
        return f"{self.value}: {self.label}"


@dataclass(frozen=True)
class EffectiveCriterion:
    """One line of a task's rubric: a criterion at a given version, and whether it applies."""

    criterion: Criterion
    version: CriterionVersion
    layer: str
    weight: int
    applicable: bool = True
    na_reason: str = ""

    @property
    def code(self) -> str:
        return self.criterion.code
