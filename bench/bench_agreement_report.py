"""Benchmark of a whole study's agreement report, pure (no Django, no database).

Run from the repository root:

    .venv/bin/python -m bench.bench_agreement_report

Builds, seeded, the benchmark-scale study of the performance targets: 1,000 responses of 70
tasks, 30 criteria each (10 shared by every task, 20 of the task's own: 1,410 criteria), 3
graders per response (90,000 pass/fail grades), 4 competencies, 12 sub-competencies, 3 context
variables; 1,400-odd groups in all. It times, in the same run and each the median of repeats:

* baseline: the groups bootstrapped one by one, as the report did before its bootstrap was
  vectorised across groups: per group, `binary_summary` and a percentile `bootstrap_alpha` over
  its own responses (1,000 resamples), the report's dominant cost;
* report: `study_agreement` (every group's alpha, AC1 and percent agreement with intervals,
  1,000 resamples, from one study-wide set of resampled responses);
  (criteria and the whole study only: a lower bound of the old report's cost);
* xlsx: the report written by `write_report_xlsx` into memory.

It prints seconds, the ratio of each to the baseline, and the peak resident memory of a process
that only computes the report and writes the XLSX (the XLSX target is about memory too). BLAS
runs single-threaded unless OPENBLAS_NUM_THREADS is set. Targets: report <= 2 s, XLSX <= 3 s
and 200 MB.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import io
import resource
import subprocess
import sys

import numpy as np

from bench.harness import timed
from core.analysis.export import write_report_xlsx
from core.analysis.ratings import CriterionInfo, ItemInfo, StudyRatings
from core.analysis.reports import study_agreement
from core.stats import binary_summary, bootstrap_alpha

LAYERS = ("universal", "dimension", "task")


def synthetic_study(
    responses: int = 1000, tasks: int = 70, shared: int = 10, own: int = 20, seed: int = 1
) -> StudyRatings:
    rng = np.random.default_rng(seed)
    criteria = [
        CriterionInfo(n, f"U{n}", f"shared criterion {n}", LAYERS[n % 2], "S0", "C0")
        for n in range(shared)
    ]
    for t in range(tasks):
        for k in range(own):
            n = len(criteria)
            criteria.append(
                CriterionInfo(n, f"T{t}.{k}", f"criterion {k} of task {t}", "task", "", "")
            )
    items = tuple(
        ItemInfo(
            key=i,
            task_key=f"t{i % tasks}",
            sub_competency=f"S{i % tasks % 12}",
            competency=f"C{i % tasks % 4}",
            context=(("level", f"B{i % 3}"), ("register", f"r{i % 2}"), ("mode", f"m{i % 5}")),
        )
        for i in range(responses)
    )
    unit_item, unit_criterion = [], []
    for i in range(responses):
        t = i % tasks
        chosen = list(range(shared)) + [shared + t * own + k for k in range(own)]
        unit_item += [i] * len(chosen)
        unit_criterion += chosen
    ui = np.array(unit_item, dtype=np.int64)
    uc = np.array(unit_criterion, dtype=np.int64)
    graders = 3
    truth = rng.random(ui.size) < 0.75
    agree = rng.random((ui.size, graders)) < 0.85
    values = np.where(agree, truth[:, None], rng.random((ui.size, graders)) < 0.75)
    raters = rng.permuted(np.tile(np.arange(20), (ui.size, 1)), axis=1)[:, :graders]
    return StudyRatings(
        criteria=tuple(criteria),
        items=items,
        raters=tuple(f"expert {n}" for n in range(20)),
        unit_item=ui,
        unit_criterion=uc,
        rating_unit=np.repeat(np.arange(ui.size), graders),
        rating_rater=raters.reshape(-1).astype(np.int64),
        rating_value=values.reshape(-1).astype(np.int64),
    )


def peak_memory_mb() -> float:
    """This process's peak resident memory: VmHWM on Linux (reset by exec, unlike ru_maxrss,
    which a child started by fork inherits from its parent)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def xlsx_request() -> None:
    """What an XLSX download does, alone in this process: report, then workbook."""
    write_report_xlsx("bench", study_agreement(synthetic_study()), io.BytesIO())
    print(peak_memory_mb())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--xlsx-request", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.xlsx_request:
        xlsx_request()
        return 0
    ratings = synthetic_study()
    counts = ratings.counts()
    groups = len(ratings.criteria) + 3 + 4 + 12 + 10 + 1
    print(f"{ratings.rating_value.size} grades, {ratings.n_units} units, ~{groups} groups")
    masks = [ratings.unit_criterion == n for n in range(len(ratings.criteria))]
    masks.append(np.ones(ratings.n_units, dtype=bool))

    def per_group() -> None:
        for mask in masks:
            binary_summary(counts[mask])
            bootstrap_alpha(counts[mask], seed=0, clusters=ratings.unit_item[mask])

    base, _ = timed(per_group, args.repeats)
    report_s, report = timed(lambda: study_agreement(ratings), args.repeats)

    def xlsx() -> int:
        out = io.BytesIO()
        write_report_xlsx("bench", report, out)
        return out.tell()

    xlsx_s, size = timed(xlsx, args.repeats)
    alone = [sys.executable, "-m", "bench.bench_agreement_report", "--xlsx-request"]
    peak_mb = float(subprocess.run(alone, capture_output=True, text=True, check=True).stdout)
    print(f"  baseline, criteria one by one: {base:.3f} s")
    print(f"  study_agreement:               {report_s:.3f} s  ({report_s / base:.2f} x baseline)")
    print(
        f"  write_report_xlsx:             {xlsx_s:.3f} s  ({xlsx_s / base:.2f} x baseline), "
        f"{size} bytes"
    )
    print(f"  peak memory, report + XLSX:    {peak_mb:.0f} MB (a process doing only that)")
    met = report_s <= 2.0 and xlsx_s <= 3.0 and peak_mb <= 200
    print(f"  targets (report <= 2 s, xlsx <= 3 s, <= 200 MB): {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
