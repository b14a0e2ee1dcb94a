from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.analysis.reports import DEFAULT_MINIMUM_UNITS, DEFAULT_THRESHOLD
from grading.models import Study


class AnalysisSettings(models.Model):
    """How a study's agreement is analysed. A study without a row uses the defaults."""

    study = models.OneToOneField(
        Study, on_delete=models.CASCADE, related_name="analysis", verbose_name=_("study")
    )
    validation_threshold = models.FloatField(
        default=DEFAULT_THRESHOLD,
        validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)],
        help_text=_(
            "A criterion is validated when the lower bound of its alpha's 95% interval "
            "reaches this value (0.667 after Krippendorff 2004)."
        ),
        verbose_name=_("validation threshold"),
    )
    minimum_units = models.PositiveIntegerField(
        default=DEFAULT_MINIMUM_UNITS,
        validators=[MinValueValidator(2), MaxValueValidator(100_000)],
        help_text=_(
            "No criterion is called validated on fewer responses graded by two experts "
            "or more: a bootstrap interval from a handful of responses claims far more certainty "
            "than it has (30 by default)."
        ),
        verbose_name=_("minimum units"),
    )
    resamples = models.PositiveIntegerField(
        default=1000,
        validators=[MinValueValidator(100), MaxValueValidator(20000)],
        verbose_name=_("resamples"),
    )
    seed = models.PositiveIntegerField(
        default=0, help_text=_("Bootstrap seed: same data, same CIs."), verbose_name=_("seed")
    )
    epsilon = models.FloatField(
        default=0.2,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_(
            "Alternative annotator test: the cost-benefit margin granted to the judge "
            "(0.2 suits expert annotators, Calderon et al. 2025)."
        ),
        verbose_name=_("epsilon"),
    )
    show_annotator_names = models.BooleanField(
        default=False,
        help_text=_("Name annotators in reports instead of numbering them."),
        verbose_name=_("show annotator names"),
    )

    class Meta:
        verbose_name = _("analysis settings")
        verbose_name_plural = _("analysis settings")

    def __str__(self) -> str:
        return f"Analysis of {self.study}"

    @classmethod
    def for_study(cls, study: Study) -> "AnalysisSettings":
        return cls.objects.filter(study=study).first() or cls(study=study)
