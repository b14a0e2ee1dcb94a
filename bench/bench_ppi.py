"""Benchmark of active sampling for prediction-powered scores (standalone, no Django).

Run from the repository root:

    .venv/bin/python -m bench.bench_ppi

A seeded simulation of one model's responses, all graded by the judge: how many expert grades
active sampling (responses drawn by the judge's uncertainty, ``core.stats.ppi_planning``,
inverse-probability weighted by ``active_ppi_mean``) needs for the interval width that uniform
sampling with PPI++ (``ppi_mean``, score interval) reaches with ``--uniform`` grades, and the
coverage of both. Scenarios:

* the judge states a pass probability per response (its own, or read from a critique's
  hedging), calibrated: the experts pass a response with that probability. The probabilities
  follow Beta(0.25, 0.25) (the judge's verdict is the likelier value 88% of the time: most
  responses clear-cut, some doubtful) or Beta(0.4, 0.4) (84%: more doubt everywhere). The
  judge's value is its verdict, or the probability itself as its score;
* the same responses, but the judge only ran three epochs: its verdict is the majority and its
  uncertainty comes from their disagreement (``uncertainty_from_epochs``).

For each scenario, uniform sampling is simulated ``--studies`` times at ``--uniform`` grades;
then the active budget is searched (bisection on whole budgets, the same seeds at every
budget) for the smallest whose mean half-width is at most the uniform one. The saving is
``1 - active grades / uniform grades`` (the active count is the mean number drawn: each
response is drawn independently). The planner's prediction (``expert_grades_needed``) for the
uniform half-width is printed beside it. ``--estimator active`` (the default) estimates the
actively sampled scores with Zrnic and Candes's own estimator (``active_ppi_mean``, normal
interval); ``--estimator leaderboard`` with what the leaderboard computes for a study sampled
for the judge's scores (``core.analysis.leaderboard.prediction_powered``: PPI++ with ``1 / p``
weights and the score interval, as the uniform side). ``--floor`` is the sampling floor.
Target: at least 30% fewer expert grades at equal coverage (both >= 0.93) where the judge
states calibrated probabilities and is mostly sure (Beta(0.25, 0.25)); the other scenarios are
printed as context, without a target (active sampling pays only where the judge knows where it
may be wrong). Exit status 1 if a targeted scenario misses it."""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from dataclasses import dataclass

import numpy as np

from core.analysis.leaderboard import prediction_powered
from core.stats.ppi import active_ppi_mean, ppi_mean_stack
from core.stats.ppi_planning import (
    DEFAULT_FLOOR_SHARE,
    draw_for_experts,
    expert_grades_needed,
    measured_judge_agreement,
    sampling_probabilities,
    uncertainty_from_epochs,
    uncertainty_from_pass_probability,
)

TARGET_SAVING = 0.30
TARGET_COVERAGE = 0.93


@dataclass(frozen=True)
class Population:
    name: str
    stated: np.ndarray  # the experts pass response i with this probability
    judge: np.ndarray  # the judge's verdict
    uncertainty: np.ndarray
    targeted: bool  # the saving target applies (a judge that states calibrated probabilities)


def populations(size: int, seed: int) -> list[Population]:
    rng = np.random.default_rng(seed)
    found = []
    for shape in (0.25, 0.4):
        stated = rng.beta(shape, shape, size)
        verdict = (stated > 0.5).astype(float)
        passes = rng.binomial(3, stated)
        majority = (passes >= 2).astype(float)
        found += [
            Population(
                f"stated probability, verdicts, Beta({shape}, {shape})",
                stated,
                verdict,
                uncertainty_from_pass_probability(stated, verdict),
                shape == 0.25,
            ),
            Population(
                f"stated probability as the judge's score, Beta({shape}, {shape})",
                stated,
                stated,
                uncertainty_from_pass_probability(stated),
                shape == 0.25,
            ),
            Population(
                f"three epochs, majority verdict, Beta({shape}, {shape})",
                stated,
                majority,
                uncertainty_from_epochs(passes, 3),
                False,
            ),
        ]
    return found


@dataclass(frozen=True)
class Measured:
    grades: float  # mean expert grades per study
    half_width: float
    coverage: float


def uniform(population: Population, n: int, studies: int, seed: int) -> Measured:
    rng = np.random.default_rng(seed)
    size = population.stated.size
    true = float(population.stated.mean())
    truth = (rng.random((studies, size)) < population.stated).astype(float)
    order = np.argsort(rng.random((studies, size)), axis=1)  # a uniform draw of n per study
    y = np.take_along_axis(truth, order[:, :n], axis=1)
    judge = population.judge[order]
    found = ppi_mean_stack(y, judge[:, :n], judge[:, n:])
    covered = (found.low <= true) & (true <= found.high)
    return Measured(n, float(((found.high - found.low) / 2).mean()), float(covered.mean()))


