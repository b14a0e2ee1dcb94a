"""A competency framework: competencies, their sub-competencies, and the context variables that
parameterise tasks. Several frameworks can live side by side (another target language, another
proficiency scale); each is data, loaded and edited without code changes."""

from collections.abc import Collection
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import connection, models
from django.db.models.functions import Lower
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from audit.editing import OrderedQuerySet
from core.refusals import Conflict

# Context numbers are stored with 3 decimals (TaskContextValue.number).
NUMBER_STEP = Decimal("0.001")
CODE_HELP = _("Stable identifier used in criterion codes and files, e.g. 02 or 02a.")


class FrameworkQuerySet(models.QuerySet["Framework"]):
    def chosen(self, code: str | None) -> "Framework":
        """The framework with `code`, or, when no code is given, the only framework there is.

        Raises Framework.DoesNotExist when there is no such framework (or none at all), and
        Framework.MultipleObjectsReturned when no code is given and there are several."""
        return self.get(code=code) if code else self.get()


class Framework(models.Model):
    code = models.SlugField(max_length=64, unique=True, verbose_name=_("code"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    note = models.TextField(
        blank=True,
        help_text=_("Where the names come from and how far to trust them."),
        verbose_name=_("note"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = FrameworkQuerySet.as_manager()

    class Meta:
        verbose_name = _("framework")
        verbose_name_plural = _("frameworks")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Competency(models.Model):
    framework = models.ForeignKey(
        Framework,
        on_delete=models.CASCADE,
        related_name="competencies",
        verbose_name=_("framework"),
    )
    code = models.CharField(max_length=16, help_text=CODE_HELP, verbose_name=_("code"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("competency")
        verbose_name_plural = _("competencies")
        ordering = ["framework", "order", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["framework", "code"],
                name="competency_code_unique_in_framework",
                violation_error_message=_("This code is already used by another competency."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class SubCompetency(models.Model):
    competency = models.ForeignKey(
        Competency,
        on_delete=models.PROTECT,
        related_name="sub_competencies",
        verbose_name=_("competency"),
    )
    code = models.CharField(max_length=16, help_text=CODE_HELP, verbose_name=_("code"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))
    # Made by an import that names a code the framework lacked: its name is the code, and the
    # pages say what it is in the reader's language (a stored English note could not be).
    placeholder = models.BooleanField(
        default=False,
        editable=False,
        help_text=_("Created by an import that named its code: to be named and described."),
        verbose_name=_("placeholder"),
    )

    objects = OrderedQuerySet.as_manager()

    class Meta:
        ordering = ["competency__order", "competency__code", "order", "code"]
        # Written as everywhere else (Django would say "sub competency"), in every language.
        verbose_name = _("sub-competency")
        verbose_name_plural = _("sub-competencies")
        constraints = [
            models.UniqueConstraint(
                fields=["competency", "code"],
                name="sub_competency_code_unique_in_competency",
                violation_error_message=_("This code is already used in this competency."),
            )
        ]

    def __str__(self) -> str:
        if self.placeholder:
            shown = gettext("placeholder: to be named")
            return f"{self.code} ({shown})"
        return f"{self.code} {self.name}"

    def clean(self) -> None:
        super().clean()
        # A placeholder is named by giving it a name of its own, whoever saves it (page or API).
        if self.placeholder and self.name.strip() != self.code:
            self.placeholder = False

    def validate_unique(self, exclude: Collection[str] | None = None) -> None:
        super().validate_unique(exclude)
        if exclude and "code" in exclude:
            return
        # Codes are unique across the whole framework (criterion codes are built from them),
        # which a constraint on this table alone cannot say.
        clash = SubCompetency.objects.filter(
            competency__framework_id=self.competency.framework_id, code=self.code
        ).exclude(pk=self.pk)
        if clash.exists():
            raise ValidationError(
                {
                    "code": _("Code %(code)s is already used in this framework.")
                    % {"code": self.code}
                }
            )


class ProficiencyScale(models.Model):
    """An ordered scale of learner proficiency (the CEFR, ACTFL's guidelines, a school's own):
    data, so a new scale needs no release. A context variable may take its values from one."""

    framework = models.ForeignKey(
        Framework, on_delete=models.CASCADE, related_name="scales", verbose_name=_("framework")
    )
    code = models.SlugField(
        max_length=64, help_text=_("Stable identifier, e.g. cefr or actfl."), verbose_name=_("code")
    )
    name = models.CharField(
        max_length=200, help_text=_("Short name reports use, e.g. CEFR."), verbose_name=_("name")
    )
    description = models.TextField(blank=True, verbose_name=_("description"))
    source = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("The publication the levels and mapping come from."),
        verbose_name=_("source"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("proficiency scale")
        verbose_name_plural = _("proficiency scales")
        ordering = ["framework", "order", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["framework", "code"],
                name="proficiency_scale_code_unique_in_framework",
                violation_error_message=_("This code is already used by another scale."),
            )
        ]

    def __str__(self) -> str:
        return self.name


class ProficiencyLevel(models.Model):
    """One level of a scale, in its order, with the level (or range of levels) of another scale
    it corresponds to. Reports group a level on the start of that range, following the mapping
    until a level maps to nothing: ACTFL Intermediate Mid is reported as CEFR B1."""

    scale = models.ForeignKey(
        ProficiencyScale, on_delete=models.PROTECT, related_name="levels", verbose_name=_("scale")
    )
    code = models.SlugField(max_length=64, verbose_name=_("code"))
    label = models.CharField(max_length=200, verbose_name=_("label"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    corresponds_to = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The closest level of another scale (approximate); reports group on it."),
        verbose_name=_("corresponds to"),
    )
    corresponds_to_upper = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("up to"),
        help_text=_("When the level spans a range of the other scale: its highest level."),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("proficiency level")
        verbose_name_plural = _("proficiency levels")
        ordering = ["scale", "order", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["scale", "code"],
                name="proficiency_level_code_unique",
                violation_error_message=_("This code is already used by another level."),
            ),
            models.UniqueConstraint(
                "scale",
                Lower("label"),
                name="proficiency_level_label_unique_ci",
                violation_error_message=_("This label is already used by another level."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scale.name} {self.label}"

    def correspondence(self) -> str:
        """How the mapping reads: `B1` or `A2-B1`, empty when the level maps to nothing."""
        low, high = self.corresponds_to, self.corresponds_to_upper
        if low is None:
            return ""
        if high is None or high.pk == low.pk:
            return str(low)
        return f"{low}-{high.label}"

    def clean(self) -> None:
        low, high = self.corresponds_to, self.corresponds_to_upper
        if low is None:
            if high is not None:
                raise ValidationError({"corresponds_to_upper": _("A range needs its first level.")})
            return
        if low.scale_id == self.scale_id:
            raise ValidationError({"corresponds_to": _("A level corresponds to another scale's.")})
        if low.scale.framework_id != self.scale.framework_id:
            raise ValidationError({"corresponds_to": _("Map to a scale of the same framework.")})
        if high is not None and (high.scale_id != low.scale_id or high.order < low.order):
            raise ValidationError(
                {
                    "corresponds_to_upper": _("Pick a level of %(scale)s from %(level)s up.")
                    % {"scale": low.scale, "level": low.label}
                }
            )
        if self.pk is not None and self._closes_a_circle(low):
            raise ValidationError({"corresponds_to": _("This mapping would go round in a circle.")})

    def _closes_a_circle(self, low: "ProficiencyLevel") -> bool:
        """Whether following `low`'s mappings comes back to this level. In a transaction (every
        save: audit.editing, the Django admin, the importer) the framework's row is locked
        first and the mappings read again under the lock, so two edits that each close half of
        a circle (A to B, B to A) are checked one after the other, and the second is refused."""
        framework = self.scale.framework_id
        if connection.in_atomic_block:
            list(
                Framework.objects.select_for_update(of=("self",)).filter(pk=framework).values("pk")
            )
        mapping = dict(
            ProficiencyLevel.objects.filter(scale__framework=framework).values_list(
                "pk", "corresponds_to_id"
            )
        )
        seen: set[int] = set()
        step: int | None = low.pk
        while step is not None and step not in seen:
            if step == self.pk:
                return True
            seen.add(step)
            step = mapping.get(step)
        return False


class ContextVariable(models.Model):
    class Kind(models.TextChoices):
        CATEGORICAL = "categorical", _("Categorical (one of a list)")
        ORDINAL = "ordinal", _("Ordinal (ordered list)")
        BOOLEAN = "boolean", _("Yes / no")
        TEXT = "text", _("Free text")
        NUMBER = "number", _("Number in a range")

    # Kinds whose allowed values are rows of ContextValue.
    LISTED_KINDS = (Kind.CATEGORICAL, Kind.ORDINAL, Kind.BOOLEAN)

    framework = models.ForeignKey(
        Framework,
        on_delete=models.CASCADE,
        related_name="context_variables",
        verbose_name=_("framework"),
    )
    key = models.SlugField(
        max_length=64, help_text=_("Stable identifier, e.g. cefr_level."), verbose_name=_("key")
    )
    label = models.CharField(max_length=200, verbose_name=_("label"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    kind = models.CharField(
        max_length=16, choices=Kind.choices, default=Kind.CATEGORICAL, verbose_name=_("kind")
    )
    group = models.SlugField(
        max_length=32,
        blank=True,
        help_text=_("e.g. learner, context, culture"),
        verbose_name=_("group"),
    )
    minimum = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, verbose_name=_("minimum")
    )
    maximum = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, verbose_name=_("maximum")
    )
    whole_numbers = models.BooleanField(
        _("whole numbers only"),
        default=False,
        help_text=_("A number variable that counts (a class size): 12.5 is refused."),
    )
    source = models.CharField(max_length=300, blank=True, verbose_name=_("source"))
    scale = models.ForeignKey(
        ProficiencyScale,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="variables",
        help_text=_("An ordinal variable may take its values from a proficiency scale's levels."),
        verbose_name=_("scale"),
    )
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("context variable")
        verbose_name_plural = _("context variables")
        ordering = ["framework", "order", "key"]
        constraints = [
            models.UniqueConstraint(
                fields=["framework", "key"],
                name="context_variable_key_unique_in_framework",
                violation_error_message=_("This key is already used by another variable."),
            ),
            models.CheckConstraint(
                condition=models.Q(minimum__isnull=True)
                | models.Q(maximum__isnull=True)
                | models.Q(minimum__lte=models.F("maximum")),
                name="context_variable_range_ordered",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def has_listed_values(self) -> bool:
        return self.kind in self.LISTED_KINDS

    @property
    def name(self) -> str:
        """How messages name the variable: `CEFR level (cefr_level)`."""
        return f"{self.label} ({self.key})"

    def check_takes_listed_values(self) -> None:
        if not self.has_listed_values:
            raise ValidationError(
                _("%(variable)s is a %(kind)s variable: it takes no listed values.")
                % {"variable": self, "kind": str(self.get_kind_display()).lower()}
            )

    def parse_value(self, raw: object) -> "ContextValue | Decimal | str":
        """The value `raw` gives this variable, in the type its kind takes; the one parser of
        context values (forms, services, importers and the model's own check call it).

        A listed kind takes one of its ContextValues, or the code or label of one in any case;
        a number kind a number with at most 3 decimals within its range (a whole number if the
        variable takes whole numbers only); a text kind a non-empty
        text, stripped. Raises ValidationError with one message naming the variable."""
        if isinstance(raw, ContextValue) and not self.has_listed_values:
            self.check_takes_listed_values()
        if self.has_listed_values:
            return self._listed_value(raw)
        if self.kind == self.Kind.NUMBER:
            return self._number(raw)
        text = str(raw).strip()
        if not text:
            raise ValidationError(
                _("%(variable)s takes a text."),
                params={"variable": self.name},
            )
        return text

    def _listed_value(self, raw: object) -> "ContextValue":
        values = list(self.values.all())
        if isinstance(raw, ContextValue):
            if raw.variable_id == self.pk:
                return raw
        else:
            wanted = str(raw).strip().lower()
            for value in values:
                if wanted in (value.code.lower(), value.label.lower()):
                    return value
        allowed = ", ".join(value.label for value in values)
        raise ValidationError(
            _("'%(raw)s' is not an allowed value of %(variable)s: %(allowed)s."),
            params={"raw": raw, "variable": self.name, "allowed": allowed},
        )

    def _number(self, raw: object) -> Decimal:
        try:
            number = Decimal(str(raw).strip())
        except ArithmeticError:
            raise ValidationError(
                _("%(variable)s takes a number, not '%(raw)s'."),
                params={"variable": self.name, "raw": raw},
            ) from None
        if self.whole_numbers and number.is_finite() and number != number.to_integral_value():
            raise ValidationError(
                _("%(variable)s takes a whole number, not '%(raw)s'."),
                params={"variable": self.name, "raw": raw},
            )
        if not number.is_finite() or number != number.quantize(NUMBER_STEP):
            raise ValidationError(
                _("%(variable)s takes a number with at most 3 decimals, not '%(raw)s'."),
                params={"variable": self.name, "raw": raw},
            )
        low, high = self.minimum, self.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = {
                "low": shown_value(low) if low is not None else "-inf",
                "high": shown_value(high) if high is not None else "inf",
            }
            raise ValidationError(
                _("%(variable)s must be from %(low)s to %(high)s; %(number)s is not."),
                params={"variable": self.name, "number": shown_value(number), **bounds},
            )
        return number.quantize(NUMBER_STEP)

    def clean(self) -> None:
        has_range = self.minimum is not None or self.maximum is not None
        if has_range and self.kind != self.Kind.NUMBER:
            raise ValidationError(_("Only a number variable has a minimum and maximum."))
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            raise ValidationError(_("The minimum must not be above the maximum."))
        if self.scale is not None:
            if self.kind != self.Kind.ORDINAL:
                raise ValidationError(
                    {"scale": _("Only an ordinal variable takes a scale's levels.")}
                )
            if self.scale.framework_id != self.framework_id:
                raise ValidationError({"scale": _("Pick a scale of the same framework.")})


def shown_value(value: "ContextValue | Decimal | str") -> str:
    """A context value as people read it, in one of the types ContextVariable.parse_value
    gives: a listed value's label, a number without trailing zeros (2.500 reads 2.5), a text
    as it is. Every display of a context value goes through it."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return str(value)


class ValueFollowsScale(Conflict):
    """A change made by hand to a value that follows a proficiency scale: the next
    taxonomy.scales.sync_scale_values would undo it, so the level is what to edit."""


class ContextValue(models.Model):
    """One allowed value of a categorical, ordinal or yes/no variable, in its order."""

    variable = models.ForeignKey(
        ContextVariable, on_delete=models.PROTECT, related_name="values", verbose_name=_("variable")
    )
    code = models.SlugField(max_length=64, verbose_name=_("code"))
    label = models.CharField(max_length=200, verbose_name=_("label"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    # Set on the values of a variable that takes a scale's levels (kept in step by
    # taxonomy.scales.sync_scale_values); deleting the level deletes the value unless tasks use it.
    level = models.ForeignKey(
        ProficiencyLevel,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="values",
        verbose_name=_("level"),
    )
    revision = models.PositiveIntegerField(default=1, editable=False, verbose_name=_("revision"))

    objects = OrderedQuerySet.as_manager()

    class Meta:
        verbose_name = _("context value")
        verbose_name_plural = _("context values")
        ordering = ["variable", "order", "code"]
        constraints = [
            models.UniqueConstraint(
                fields=["variable", "code"],
                name="context_value_code_unique",
                violation_error_message=_("This code is already used by another value."),
            ),
            models.UniqueConstraint(
                "variable",
                Lower("label"),
                name="context_value_label_unique_ci",
                violation_error_message=_("This label is already used by another value."),
            ),
        ]

    def __str__(self) -> str:
        return self.label

    def clean(self) -> None:
        if self.variable_id is not None:
            self.variable.check_takes_listed_values()

    def check_editable_by_hand(self) -> None:
        """Refuse a create, change, move or delete made by hand (a page, the API, the admin) of
        a value that follows a proficiency scale: a value tied to a level (its code, label,
        description and order are the level's), or a new value of a variable that takes a
        scale's levels. A value of such a variable that no level holds (left from before the
        variable took the scale) stays the editor's to change or delete."""
        level = self.level if self.pk is not None else None
        if level is not None:
            raise ValueFollowsScale(
                _(
                    "“%(value)s” of %(variable)s is the level %(level)s of the proficiency "
                    "scale %(scale)s and follows it: edit the scale's levels on the framework's "
                    "Proficiency scales page or through /api/v1/proficiency-levels/."
                )
                % {
                    "value": self.label,
                    "variable": self.variable.name,
                    "level": level.code,
                    "scale": level.scale.name,
                }
            )
        if self.pk is None and self.variable_id is not None and self.variable.scale_id is not None:
            raise ValueFollowsScale(
                _(
                    "%(variable)s takes the levels of the proficiency scale %(scale)s as its "
                    "values: edit the scale's levels on the framework's Proficiency scales page "
                    "or through /api/v1/proficiency-levels/."
                )
                % {"variable": self.variable.name, "scale": self.variable.scale}
            )
