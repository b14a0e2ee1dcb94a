"""Model leaderboard of a study: each model's L2-Bench score by the experts and by the judge.

Pure: no Django. Scores follow rubrics.scoring (the L2-Bench formula; a criterion a grader left
N/A counts in neither sum; negative task scores are clipped to 0 when averaged). A response's
expert score is the mean of its graders' task scores, so every expert's grading counts and no
majority has to break ties. Intervals: percentile bootstrap over the model's responses.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agreement.analysis.calibration import MISSING, JudgeData
from agreement.analysis.ratings import CriterionInfo, ItemInfo, StudyRatings
from rubrics.scoring import Judgement, task_score

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Score:
    mean: float | None
    low: float | None
    high: float | None
    n_responses: int


@dataclass(frozen=True)
class ModelRow:
    model: str
    experts: Score
    judge: Score | None

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


def _score(values: list[float], *, n_resamples: int, seed: int) -> Score:
    if not values:
        return Score(None, None, None, 0)
    data = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    if data.size < 2:
        return Score(float(data.mean()), None, None, int(data.size))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(n_resamples, data.size))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return Score(float(data.mean()), float(low), float(high), int(data.size))


def response_scores(
    ratings: StudyRatings, unit_mask: npt.NDArray[np.bool_], judge: JudgeData | None
) -> tuple[dict[int, float], dict[int, float]]:
    """(expert score, judge score) per item index, over the units in `unit_mask`."""
    weights = np.array([c.weight for c in ratings.criteria], dtype=np.int64)
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
            Judgement(int(weights[criterion]), bool(value))
        )
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
                Judgement(int(weights[criterion]), bool(judge.judge[unit]))
            )
        for item, judgements in per_item.items():
            score = task_score(judgements).value
            if score is not None:
                judged[item] = score
    return experts, judged


def _rows(
    ratings: StudyRatings,
    unit_mask: npt.NDArray[np.bool_],
    judge: JudgeData | None,
    *,
    n_resamples: int,
    seed: int,
) -> tuple[ModelRow, ...]:
    experts, judged = response_scores(ratings, unit_mask, judge)
    models = sorted(
        {ratings.items[i].model for i in experts} | {ratings.items[i].model for i in judged}
    )
    rows = []
    for model in models:
        mine = [i for i, item in enumerate(ratings.items) if item.model == model]
        rows.append(
            ModelRow(
                model=model,
                experts=_score(
                    [experts[i] for i in mine if i in experts], n_resamples=n_resamples, seed=seed
                ),
                judge=_score(
                    [judged[i] for i in mine if i in judged], n_resamples=n_resamples, seed=seed
                )
                if judge is not None
                else None,
            )
        )
    return tuple(sorted(rows, key=lambda r: -(r.experts.mean or 0.0)))


def leaderboard(
    ratings: StudyRatings,
    judge: JudgeData | None = None,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Leaderboard:
    everything = np.ones(ratings.n_units, dtype=bool)
    options = {"n_resamples": n_resamples, "seed": seed}

    def by_unit(label: Callable[[CriterionInfo, ItemInfo], str]) -> tuple[Breakdown, ...]:
        labels = np.array(
            [
                label(ratings.criteria[c], ratings.items[i])
                for i, c in zip(
                    ratings.unit_item.tolist(), ratings.unit_criterion.tolist(), strict=True
                )
            ],
            dtype=object,
        )
        return tuple(
            Breakdown(key, _rows(ratings, labels == key, judge, **options))
            for key in sorted({k for k in labels.tolist() if k})
        )

    contexts = sorted({f"{n}: {v}" for item in ratings.items for n, v in item.context})
    by_context = tuple(
        Breakdown(
            label,
            _rows(
                ratings,
                np.array(
                    [
                        label in {f"{n}: {v}" for n, v in ratings.items[i].context}
                        for i in ratings.unit_item.tolist()
                    ],
                    dtype=bool,
                ),
                judge,
                **options,
            ),
        )
        for label in contexts
    )
    return Leaderboard(
        judge_name=judge.judge_name if judge is not None else None,
        rows=_rows(ratings, everything, judge, **options),
        breakdowns=(
            ("Competency", by_unit(lambda c, i: i.competency)),
            ("Layer", by_unit(lambda c, i: c.layer)),
            ("Difficulty", by_unit(lambda c, i: i.difficulty)),
            ("Task type", by_unit(lambda c, i: i.task_type)),
            ("Language", by_unit(lambda c, i: i.language)),
            ("Context value", by_context),
        ),
    )
