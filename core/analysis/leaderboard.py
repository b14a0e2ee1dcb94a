"""Model leaderboard of a study: each model's L2-Bench score by the experts and by the judge.

Pure: no Django. Scores follow core.scoring (the L2-Bench formula; a criterion a grader left
N/A counts in neither sum; a level on an ordinal criterion earns weight x (level - min) /
(max - min); negative task scores are clipped to 0 when averaged), as the score export does.
A response's expert score is the mean of its graders' task scores, so every expert's grading
counts and no majority has to break ties. Intervals: Wilson-type at the responses' effective n
(`core.stats.intervals.mean_bounds`, chosen by simulated coverage: docs/statistics.md),
withheld below `MINIMUM_RESPONSES` responses with the reason.

Prediction-powered scores (`PredictionPowered`, given `JudgedResponses`): each model's score
estimated from the judge's scores of every response the run judged, corrected by the responses
the experts scored (PPI++, `core.stats.ppi.ppi_mean`). A response's judge value there is its
score from every verdict the run gave on it (first epoch), the same rule for the responses the
experts graded and for the others, as PPI needs; docs/statistics.md says what each figure is.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from core.analysis.calibration import MISSING, JudgeData
from core.analysis.ratings import CriterionInfo, IntArray, ItemInfo, StudyRatings
from core.scoring import Judgement, outcome, task_score
from core.stats.intervals import mean_bounds, too_few_responses
from core.stats.ppi import PPIMean, ppi_mean

FloatArray = npt.NDArray[np.float64]


SCORE_METHOD = "Wilson-type, effective n of responses"


@dataclass(frozen=True)
class Score:
    """A model's mean score over its scored responses (n = `n_responses`), with its 95%
    interval; `unreliable_reason` says why the interval is withheld (too few responses)."""

    mean: float | None
    low: float | None
    high: float | None
    n_responses: int
    unreliable_reason: str | None = None


#: Below this tuned lambda the judge's scores barely move the estimate: PPI++ has fallen back
#: to (about) the experts' mean alone, and the leaderboard says so.
EXPERTS_ALONE_LAMBDA = 0.05


@dataclass(frozen=True)
class PredictionPowered:
    """A model's prediction-powered score (`score`: estimate, interval, the tuned lambda, n
    labelled and unlabelled), the judge's own mean over the same responses (`judge_only`,
    n = labelled + unlabelled) and `effective_n`: how many expert-scored responses alone
    would give the same standard error (Var(Y) / se^2; None when either is 0)."""

    score: PPIMean
    judge_only: Score
    effective_n: float | None

    @property
    def gain(self) -> int | None:
        """The judge-only responses' worth in expert-scored responses: effective n minus the
        responses the experts scored (never below 0)."""
        if self.effective_n is None:
            return None
        return max(round(self.effective_n) - self.score.n_labeled, 0)

    @property
    def experts_alone(self) -> bool:
        """PPI++ gave the judge (about) no weight: the estimate is the experts' mean."""
        return self.score.lam < EXPERTS_ALONE_LAMBDA


@dataclass(frozen=True)
class JudgedResponses:
    """Every response a judge run judged (first epoch, whole responses) as ratings by one
    rater, the judge: `ratings.items` are responses (keyed by response id), possibly far more
    than the study grades. `of_study_item`: per item of the study's ratings, the index in
    `ratings.items` of the same response, -1 where the run did not judge it."""

    ratings: StudyRatings
    of_study_item: IntArray
    # Per item of the study's ratings, its inclusion probability in a study sampled for the
    # judge's scores (NaN: not drawn by it, taken as 1); None when the study was not sampled.
    inclusion_probability: FloatArray | None = None


@dataclass(frozen=True)
class ModelRow:
    model: str
    experts: Score
    judge: Score | None
    n_graded: int = 0  # the model's responses with an expert grade (N/A included)
    ppi: PredictionPowered | None = None

    @property
    def n_unscored(self) -> int:
        """Graded responses left out of the experts' score: every criterion N/A (or only
        criteria without a positive weight), so the L2-Bench formula has no denominator."""
        return max(self.n_graded - self.experts.n_responses, 0)

    @property
    def gap(self) -> float | None:
        """Judge score minus expert score (positive: the judge scores the model higher)."""
        if self.judge is None or self.judge.mean is None or self.experts.mean is None:
            return None
        return self.judge.mean - self.experts.mean


