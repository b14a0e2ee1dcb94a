"""A reader of ``l2-bench_tasks.csv`` that follows the reference pipeline's rules as
``shared/l2bench/format.md`` documents them, written apart from ``core.formats`` so that
a test can check an export against the pipeline, not only against our own reader:

- the file is UTF-8 with a byte-order mark, read with ``utf-8-sig``;
- a criteria cell is split at **every** ``|``, each piece trimmed;
- the id is everything before the first ``.`` followed by white space; the weight the integer
  after the last ``==``; the description what lies between, trimmed;
- task criteria ids are prefixed with the task key when read: ``<task_key>-<id>``; consensus
  and universal ids are kept as written.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

LAYERS = {"task_criteria": "task", "consensus_criteria": "consensus", "universal_criteria": ""}

# (layer, id, description, weight)
type PipelineCriterion = tuple[str, str, str, int]


def pipeline_criteria(path: Path) -> dict[str, list[PipelineCriterion]]:
    """Each task key's criteria, in file order, as the pipeline reads them."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    read: dict[str, list[PipelineCriterion]] = {}
    for row in rows:
        key = row["task_key"]
        criteria: list[PipelineCriterion] = []
        for column, layer in LAYERS.items():
            if not row[column].strip():
                continue
            for piece in (part.strip() for part in row[column].split("|")):
                found = re.match(r"(.*?)\.\s+(.*)==\s*(-?\d+)\s*$", piece, re.DOTALL)
                assert found, f"the pipeline cannot read {piece!r} of task {key}"
                raw_id, description, weight = found.groups()
                cid = f"{key}-{raw_id}" if layer == "task" else raw_id
                criteria.append((column, cid, description.strip(), int(weight)))
        read[key] = criteria
    return read
