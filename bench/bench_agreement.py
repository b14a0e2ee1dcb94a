"""Benchmark of the agreement statistics core (standalone, no Django).

Run from the repository root:

    .venv/bin/python -m bench.bench_agreement

Measures, in one run and on the same synthetic data:

1. Krippendorff's alpha over 1,000,000 ratings (200,000 units x 5 ratings) for a binary
   criterion (nominal) and a 1-5 criterion (ordinal), in two layouts: "complete" (the same
   5 raters grade every unit) and "panel" (each unit is graded by 5 of 40 experts, the
   annotation app's assignment pattern, so the dense matrix is 40 x 200,000 and 7/8 NaN):
   (a) ``krippendorff.alpha(reliability_data=dense raters x units matrix)`` -- baseline;
   (b) ``krippendorff.alpha(value_counts=prebuilt counts)``;
   (c) our path from ``(unit, value)`` pairs: ``counts_from_pairs`` then
       ``alpha_from_counts`` (own coincidence-matrix implementation; what the app does with the
       rating rows it loads), reported;
   (c') the same counts passed to ``krippendorff.alpha(value_counts=...)``, reported;
   (d) ``alpha_from_counts`` on the prebuilt counts: the path the targets are set for (value
       counts built by the database's GROUP BY, or by any counter, then alpha).
2. Bootstrap CI of alpha, 1,000 resamples over 5 raters x 10,000 units:
   vectorised ``bootstrap_alpha`` vs a Python loop of ``krippendorff.alpha`` calls. The loop
   is timed on 20 resamples and extrapolated linearly to 1,000 (stated in the output).

Timings are the median of several repeats (``time.perf_counter``); ratios are against
baselines measured in the same run. BLAS runs single-threaded unless OPENBLAS_NUM_THREADS
is set. Targets are checked and printed at the end; the exit status is 1 if one is missed.
"""

from __future__ import annotations

import argparse
import os

# Single-threaded BLAS for every path (set before NumPy loads; override from the shell).
# The machine may be shared, and multi-threaded BLAS under contention makes timings erratic.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import platform

import krippendorff
import numpy as np

from bench.harness import timed
from core.stats import (
    alpha_from_counts,
    bootstrap_alpha,
    counts_from_pairs,
)


def synthetic(
    n_units: int, pool: int, per_unit: int, q: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(unit_index, value_index) pairs and the equivalent dense raters x units matrix.

    Each unit is graded by ``per_unit`` distinct raters drawn from a pool of ``pool``
    raters; ratings are a latent score plus rater noise on a ``q``-point scale.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, n_units)
    noise = rng.integers(-1, 2, (n_units, per_unit)) * (rng.random((n_units, per_unit)) < 0.3)
    values = np.clip(truth[:, None] + noise, 0, q - 1)
    if pool == per_unit:
        raters = np.broadcast_to(np.arange(pool), (n_units, pool))
    else:
        raters = np.argsort(rng.random((n_units, pool)), axis=1)[:, :per_unit]
    units = np.repeat(np.arange(n_units, dtype=np.int64), per_unit)
    dense = np.full((pool, n_units), np.nan)
    dense[raters.ravel(), units] = values.ravel()
    return units, values.ravel().astype(np.int64), dense


LAYOUTS = {
    "complete": (5, "5 raters grade every unit"),
    "panel": (40, "5 of 40 experts grade each unit"),
}