@dataclass(frozen=True)
class Breakdown:
    label: str
    rows: tuple[ModelRow, ...]


@dataclass(frozen=True)
class Leaderboard:
    judge_name: str | None
    rows: tuple[ModelRow, ...]
    breakdowns: tuple[tuple[str, tuple[Breakdown, ...]], ...]  # (dimension, groups)


def score_of(values: list[float]) -> Score:
    """The mean of a model's response scores (clipped at 0) with its Wilson-type interval,
    withheld below `MINIMUM_RESPONSES` responses with the reason."""
    if not values:
        return Score(None, None, None, 0)
    data = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    mean, low, high = mean_bounds(data)
    unreliable = too_few_responses(int(data.size))
    if unreliable is not None or np.isnan(low):
        return Score(mean, None, None, int(data.size), unreliable)
    return Score(mean, low, high, int(data.size))


def response_scores(
    ratings: StudyRatings,
    unit_mask: npt.NDArray[np.bool_],
    judge: JudgeData | None,
    level_mask: npt.NDArray[np.bool_] | None = None,
    judge_level_mask: npt.NDArray[np.bool_] | None = None,
) -> tuple[dict[int, float], dict[int, float]]:
    """(expert score, judge score) per item index, over the units in `unit_mask` and the
    levels in `level_mask` (every level when None; `judge_level_mask` selects among
    `judge.level_pairs`, every one when None). A level earns weight x (level - min) /
    (max - min), through core.scoring as the grade and score exports do."""
    criteria = ratings.criteria
    per_grading: dict[tuple[int, int], list[Judgement]] = {}
    keep = unit_mask[ratings.rating_unit]
    for unit, rater, value in zip(
        ratings.rating_unit[keep].tolist(),
        ratings.rating_rater[keep].tolist(),
        ratings.rating_value[keep].tolist(),
        strict=True,
    ):
        item, criterion = int(ratings.unit_item[unit]), int(ratings.unit_criterion[unit])
        per_grading.setdefault((item, rater), []).append(
            Judgement(criteria[criterion].weight, bool(value))
        )
    levels = np.ones(ratings.level_item.size, dtype=bool) if level_mask is None else level_mask
    for item, criterion, rater, level in zip(
        ratings.level_item[levels].tolist(),
        ratings.level_criterion[levels].tolist(),
        ratings.level_rater[levels].tolist(),
        ratings.level_value[levels].tolist(),
        strict=True,
    ):
        per_grading.setdefault((item, rater), []).append(_leveled(criteria[criterion], level))
    by_item: dict[int, list[float]] = {}
    for (item, _), judgements in per_grading.items():
        score = task_score(judgements).value
        if score is not None:
            by_item.setdefault(item, []).append(score)
    experts = {item: float(np.mean(scores)) for item, scores in by_item.items()}
    judged: dict[int, float] = {}
    if judge is not None:
        per_item: dict[int, list[Judgement]] = {}
        for unit in np.flatnonzero(unit_mask & (judge.judge != MISSING)).tolist():
            item, criterion = int(ratings.unit_item[unit]), int(ratings.unit_criterion[unit])
            per_item.setdefault(item, []).append(
                Judgement(criteria[criterion].weight, bool(judge.judge[unit]))
            )
        first = judge.judge_levels[0] if judge.judge_levels.size else np.empty(0)
        pairs = ~np.isnan(first)
        if judge_level_mask is not None:
            pairs &= judge_level_mask
        for (item, criterion), level in zip(
            judge.level_pairs[pairs].tolist(), first[pairs].tolist(), strict=True
        ):
            per_item.setdefault(item, []).append(_leveled(criteria[criterion], int(level)))
        for item, judgements in per_item.items():
            score = task_score(judgements).value
            if score is not None:
                judged[item] = score
    return experts, judged


