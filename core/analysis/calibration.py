"""Can the LLM judge be trusted? The judge compared with the experts of a study.

Pure: numpy arrays and dataclasses in, frozen dataclasses out; no Django. `agreement.data`
builds the JudgeData from the database.

The judge is compared with humans the way humans are compared with each other: leave one expert
out at a time, and the alternative annotator test (Calderon et al. 2025), not only against the
expert majority, which flatters a judge (a majority is itself less noisy than any one expert).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from core.analysis.ratings import FAIL, PASS, StudyRatings
from core.messages import gettext_noop
from core.stats import (
    AltTestResult,
    Calibration,
    Coefficient,
    ExpertComparison,
    Interval,
    Leniency,
    LevelAgreement,
    OrdinalAgreement,
    alpha_from_counts,
    alternative_annotator_test,
    calibrate,
    counts_from_pairs,
    gwet_ac,
    leave_one_expert_out,
    leniency,
    level_agreement,
    majority_reference,
    ordinal_agreement,
)
from core.stats.clustered import ClusteredCalibration, clustered_calibration
from core.stats.grouped import grouped_intervals

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
MISSING = -1
UNPARSEABLE = -2  # the judge was asked about the unit; its answer was neither pass nor fail
SCALE_VALUES = np.arange(1, 6)  # the 1-5 scale; value index 0 is score 1
ONE_EPOCH = gettext_noop("the judge scored this question in one epoch only")
FEWER_THAN_TWO_REPEATED = gettext_noop("fewer than two responses scored in two epochs or more")


@dataclass(frozen=True)
class JudgeData:
    """The experts' ratings of a study and one judge's verdicts on the same units."""

    ratings: StudyRatings
    judge_name: str
    judge: IntArray  # per unit: FAIL, PASS or MISSING (first epoch)
    judge_epochs: IntArray  # (epochs, units): every epoch's verdict or MISSING
    gold: IntArray  # per unit: adjudicated verdict or MISSING
    item_family: tuple[str, ...]  # per study item: the family of the model that responded
    # Ordinal criteria: every (item, criterion) with an expert level (rows of `level_pairs`)
    # and the judge's level on it in each epoch (NaN where none).
    level_pairs: IntArray = field(default_factory=lambda: np.empty((0, 2), dtype=np.int64))
    judge_levels: FloatArray = field(default_factory=lambda: np.empty((1, 0)))
    # Per row of `level_pairs`: the adjudicated gold level, NaN where none (not adjudicated,
    # or adjudicated N/A).
    gold_levels: FloatArray = field(default_factory=lambda: np.empty(0))


@dataclass(frozen=True)
class JudgeGroup:
    label: str
    n_units: int  # units with a judge verdict and at least one expert grade
    vs_majority: Calibration | None
    vs_gold: Calibration | None
    leave_one_out: tuple[ExpertComparison, ...]
    alpha_experts: Coefficient
    alpha_with_judge: Coefficient
    leniency: Leniency | None
    alt_test: AltTestResult

    @property
    def n_with_majority(self) -> int:
        """Units compared with the expert majority: those where the experts did not split evenly."""
        return self.vs_majority.n_items if self.vs_majority else 0

    @property
    def n_tied(self) -> int:
        """Units left out of the comparison with the majority: the experts split evenly."""
        return self.n_units - self.n_with_majority

    @property
    def n_with_gold(self) -> int:
        return self.vs_gold.n_items if self.vs_gold else 0

    @property
    def n_without_gold(self) -> int:
        """Units left out of the comparison with gold: no adjudicated verdict."""
        return self.n_units - self.n_with_gold

    @property
    def n_gap_experts(self) -> int:
        """Held-out experts whose accuracy gap is defined: the n of `mean_accuracy_gap`."""
        return sum(1 for c in self.leave_one_out if c.accuracy_gap is not None)

    @property
    def n_gap_units(self) -> int:
        """Units that enter leave one expert out: a judge verdict and two expert ratings or
        more (a held-out expert needs a colleague on the unit)."""
        return self.alpha_experts.n_units

    @property
    def mean_accuracy_gap(self) -> float | None:
        """Mean over held-out experts of (judge accuracy - other experts' accuracy)."""
        gaps = [c.accuracy_gap for c in self.leave_one_out if c.accuracy_gap is not None]
        return float(np.mean(gaps)) if gaps else None


@dataclass(frozen=True)
class SelfPreference:
    family: str
    own: JudgeGroup | None
    others: JudgeGroup | None

    @property
    def groups(self) -> tuple[JudgeGroup, ...]:
        return tuple(group for group in (self.own, self.others) if group is not None)

    @property
    def gap(self) -> float | None:
        """Leniency on the judge's own family minus leniency on the others."""
        if not (self.own and self.others and self.own.leniency and self.others.leniency):
            return None
        return self.own.leniency.difference - self.others.leniency.difference


@dataclass(frozen=True)
class Stability:
    epochs: int
    n_units: int  # units the judge rated in every epoch
    identical: float | None  # share of those units with the same verdict in every epoch
    alpha: Coefficient  # epochs treated as raters


@dataclass(frozen=True)
class ScaleScores:
    """One 1-5 question of a study: the judge's and the experts' scores on the same items."""

    key: str
    prompt: str
    judge: FloatArray  # per study item: 1-5 in the judge's first epoch, NaN where none
    experts: FloatArray  # (experts, study items): 1-5, NaN where none
    judge_epochs: FloatArray  # (epochs, study items): every epoch's 1-5 score, NaN where none


@dataclass(frozen=True)
class ScaleStability:
    """The judge against itself on one 1-5 question: test-retest agreement across epochs."""

    epochs: int  # epochs that scored at least one response on this question
    n_responses: int  # responses scored in two epochs or more
    identical: float | None  # share of those responses with the same score in all their epochs
    alpha: Coefficient  # ordinal alpha, responses as units and epochs as raters


@dataclass(frozen=True)
class JudgeScale:
    """The judge against the experts on one 1-5 question or one ordinal criterion (weighted
    kappa, Bland-Altman), and against itself across epochs. On an ordinal criterion also
    Krippendorff's ordinal alpha of the experts, then of the experts with the judge as one
    more rater, each with its percentile-bootstrap interval and n."""

    key: str
    prompt: str
    n_judge_scores: int  # items of the study the judge scored on this question
    agreement: OrdinalAgreement
    stability: ScaleStability
    scale: tuple[int, int] = (1, 5)
    alpha_experts: Interval | None = None
    alpha_with_judge: Interval | None = None
    # An ordinal criterion: the judge's levels against the adjudicated gold levels (None
    # without one) and against the experts' median level of each response (the lower median:
    # a level an expert gave), each with quadratic kappa, exact, within one and Bland-Altman.
    vs_gold: LevelAgreement | None = None
    vs_experts: LevelAgreement | None = None


@dataclass(frozen=True)
class TurnCalibration:
    """The judge on the tutor turns of dialogues, one turn-level criterion (or all of them):
    its verdict on each turn against the experts' majority on that turn. A turn counts when
    the experts graded it pass or fail; those left out are counted by reason."""

    label: str  # the criterion's code, or "all turn-level criteria"
    wording: str
    n_turns: int  # turns the experts graded pass or fail
    vs_majority: ClusteredCalibration  # on the turns judged and decided by a majority
    not_judged: int  # graded turns the judge gave no verdict on
    unparseable: int  # graded turns whose judge answer could not be read
    tied: int  # judged turns the experts split evenly on
    graded_na: int  # turn grades of N/A (no pass or fail to compare)
    # The judge as one more expert on the judged turns, as on whole responses: alpha of the
    # experts then with the judge, leave one expert out and the alternative annotator test
    # (turns as units; `agreement.n_units` judged turns with an expert grade).
    agreement: JudgeGroup | None = None
    ac1_experts: Coefficient | None = None  # Gwet's AC1 of the experts on those turns
    ac1_with_judge: Coefficient | None = None  # and with the judge as one more rater

    @property
    def n_compared(self) -> int:
        return self.vs_majority.calibration.n_items

    @property
    def n_responses(self) -> int:
        """Dialogues of the compared turns: what the intervals resample."""
        return self.vs_majority.n_clusters


def turn_calibration(
    turns: StudyRatings,
    judge: IntArray,
    *,
    epsilon: float = 0.2,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[TurnCalibration, ...]:
    """The judge against the experts' per-turn majority on each turn-level criterion, then on
    every turn-level criterion together (when there are two or more). `turns` are the experts'
    ratings of tutor turns (units: response, criterion, turn); `judge` per unit: FAIL, PASS,
    UNPARSEABLE or MISSING (not judged). Accuracy and Cohen's kappa with their n, intervals
    resampling responses (a dialogue's turns move together); Krippendorff's alpha and Gwet's
    AC1 of the experts, then with the judge, and the alternative annotator test (margin
    `epsilon`), turns as units."""
    if turns.n_units == 0 and turns.na_item.size == 0:
        return ()
    na = np.bincount(turns.na_criterion, minlength=len(turns.criteria))
    groups = [
        (info.code, info.wording, turns.unit_criterion == index, int(na[index]))
        for index, info in enumerate(turns.criteria)
    ]
    if len(groups) > 1:
        every = np.ones(turns.n_units, dtype=bool)
        groups.append((gettext_noop("all turn-level criteria"), "", every, int(na.sum())))
    answered = np.where(judge >= 0, judge, MISSING)
    data = JudgeData(
        ratings=turns,
        judge_name="",
        judge=answered,
        judge_epochs=answered[None, :],
        gold=np.full(turns.n_units, MISSING, dtype=np.int64),
        item_family=("",) * len(turns.items),
    )
    options: _GroupOptions = {"epsilon": epsilon, "n_resamples": n_resamples, "seed": seed}
    found = []
    for label, wording, mask, graded_na in groups:
        units = np.flatnonzero(mask)
        experts = experts_matrix(turns, units)
        majority = majority_reference(experts) if units.size else np.empty(0, dtype=np.int64)
        judged = answered[units] != MISSING
        ac1_experts, ac1_with_judge = _ac1_pair(experts[:, judged], answered[units][judged])
        found.append(
            TurnCalibration(
                label=label,
                wording=wording,
                n_turns=int(units.size),
                vs_majority=clustered_calibration(
                    answered[units],
                    majority,
                    turns.unit_item[units],
                    n_resamples=n_resamples,
                    seed=seed,
                ),
                not_judged=int((judge[units] == MISSING).sum()),
                unparseable=int((judge[units] == UNPARSEABLE).sum()),
                tied=int((judged & (majority == MISSING)).sum()),
                graded_na=graded_na,
                agreement=judge_group(data, mask, label, **options),
                ac1_experts=ac1_experts,
                ac1_with_judge=ac1_with_judge,
            )
        )
    return tuple(found)


def _ac1_pair(experts: FloatArray, judge: IntArray) -> tuple[Coefficient, Coefficient]:
    """Gwet's AC1 of the experts on the judged units (columns of `experts`), then with the
    judge's verdict (FAIL or PASS per column) as one more rating."""
    counts = _counts(experts)
    with_judge = counts.copy()
    with_judge[np.arange(judge.size), judge] += 1
    return gwet_ac(counts), gwet_ac(with_judge)


@dataclass(frozen=True)
class CalibrationReport:
    judge_name: str
    epsilon: float
    overall: JudgeGroup
    by_layer: tuple[JudgeGroup, ...]
    by_criterion: tuple[JudgeGroup, ...]
    self_preference: SelfPreference | None
    stability: Stability | None
    unmatched_units: int  # expert-graded units the judge did not rate
    scales: tuple[JudgeScale, ...] = ()  # the study's 1-5 questions the judge scored
    ordinal: tuple[JudgeScale, ...] = ()  # the study's ordinal criteria the judge rated
    turns: tuple[TurnCalibration, ...] = ()  # turn-level criteria, judged turn by turn


def judge_scales(
    questions: Sequence[ScaleScores], *, n_resamples: int = 1000, seed: int = 0
) -> tuple[JudgeScale, ...]:
    """Each question the judge scored at least once, compared with the experts' scores."""
    return tuple(
        JudgeScale(
            key=question.key,
            prompt=question.prompt,
            n_judge_scores=int((~np.isnan(question.judge)).sum()),
            agreement=ordinal_agreement(
                question.judge, question.experts, n_resamples=n_resamples, seed=seed
            ),
            stability=scale_stability(question.judge_epochs),
        )
        for question in questions
        if (~np.isnan(question.judge)).any()
    )


def experts_matrix(ratings: StudyRatings, units: IntArray) -> npt.NDArray[np.float64]:
    """(raters x len(units)) matrix of 0/1 with NaN where a rater did not grade the unit."""
    position = np.full(ratings.n_units, -1, dtype=np.int64)
    position[units] = np.arange(units.size)
    dense = np.full((len(ratings.raters), units.size), np.nan)
    keep = position[ratings.rating_unit] >= 0
    dense[ratings.rating_rater[keep], position[ratings.rating_unit[keep]]] = ratings.rating_value[
        keep
    ]
    return dense[~np.isnan(dense).all(axis=1)]


class _GroupOptions(TypedDict):
    epsilon: float
    n_resamples: int
    seed: int


def judge_group(
    data: JudgeData,
    mask: npt.NDArray[np.bool_],
    label: str,
    *,
    epsilon: float,
    n_resamples: int,
    seed: int,
) -> JudgeGroup:
    units = np.flatnonzero(mask & (data.judge != MISSING))
    experts = experts_matrix(data.ratings, units)
    judge = data.judge[units]
    graded = ~np.isnan(experts).all(axis=0) if experts.size else np.zeros(units.size, bool)
    units, judge, experts = units[graded], judge[graded], experts[:, graded]
    gold = data.gold[units]
    with_gold = gold != MISSING
    expert_counts = _counts(experts)
    judge_counts = expert_counts.copy()
    if units.size:
        judge_counts[np.arange(units.size), judge] += 1
    majority = majority_reference(experts) if units.size else np.empty(0, np.int64)
    return JudgeGroup(
        label=label,
        n_units=int(units.size),
        vs_majority=calibrate(judge, majority) if (majority != MISSING).any() else None,
        vs_gold=calibrate(judge[with_gold], gold[with_gold]) if with_gold.any() else None,
        leave_one_out=leave_one_expert_out(judge, experts) if units.size else (),
        alpha_experts=alpha_from_counts(expert_counts),
        alpha_with_judge=alpha_from_counts(judge_counts),
        leniency=(
            leniency(judge, experts, clusters=data.ratings.unit_item[units]) if units.size else None
        ),
        alt_test=alternative_annotator_test(judge, experts, epsilon=epsilon),
    )


def _counts(experts: npt.NDArray[np.float64]) -> IntArray:
    rater, unit = np.nonzero(~np.isnan(experts))
    values = experts[rater, unit].astype(np.int64)
    return counts_from_pairs(unit, values, n_units=experts.shape[1], n_values=2)


def stability(data: JudgeData) -> Stability | None:
    """Test-retest agreement of the judge with itself across epochs (None for one epoch)."""
    epochs = data.judge_epochs
    if epochs.shape[0] < 2:
        return None
    complete = (epochs != MISSING).all(axis=0)
    rated = epochs[:, complete]
    identical = (rated == rated[0]).all(axis=0)
    present = epochs != MISSING
    epoch_index, unit = np.nonzero(present)
    counts = counts_from_pairs(unit, epochs[epoch_index, unit], n_units=epochs.shape[1], n_values=2)
    return Stability(
        epochs=int(epochs.shape[0]),
        n_units=int(complete.sum()),
        identical=float(identical.mean()) if identical.size else None,
        alpha=alpha_from_counts(counts),
    )


def scale_stability(epochs: FloatArray, scale: tuple[int, int] = (1, 5)) -> ScaleStability:
    """Test-retest agreement of the judge's 1-5 scores on one question across its epochs.

    `epochs` is (epochs, responses): a score on `scale` (1-5 unless given), NaN where that
    epoch gave none. Krippendorff's
    alpha at the ordinal level with responses as units and epochs as raters (a response scored
    in two epochs only counts as two ratings), beside the share of responses with the same
    score in every epoch that scored them. Only responses scored in two epochs or more count.
    Alpha is undefined, with the reason, when one epoch scored the question, when fewer than
    two responses were scored twice, or when every score is the same (no variation)."""
    scored = ~np.isnan(epochs)
    n_epochs = int(scored.any(axis=1).sum())
    repeated = scored.sum(axis=0) >= 2
    scores = epochs[:, repeated]
    n_ratings = int((~np.isnan(scores)).sum())
    identical = np.nanmax(scores, axis=0) == np.nanmin(scores, axis=0)
    reason = None
    if n_epochs < 2:
        reason = ONE_EPOCH
    elif scores.shape[1] < 2:
        reason = FEWER_THAN_TWO_REPEATED
    if reason is None:
        epoch_index, response = np.nonzero(~np.isnan(scores))
        domain = np.arange(scale[0], scale[1] + 1)
        values = scores[epoch_index, response].astype(np.int64) - scale[0]
        counts = counts_from_pairs(response, values, n_units=scores.shape[1], n_values=domain.size)
        alpha = alpha_from_counts(counts, "ordinal", value_domain=domain)
    else:
        alpha = Coefficient(
            name="krippendorff_alpha_ordinal",
            value=None,
            undefined_reason=reason,
            n_units=scores.shape[1],
            n_ratings=n_ratings,
        )
    return ScaleStability(
        epochs=n_epochs,
        n_responses=int(scores.shape[1]),
        identical=float(identical.mean()) if identical.size else None,
        alpha=alpha,
    )


def _level_alpha(
    matrix: FloatArray, scale: tuple[int, int], n_resamples: int, seed: int
) -> Interval:
    """Ordinal alpha of a (raters, responses) matrix of levels (NaN: none) with the study
    report's BCa interval over responses, withheld below 20 responses (as for the ordinal
    criteria, whose coverage is simulated: docs/statistics.md)."""
    domain = np.arange(scale[0], scale[1] + 1)
    rater, unit = np.nonzero(~np.isnan(matrix))
    values = matrix[rater, unit].astype(np.int64) - scale[0]
    counts = counts_from_pairs(unit, values, n_units=matrix.shape[1], n_values=domain.size)
    everything = np.arange(counts.shape[0])
    return grouped_intervals(
        counts,
        everything,
        [everything],
        level="ordinal",
        value_domain=domain,
        n_resamples=n_resamples,
        seed=seed,
    )[0].alpha


def expert_levels(ratings: StudyRatings, level_pairs: IntArray) -> FloatArray:
    """(raters, pairs) matrix of the experts' levels on each (item, criterion) row of
    `level_pairs`, NaN where a rater gave none."""
    n_raters = len(ratings.raters) + len(ratings.level_raters)
    position = {
        (int(item), int(criterion)): n for n, (item, criterion) in enumerate(level_pairs.tolist())
    }
    matrix = np.full((n_raters, len(level_pairs)), np.nan)
    for item, criterion, rater, level in zip(
        ratings.level_item.tolist(),
        ratings.level_criterion.tolist(),
        ratings.level_rater.tolist(),
        ratings.level_value.tolist(),
        strict=True,
    ):
        pair = position.get((item, criterion))
        if pair is not None:
            matrix[rater, pair] = level
    return matrix


def lower_median(levels: FloatArray) -> FloatArray:
    """Per column of a (raters, items) matrix of levels: the lower median of the levels given
    (always a level some rater gave), NaN where none was."""
    given = (~np.isnan(levels)).sum(axis=0)
    ordered = np.sort(levels, axis=0)  # NaN sorts last
    pick = np.maximum(given - 1, 0) // 2
    columns = np.arange(levels.shape[1])
    found = ordered[pick, columns] if levels.shape[0] else np.zeros(columns.size)
    return np.where(given > 0, found, np.nan)


def judge_ordinal_criteria(
    data: JudgeData, *, n_resamples: int = 1000, seed: int = 0
) -> tuple[JudgeScale, ...]:
    """The judge's levels against the experts' on each ordinal criterion it rated: weighted
    kappa (linear, quadratic) and Bland-Altman as for a 1-5 question, and ordinal alpha of the
    experts, then with the judge as one more rater, both over the same responses (those with a
    judge level); alpha's BCa intervals and the kappas' percentile intervals over responses are
    withheld, with the reason, where their simulated coverage is under 90%. The judge's level
    against each response's gold level (where adjudicated) and against the experts' median
    level: quadratic kappa, exact and within-one agreement, Bland-Altman, with n."""
    ratings = data.ratings
    first = data.judge_levels[0] if data.judge_levels.size else np.empty(0)
    every_expert = expert_levels(ratings, data.level_pairs)
    found = []
    for criterion in sorted(set(data.level_pairs[:, 1].tolist())):
        info = ratings.criteria[criterion]
        if info.scale is None:
            continue
        pairs = np.flatnonzero((data.level_pairs[:, 1] == criterion) & ~np.isnan(first))
        if not pairs.size:
            continue  # the judge rated none of its responses
        experts = every_expert[:, pairs]
        experts = experts[~np.isnan(experts).all(axis=1)]
        judge = first[pairs]
        low, high = info.scale
        gold = data.gold_levels[pairs] if data.gold_levels.size else np.full(pairs.size, np.nan)
        vs_gold = level_agreement(judge, gold, info.scale)
        vs_experts = level_agreement(judge, lower_median(experts), info.scale)

        found.append(
            JudgeScale(
                key=info.code,
                prompt=info.wording,
                n_judge_scores=int(pairs.size),
                agreement=ordinal_agreement(
                    judge,
                    experts,
                    n_values=high - low + 1,
                    origin=low,
                    n_resamples=n_resamples,
                    seed=seed,
                ),
                stability=scale_stability(data.judge_levels[:, pairs], info.scale),
                scale=info.scale,
                alpha_experts=_level_alpha(experts, info.scale, n_resamples, seed),
                alpha_with_judge=_level_alpha(
                    np.vstack([experts, judge[None, :]]), info.scale, n_resamples, seed
                ),
                vs_gold=vs_gold if vs_gold.n else None,
                vs_experts=vs_experts if vs_experts.n else None,
            )
        )
    return tuple(found)


def calibration_report(
    data: JudgeData,
    *,
    epsilon: float = 0.2,
    judge_family: str = "",
    n_resamples: int = 1000,
    seed: int = 0,
) -> CalibrationReport:
    ratings = data.ratings
    options: _GroupOptions = {"epsilon": epsilon, "n_resamples": n_resamples, "seed": seed}
    everything = np.ones(ratings.n_units, dtype=bool)
    layers = np.array([ratings.criteria[c].layer for c in ratings.unit_criterion.tolist()])
    by_layer = tuple(
        judge_group(data, layers == layer, layer, **options) for layer in sorted(set(layers))
    )
    by_criterion = tuple(
        judge_group(data, ratings.unit_criterion == index, info.code, **options)
        for index, info in enumerate(ratings.criteria)
        if (ratings.unit_criterion == index).any()  # not one graded N/A by everyone
    )
    preference = None
    if judge_family:
        family = np.array([data.item_family[i] for i in ratings.unit_item.tolist()], dtype=object)
        own = family == judge_family
        preference = SelfPreference(
            family=judge_family,
            own=judge_group(data, own, "own family", **options) if own.any() else None,
            others=judge_group(data, ~own, gettext_noop("other families"), **options)
            if (~own).any()
            else None,
        )
    return CalibrationReport(
        judge_name=data.judge_name,
        epsilon=epsilon,
        overall=judge_group(data, everything, "overall", **options),
        by_layer=by_layer,
        by_criterion=by_criterion,
        self_preference=preference,
        stability=stability(data),
        unmatched_units=int((data.judge == MISSING).sum()),
        ordinal=judge_ordinal_criteria(data, n_resamples=n_resamples, seed=seed),
    )


__all__ = [
    "FAIL",
    "MISSING",
    "PASS",
    "CalibrationReport",
    "JudgeData",
    "JudgeScale",
    "ScaleScores",
    "ScaleStability",
    "TurnCalibration",
    "calibration_report",
    "expert_levels",
    "judge_ordinal_criteria",
    "judge_scales",
    "lower_median",
    "scale_stability",
    "turn_calibration",
]
