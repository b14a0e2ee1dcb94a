"""The judge against the experts of a study: its calibration, its 1-5 scales, runs compared,
the triage queue and the leaderboard with its scores. Read by `judging.data` and
`agreement.data`, computed by the pure `core.analysis`, kept in the one cache of results
(`agreement.cache`) under keys made of the run's state and the study's (`cache.study_part`).
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agreement import cache
from agreement.data import load_study_ratings, load_turn_ratings
from agreement.judge_parts import JudgeParts
from agreement.models import AnalysisSettings
from core.analysis.calibration import (
    CalibrationReport,
    JudgeScale,
    calibration_report,
    turn_calibration,
)
from core.analysis.calibration import judge_scales as compare_judge_scales
from core.analysis.comparison import RunComparison, RunSummary, compare_runs
from core.analysis.leaderboard import Leaderboard, leaderboard
from core.analysis.ratings import CriterionInfo, ItemInfo
from core.analysis.triage import (
    LevelDisagreement,
    TriageUnit,
    TurnDisagreement,
    level_triage,
    triage_queue,
    turn_triage,
)
from grading.models import Study
from judging.data import (
    gold_state,
    judge_runs_for,
    load_judge_data,
    load_judged_responses,
    load_runs_data,
    load_scale_scores,
    load_turn_judge,
    rating_runs_for,
    ratings_state,
    verdicts_state,
)
from judging.models import JudgeRun


def _run_part(run: JudgeRun) -> str:
    """A run's verdicts, and the family self-preference compares it with and its name (the
    results carry it) hashed short: a key holds up to four runs' parts, and a family or name
    may hold spaces, which a cache key may not."""
    words = f"{run.model_family}\n{run.display_name}".encode()
    return f"{run.pk}:{verdicts_state(run)}:{hashlib.blake2s(words, digest_size=6).hexdigest()}"


def calibration_key(study: Study, run: JudgeRun, settings: AnalysisSettings) -> str:
    judge = f"{_run_part(run)}:{gold_state(study)}"  # accuracy against gold
    return f"calibration:{judge}:{cache.study_part(study, settings)}"


def leaderboard_key(study: Study, run: JudgeRun | None, settings: AnalysisSettings) -> str:
    key = f"leaderboard:{run.pk if run else '-'}:{cache.study_part(study, settings)}"
    return key if run is None else f"{key}:{verdicts_state(run)}"


def judge_scales_key(study: Study, run: JudgeRun, settings: AnalysisSettings) -> str:
    return f"judge-scales:{run.pk}:{ratings_state(run)}:{cache.study_part(study, settings)}"


def comparison_key(study: Study, runs: Sequence[JudgeRun], settings: AnalysisSettings) -> str:
    # The runs' parts hashed: each grows with its verdicts' counts, and four of them made a key
    # longer than the 250 characters memcached takes.
    joined = ",".join(_run_part(run) for run in runs).encode()
    states = hashlib.blake2s(joined, digest_size=8).hexdigest()
    return f"comparison:{states}:{gold_state(study)}:{cache.study_part(study, settings)}"


def triage_key(study: Study, run: JudgeRun, settings: AnalysisSettings) -> str:
    judge = f"{_run_part(run)}:{gold_state(study)}"
    return f"triage:{judge}:{cache.study_part(study, settings)}"


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
            epsilon=settings.epsilon,
            n_resamples=settings.resamples,
            seed=settings.seed,
        )
        return replace(report, turns=found)

    return cache.get_or_compute(calibration_key(study, run, settings), compute)


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
            level_pairs=data.level_pairs,
            gold_levels=data.gold_levels,
        )

    return cache.get_or_compute(comparison_key(study, runs, settings), compute)


def judge_calibration_summary(study: Study, run: JudgeRun) -> RunSummary:
    """`run` against the experts of `study` on every unit it judged, every figure with its
    interval and n (the exports' judge calibration): a comparison of one run."""
    return run_comparison(study, [run]).runs[0]


def judge_calibrations(study: Study) -> list[RunSummary]:
    """The calibration of each of the study's judge runs (judging.data.judge_runs_for), as
    the agreement report's downloads and `manage.py agreement_report` write them."""
    return [judge_calibration_summary(study, run) for run in judge_runs_for(study)]


@dataclass(frozen=True)
class Triage:
    """One run's disagreements with the experts of a study, in triage order."""

    units: tuple[TriageUnit, ...]
    criteria: tuple[CriterionInfo, ...]
    items: tuple[ItemInfo, ...]
    threshold: float
    # Ordinal criteria: responses where the run's level differs (criteria and items above).
    levels: tuple[LevelDisagreement, ...] = ()
    # Turn-level criteria judged turn by turn: turns where the run's verdict differs, indexing
    # the turns' own criteria and items.
    turns: tuple[TurnDisagreement, ...] = ()
    turn_criteria: tuple[CriterionInfo, ...] = ()
    turn_items: tuple[ItemInfo, ...] = ()

    def pair(self, unit: TriageUnit) -> tuple[int, int]:
        """The (study item, criterion version) of a unit."""
        return self.items[unit.item].key, self.criteria[unit.criterion].key


def triage(study: Study, run: JudgeRun) -> Triage:
    """The units of `study` where `run` disagrees with the expert majority or gold, and beside
    them the responses where its level and the turns where its verdict differ, cached until a
    verdict, grade, gold verdict or setting changes."""
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
        turns = load_turn_ratings(study)
        return Triage(
            units,
            ratings.criteria,
            ratings.items,
            settings.validation_threshold,
            levels=level_triage(ratings, data.level_pairs, data.runs[0].levels, data.gold_levels),
            turns=turn_triage(turns, load_turn_judge(run, turns)),
            turn_criteria=turns.criteria,
            turn_items=turns.items,
        )

    return cache.get_or_compute(triage_key(study, run, settings), compute)


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

    return cache.get_or_compute(leaderboard_key(study, run, settings), compute)


def judge_leaderboards(study: Study) -> list[Leaderboard]:
    """The leaderboard with each of the study's judge runs (judging.data.judge_runs_for), as
    the agreement report's downloads write their prediction-powered scores."""
    return [study_leaderboard(study, run) for run in judge_runs_for(study)]


def judge_scale_report(study: Study, run: JudgeRun) -> tuple[JudgeScale, ...]:
    """The judge of `run` against the experts of `study` on each 1-5 question it scored."""
    settings = AnalysisSettings.for_study(study)

    def compute() -> tuple[JudgeScale, ...]:
        return compare_judge_scales(
            load_scale_scores(study, run), n_resamples=settings.resamples, seed=settings.seed
        )

    return cache.get_or_compute(judge_scales_key(study, run, settings), compute)


def judge_scales_by_run(study: Study) -> list[tuple[JudgeRun, tuple[JudgeScale, ...]]]:
    """Every judge run that rated the study's responses, with its comparison (for downloads)."""
    return [(run, judge_scale_report(study, run)) for run in rating_runs_for(study)]


def report_parts(study: Study) -> JudgeParts:
    """What a study's agreement report downloads (and `manage.py agreement_report`) write of
    its judges: each rating run's 1-5 scales, each run's calibration and leaderboard."""
    return JudgeParts(
        scales=judge_scales_by_run(study),
        calibrations=judge_calibrations(study),
        leaderboards=judge_leaderboards(study),
    )


def report_part_keys(study: Study) -> list[str]:
    """The cache keys of report_parts: each run's calibration (a comparison of one run) and
    leaderboard, each rating run's 1-5 scales."""
    settings = AnalysisSettings.for_study(study)
    keys = []
    for run in judge_runs_for(study):
        keys.append(comparison_key(study, [run], settings))
        keys.append(leaderboard_key(study, run, settings))
    keys.extend(judge_scales_key(study, run, settings) for run in rating_runs_for(study))
    return keys