def _leveled(criterion: CriterionInfo, level: int) -> Judgement:
    """A level on an ordinal criterion as core.scoring judges it."""
    return Judgement(criterion.weight, outcome("", level, criterion.scale))


@dataclass(frozen=True)
class _Masks:
    """Which units, N/A grades, levels and judge levels (`JudgeData.level_pairs`) a row uses."""

    units: npt.NDArray[np.bool_]
    na: npt.NDArray[np.bool_]
    levels: npt.NDArray[np.bool_]
    judge_levels: npt.NDArray[np.bool_] | None
    # The units and levels of `JudgedResponses.ratings` (the prediction-powered scores).
    judged_units: npt.NDArray[np.bool_] | None = None
    judged_levels: npt.NDArray[np.bool_] | None = None


def prediction_powered(
    labels: Sequence[float],
    judge_on_labeled: Sequence[float],
    judge_on_unlabeled: Sequence[float],
    probabilities: Sequence[float] | None = None,
    judge_elsewhere: Sequence[float] = (),
) -> PredictionPowered | None:
    """A model's prediction-powered score (PPI++, tuned lambda, score interval) from the
    experts' and the judge's scores of the responses both scored, in the same order, and the
    judge's scores of the responses it alone scored. Scores are clipped at 0, as the
    leaderboard averages them. None with fewer than two responses scored by both or none by
    the judge alone: the estimator needs both.

    ``probabilities``: each labelled response's inclusion probability, when they were drawn by
    the judge's uncertainty (a study sampled for the judge's scores). Each expert grade then
    weighs ``1 / p`` (scaled to average 1, as ``ppi_mean`` scales weights), and the judge's
    mean is taken over every response it scored, the labelled ones, ``judge_elsewhere`` (the
    study's other responses, drawn but not yet scored) and the unlabelled ones: the drawn
    responses are the judge's doubtful ones, so the undrawn alone would tilt its mean.
    """
    y = np.clip(np.asarray(labels, dtype=np.float64), 0.0, None)
    f = np.clip(np.asarray(judge_on_labeled, dtype=np.float64), 0.0, None)
    f_u = np.clip(np.asarray(judge_on_unlabeled, dtype=np.float64), 0.0, None)
    if y.size < 2 or f_u.size < 1:
        return None
    if probabilities is None:
        found = ppi_mean(y, f, f_u)
        variance = float(np.var(y))
        judged = [*f.tolist(), *f_u.tolist()]
    else:
        w = 1.0 / np.asarray(probabilities, dtype=np.float64)
        elsewhere = np.clip(np.asarray(judge_elsewhere, dtype=np.float64), 0.0, None)
        population = np.concatenate([f, elsewhere, f_u])
        found = replace(
            ppi_mean(y, f, population, weights=w), n_unlabeled=int(f_u.size + elsewhere.size)
        )
        # The population's variance of the experts' scores, each grade weighing 1 / p.
        variance = float(np.average((y - np.average(y, weights=w)) ** 2, weights=w))
        judged = population.tolist()
    # The experts alone, drawn at random, have se^2 = Var(Y) / n (ppi_mean at lambda 0): the
    # n that gives the prediction-powered se is Var(Y) / se^2.
    se = found.standard_error
    effective = variance / se**2 if variance > 0 and se > 0 else None
    return PredictionPowered(found, score_of(judged), effective)


