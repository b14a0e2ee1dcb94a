"""A study sampled for the judge's scores: of the responses selected, the experts grade those
drawn by the judge's uncertainty on each (core.stats.judge_sampling), each with the probability
it had of being drawn, which the prediction-powered score weighs it by (1/p).

The uncertainty is read from the study's sampling run: every verdict, level and stated
probability it gave on a whole response, all its epochs (two queries, however many
responses): a criterion with stated probabilities by them, else by its epochs' disagreement.
The draw is seeded by the study's seed, so the same selection, run and settings draw the same
responses.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from core.stats.judge_sampling import JudgeSample, draw_by_judge_uncertainty, judge_uncertainty
from rubrics.models import CriterionVersion, Response


@dataclass(frozen=True)
class SampledResponses:
    """What a draw gave: the responses drawn, each one's inclusion probability (by response
    id), the draw, and how many of the responses the run judged."""

    drawn: list[Response]
    probability: dict[int, float]
    sample: JudgeSample
    judged: int


def _scale_share(level: int, low: int | None, high: int | None) -> float:
    if low is None or high is None or high <= low:
        return 0.0
    return min(max((level - low) / (high - low), 0.0), 1.0)


#: (response, criterion version, verdict, level, stated probability) of each of a run's
#: verdicts on whole responses.
VerdictRow = tuple[int, int, bool | None, int | None, float | None]
#: A run's verdicts on some responses: the run's id, the responses' ids.
RunVerdicts = Callable[[int, list[int]], Iterable[VerdictRow]]


def _no_judge(run_id: int, responses: list[int]) -> Iterable[VerdictRow]:
    return []


# The judge's verdicts are the judge app's data, and that app sits above grading: it registers
# the reader of a run's verdicts when it loads (judging.apps), so grading never imports it.
_run_verdicts: RunVerdicts = _no_judge


def read_run_verdicts_with(reader: RunVerdicts) -> None:
    """Set how a draw reads a run's verdicts (the judge app, as it loads)."""
    global _run_verdicts
    _run_verdicts = reader


def draw_for_judge(
    responses: Sequence[Response],
    *,
    run_id: int,
    budget: int,
    floor_share: float,
    seed: int,
) -> SampledResponses:
    """Draw, among `responses`, those the experts grade: within each model an expected
    `budget`, by the run's uncertainty on each response, never under `floor_share` of the
    model's uniform rate. Responses in the order given."""
    ids = [r.pk for r in responses]
    column: dict[int, int] = {}
    values: dict[tuple[int, int], list[float]] = defaultdict(list)
    stated: dict[tuple[int, int], list[float]] = defaultdict(list)
    rows = _run_verdicts(run_id, ids)
    scales = {}
    for response, version, verdict, level, pass_probability in rows:
        column.setdefault(version, len(column))
        if verdict is not None:
            values[(response, version)].append(float(verdict))
            if pass_probability is not None:
                stated[(response, version)].append(pass_probability)
        elif level is not None:
            values[(response, version)].append(float(level))
        else:
            values.setdefault((response, version), [])
    if column:
        scales = {
            pk: (weight, low, high, kind == CriterionVersion.ScoringType.ORDINAL)
            for pk, weight, low, high, kind in CriterionVersion.objects.filter(
                pk__in=column
            ).values_list("pk", "weight", "scale_min", "scale_max", "scoring_type")
        }
    row_of = {pk: n for n, pk in enumerate(ids)}
    shape = (len(ids), max(len(column), 1))
    passes, epochs, weights = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    stated_sum, stated_epochs = np.zeros(shape), np.zeros(shape)
    for (response, version), found in values.items():
        weight, low, high, ordinal = scales[version]
        i, c = row_of[response], column[version]
        shares = [_scale_share(int(v), low, high) for v in found] if ordinal else found
        passes[i, c], epochs[i, c] = sum(shares), len(shares)
        # A penalty's error moves the score as much as a reward's.
        weights[i, c] = abs(weight)
        said = stated.get((response, version), [])
        stated_sum[i, c], stated_epochs[i, c] = sum(said), len(said)
    sample = draw_by_judge_uncertainty(
        judge_uncertainty(passes, epochs, weights, stated_sum, stated_epochs),
        [r.model_name for r in responses],
        budget,
        floor_share=floor_share,
        seed=seed,
    )
    drawn = [responses[i] for i in sample.drawn.tolist()]
    probability = {responses[i].pk: float(sample.probabilities[i]) for i in sample.drawn.tolist()}
    judged = len({response for response, _ in values})
    return SampledResponses(drawn=drawn, probability=probability, sample=sample, judged=judged)
