"""What an import did or would do: counts per kind of row, and every problem found."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.formats.problems import SHOWN_PROBLEMS, Problem, in_order

# progress(done, total, stage): called as work advances; the command draws a bar with it,
# the upload page stores it on the ImportJob.
Progress = Callable[[int, int, str], None]


def no_progress(done: int, total: int, stage: str) -> None:
    return None


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"

    def as_dict(self) -> dict[str, int]:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged}


@dataclass(frozen=True)
class NewVersion:
    """A response that changed while something pointed at it (a study item, a judge verdict):
    stored as its next `version`; the version before it stays as it was, graded in `studies`."""

    line: int | None
    task_key: str
    response_id: str  # its id in the file (external_id)
    version: int  # the new version's number
    previous_version: int  # the version it superseded
    changed: tuple[str, ...]  # the fields that changed (model_name, text, turns, ...)
    studies: tuple[str, ...]  # names of the studies that hold the version before it

    def as_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "task_key": self.task_key,
            "response_id": self.response_id,
            "version": self.version,
            "previous_version": self.previous_version,
            "changed": list(self.changed),
            "studies": list(self.studies),
        }


@dataclass(frozen=True)
class ChangedCriterion:
    """An existing criterion whose wording or weight an import changed, before and after.
    `new_version`: the change made draft version `version` after the published
    `previous_version`, which stays as it was; otherwise draft `version` was edited in place.
    `guidance`: "cleared" (written for the wording before: cleared, the version needs guidance
    again), "needed" (still to be written), "kept" (the wording and the weight's sign did not
    change) or "none" (none was written)."""

    code: str
    layer: str
    previous_version: int | None
    version: int
    new_version: bool
    wording: tuple[str, str]
    weight: tuple[int, int]
    guidance: str

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "layer": self.layer,
            "previous_version": self.previous_version,
            "version": self.version,
            "new_version": self.new_version,
            "wording": list(self.wording),
            "weight": list(self.weight),
            "guidance": self.guidance,
        }


@dataclass
class ImportReport:
    """The outcome of one import. Nothing was written unless `ok` and not `dry_run`."""

    kind: str
    dry_run: bool = False
    counts: dict[str, Counts] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    new_versions: list[NewVersion] = field(default_factory=list)
    changed_criteria: list[ChangedCriterion] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def count(self, name: str) -> Counts:
        return self.counts.setdefault(name, Counts())

    def summary(self) -> str:
        """`tasks: 3 created, 0 updated, 1 unchanged; criteria: ...`, or the problem count."""
        if self.problems:
            n = len(self.problems)
            return f"{n} problem{'s' if n != 1 else ''}: nothing was imported"
        text = "; ".join(f"{name}: {counts}" for name, counts in self.counts.items())
        return f"{text} (dry run: nothing was written)" if self.dry_run else text

    def problem_lines(self) -> list[str]:
        """The first SHOWN_PROBLEMS problems, then one line counting the rest by field."""
        return problem_lines(self.problems)


def problem_lines(problems: Sequence[Problem], shown: int = SHOWN_PROBLEMS) -> list[str]:
    """``str()`` of the first `shown` problems; if there are more, a last line says how many
    more there are, by the field they are in ("and 1,204 more problems: 1,200 in field
    'task_criteria', 4 with no field")."""
    problems = in_order(problems)
    lines = [str(problem) for problem in problems[:shown]]
    rest = problems[shown:]
    if rest:
        kinds = Counter(
            f"in field '{p.field}'" if p.field is not None else "with no field" for p in rest
        )
        counted = ", ".join(f"{count:,} {kind}" for kind, count in kinds.most_common())
        more = f"{len(rest):,} more problem{'s' if len(rest) != 1 else ''}"
        lines.append(f"… and {more} not listed: {counted}")
    return lines
