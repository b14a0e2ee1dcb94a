"""The agreement results of a study: read by `agreement.data`, computed by the pure
`core.analysis`, kept in `agreement.cache` once per state of the data and the settings."""

from dataclasses import replace

from django.conf import settings as django_settings

from agreement import cache
from agreement.data import (
    load_label_units,
    load_ordinal_ratings,
    load_scale_ratings,
    load_study_ratings,
    load_turn_ratings,
    submitted_grade_count,
)
from agreement.judge_parts import judge_part_keys, judge_parts
from agreement.models import AnalysisSettings
from core.analysis.labels import FinalLabel
from core.analysis.labels import final_labels as decide_labels
from core.analysis.ordinal_criteria import ordinal_agreement
from core.analysis.reports import StudyAgreement, study_agreement, turn_agreement
from core.analysis.scales import criteria_consistency, scale_agreement, scale_consistency
from grading.models import Study


def cached_study_report(study: Study) -> StudyAgreement | None:
    return cache.cached(cache.report_key(study, AnalysisSettings.for_study(study)))


def is_large(study: Study) -> bool:
    """Large studies are computed by the background worker, not while a page waits."""
    return submitted_grade_count(study) > django_settings.AGREEMENT_INLINE_LIMIT


def study_report(study: Study) -> StudyAgreement:
    """The report of `study`; recomputed only when a submitted grade or a setting changed."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> StudyAgreement:
        ratings = load_study_ratings(study, blind=not settings.show_annotator_names)
        scales = load_scale_ratings(study)
        report = study_agreement(
            ratings,
            threshold=settings.validation_threshold,
            minimum_units=settings.minimum_units,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        turns = load_turn_ratings(study, blind=not settings.show_annotator_names)
        return replace(
            report,
            turns=turn_agreement(turns, report, n_resamples=settings.resamples, seed=settings.seed),
            scales=scale_agreement(scales, n_resamples=settings.resamples, seed=settings.seed),
            consistency=tuple(
                c for c in (*criteria_consistency(ratings), scale_consistency(scales)) if c
            ),
            ordinal=tuple(
                ordinal_agreement(
                    o.code,
                    o.scale,
                    o.units,
                    o.levels,
                    n_resamples=settings.resamples,
                    seed=settings.seed,
                    n_na=o.n_na,
                )
                for o in load_ordinal_ratings(study)
            ),
        )

    return cache.get_or_compute(cache.report_key(study, settings), compute)


def download_parts(study: Study) -> list[str]:
    """The cache keys of every result the report's downloads write (the study report, and the
    judge parts: each judge run's calibration, leaderboard and 1-5 scales, whose keys the judge
    app gives, agreement.judge_parts): the download is ready at once when the cache holds them
    all (agreement.cache.stored)."""
    settings = AnalysisSettings.for_study(study)
    return [cache.report_key(study, settings), *judge_part_keys(study)]


def prepare_download(study: Study) -> None:
    """Compute and cache every result the report's downloads write (download_parts)."""
    study_report(study)
    judge_parts(study)


def final_labels(study: Study, *, single: bool = True) -> list[FinalLabel]:
    """The final label of every graded (response, criterion) of `study` (core.analysis.
    labels), without those resting on a single expert's verdict unless `single`; graders are
    named as the study's reports name them."""
    settings = AnalysisSettings.for_study(study)
    units = load_label_units(study, blind=not settings.show_annotator_names)
    return decide_labels(units, single=single)
