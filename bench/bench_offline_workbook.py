"""Writing an offline grading workbook: its cost must grow with the number of cells, not with
their square (its drop-downs were once added cell by cell, each checked against all before:
3 minutes for 300 responses of 30 criteria).

Baseline, measured in the same run: the workbook of one tenth of the responses. The figure is
the ratio of the full workbook's time to the baseline's: 10 when the cost is linear in the
cells; target at most 15.

    .venv/bin/python -m bench.bench_offline_workbook                 # 300 responses x 30 criteria
    .venv/bin/python -m bench.bench_offline_workbook --responses 1000
"""

import argparse
import io
import secrets

from bench.harness import timed
from core.formats.offline_workbook import (
    CriterionRow,
    GradingItem,
    GradingSheet,
    write_grading_workbook,
)

TARGET = 15.0


def sheet(responses: int, criteria: int) -> GradingSheet:
    return GradingSheet(
        annotator="annotator1",
        study_id="s-1",
        items=tuple(
            GradingItem(
                item_id=f"signed-item-{i}",
                task_text=f"Generated task {i}",
                response_text=f"Generated response {i}",
                criteria=tuple(
                    CriterionRow(f"cv{i}-{c}", f"{c:02d}", f"Wording {c}", "Guidance")
                    for c in range(criteria)
                ),
            )
            for i in range(responses)
        ),
    )


def write_seconds(responses: int, criteria: int, repeats: int) -> float:
    key = secrets.token_bytes(32)
    grading = sheet(responses, criteria)
    seconds, _ = timed(lambda: write_grading_workbook(io.BytesIO(), grading, key), repeats)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=300)
    parser.add_argument("--criteria", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    baseline = write_seconds(args.responses // 10, args.criteria, args.repeats)
    full = write_seconds(args.responses, args.criteria, args.repeats)
    ratio = full / baseline
    verdict = "meets" if ratio <= TARGET else "MISSES"
    print(f"baseline ({args.responses // 10} x {args.criteria}): {baseline:.3f} s")
    print(f"full ({args.responses} x {args.criteria}): {full:.3f} s")
    print(f"ratio {ratio:.1f} (linear: 10; target <= {TARGET:g}): {verdict} the target")


if __name__ == "__main__":
    main()
