"""L2-Bench scoring, free of Django so it can be reused from a notebook or an import script.

The formula follows the L2-Bench reference pipeline (`elt_bench_eval`, see docs/rubrics.md):

    task_score = sum(weight of every criterion judged true) / sum(weight of every criterion > 0)

Weights are integers; a negative weight names an undesirable behaviour, and "judged true" for
such a criterion means the behaviour is present, so its weight is subtracted. Criteria that are
not applicable (excluded from the task, or judged N/A) take no part in either sum.

A turn-level criterion (an extension of this project for dialogues) is judged on each tutor
turn; its outcome for the response follows the criterion's rule (`turn_outcome`): true when it
is true of every turn ("all"), of at least a share of the turns ("share", a percentage) or of
any turn ("any"). Turns judged N/A take no part; a criterion N/A on every turn is N/A.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

# How a verdict reads to a grader. Every criterion stores "pass", "fail" or "na"; on a penalty
# "pass" is "judged true": the behaviour is present and its weight is subtracted. So a penalty's
# choices say what was found, and the finding that needs a reason is the one against the
# response: Fail on an ordinary criterion, Present on a penalty.
VERDICT_LABELS = {"pass": "Pass", "fail": "Fail", "na": "N/A"}
PENALTY_LABELS = {"pass": "Present", "fail": "Absent", "na": "N/A"}


def verdict_labels(*, penalty: bool) -> dict[str, str]:
    """The label of each stored verdict ("pass", "fail", "na"), in that order."""
    return PENALTY_LABELS if penalty else VERDICT_LABELS


def verdict_label(verdict: str, *, penalty: bool) -> str:
    """How `verdict` reads on a criterion; an unknown verdict is returned as it is."""
    return verdict_labels(penalty=penalty).get(verdict, verdict)


def adverse_verdict(*, penalty: bool) -> str:
    """The stored verdict that counts against the response: "pass" on a penalty (the behaviour
    is present), "fail" otherwise."""
    return "pass" if penalty else "fail"


@dataclass(frozen=True)
class Judgement:
    """The verdict on one criterion of one response.

    `outcome` is True/False for a binary criterion, a fraction in [0, 1] for an ordinal one
    (see `ordinal_fraction`; an L2-Bench extension of this project, binary criteria behave
    exactly as in the reference pipeline), or None when the criterion is not applicable.
    """

    weight: int
    outcome: bool | float | None


@dataclass(frozen=True)
class TaskScore:
    """The score of one response to one task.

    `value` is None when no applicable criterion has a positive weight: the formula's
    denominator is then zero and the score is undefined; `reason` says why. `value` may be
    negative when penalties outweigh what was earned; `clipped` is what aggregates use.
    """

    value: float | None
    earned: float
    possible: int
    reason: str = ""

    @property
    def clipped(self) -> float | None:
        return None if self.value is None else max(0.0, self.value)


@dataclass(frozen=True)
class ModelScore:
    """The mean of a model's task scores (clipped at 0) with its standard error.

    `standard_error` is the sample standard deviation (n - 1) over sqrt(n); None when fewer
    than two scores are defined. `mean` is None when no score is defined. Undefined task scores
    are left out and counted in `undefined`.
    """

    mean: float | None
    standard_error: float | None
    scored: int
    undefined: int


def ordinal_fraction(value: int, scale_min: int, scale_max: int) -> float:
    """Position of `value` on an ordinal scale as a fraction: scale_min -> 0.0, scale_max -> 1.0.

    Raises ValueError when the scale is empty (max <= min) or the value lies outside it.
    """
    if scale_max <= scale_min:
        raise ValueError(f"An ordinal scale needs max > min, got {scale_min}..{scale_max}.")
    if not scale_min <= value <= scale_max:
        raise ValueError(f"{value} lies outside the scale {scale_min}..{scale_max}.")
    return (value - scale_min) / (scale_max - scale_min)


TURN_RULES = ("all", "share", "any")


def turn_outcome(
    outcomes: Iterable[bool | None], rule: str, share: int | None = None
) -> bool | None:
    """A turn-level criterion's outcome for the whole response from its outcomes per turn.

    `outcomes`: one per tutor turn, True (judged true: met, or on a penalty the behaviour
    present), False, or None (N/A). `rule`: "all", "any", or "share" with `share` a
    percentage from 1 to 100: true when true of at least share% of the turns that are not N/A.
    None when every turn is N/A (or there is none). Raises ValueError on an unknown rule or a
    share outside 1..100.
    """
    if rule not in TURN_RULES:
        raise ValueError(f"Unknown turn rule {rule!r}: one of {', '.join(TURN_RULES)}.")
    if rule == "share" and (share is None or not 1 <= share <= 100):
        raise ValueError(f"The share rule needs a percentage from 1 to 100, got {share!r}.")
    judged = [o for o in outcomes if o is not None]
    if not judged:
        return None
    true = sum(1 for o in judged if o)
    if rule == "all":
        return true == len(judged)
    if rule == "any":
        return true > 0
    # true / judged >= share / 100, in integers so 1/3 of turns at 33% is not lost to rounding.
    return true * 100 >= cast(int, share) * len(judged)


_VERDICT_OUTCOMES: dict[str, bool | None] = {"pass": True, "fail": False, "na": None}


def turn_verdict(verdicts: Sequence[str], rule: str, share: int | None = None) -> str:
    """turn_outcome on stored verdicts ("pass", "fail", "na"): the response's verdict. "" (no
    verdict yet) while a turn has none."""
    if not verdicts or any(v not in _VERDICT_OUTCOMES for v in verdicts):
        return ""
    outcome = turn_outcome([_VERDICT_OUTCOMES[v] for v in verdicts], rule, share)
    return "na" if outcome is None else "pass" if outcome else "fail"


def outcome(
    verdict: str, level: int | None = None, scale: tuple[int, int] | None = None
) -> bool | float | None:
    """The Judgement outcome of a stored answer: "pass" True, "fail" False, "na" or "" None;
    a level on an ordinal criterion its `ordinal_fraction` of `scale` (min, max), so it
    earns weight x (level - min) / (max - min). Raises ValueError for a level without a
    scale or outside it."""
    if level is not None:
        if scale is None:
            raise ValueError(f"A level ({level}) needs its criterion's scale.")
        return ordinal_fraction(level, *scale)
    return {"pass": True, "fail": False}.get(verdict)


def _credit(outcome: bool | float) -> float:
    if isinstance(outcome, bool):
        return 1.0 if outcome else 0.0
    if not 0.0 <= outcome <= 1.0:
        raise ValueError(f"An ordinal outcome is a fraction in [0, 1], got {outcome}.")
    return float(outcome)


def task_score(judgements: Iterable[Judgement]) -> TaskScore:
    """Score one response from the verdicts on its task's criteria.

    Edge cases:
    - no criteria, only N/A criteria, only zero or negative weights: value None with a reason;
    - zero-weight criteria count in neither sum;
    - the value is at most 1 (every positive weight earned, no penalty) and may be negative.
    """
    earned = 0.0
    possible = 0
    for judgement in judgements:
        if judgement.outcome is None:
            continue
        earned += judgement.weight * _credit(judgement.outcome)
        if judgement.weight > 0:
            possible += judgement.weight
    if possible == 0:
        return TaskScore(None, earned, 0, "no applicable criterion has a positive weight")
    return TaskScore(earned / possible, earned, possible)


def model_score(scores: Iterable[TaskScore]) -> ModelScore:
    """Aggregate a model's task scores: mean of the clipped values, with its standard error.

    Pass one score per (task, epoch) for runs with several epochs, as the published runs do.
    """
    values: list[float] = []
    undefined = 0
    for score in scores:
        if score.clipped is None:
            undefined += 1
        else:
            values.append(score.clipped)
    return ModelScore(_mean(values), _standard_error(values), len(values), undefined)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _standard_error(values: Sequence[float]) -> float | None:
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)