def active(
    population: Population,
    budget: int,
    studies: int,
    seed: int,
    estimator: str = "active",
    floor: float = DEFAULT_FLOOR_SHARE,
) -> Measured:
    rng = np.random.default_rng(seed)
    true = float(population.stated.mean())
    pi = sampling_probabilities(population.uncertainty, budget, floor_share=floor)
    widths, hits, grades = [], 0, 0
    for _ in range(studies):
        truth = (rng.random(population.stated.size) < population.stated).astype(float)
        drawn = draw_for_experts(pi, rng).drawn
        if estimator == "leaderboard":
            # What the leaderboard computes for a study sampled for the judge's scores.
            undrawn = np.ones(pi.size, dtype=bool)
            undrawn[drawn] = False
            row = prediction_powered(
                truth[drawn], population.judge[drawn], population.judge[undrawn], pi[drawn]
            )
            assert row is not None
            found = row.score
        else:
            found = active_ppi_mean(population.judge, pi, drawn, truth[drawn])
        widths.append(found.half_width)
        hits += found.low <= true <= found.high
        grades += drawn.size
    return Measured(grades / studies, float(np.mean(widths)), hits / studies)


def smallest_budget(
    population: Population, width: float, studies: int, seed: int, estimator: str, floor: float
) -> int:
    low, high = 2, population.stated.size
    while low < high:
        middle = (low + high) // 2
        if active(population, middle, studies, seed, estimator, floor).half_width <= width:
            high = middle
        else:
            low = middle + 1
    return high


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--responses", type=int, default=10_000)
    parser.add_argument("--uniform", type=int, default=400, help="expert grades, uniform")
    parser.add_argument("--studies", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--estimator",
        choices=["active", "leaderboard"],
        default="active",
        help="active: Zrnic and Candes's estimator (active_ppi_mean); leaderboard: what the "
        "leaderboard computes for a sampled study (PPI++ with 1/p weights, score interval)",
    )
    parser.add_argument(
        "--floor",
        type=float,
        default=DEFAULT_FLOOR_SHARE,
        help="the floor's share of the uniform rate (a study's sampling floor)",
    )
    args = parser.parse_args()
    print(
        f"{args.responses} responses, {args.uniform} expert grades drawn uniformly, "
        f"{args.studies} simulated studies per point, seed {args.seed}; active sampling "
        f"estimated by {args.estimator}, floor {args.floor}"
    )
    missed = False
    for population in populations(args.responses, args.seed):
        base = uniform(population, args.uniform, args.studies, args.seed + 1)
        budget = smallest_budget(
            population, base.half_width, args.studies, args.seed + 2, args.estimator, args.floor
        )
        found = active(population, budget, args.studies, args.seed + 2, args.estimator, args.floor)
        saving = 1 - found.grades / base.grades
        p, f = population.stated, population.judge
        error = float((p * (1 - f) ** 2 + (1 - p) * f**2).mean())
        sample = np.random.default_rng(args.seed + 3).choice(args.responses, 300, replace=False)
        truth = np.random.default_rng(args.seed + 4).random(300) < population.stated[sample]
        agreement = measured_judge_agreement(truth.astype(float), population.judge[sample])
        plan = expert_grades_needed(
            agreement,
            half_width=base.half_width,
            pool=args.responses,
            uncertainty=population.uncertainty,
        )
        ok = saving >= TARGET_SAVING and min(base.coverage, found.coverage) >= TARGET_COVERAGE
        missed |= population.targeted and not ok
        verdict = ("met" if ok else "MISSED") if population.targeted else "(no target: context)"
        print(
            f"\n{population.name}: the judge's mean squared error {error:.3f} "
            f"(for verdicts, 1 - accuracy)\n"
            f"  uniform: {base.grades:.0f} grades, half-width {base.half_width:.4f}, "
            f"coverage {base.coverage:.3f}\n"
            f"  active:  budget {budget}, {found.grades:.1f} grades drawn on average, "
            f"half-width {found.half_width:.4f}, coverage {found.coverage:.3f}\n"
            f"  saving:  {saving:.1%} fewer expert grades (target {TARGET_SAVING:.0%}) "
            f"{verdict}\n"
            f"  planner (judge agreement measured on 300 responses): uniform {plan.uniform}, "
            f"active {plan.active}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
