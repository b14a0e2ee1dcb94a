"""Simulated coverage of prediction-powered scores (docs/statistics.md, "Prediction-powered
scores").

A model's responses each have a latent quality ``q ~ Beta`` (mean ``score``, the true
L2-Bench score, concentration 2) and ``criteria`` binary criteria met with probability ``q``;
a response's label is the share of criteria the experts pass (one criterion: a verdict). The
judge gives its own verdict per criterion: right with probability ``accuracy`` overall, its
errors four times as often one way as the other (a *lenient* judge passes failing work, a
*harsh* one fails passing work), so the judge's score is biased. ``n`` responses are graded by
the experts and ``POOL - n`` by the judge alone. Every study is seeded; a scenario is one call
of the vectorised :func:`ppi_mean_stack` over all its studies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pytest

from core.stats.ppi import active_ppi_mean, ppi_mean_stack, stratified_ppi_mean
from core.stats.ppi_planning import (
    draw_for_experts,
    sampling_probabilities,
    uncertainty_from_pass_probability,
)

POOL = 1000
STUDIES = 2000
BIAS_RATIO = 4.0  # errors toward the judge's side per error the other way


def error_rates(accuracy: float, score: float, bias: str) -> tuple[float, float]:
    """(P(judge fails | expert passes), P(judge passes | expert fails)) for that accuracy."""
    if bias == "lenient":
        fails_a_pass = (1 - accuracy) / (score + BIAS_RATIO * (1 - score))
        return fails_a_pass, BIAS_RATIO * fails_a_pass
    passes_a_fail = (1 - accuracy) / (BIAS_RATIO * score + (1 - score))
    return BIAS_RATIO * passes_a_fail, passes_a_fail


def responses(
    rng: np.random.Generator, shape: tuple[int, int], criteria: int, score: float, errors
) -> tuple[np.ndarray, np.ndarray]:
    """Experts' and judge's labels (share of criteria passed) of ``shape`` responses.

    Drawn in single precision, a third of the time of double (the draws' 2^-24 steps are far
    below what 2,000 studies can show); ``Beta(a, b)`` as ``X / (X + Y)`` of gamma draws
    ``X ~ Gamma(a)``, ``Y ~ Gamma(b)``, which NumPy draws in single precision and its ``beta``
    does not."""
    passing = rng.standard_gamma(2 * score, shape, dtype=np.float32)
    quality = passing / (passing + rng.standard_gamma(2 * (1 - score), shape, dtype=np.float32))
    experts = rng.random((*shape, criteria), dtype=np.float32) < quality[..., None]
    chance = rng.random(experts.shape, dtype=np.float32)
    judge = np.where(experts, chance >= errors[0], chance < errors[1])
    return experts.sum(axis=-1) / criteria, judge.sum(axis=-1) / criteria


@dataclass(frozen=True)
class Scenario:
    n: int
    accuracy: float
    bias: str
    score: float
    criteria: int


def coverage(
    scenario: Scenario, studies: int = STUDIES, interval: Literal["score", "normal"] = "score"
) -> tuple[float, float]:
    """(share of 95% intervals covering the true score, mean half-width)."""
    lenient = scenario.bias == "lenient"
    rng = np.random.default_rng(
        [scenario.n, int(scenario.accuracy * 100), int(scenario.score * 100), scenario.criteria]
    )
    if lenient:  # the same responses, another judge
        rng = np.random.default_rng(rng.integers(2**32))
    errors = error_rates(scenario.accuracy, scenario.score, scenario.bias)
    y, f = responses(rng, (studies, POOL), scenario.criteria, scenario.score, errors)
    found = ppi_mean_stack(
        y[:, : scenario.n], f[:, : scenario.n], f[:, scenario.n :], interval=interval
    )
    hits = (found.low <= scenario.score) & (scenario.score <= found.high)
    return float(hits.mean()), float(((found.high - found.low) / 2).mean())


SCENARIOS = [
    Scenario(n, accuracy, bias, score, criteria)
    for n in (50, 200)
    for accuracy in (0.55, 0.75, 0.95)
    for bias in ("lenient", "harsh")
    for score, criteria in ((0.5, 1), (0.7, 5))
] + [  # a high score, where few failures make the hardest case
    Scenario(50, accuracy, bias, 0.85, criteria)
    for accuracy in (0.55, 0.75, 0.95)
    for bias in ("lenient", "harsh")
    for criteria in (1, 5)
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=repr)
def test_prediction_powered_intervals_cover_the_true_score(scenario: Scenario) -> None:
    covered, _ = coverage(scenario)
    assert covered >= 0.93, (scenario, covered)


def test_a_good_judge_narrows_the_interval_and_a_useless_one_does_not_widen_it() -> None:
    """PPI++ tunes lambda: at 95% accuracy the interval is much narrower than at 55%, and at
    55% about as wide as the experts' own (the judge then gets a lambda near 0)."""
    good = coverage(Scenario(200, 0.95, "lenient", 0.7, 5), studies=300)[1]
    poor = coverage(Scenario(200, 0.55, "lenient", 0.7, 5), studies=300)[1]
    rng = np.random.default_rng(0)
    experts_alone = responses(rng, (300, 200), 5, 0.7, (0.0, 0.0))[0]
    classical = float((1.959964 * experts_alone.std(axis=1) / np.sqrt(200)).mean())
    assert good < 0.6 * classical
    assert poor == pytest.approx(classical, rel=0.05)


