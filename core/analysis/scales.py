"""Task-level 1-5 ratings (e.g. "is this task authentic?") and the internal consistency of a
rubric's criteria. Pure: no Django.

The L2-Bench pilot found poor agreement between annotators despite good internal consistency:
showing both side by side is the point of this module.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.analysis.ratings import StudyRatings
from core.messages import gettext_noop
from core.stats import (
    Coefficient,
    Interval,
    alpha_from_counts,
    counts_from_pairs,
    cronbach_alpha,
)
from core.stats.grouped import grouped_intervals

SCALE = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class ScaleRatings:
    """Every submitted 1-5 rating of a study: (study item, scale item, rater, value) rows."""

    prompts: tuple[str, ...]
    item: npt.NDArray[np.int64]
    prompt: npt.NDArray[np.int64]
    rater: npt.NDArray[np.int64]
    value: npt.NDArray[np.int64]  # 1..5

    @classmethod
    def from_rows(
        cls, prompts: Sequence[str], rows: Sequence[tuple[int, int, int, int]]
    ) -> "ScaleRatings":
        data = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
        return cls(tuple(prompts), data[:, 0], data[:, 1], data[:, 2], data[:, 3])


@dataclass(frozen=True)
class ScaleAgreement:
    prompt: str
    n_items: int
    n_ratings: int
    mean: float | None
    sd: float | None
    distribution: tuple[int, ...]  # how many ratings of 1, 2, 3, 4, 5
    alpha_ordinal: Interval
    alpha_interval: Coefficient
    alpha_ratio: Coefficient  # the 1-5 values read as ratios (for studies that report it)


@dataclass(frozen=True)
class Consistency:
    label: str
    n_gradings: int  # complete gradings (respondents)
    n_items: int  # criteria or scale items
    alpha: Coefficient
    n_incomplete: int = 0  # gradings left out: a criterion or item of the group not rated


def scale_agreement(
    ratings: ScaleRatings, *, n_resamples: int = 1000, seed: int = 0
) -> tuple[ScaleAgreement, ...]:
    """Agreement on each 1-5 item: ordinal alpha with a CI (study items resampled), interval
    alpha, and the mean and spread of the ratings."""
    out = []
    for index, prompt in enumerate(ratings.prompts):
        mine = ratings.prompt == index
        items, values = ratings.item[mine], ratings.value[mine]
        _, unit = np.unique(items, return_inverse=True)
        counts = counts_from_pairs(
            unit.reshape(-1), values - 1, n_units=int(unit.max(initial=-1)) + 1, n_values=5
        )
        out.append(
            ScaleAgreement(
                prompt=prompt,
                n_items=int(np.unique(items).size),
                n_ratings=int(values.size),
                mean=float(values.mean()) if values.size else None,
                sd=float(values.std(ddof=1)) if values.size > 1 else None,
                distribution=tuple(int((values == v).sum()) for v in SCALE),
                # BCa over responses, withheld below 20 responses (core.stats.intervals).
                alpha_ordinal=grouped_intervals(
                    counts,
                    np.arange(counts.shape[0]),
                    [np.arange(counts.shape[0])],
                    level="ordinal",
                    n_resamples=n_resamples,
                    seed=seed,
                )[0].alpha,
                alpha_interval=alpha_from_counts(counts, "interval", value_domain=SCALE),
                alpha_ratio=alpha_from_counts(counts, "ratio", value_domain=SCALE),
            )
        )
    return tuple(out)


def _complete_rows(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return matrix[~np.isnan(matrix).any(axis=1)]


def criteria_consistency(ratings: StudyRatings) -> tuple[Consistency, ...]:
    """Cronbach's alpha of pass (1) / fail (0) over criteria, with one grading (one annotator's
    grades of one response) as a respondent: for the universal criteria across all tasks, and
    for each task's whole rubric. Only gradings that rated every criterion of the group count."""
    keys = list(
        zip(
            ratings.unit_item[ratings.rating_unit].tolist(),
            ratings.rating_rater.tolist(),
            strict=True,
        )
    )
    gradings: dict[tuple[int, int], int] = {}
    row = np.array([gradings.setdefault(key, len(gradings)) for key in keys], dtype=np.int64)
    criterion = ratings.unit_criterion[ratings.rating_unit]
    matrix = np.full((len(gradings), len(ratings.criteria)), np.nan)
    matrix[row, criterion] = ratings.rating_value

    groups: list[tuple[str, npt.NDArray[np.bool_], npt.NDArray[np.int64]]] = []
    # A criterion graded N/A by everyone has no rating and no column to be complete on.
    rated = np.bincount(criterion, minlength=len(ratings.criteria)) > 0
    universal = np.array([c.layer == "universal" for c in ratings.criteria], dtype=bool) & rated
    grading_items = np.array([item for item, _ in gradings], dtype=np.int64)
    groups.append(("universal criteria, all tasks", universal, np.arange(len(gradings))))
    task_of_item = np.array([item.task_key for item in ratings.items], dtype=object)
    for task in sorted(set(task_of_item.tolist())):
        rows = np.flatnonzero(task_of_item[grading_items] == task) if gradings else np.empty(0, int)
        used = ~np.isnan(matrix[rows]).all(axis=0) if rows.size else np.zeros(0, np.bool_)
        groups.append((f"task {task}", used, rows))
    out = []
    for label, columns, rows in groups:
        if not columns.any() or rows.size == 0:
            continue
        complete = _complete_rows(matrix[np.ix_(rows, np.flatnonzero(columns))])
        n = int(complete.shape[0])
        out.append(
            Consistency(label, n, int(columns.sum()), cronbach_alpha(complete), rows.size - n)
        )
    return tuple(out)


def scale_consistency(ratings: ScaleRatings) -> Consistency | None:
    """Cronbach's alpha across the 1-5 items, one grading as a respondent (None for < 2 items)."""
    if len(ratings.prompts) < 2:
        return None
    keys = sorted(set(zip(ratings.item.tolist(), ratings.rater.tolist(), strict=True)))
    index = {key: n for n, key in enumerate(keys)}
    matrix = np.full((len(keys), len(ratings.prompts)), np.nan)
    for item, rater, prompt, value in zip(
        ratings.item.tolist(),
        ratings.rater.tolist(),
        ratings.prompt.tolist(),
        ratings.value.tolist(),
        strict=True,
    ):
        matrix[index[(item, rater)], prompt] = value
    complete = _complete_rows(matrix)
    n = int(complete.shape[0])
    return Consistency(
        gettext_noop("task-level ratings"),
        n,
        len(ratings.prompts),
        cronbach_alpha(complete),
        len(keys) - n,
    )