def _ppi_rows(
    ratings: StudyRatings,
    experts: dict[int, float],
    judged: JudgedResponses,
    masks: _Masks,
) -> dict[str, PredictionPowered | None]:
    """Each model's prediction-powered score over the criteria and responses in `masks`:
    labelled, the study's responses with an expert score and a judge score; unlabelled, the
    responses the run judged that no expert graded in the study."""
    scores = single_rater_scores(
        judged.ratings, _given(masks.judged_units), _given(masks.judged_levels)
    )
    in_study = {int(j) for j in judged.of_study_item.tolist() if j >= 0}
    labeled: dict[str, tuple[list[float], list[float]]] = {}
    for i, value in experts.items():
        j = int(judged.of_study_item[i])
        if j >= 0 and j in scores:
            y, f = labeled.setdefault(ratings.items[i].model, ([], []))
            y.append(value)
            f.append(scores[j])
    unlabeled: dict[str, list[float]] = {}
    for j, value in scores.items():
        if j not in in_study:
            unlabeled.setdefault(judged.ratings.items[j].model, []).append(value)
    if judged.inclusion_probability is None:
        return {
            model: prediction_powered(y, f, unlabeled.get(model, []))
            for model, (y, f) in labeled.items()
        }
    # Sampled for the judge's scores: each labelled response's inclusion probability (1 for
    # one added otherwise: it was certain to be graded), and the judge's scores of the study's
    # responses not labelled, which belong to the population its mean is taken over.
    probability: dict[str, list[float]] = {}
    labeled_at: set[int] = set()
    for i in experts:
        j = int(judged.of_study_item[i])
        if j >= 0 and j in scores:
            p = float(judged.inclusion_probability[i])
            probability.setdefault(ratings.items[i].model, []).append(1.0 if np.isnan(p) else p)
            labeled_at.add(j)
    elsewhere: dict[str, list[float]] = {}
    for j in sorted(in_study - labeled_at):
        if j in scores:
            elsewhere.setdefault(judged.ratings.items[j].model, []).append(scores[j])
    return {
        model: prediction_powered(
            y, f, unlabeled.get(model, []), probability[model], elsewhere.get(model, [])
        )
        for model, (y, f) in labeled.items()
    }


def single_rater_scores(
    ratings: StudyRatings, unit_mask: npt.NDArray[np.bool_], level_mask: npt.NDArray[np.bool_]
) -> dict[int, float]:
    """Each item's task score from the ratings and levels (one rater's: the judge's) in the
    masks, as `response_scores` gives it but without a loop over the ratings: a task score's
    sums add over its judgements (core.scoring.task_score), so each (criterion, value) is
    scored once and the sums are taken per item. Thousands of judged responses are scored in
    each group of the leaderboard."""
    criteria = ratings.criteria
    keep = unit_mask[ratings.rating_unit]
    rated = ratings.rating_unit[keep]
    kinds = np.concatenate(
        [
            np.stack([ratings.unit_criterion[rated], ratings.rating_value[keep], 0 * rated], 1),
            np.stack(
                [
                    ratings.level_criterion[level_mask],
                    ratings.level_value[level_mask],
                    1 + 0 * ratings.level_criterion[level_mask],
                ],
                1,
            ),
        ]
    ).reshape(-1, 3)
    items = np.concatenate([ratings.unit_item[rated], ratings.level_item[level_mask]])
    if not items.size:
        return {}
    unique, which = np.unique(kinds, axis=0, return_inverse=True)
    parts = [
        task_score(
            [_leveled(criteria[c], v) if leveled else Judgement(criteria[c].weight, bool(v))]
        )
        for c, v, leveled in unique.tolist()
    ]
    earned = np.array([p.earned for p in parts])[which.reshape(-1)]
    possible = np.array([p.possible for p in parts], dtype=np.float64)[which.reshape(-1)]
    size = len(ratings.items)
    earned_sum = np.bincount(items, weights=earned, minlength=size)
    possible_sum = np.bincount(items, weights=possible, minlength=size)
    scored = np.flatnonzero(possible_sum > 0)
    return dict(
        zip(scored.tolist(), (earned_sum[scored] / possible_sum[scored]).tolist(), strict=True)
    )


def _given(mask: npt.NDArray[np.bool_] | None) -> npt.NDArray[np.bool_]:
    assert mask is not None  # set whenever judged responses are
    return mask


