"""A study's pass/fail ratings as the pure report code takes them: parallel integer arrays
with the criteria, items and raters they index.

Pure: no Django. `agreement.data` builds StudyRatings from the database; the reports, the
1-5 scales, the judge calibration and the leaderboard all read them.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from core.stats import counts_from_pairs

IntArray = npt.NDArray[np.int64]
FAIL, PASS = 0, 1
NA = -1  # a grader's N/A ("does not apply"): no value, counted apart as left out


def _no_grades() -> IntArray:
    return np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class CriterionInfo:
    key: int  # criterion version id
    code: str
    wording: str
    layer: str
    sub_competency: str
    competency: str
    weight: int = 0
    scale: tuple[int, int] | None = None  # (min, max) of an ordinal criterion's levels


@dataclass(frozen=True)
class ItemInfo:
    key: int  # study item id
    task_key: str
    sub_competency: str
    competency: str
    model_family: str = ""
    context: tuple[tuple[str, str], ...] = ()  # (variable label, value label)
    model: str = ""
    difficulty: str = ""
    task_type: str = ""
    language: str = ""  # the task's target language, by name
    response_version: int = 1  # the version of the response the study grades


@dataclass(frozen=True)
class StudyRatings:
    """Every submitted pass/fail rating of a study, as parallel integer arrays."""

    criteria: tuple[CriterionInfo, ...]
    items: tuple[ItemInfo, ...]
    raters: tuple[str, ...]
    unit_item: IntArray  # per unit: index into items
    unit_criterion: IntArray  # per unit: index into criteria
    rating_unit: IntArray  # per rating: index into units
    rating_rater: IntArray  # per rating: index into raters
    rating_value: IntArray  # per rating: FAIL or PASS
    # Every submitted N/A grade, which is no rating: per N/A grade, its item and criterion
    # (reports count them as left out of each table they would have entered).
    na_item: IntArray = field(default_factory=_no_grades)
    na_criterion: IntArray = field(default_factory=_no_grades)
    # Every submitted level on an ordinal criterion (no pass/fail unit: the reports above leave
    # them out; the leaderboard scores them, the judge calibration compares them). Per level:
    # its item, criterion, rater (an index into `raters` + `level_raters`) and level.
    level_item: IntArray = field(default_factory=_no_grades)
    level_criterion: IntArray = field(default_factory=_no_grades)
    level_rater: IntArray = field(default_factory=_no_grades)
    level_value: IntArray = field(default_factory=_no_grades)
    level_raters: tuple[str, ...] = ()  # graders who gave levels only, after `raters`
    # Ratings of tutor turns (load_turn_ratings): per unit, the turn's id; empty otherwise.
    unit_turn: IntArray = field(default_factory=_no_grades)

    @property
    def n_units(self) -> int:
        return int(self.unit_item.size)

    def counts(self) -> IntArray:
        return counts_from_pairs(
            self.rating_unit, self.rating_value, n_units=self.n_units, n_values=2
        )


def ratings_from_rows(
    rows: Sequence[tuple[int, int, int, int]],
    criteria: Sequence[CriterionInfo],
    items: Sequence[ItemInfo],
    raters: Sequence[str],
    levels: Sequence[tuple[int, int, int, int]] = (),
    level_raters: Sequence[str] = (),
) -> StudyRatings:
    """StudyRatings from (item index, criterion index, rater index, value) rows; a row whose
    value is NA is an N/A grade (no unit of its own). `levels`: (item, criterion, rater,
    level) rows on ordinal criteria, whose raters index `raters` + `level_raters`."""
    every = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
    leveled = np.asarray(levels, dtype=np.int64).reshape(-1, 4)
    na = every[every[:, 3] == NA]
    data = every[every[:, 3] != NA]
    pairs = data[:, 0] * max(len(criteria), 1) + data[:, 1]
    unit_keys, rating_unit = np.unique(pairs, return_inverse=True)
    return StudyRatings(
        criteria=tuple(criteria),
        items=tuple(items),
        raters=tuple(raters),
        unit_item=(unit_keys // max(len(criteria), 1)).astype(np.int64),
        unit_criterion=(unit_keys % max(len(criteria), 1)).astype(np.int64),
        rating_unit=rating_unit.astype(np.int64).reshape(-1),
        rating_rater=data[:, 2],
        rating_value=data[:, 3],
        na_item=na[:, 0].copy(),
        na_criterion=na[:, 1].copy(),
        level_item=leveled[:, 0].copy(),
        level_criterion=leveled[:, 1].copy(),
        level_rater=leveled[:, 2].copy(),
        level_value=leveled[:, 3].copy(),
        level_raters=tuple(level_raters),
    )
