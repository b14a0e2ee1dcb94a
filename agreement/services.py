"""The agreement report of a study, computed once per state of its grades."""

from django.core.cache import cache

from agreement.data import load_study_ratings, study_state
from agreement.models import AnalysisSettings
from agreement.reports import StudyAgreement, study_agreement
from grading.models import Study

CACHE_SECONDS = 24 * 3600


def study_report(study: Study) -> StudyAgreement:
    """The report of `study`; recomputed only when a submitted grade or a setting changed."""
    settings = AnalysisSettings.for_study(study)
    count, latest = study_state(study)
    key = (
        f"agreement:{study.pk}:{count}:{latest}:{settings.validation_threshold}:"
        f"{settings.resamples}:{settings.seed}:{settings.show_annotator_names}"
    )
    report = cache.get(key)
    if report is None:
        ratings = load_study_ratings(study, blind=not settings.show_annotator_names)
        report = study_agreement(
            ratings,
            threshold=settings.validation_threshold,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        cache.set(key, report, CACHE_SECONDS)
    return report