def _rows(
    ratings: StudyRatings,
    judge: JudgeData | None,
    masks: _Masks,
    judged: JudgedResponses | None = None,
) -> tuple[ModelRow, ...]:
    """Each model's row over the units, levels and N/A grades in `masks` (N/A grades on
    responses that may have no score: every criterion N/A)."""
    experts, judged_scores = response_scores(
        ratings, masks.units, judge, masks.levels, masks.judge_levels
    )
    ppi = _ppi_rows(ratings, experts, judged, masks) if judged is not None else {}
    graded = set(ratings.unit_item[masks.units].tolist())
    graded |= set(ratings.na_item[masks.na].tolist())
    graded |= set(ratings.level_item[masks.levels].tolist())
    models = sorted(
        {ratings.items[i].model for i in graded} | {ratings.items[i].model for i in judged_scores}
    )
    rows = []
    for model in models:
        mine = [i for i, item in enumerate(ratings.items) if item.model == model]
        rows.append(
            ModelRow(
                model=model,
                experts=score_of([experts[i] for i in mine if i in experts]),
                judge=score_of([judged_scores[i] for i in mine if i in judged_scores])
                if judge is not None
                else None,
                n_graded=sum(1 for i in mine if i in graded),
                ppi=ppi.get(model),
            )
        )
    return tuple(sorted(rows, key=lambda r: -(r.experts.mean or 0.0)))


def leaderboard(
    ratings: StudyRatings,
    judge: JudgeData | None = None,
    judged: JudgedResponses | None = None,
) -> Leaderboard:
    """Each model's scores overall and in each breakdown; with `judged` (the run's verdicts on
    every response it judged), each row's prediction-powered score too."""
    pairs = judge.level_pairs if judge is not None else np.empty((0, 2), dtype=np.int64)
    # (items, criteria, whose ratings): the places a group selects from.
    places = [
        (ratings.unit_item, ratings.unit_criterion, ratings),
        (ratings.na_item, ratings.na_criterion, ratings),
        (ratings.level_item, ratings.level_criterion, ratings),
        (pairs[:, 0], pairs[:, 1], ratings),
    ]
    if judged is not None:
        found = judged.ratings
        places.append((found.unit_item, found.unit_criterion, found))
        places.append((found.level_item, found.level_criterion, found))

    def labels_of(
        label: Callable[[CriterionInfo, ItemInfo], str],
        items: IntArray,
        criteria: IntArray,
        where: StudyRatings,
    ) -> npt.NDArray[np.object_]:
        return np.array(
            [
                label(where.criteria[c], where.items[i])
                for i, c in zip(items.tolist(), criteria.tolist(), strict=True)
            ],
            dtype=object,
        )

    def masks(keep: list[npt.NDArray[np.bool_]]) -> _Masks:
        return _Masks(
            keep[0],
            keep[1],
            keep[2],
            keep[3] if judge is not None else None,
            keep[4] if judged is not None else None,
            keep[5] if judged is not None else None,
        )

    def rows(keep: list[npt.NDArray[np.bool_]]) -> tuple[ModelRow, ...]:
        return _rows(ratings, judge, masks(keep), judged)

    def by_unit(label: Callable[[CriterionInfo, ItemInfo], str]) -> tuple[Breakdown, ...]:
        labels = [labels_of(label, *place) for place in places]
        # Groups of graded units and levels (one holding only N/A grades has no score).
        keys = sorted({k for found in (labels[0], labels[2]) for k in found.tolist() if k})
        return tuple(Breakdown(key, rows([found == key for found in labels])) for key in keys)

    def in_context(label: str, items: IntArray, where: StudyRatings) -> npt.NDArray[np.bool_]:
        return np.array(
            [label in {f"{n}: {v}" for n, v in where.items[i].context} for i in items.tolist()],
            dtype=bool,
        )

    contexts = sorted({f"{n}: {v}" for item in ratings.items for n, v in item.context})
    by_context = tuple(
        Breakdown(label, rows([in_context(label, items, where) for items, _, where in places]))
        for label in contexts
    )
    everything = [np.ones(items.size, dtype=bool) for items, _, _ in places]
    return Leaderboard(
        judge_name=judge.judge_name if judge is not None else None,
        rows=rows(everything),
        breakdowns=(
            ("Competency", by_unit(lambda c, i: i.competency)),
            ("Layer", by_unit(lambda c, i: c.layer)),
            ("Difficulty", by_unit(lambda c, i: i.difficulty)),
            ("Task type", by_unit(lambda c, i: i.task_type)),
            ("Language", by_unit(lambda c, i: i.language)),
            ("Context value", by_context),
        ),
    )
