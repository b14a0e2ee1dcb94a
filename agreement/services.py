"""The agreement report of a study, computed once per state of its grades."""

from dataclasses import replace

from django.conf import settings as django_settings
from django.core.cache import cache
from django.db.models import Count, Max, Q

from agreement.calibration import CalibrationReport, calibration_report
from agreement.data import (
    load_judge_data,
    load_scale_ratings,
    load_study_ratings,
    study_state,
    submitted_grades,
)
from agreement.leaderboard import Leaderboard, leaderboard
from agreement.models import AnalysisSettings
from agreement.reports import StudyAgreement, study_agreement
from agreement.scales import criteria_consistency, scale_agreement, scale_consistency
from grading.models import Study
from judging.models import JudgeRun, JudgeVerdict
from l2annot.db_routers import reports_alias

CACHE_SECONDS = 24 * 3600


def _state_key(study: Study, settings: AnalysisSettings) -> str:
    count, latest = study_state(study)
    return (
        f"{study.pk}:{count}:{latest}:{settings.validation_threshold}:{settings.resamples}:"
        f"{settings.seed}:{settings.show_annotator_names}:{settings.epsilon}:"
        f"{settings.judge_family}"
    )


def _judge_state(run: JudgeRun) -> str:
    # Verdicts are updated in place on re-import: a flipped verdict changes the pass count.
    # Read where the verdicts are read from (agreement.data), so the key matches the data.
    state = (
        JudgeVerdict.objects.using(reports_alias())
        .filter(run=run.pk)
        .aggregate(n=Count("pk"), passes=Count("pk", filter=Q(verdict=True)), last=Max("pk"))
    )
    return f"{state['n']}:{state['passes']}:{state['last']}"


def report_key(study: Study) -> tuple[str, AnalysisSettings]:
    settings = AnalysisSettings.for_study(study)
    return f"agreement:{_state_key(study, settings)}", settings


def cached_study_report(study: Study) -> StudyAgreement | None:
    return cache.get(report_key(study)[0])


def is_large(study: Study) -> bool:
    """Large studies are computed by the background worker, not while a page waits."""
    return submitted_grades(study).count() > django_settings.AGREEMENT_INLINE_LIMIT


def study_report(study: Study) -> StudyAgreement:
    """The report of `study`; recomputed only when a submitted grade or a setting changed."""
    key, settings = report_key(study)
    report = cache.get(key)
    if report is None:
        ratings = load_study_ratings(study, blind=not settings.show_annotator_names)
        scales = load_scale_ratings(study)
        report = replace(
            study_agreement(
                ratings,
                threshold=settings.validation_threshold,
                n_resamples=settings.resamples,
                seed=settings.seed,
            ),
            scales=scale_agreement(scales, n_resamples=settings.resamples, seed=settings.seed),
            consistency=tuple(
                c for c in (*criteria_consistency(ratings), scale_consistency(scales)) if c
            ),
        )
        cache.set(key, report, CACHE_SECONDS)
    return report


def judge_report(study: Study, run: JudgeRun) -> CalibrationReport:
    """The judge of `run` against the experts of `study`, cached like the study report."""
    settings = AnalysisSettings.for_study(study)
    key = f"calibration:{run.pk}:{_judge_state(run)}:{_state_key(study, settings)}"
    report = cache.get(key)
    if report is None:
        ratings = load_study_ratings(study, blind=not settings.show_annotator_names)
        report = calibration_report(
            load_judge_data(study, run, ratings),
            epsilon=settings.epsilon,
            judge_family=settings.judge_family,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        cache.set(key, report, CACHE_SECONDS)
    return report


def study_leaderboard(study: Study, run: JudgeRun | None) -> Leaderboard:
    settings = AnalysisSettings.for_study(study)
    key = f"leaderboard:{run.pk if run else '-'}:{_state_key(study, settings)}"
    if run is not None:
        key += ":" + _judge_state(run)
    board = cache.get(key)
    if board is None:
        ratings = load_study_ratings(study)
        judge = load_judge_data(study, run, ratings) if run is not None else None
        board = leaderboard(ratings, judge, n_resamples=settings.resamples, seed=settings.seed)
        cache.set(key, board, CACHE_SECONDS)
    return board