def bench_alpha(label: str, q: int, level: str, layout: str, repeats: int) -> dict[str, float]:
    n_units, per_unit = 200_000, 5
    pool, description = LAYOUTS[layout]
    units, values, dense = synthetic(n_units, pool, per_unit, q, seed=q)
    domain = np.arange(q, dtype=np.float64)
    prebuilt = counts_from_pairs(units, values, n_units=n_units, n_values=q)
    t_a, v_a = timed(
        lambda: krippendorff.alpha(
            reliability_data=dense, value_domain=domain, level_of_measurement=level
        ),
        repeats,
    )
    # The package reads value counts faster from a column-major array (the layout
    # counts_from_pairs returns) than from a row-major one; (b) is timed on both and the
    # faster is the baseline, so that our path is compared with the package at its best.
    t_b, v_b = min(
        timed(
            lambda counts=counts: krippendorff.alpha(
                value_counts=counts, value_domain=domain, level_of_measurement=level
            ),
            repeats,
        )
        for counts in (prebuilt, np.ascontiguousarray(prebuilt))
    )

    def ours() -> float | None:
        counts = counts_from_pairs(units, values, n_units=n_units, n_values=q)
        return alpha_from_counts(counts, level, domain).value  # type: ignore[arg-type]

    def wrapper() -> float:
        counts = counts_from_pairs(units, values, n_units=n_units, n_values=q)
        return float(
            krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)
        )

    t_c, v_c = timed(ours, repeats)
    t_d, v_d = timed(lambda: alpha_from_counts(prebuilt, level, domain).value, repeats)  # type: ignore[arg-type]
    t_w, v_w = timed(wrapper, repeats)
    assert isinstance(v_c, float) and isinstance(v_w, float)
    assert isinstance(v_d, float) and abs(v_d - v_c) < 1e-12
    assert abs(v_c - float(v_a)) < 1e-9 and abs(v_w - float(v_b)) < 1e-9  # type: ignore[arg-type]
    print(
        f"\n### Alpha, {label}, {len(values):,} ratings, {n_units:,} units, {description} "
        f"(dense matrix {pool} x {n_units:,})"
    )
    print(f"alpha = {v_c:.6f} (all paths agree to 1e-9)\n")
    print("| path | median s | speed-up vs (a) | time vs (b) |")
    print("|---|---:|---:|---:|")
    rows = [
        ("(a) krippendorff.alpha(reliability_data=dense)", t_a),
        ("(b) krippendorff.alpha(value_counts=prebuilt)", t_b),
        ("(c) pairs -> counts_from_pairs -> alpha_from_counts", t_c),
        ("(c') pairs -> counts_from_pairs -> krippendorff.alpha(value_counts)", t_w),
        ("(d) prebuilt counts -> alpha_from_counts", t_d),
    ]
    for name, t in rows:
        print(f"| {name} | {t:.4f} | {t_a / t:.1f}x | {t / t_b:.2f}x |")
    return {"a": t_a, "b": t_b, "c": t_c, "w": t_w, "d": t_d}


def bench_bootstrap(repeats: int, loop_resamples: int) -> dict[str, float]:
    raters, n_units, n_resamples = 5, 10_000, 1000
    units, values, _ = synthetic(n_units, raters, raters, 5, seed=42)
    counts = counts_from_pairs(units, values, n_units=n_units, n_values=5)
    t_vec, result = timed(
        lambda: bootstrap_alpha(counts, "ordinal", n_resamples=n_resamples, seed=1), repeats
    )
    rng = np.random.default_rng(1)
    indices = rng.integers(0, n_units, size=(loop_resamples, n_units))

    def loop() -> list[float]:
        return [
            float(krippendorff.alpha(value_counts=counts[row], level_of_measurement="ordinal"))
            for row in indices
        ]

    t_loop_part, _ = timed(loop, 3)
    t_loop = t_loop_part * n_resamples / loop_resamples
    print(f"\n### Bootstrap, {raters} raters x {n_units:,} units, {n_resamples:,} resamples")
    print(
        f"alpha_ordinal = {result.estimate.value:.4f}, "  # type: ignore[attr-defined]
        f"95% CI [{result.low:.4f}, {result.high:.4f}]\n"
    )  # type: ignore[attr-defined]
    print("| path | seconds | ratio |")
    print("|---|---:|---:|")
    print(f"| vectorised bootstrap_alpha (median of {repeats}) | {t_vec:.3f} | 1.0x |")
    print(
        f"| loop of krippendorff.alpha calls ({loop_resamples} resamples timed "
        f"{t_loop_part:.3f} s (median of 3), extrapolated x{n_resamples // loop_resamples}) "
        f"| {t_loop:.2f} | {t_loop / t_vec:.0f}x slower |"
    )
    return {"vec": t_vec, "loop": t_loop}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--loop-resamples", type=int, default=20)
    args = parser.parse_args()
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"krippendorff {getattr(krippendorff, '__version__', '0.9')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}"
    )
    results = {
        (scale, layout): bench_alpha(label, q, level, layout, args.repeats)
        for scale, label, q, level in (
            ("binary", "binary (nominal)", 2, "nominal"),
            ("5-point", "5-point (ordinal)", 5, "ordinal"),
        )
        for layout in LAYOUTS
    }
    boot = bench_bootstrap(args.repeats, args.loop_resamples)

    checks = []
    for (scale, layout), r in results.items():
        checks.append((f"{scale}, {layout}: (d) >= 10x faster than (a)", r["a"] / r["d"] >= 10))
        checks.append((f"{scale}, {layout}: (d) within 1.3x of (b)", r["d"] <= 1.3 * r["b"]))
    checks.append(("bootstrap <= 0.5 s", boot["vec"] <= 0.5))
    checks.append(("bootstrap >= 20x faster than loop", boot["loop"] / boot["vec"] >= 20))
    print("\n### Targets\n")
    for name, ok in checks:
        print(f"- [{'x' if ok else ' '}] {name}")
    print("\nReported, no target: (c), from rating pairs (the counting included)\n")
    for (scale, layout), r in results.items():
        print(
            f"- {scale}, {layout}: (c) {r['a'] / r['c']:.1f}x faster than (a), "
            f"{r['c'] / r['b']:.2f}x the time of (b)"
        )
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