def test_stratified_intervals_cover_the_population_score() -> None:
    """Three competencies of different sizes and scores; the experts' sample over-represents
    the smallest. 600 studies, 90 expert grades each."""
    rng = np.random.default_rng(21)
    scores, shares, sampled = (0.8, 0.6, 0.4), (0.5, 0.3, 0.2), (30, 30, 30)
    true = float(np.dot(scores, shares))
    hits = 0
    for _ in range(600):
        y_parts, f_parts, strata_l, fu_parts, strata_u = [], [], [], [], []
        for k, (score, share, n) in enumerate(zip(scores, shares, sampled, strict=True)):
            size = int(POOL * share)
            y, f = responses(rng, (1, size), 5, score, error_rates(0.8, score, "lenient"))
            y_parts.append(y[0, :n])
            f_parts.append(f[0, :n])
            fu_parts.append(f[0, n:])
            strata_l += [k] * n
            strata_u += [k] * (size - n)
        found = stratified_ppi_mean(
            np.concatenate(y_parts),
            np.concatenate(f_parts),
            strata_l,
            np.concatenate(fu_parts),
            strata_u,
            shares=dict(enumerate(shares)),
        ).combined
        hits += found.low <= true <= found.high
    assert hits / 600 >= 0.93


@pytest.mark.parametrize("budget", [50, 60, 100, 150, 300])
def test_active_intervals_cover_the_true_score(budget: int) -> None:
    """The judge states a pass probability for each of 1,000 responses, calibrated: each
    study draws the experts' verdicts from it and the responses to grade with probabilities
    from the judge's uncertainty (floor 0.2 of the uniform rate). 2,000 studies; the true
    score is the mean stated probability."""
    rng = np.random.default_rng(budget)
    stated = rng.beta(0.4, 0.4, POOL)
    judge = (stated > 0.5).astype(float)
    pi = sampling_probabilities(uncertainty_from_pass_probability(stated, judge), budget)
    true = float(stated.mean())
    hits = 0
    for _ in range(STUDIES):
        truth = (rng.random(POOL) < stated).astype(float)
        drawn = draw_for_experts(pi, rng).drawn
        found = active_ppi_mean(judge, pi, drawn, truth[drawn])
        hits += found.low <= true <= found.high
    assert hits / STUDIES >= 0.93
