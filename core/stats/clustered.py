"""The judge against a reference with percentile-bootstrap intervals that resample clusters.

Units that are not independent (the tutor turns of one dialogue, graded and judged in the same
conversation) move together: each resample draws whole clusters (responses) with replacement
and carries every unit of a drawn cluster, as :func:`.bootstrap.bootstrap_alpha` does with
``clusters``. Accuracy and Cohen's kappa are computed on each resample's contingency table
(:func:`.calibrate`'s figures); the percentiles of the resamples where they are defined give
the interval. Below :data:`.intervals.MINIMUM_RESPONSES` clusters the bounds are withheld,
with the reason, as for the other percentile intervals over responses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from core.messages import gettext_noop

from .bootstrap import DEFAULT_RESAMPLES, Interval, Seed, _bootstrap_values, _percentile_interval
from .counts import FloatArray
from .intervals import too_few_responses
from .judge import Calibration, calibrate
from .kappa import agreement_weights
from .ordinal import _kappa_stack
from .results import defined, undefined

__all__ = ["ClusteredCalibration", "clustered_calibration"]


@dataclass(frozen=True, slots=True)
class ClusteredCalibration:
    """:func:`.calibrate` on the units where judge and reference both exist, with intervals.

    Attributes:
        calibration: confusion matrix, accuracy (with n), kappa (with n), sensitivity,
            specificity, as :func:`.calibrate` gives them.
        n_clusters: clusters (responses) of those units.
        accuracy / kappa: the estimate with its percentile interval over clusters.
    """

    calibration: Calibration
    n_clusters: int
    accuracy: Interval
    kappa: Interval


def clustered_calibration(
    judge: npt.ArrayLike,
    reference: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: Seed = 0,
    confidence: float = 0.95,
) -> ClusteredCalibration:
    """Accuracy and Cohen's kappa of ``judge`` against ``reference`` (pass/fail value indices,
    negative = missing; units missing on either side are dropped), with percentile-bootstrap
    intervals resampling ``clusters`` (one label per unit, e.g. the response)."""
    j = np.asarray(judge, dtype=np.int64)
    r = np.asarray(reference, dtype=np.int64)
    labels = np.asarray(clusters)
    both = (j >= 0) & (r >= 0)
    j, r, labels = j[both], r[both], labels[both]
    found = calibrate(j, r)
    n = int(j.size)
    # Per unit, its cell of the 2x2 table (reference row, judge column), one-hot.
    cells = np.zeros((n, 4), dtype=np.float64)
    cells[np.arange(n), r * 2 + j] = 1.0
    w = agreement_weights(2, "none")

    def tables(weights: FloatArray) -> FloatArray:
        return (weights @ cells).reshape(-1, 2, 2)

    def accuracy_stack(weights: FloatArray) -> FloatArray:
        t = tables(weights)
        total = t.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, (t[:, 0, 0] + t[:, 1, 1]) / total, np.nan)

    def kappa_stack(weights: FloatArray) -> FloatArray:
        return _kappa_stack(tables(weights), w)

    accuracy_estimate = (
        defined("accuracy", found.accuracy.value, n_units=n, n_ratings=2 * n)
        if found.accuracy.value is not None
        else undefined("accuracy", gettext_noop("no unit to compare"), n_units=0, n_ratings=0)
    )
    n_clusters = int(np.unique(labels).size)
    withheld = too_few_responses(n_clusters)
    intervals = []
    # The same seed for both, so accuracy and kappa come from the same resampled responses.
    for estimate, stack in ((accuracy_estimate, accuracy_stack), (found.kappa, kappa_stack)):
        values, method = _bootstrap_values(
            n, stack, n_resamples=n_resamples, seed=seed, clusters=labels
        )
        interval = _percentile_interval(estimate, values, confidence, method)
        if withheld and interval.low is not None:
            interval = replace(interval, low=None, high=None, unreliable_reason=withheld)
        intervals.append(interval)
    return ClusteredCalibration(found, n_clusters, intervals[0], intervals[1])
