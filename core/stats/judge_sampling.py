"""A study sampled for the judge's scores: which responses the experts grade, drawn by the
judge's uncertainty (Zrnic & Candes 2024, "Active statistical inference", ICML).

Every response of the pool has the judge's verdicts on its criteria, one per epoch of one run.
A criterion's uncertainty is read from the probabilities the judge stated there when its run
asked for them (:func:`core.stats.ppi_planning.uncertainty_from_pass_probability`, their mean
over the epochs that stated one taken as calibrated, for the majority verdict), else from the
disagreement of its epochs (:func:`core.stats.ppi_planning.uncertainty_from_epochs`: ``k``
passes of ``m`` as the pass probability ``(k + 1/2) / (m + 1)``; a level on an ordinal
criterion counts as its share of the scale, so ``k`` may be fractional), and a response's as
the standard deviation of its weighted
score with the criteria's errors independent: ``sqrt(sum_c (w_c u_c)^2) / sum_c w_c`` over its
own criteria. Within each model (a leaderboard row is one model), each response is drawn with
``pi_i = clip(c u_i, floor, 1)`` adding up to the budget
(:func:`core.stats.ppi_planning.sampling_probabilities`), independently and seeded. The
estimator weighs a drawn response by ``1 / pi_i`` (docs/statistics.md).

A critique's hedging words are not read: counting them would be a guess at calibration, not
a measurement. A run of one epoch without stated probabilities has no disagreement to read:
every criterion then has the same uncertainty and the draw is uniform up to the responses'
numbers and weights of criteria (``informative`` is False).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import Seed, rng_from_seed
from .counts import FloatArray, IntArray
from .ppi_planning import (
    DEFAULT_FLOOR_SHARE,
    sampling_probabilities,
    uncertainty_from_epochs,
    uncertainty_from_pass_probability,
)

__all__ = ["JudgeSample", "draw_by_judge_uncertainty", "judge_uncertainty"]


@dataclass(frozen=True, slots=True)
class JudgeSample:
    """Responses drawn for expert grading by the judge's uncertainty.

    Attributes:
        drawn: Indices of the drawn responses, ascending.
        probabilities: ``(M,)`` each response's probability of being drawn (its inclusion
            probability), in ``(0, 1]``.
        uncertainty: ``(M,)`` the judge's uncertainty the probabilities follow.
        expected: The expected number drawn (the budgets, each capped at its group's size).
        informative: Whether the uncertainty differs between responses of a group (else the
            draw is uniform within it).
    """

    drawn: IntArray
    probabilities: FloatArray
    uncertainty: FloatArray
    expected: float
    informative: bool

    @property
    def weights(self) -> FloatArray:
        """``1 / pi`` of each drawn response, in the order of ``drawn``."""
        result: FloatArray = 1.0 / self.probabilities[self.drawn]
        return result


def judge_uncertainty(
    passes: npt.ArrayLike,
    epochs: npt.ArrayLike,
    weights: npt.ArrayLike,
    stated: npt.ArrayLike | None = None,
    stated_epochs: npt.ArrayLike | None = None,
) -> FloatArray:
    """The judge's uncertainty on each response's score, from its stated probabilities where
    it gave some, else from its epochs' disagreement.

    Args:
        passes: ``(M, C)`` per response and criterion, the sum over epochs of the judge's
            values (a verdict 1/0, a level as its share of the scale).
        epochs: ``(M, C)`` how many epochs gave a value there (0: not judged, or not the
            response's criterion).
        weights: ``(M, C)`` the criterion's weight in the response's score (0 where it is not
            the response's criterion or weighs nothing).
        stated: ``(M, C)`` the sum over epochs of the probabilities the judge stated that the
            response meets the criterion (omitted: none stated).
        stated_epochs: ``(M, C)`` how many epochs stated one there; where any did, the
            criterion's uncertainty is ``uncertainty_from_pass_probability`` of their mean,
            for the majority verdict of its epochs.

    Returns:
        ``(M,)``: ``sqrt(sum_c (w_c u_c)^2) / sum_c w_c`` over the criteria with a positive
        weight; a criterion the judge gave no value counts as the largest uncertainty (1/2,
        a coin), so a response it did not judge is drawn first.
    """
    k = np.asarray(passes, dtype=np.float64)
    m = np.asarray(epochs, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if k.ndim != 2 or k.shape != m.shape or k.shape != w.shape:
        raise ValueError("passes, epochs and weights must all be (responses, criteria)")
    if np.any(m < 0) or np.any(k < 0) or np.any(k > m) or np.any(w < 0):
        raise ValueError("need 0 <= passes <= epochs and non-negative weights")
    judged = m > 0
    per_criterion = np.full(k.shape, 0.5)
    if judged.any():
        per_criterion[judged] = uncertainty_from_epochs(k[judged], m[judged])
    if stated is not None and stated_epochs is not None:
        s = np.asarray(stated, dtype=np.float64)
        n = np.asarray(stated_epochs, dtype=np.float64)
        if s.shape != k.shape or n.shape != k.shape:
            raise ValueError("stated and stated_epochs must be (responses, criteria) too")
        if np.any(n < 0) or np.any(s < 0) or np.any(s > n) or np.any((n > 0) & ~judged):
            raise ValueError("need 0 <= stated <= stated_epochs, and only where judged")
        said = n > 0
        if said.any():
            majority = (2 * k[said] >= m[said]).astype(np.float64)
            per_criterion[said] = uncertainty_from_pass_probability(s[said] / n[said], majority)
    total = w.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.sqrt(((w * per_criterion) ** 2).sum(axis=1)) / total
    # A response with no weighed criterion has no score to be unsure of: the largest doubt.
    found: FloatArray = np.where(total > 0, result, 0.5)
    return found


def draw_by_judge_uncertainty(
    uncertainty: npt.ArrayLike,
    groups: Sequence[Hashable] | npt.ArrayLike,
    budget: float,
    *,
    floor_share: float = DEFAULT_FLOOR_SHARE,
    seed: Seed = None,
) -> JudgeSample:
    """Draw responses for the experts, each group (a model) with its own expected ``budget``.

    Within a group of ``M_g`` responses ``pi_i = clip(c u_i, floor, 1)`` adds up to
    ``min(budget, M_g)`` with ``floor = floor_share * budget / M_g``; each response is then
    drawn independently with its ``pi_i`` (Poisson sampling: the number drawn varies around
    the budget). The same inputs and seed give the same draw.

    Args:
        uncertainty: ``(M,)`` non-negative, e.g. :func:`judge_uncertainty`.
        groups: ``(M,)`` each response's group (its model's name).
        budget: Expected expert grades per group, > 0.
        floor_share: The floor as a share of the group's uniform rate, in (0, 1].
        seed: Seeds the draw (a study's seed).
    """
    u = np.asarray(uncertainty, dtype=np.float64).reshape(-1)
    labels = np.asarray(groups, dtype=object).reshape(-1)
    if labels.shape != u.shape:
        raise ValueError("need one group per response")
    if not budget > 0:
        raise ValueError(f"the budget must be positive, got {budget!r}")
    probabilities = np.zeros(u.shape)
    informative = False
    for group in sorted(set(labels.tolist()), key=repr):
        members = np.flatnonzero(labels == group)
        share = min(float(budget), float(members.size))
        probabilities[members] = sampling_probabilities(u[members], share, floor_share=floor_share)
        informative = informative or bool(np.ptp(u[members]) > 0)
    drawn = np.flatnonzero(rng_from_seed(seed).random(u.size) < probabilities)
    return JudgeSample(
        drawn=drawn,
        probabilities=probabilities,
        uncertainty=u,
        expected=float(probabilities.sum()),
        informative=informative,
    )
