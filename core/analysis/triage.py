"""Triage: the units where a judge run disagrees with the experts, most important first.

Pure: numpy arrays and dataclasses in, frozen dataclasses out; no Django. `agreement.data`
builds the inputs from the database.

A unit is in the queue when the run gave a verdict (an unparseable answer is not a
disagreement: it is counted apart) and that verdict differs from the experts' strict
majority or from the adjudicated gold verdict. The queue is ordered by the criterion's weight
(its absolute value: a heavy penalty matters as much as a heavy reward), then by how much the
unit moves the criterion's "validated" verdict for the judge: Krippendorff's alpha of the
experts with the judge as one more rater, on the criterion's units, if the judge had agreed
with the reference on this unit (gold where adjudicated, else the majority) minus alpha as it
is. A unit whose correction alone lifts that alpha across the study's validation threshold
comes first among units of equal weight, on a criterion with the units the agreement report
needs to validate it (the study's minimum of units graded by two experts or more); on one
with fewer, no correction validates it yet, and the unit says so.

Two lists sit beside the queue: on ordinal criteria, the responses where the run's level
differs from the experts' strict majority level or the gold level (level_triage); on
turn-level criteria judged turn by turn, the tutor turns where its verdict differs from the
experts' majority on that turn (turn_triage), a disagreement the dialogue's folded verdict
can hide.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.analysis.calibration import MISSING, FloatArray, expert_levels, experts_matrix
from core.analysis.ratings import IntArray, StudyRatings
from core.analysis.reports import DEFAULT_MINIMUM_UNITS
from core.stats import alpha_from_counts, majority_reference


@dataclass(frozen=True)
class TriageUnit:
    unit: int  # index into the ratings' units
    criterion: int  # index into ratings.criteria
    item: int  # index into ratings.items
    verdict: int  # the judge's: FAIL or PASS
    majority: int  # the experts' strict majority, MISSING when tied
    gold: int  # the adjudicated verdict, MISSING when none
    weight: int
    alpha_now: float | None  # alpha of experts + judge on the criterion's units
    alpha_gain: float | None  # how much alpha rises if the judge agreed on this unit
    crosses_threshold: bool  # that rise alone would reach the validation threshold
    n_experts: int = 0  # the experts who graded this unit
    n_units: int = 0  # the criterion's units graded by two experts or more
    minimum_units: int = DEFAULT_MINIMUM_UNITS  # below which no criterion is validated

    @property
    def too_few_units(self) -> bool:
        """No alpha validates this criterion yet, whatever this unit's correction: the
        agreement report calls no criterion validated on fewer units (reports.criterion_verdict)."""
        return self.n_units < self.minimum_units

    @property
    def reference(self) -> int:
        return self.gold if self.gold != MISSING else self.majority


def _alpha(counts: IntArray) -> float | None:
    return alpha_from_counts(counts).value


def triage_queue(
    ratings: StudyRatings,
    judge: IntArray,
    gold: IntArray,
    *,
    threshold: float,
    minimum_units: int = DEFAULT_MINIMUM_UNITS,
) -> tuple[TriageUnit, ...]:
    """The disagreeing units of one run, in triage order (see the module docstring).

    `judge` is the run's verdict per unit (FAIL, PASS; anything negative is no verdict),
    `gold` the adjudicated verdict per unit (MISSING where none)."""
    everything = np.arange(ratings.n_units)
    majority = majority_reference(experts_matrix(ratings, everything))
    if majority.size == 0:
        majority = np.full(ratings.n_units, MISSING, dtype=np.int64)
    answered = judge >= 0
    disagrees = disagreeing(judge, majority, gold)
    expert_counts = ratings.counts()
    graders = expert_counts.sum(axis=1)
    out = []
    for criterion in np.unique(ratings.unit_criterion[disagrees]).tolist():
        paired = int(((ratings.unit_criterion == criterion) & (graders >= 2)).sum())
        units = np.flatnonzero((ratings.unit_criterion == criterion) & answered)
        counts = expert_counts[units].copy()
        counts[np.arange(units.size), judge[units]] += 1
        now = _alpha(counts)
        weight = ratings.criteria[criterion].weight
        for position in np.flatnonzero(disagrees[units]).tolist():
            unit = int(units[position])
            reference = gold[unit] if gold[unit] != MISSING else majority[unit]
            fixed = counts.copy()
            fixed[position, judge[unit]] -= 1
            fixed[position, reference] += 1
            after = _alpha(fixed)
            gain = None if now is None or after is None else after - now
            out.append(
                TriageUnit(
                    unit=unit,
                    criterion=criterion,
                    item=int(ratings.unit_item[unit]),
                    verdict=int(judge[unit]),
                    majority=int(majority[unit]),
                    gold=int(gold[unit]),
                    weight=weight,
                    alpha_now=now,
                    alpha_gain=gain,
                    crosses_threshold=(
                        paired >= minimum_units
                        and after is not None
                        and after >= threshold
                        and (now is None or now < threshold)
                    ),
                    n_experts=int(graders[unit]),
                    n_units=paired,
                    minimum_units=minimum_units,
                )
            )
    out.sort(key=_order)
    return tuple(out)


def _order(unit: TriageUnit) -> tuple[int, bool, float, int, int]:
    gain = unit.alpha_gain if unit.alpha_gain is not None else -np.inf  # unknown gain last
    return (-abs(unit.weight), not unit.crosses_threshold, -gain, unit.criterion, unit.item)


def disagreeing(judge: IntArray, majority: IntArray, gold: IntArray) -> npt.NDArray[np.bool_]:
    """Units where a verdict differs from the strict majority or from gold."""
    answered: npt.NDArray[np.bool_] = judge >= 0
    against_majority = (majority != MISSING) & (judge != majority)
    against_gold = (gold != MISSING) & (judge != gold)
    found: npt.NDArray[np.bool_] = answered & (against_majority | against_gold)
    return found


@dataclass(frozen=True)
class LevelDisagreement:
    """A response where the run's level on an ordinal criterion differs from the experts'
    strict majority level or from the adjudicated gold level."""

    pair: int  # row of the (item, criterion) level pairs
    criterion: int  # index into ratings.criteria
    item: int  # index into ratings.items
    level: int  # the judge's
    experts: tuple[int, ...]  # the levels the experts gave, lowest first
    majority: int | None  # the experts' strict majority level, None when there is none
    gold: int | None  # the adjudicated level, None when none
    weight: int

    @property
    def reference(self) -> int | None:
        return self.gold if self.gold is not None else self.majority

    @property
    def distance(self) -> int | None:
        """The judge's level minus the reference level (gold where adjudicated)."""
        return None if self.reference is None else self.level - self.reference


