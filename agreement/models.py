from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from agreement.analysis.reports import DEFAULT_MINIMUM_UNITS, DEFAULT_THRESHOLD
from grading.models import Study


class AnalysisSettings(models.Model):
    """How a study's agreement is analysed. A study without a row uses the defaults."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="analysis")
    validation_threshold = models.FloatField(
        default=DEFAULT_THRESHOLD,
        validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)],
        help_text="A criterion is validated when the lower bound of its alpha's 95% interval "
        "reaches this value (0.667 after Krippendorff 2004).",
    )
    minimum_units = models.PositiveIntegerField(
        default=DEFAULT_MINIMUM_UNITS,
        validators=[MinValueValidator(2), MaxValueValidator(100_000)],
        help_text="No criterion is called validated on fewer responses graded by two experts "
        "or more: a bootstrap interval from a handful of responses claims far more certainty "
        "than it has (30 by default).",
    )
    resamples = models.PositiveIntegerField(
        default=1000, validators=[MinValueValidator(100), MaxValueValidator(20000)]
    )
    seed = models.PositiveIntegerField(default=0, help_text="Bootstrap seed: same data, same CIs.")
    epsilon = models.FloatField(
        default=0.2,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Alternative annotator test: the cost-benefit margin granted to the judge "
        "(0.2 suits expert annotators, Calderon et al. 2025).",
    )
    show_annotator_names = models.BooleanField(
        default=False, help_text="Name annotators in reports instead of numbering them."
    )

    class Meta:
        verbose_name = _("analysis settings")
        verbose_name_plural = _("analysis settings")

    def __str__(self) -> str:
        return f"Analysis of {self.study}"

    @classmethod
    def for_study(cls, study: Study) -> "AnalysisSettings":
        return cls.objects.filter(study=study).first() or cls(study=study)
