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
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.analysis.calibration import MISSING, experts_matrix
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


__all__ = ["TriageUnit", "disagreeing", "triage_queue"]