def level_triage(
    ratings: StudyRatings,
    level_pairs: IntArray,
    judge_levels: FloatArray,
    gold_levels: FloatArray,
) -> tuple[LevelDisagreement, ...]:
    """The responses where the run's level (per row of `level_pairs`, NaN where none) differs
    from the experts' strict majority level or from the gold level (NaN where none): heaviest
    criterion first, then the widest miss."""
    experts = expert_levels(ratings, level_pairs)
    out = []
    for pair in np.flatnonzero(~np.isnan(judge_levels)).tolist():
        given = np.sort(experts[:, pair][~np.isnan(experts[:, pair])]).astype(np.int64)
        values, votes = np.unique(given, return_counts=True)
        unique_top = votes.size > 0 and int((votes == votes.max()).sum()) == 1
        majority = int(values[votes.argmax()]) if unique_top else None
        gold = None if np.isnan(gold_levels[pair]) else int(gold_levels[pair])
        level = int(judge_levels[pair])
        if (majority is None or level == majority) and (gold is None or level == gold):
            continue
        criterion = int(level_pairs[pair, 1])
        out.append(
            LevelDisagreement(
                pair=pair,
                criterion=criterion,
                item=int(level_pairs[pair, 0]),
                level=level,
                experts=tuple(given.tolist()),
                majority=majority,
                gold=gold,
                weight=ratings.criteria[criterion].weight,
            )
        )
    out.sort(key=lambda d: (-abs(d.weight), -abs(d.distance or 0), d.criterion, d.item))
    return tuple(out)


@dataclass(frozen=True)
class TurnDisagreement:
    """A tutor turn where the run's verdict on a turn-level criterion differs from the
    experts' strict majority on that turn."""

    unit: int  # index into the turns' units
    criterion: int  # index into turns.criteria
    item: int  # index into turns.items
    turn: int  # the turn's id
    verdict: int  # the judge's: FAIL or PASS
    majority: int  # the experts': FAIL or PASS
    n_experts: int  # the experts who graded the turn
    weight: int


def turn_triage(turns: StudyRatings, judge: IntArray) -> tuple[TurnDisagreement, ...]:
    """The turns (units of `turns`, load_turn_ratings) where `judge` (FAIL or PASS; anything
    negative is no verdict) differs from the experts' strict majority, heaviest criterion
    first, then by dialogue and turn."""
    majority = majority_reference(experts_matrix(turns, np.arange(turns.n_units)))
    if majority.size == 0:
        return ()
    graders = turns.counts().sum(axis=1)
    differs = (judge >= 0) & (majority != MISSING) & (judge != majority)
    out = [
        TurnDisagreement(
            unit=unit,
            criterion=int(turns.unit_criterion[unit]),
            item=int(turns.unit_item[unit]),
            turn=int(turns.unit_turn[unit]),
            verdict=int(judge[unit]),
            majority=int(majority[unit]),
            n_experts=int(graders[unit]),
            weight=turns.criteria[int(turns.unit_criterion[unit])].weight,
        )
        for unit in np.flatnonzero(differs).tolist()
    ]
    out.sort(key=lambda d: (-abs(d.weight), d.criterion, d.item, d.turn))
    return tuple(out)


__all__ = [
    "LevelDisagreement",
    "TriageUnit",
    "TurnDisagreement",
    "disagreeing",
    "level_triage",
    "triage_queue",
    "turn_triage",
]
