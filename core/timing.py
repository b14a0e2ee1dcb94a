"""Time per criterion in aggregate: medians per criterion, per annotator and per pair, each
with its n, and which criteria or annotators stand out. Pure: (code, annotator, milliseconds)
rows in, frozen dataclasses out.

The definition of the time measured is in docs/grading.md ("Time per criterion"); only grades
whose time was measured (not left empty) are rows here.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median

# A group whose median is more than SLOW_FACTOR times the median of all groups is marked slow,
# one under 1 / SLOW_FACTOR quick (rushed, or simpler than the rest); groups with fewer than
# MIN_N times are not marked, their median says too little.
SLOW_FACTOR = 2.0
MIN_N = 3


@dataclass(frozen=True)
class TimeRow:
    """The median seconds of `n` measured times of one criterion, annotator or pair, and
    "slow", "quick" or "" against the study's typical time."""

    key: str
    median_seconds: float
    n: int
    stands_out: str


@dataclass(frozen=True)
class TimeSummary:
    overall_median_seconds: float | None
    n: int
    per_criterion: list[TimeRow]
    per_annotator: list[TimeRow]
    per_pair: dict[tuple[str, str], TimeRow]  # (criterion code, annotator)


def _mark(value: float, typical: float | None, n: int) -> str:
    if typical is None or typical <= 0 or n < MIN_N:
        return ""
    if value > SLOW_FACTOR * typical:
        return "slow"
    if value < typical / SLOW_FACTOR:
        return "quick"
    return ""


def _rows(groups: dict[str, list[float]], typical: float | None) -> list[TimeRow]:
    return [
        TimeRow(key, round(median(times), 1), len(times), _mark(median(times), typical, len(times)))
        for key, times in groups.items()
    ]


def summarise(
    rows: Iterable[tuple[str, str, int]], criterion_order: Iterable[str] = ()
) -> TimeSummary:
    """Medians of `rows` (criterion code, annotator, milliseconds) per criterion (in
    `criterion_order`, then by code), per annotator (by name) and per pair. A criterion is
    marked against the median of the criteria's medians, an annotator against the median of
    all times and a pair against its criterion's median."""
    by_criterion: dict[str, list[float]] = defaultdict(list)
    by_annotator: dict[str, list[float]] = defaultdict(list)
    by_pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    every: list[float] = []
    for code, annotator, ms in rows:
        seconds = ms / 1000
        by_criterion[code].append(seconds)
        by_annotator[annotator].append(seconds)
        by_pair[(code, annotator)].append(seconds)
        every.append(seconds)
    overall = median(every) if every else None
    criterion_typical = median(median(t) for t in by_criterion.values()) if every else None
    rank = {code: n for n, code in enumerate(criterion_order)}
    per_criterion = sorted(
        _rows(by_criterion, criterion_typical), key=lambda r: (rank.get(r.key, len(rank)), r.key)
    )
    criterion_median = {row.key: row.median_seconds for row in per_criterion}
    per_pair = {
        pair: TimeRow(
            pair[1],
            round(median(times), 1),
            len(times),
            _mark(median(times), criterion_median[pair[0]], len(times)),
        )
        for pair, times in by_pair.items()
    }
    return TimeSummary(
        None if overall is None else round(overall, 1),
        len(every),
        per_criterion,
        sorted(_rows(by_annotator, overall), key=lambda r: r.key),
        per_pair,
    )
