"""The agreement results of a study: read by `agreement.data`, computed by the pure
`core.analysis`, kept in `agreement.cache` once per state of the data and the settings."""

from dataclasses import dataclass, replace

from django.conf import settings as django_settings

from agreement import cache
from agreement.data import (
    judge_runs_for,
    load_judge_data,
    load_judged_responses,
    load_label_units,
    load_ordinal_ratings,
    load_runs_data,
    load_scale_ratings,
    load_scale_scores,
    load_study_ratings,
    load_turn_judge,
    load_turn_ratings,
    rating_runs_for,
    submitted_grade_count,
)
from agreement.models import AnalysisSettings
from core.analysis.calibration import (
    CalibrationReport,
    JudgeScale,
    calibration_report,
    turn_calibration,
)
from core.analysis.calibration import judge_scales as compare_judge_scales
from core.analysis.comparison import RunComparison, RunSummary, compare_runs
from core.analysis.labels import FinalLabel
from core.analysis.labels import final_labels as decide_labels
from core.analysis.leaderboard import Leaderboard, leaderboard
from core.analysis.ordinal_criteria import ordinal_agreement
from core.analysis.ratings import CriterionInfo, ItemInfo
from core.analysis.reports import StudyAgreement, study_agreement, turn_agreement
from core.analysis.scales import criteria_consistency, scale_agreement, scale_consistency
from core.analysis.triage import TriageUnit, triage_queue
from grading.models import Study
from judging.models import JudgeRun


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


def judge_report(study: Study, run: JudgeRun) -> CalibrationReport:
    """The judge of `run` against the experts of `study`, cached like the study report."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> CalibrationReport:
        blind = not settings.show_annotator_names
        ratings = load_study_ratings(study, blind=blind)
        report = calibration_report(
            load_judge_data(study, run, ratings),
            epsilon=settings.epsilon,
            judge_family=run.model_family,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        turns = load_turn_ratings(study, blind=blind)
        found = turn_calibration(
            turns,
            load_turn_judge(run, turns),
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        return replace(report, turns=found)

    return cache.get_or_compute(cache.calibration_key(study, run, settings), compute)


def run_comparison(study: Study, runs: list[JudgeRun]) -> RunComparison:
    """Two to four judge runs side by side on the units of `study` they share, cached like
    the judge report (a new verdict in any of them makes a new key)."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> RunComparison:
        ratings = load_study_ratings(study, blind=not settings.show_annotator_names)
        data = load_runs_data(runs, ratings)
        return compare_runs(
            ratings,
            data.runs,
            data.gold,
            data.item_family,
            epsilon=settings.epsilon,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )

    return cache.get_or_compute(cache.comparison_key(study, runs, settings), compute)


def judge_calibration_summary(study: Study, run: JudgeRun) -> RunSummary:
    """`run` against the experts of `study` on every unit it judged, every figure with its
    interval and n (the exports' judge calibration): a comparison of one run."""
    return run_comparison(study, [run]).runs[0]


def judge_calibrations(study: Study) -> list[RunSummary]:
    """The calibration of each of the study's judge runs (agreement.data.judge_runs_for), as
    the agreement report's downloads and `manage.py agreement_report` write them."""
    return [judge_calibration_summary(study, run) for run in judge_runs_for(study)]


@dataclass(frozen=True)
class Triage:
    """One run's disagreements with the experts of a study, in triage order."""

    units: tuple[TriageUnit, ...]
    criteria: tuple[CriterionInfo, ...]
    items: tuple[ItemInfo, ...]
    threshold: float

    def pair(self, unit: TriageUnit) -> tuple[int, int]:
        """The (study item, criterion version) of a unit."""
        return self.items[unit.item].key, self.criteria[unit.criterion].key


def triage(study: Study, run: JudgeRun) -> Triage:
    """The units of `study` where `run` disagrees with the expert majority or gold, cached
    until a verdict, grade, gold verdict or setting changes."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> Triage:
        ratings = load_study_ratings(study)
        data = load_runs_data([run], ratings)
        units = triage_queue(
            ratings,
            data.runs[0].verdicts,
            data.gold,
            threshold=settings.validation_threshold,
            minimum_units=settings.minimum_units,
        )
        return Triage(units, ratings.criteria, ratings.items, settings.validation_threshold)

    return cache.get_or_compute(cache.triage_key(study, run, settings), compute)


def study_leaderboard(study: Study, run: JudgeRun | None) -> Leaderboard:
    """Each model's scores by the experts; with `run`, by its judge too, and the
    prediction-powered scores from every response the run judged."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> Leaderboard:
        ratings = load_study_ratings(study)
        if run is None:
            return leaderboard(ratings)
        judge = load_judge_data(study, run, ratings)
        return leaderboard(ratings, judge, load_judged_responses(study, run, ratings))

    return cache.get_or_compute(cache.leaderboard_key(study, run, settings), compute)


def judge_leaderboards(study: Study) -> list[Leaderboard]:
    """The leaderboard with each of the study's judge runs (agreement.data.judge_runs_for), as
    the agreement report's downloads write their prediction-powered scores."""
    return [study_leaderboard(study, run) for run in judge_runs_for(study)]


def judge_scale_report(study: Study, run: JudgeRun) -> tuple[JudgeScale, ...]:
    """The judge of `run` against the experts of `study` on each 1-5 question it scored."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> tuple[JudgeScale, ...]:
        return compare_judge_scales(
            load_scale_scores(study, run), n_resamples=settings.resamples, seed=settings.seed
        )

    return cache.get_or_compute(cache.judge_scales_key(study, run, settings), compute)


def judge_scales_by_run(study: Study) -> list[tuple[JudgeRun, tuple[JudgeScale, ...]]]:
    """Every judge run that rated the study's responses, with its comparison (for downloads)."""
    return [(run, judge_scale_report(study, run)) for run in rating_runs_for(study)]


def download_parts(study: Study) -> list[str]:
    """The cache keys of every result the report's downloads write (the study report, and each
    judge run's calibration, leaderboard and 1-5 scales): the download is ready at once when
    the cache holds them all (agreement.cache.stored)."""
    settings = AnalysisSettings.for_study(study)
    keys = [cache.report_key(study, settings)]
    for run in judge_runs_for(study):
        keys.append(cache.comparison_key(study, [run], settings))
        keys.append(cache.leaderboard_key(study, run, settings))
    keys.extend(cache.judge_scales_key(study, run, settings) for run in rating_runs_for(study))
    return keys


def prepare_download(study: Study) -> None:
    """Compute and cache every result the report's downloads write (download_parts)."""
    study_report(study)
    judge_calibrations(study)
    judge_leaderboards(study)
    judge_scales_by_run(study)


def final_labels(study: Study, *, single: bool = True) -> list[FinalLabel]:
    """The final label of every graded (response, criterion) of `study` (core.analysis.
    labels), without those resting on a single expert's verdict unless `single`; graders are
    named as the study's reports name them."""
    settings = AnalysisSettings.for_study(study)
    units = load_label_units(study, blind=not settings.show_annotator_names)
    return decide_labels(units, single=single)
