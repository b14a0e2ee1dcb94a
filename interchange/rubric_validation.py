"""Which criteria of a framework the studies validated, for the rubrics workbook: per criterion
version, each chosen study's decision as its agreement report makes it (core.analysis.
reports.criterion_verdict), with the coefficient, interval and n it rests on."""

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from agreement.services import study_report
from core.analysis.reports import CriterionAgreement
from grading.models import Study
from taxonomy.models import Framework

VALIDATED, NOT_VALIDATED, UNDECIDED = "validated", "not validated", "undecided"


@dataclass(frozen=True)
class CriterionValidation:
    """One study's decision on one criterion version."""

    study: str
    study_id: int
    status: str  # VALIDATED, NOT_VALIDATED or UNDECIDED (too little data to say)
    why: str  # the report's verdict, in English as every export
    alpha: float | None
    low: float | None  # alpha's 95% interval
    high: float | None
    n_units: int  # units graded twice or more: the n alpha and the decision rest on
    threshold: float  # the lower bound alpha's interval must reach


# criterion version id -> the decision of each chosen study that graded it at that version
type Validation = Mapping[int, list[CriterionValidation]]


def criterion_validation(
    study: Study, found: CriterionAgreement, threshold: float
) -> CriterionValidation:
    alpha = found.agreement.alpha
    if found.validated is None:
        status = UNDECIDED
    else:
        status = VALIDATED if found.validated else NOT_VALIDATED
    return CriterionValidation(
        study=study.name,
        study_id=study.pk,
        status=status,
        why=str(found.verdict),
        alpha=alpha.estimate.value,
        low=alpha.low,
        high=alpha.high,
        n_units=alpha.estimate.n_units,
        threshold=threshold,
    )


def validation_in(studies: Iterable[Study]) -> Validation:
    """Each criterion version's decision in each of `studies` that graded it (oldest study
    first), read from the studies' agreement reports (cached: agreement.services)."""
    found: defaultdict[int, list[CriterionValidation]] = defaultdict(list)
    for study in sorted(studies, key=lambda study: study.pk):
        report = study_report(study)
        for criterion in report.criteria:
            found[criterion.criterion.key].append(
                criterion_validation(study, criterion, report.threshold)
            )
    return dict(found)


def validating_studies(framework: Framework, chosen: Iterable[Study] | None) -> list[Study]:
    """The studies whose decisions the workbook carries: those chosen, or (None) every study of
    the framework, each of which holds the criteria it graded. A chosen study of another
    framework is refused: it graded none of these criteria."""
    if chosen is None:
        return list(Study.objects.filter(framework=framework).order_by("pk"))
    studies = list(chosen)
    others = [study.name for study in studies if study.framework_id != framework.pk]
    if others:
        raise ValidationError(
            gettext("Not a study of %(framework)s: %(studies)s.")
            % {"framework": framework.code, "studies": ", ".join(others)}
        )
    return studies
