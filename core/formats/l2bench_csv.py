"""``l2-bench_tasks.csv``: one row per task, UTF-8 with a byte-order mark.

Reading checks, and reports together: the required columns; each row's fields; the three
criteria cells; task keys used twice; resource files missing from ``resources_for_tasks/``; and
that a consensus or universal criterion reads the same (text and weight) on every row it is on.

Extension of this project: any column named ``context:<variable_key>`` carries the value of that
context variable for the task (blank = not set), and an optional ``language`` column the task's
target language, as an ISO 639-1 code or a known English name ("es", "Spanish"; read into the
code, an unknown one reported; blank = not given: a new task is English, an existing one keeps
its language). The values are kept as text; resolving keys,
competencies and values is the database layer's job.

Limits, so a hostile file costs little to refuse: at most ``MAX_COLUMNS`` columns (the header is
refused before any row is read) and ``MAX_CELL_CHARACTERS`` characters in one cell.

A text cell a spreadsheet would run as a formula (``=HYPERLINK(...)``) is written with a leading
apostrophe and read back without it (``formulas.spreadsheet_safe``); numbers stay as they are.
"""

from __future__ import annotations

import csv
import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from core.formats.formulas import spreadsheet_safe, spreadsheet_unsafe
from core.languages import UnknownLanguage, language_code

from .criteria import (
    Criterion,
    Layer,
    a_criterion_of,
    criterion_named,
    format_criteria,
    format_criterion,
    parse_criteria,
)
from .jsonl import NUL_REFUSED
from .problems import Problem, gettext_noop

__all__ = [
    "CONTEXT_PREFIX",
    "CRITERIA_COLUMNS",
    "MAX_CELL_CHARACTERS",
    "MAX_COLUMNS",
    "REQUIRED_COLUMNS",
    "RESOURCES_DIR",
    "RESOURCE_COLUMNS",
    "TASKS_FILE",
    "NotWritable",
    "TaskRecord",
    "TasksFile",
    "parse_published",
    "read_l2bench_folder",
    "read_tasks_csv",
    "unwritable",
    "write_tasks_csv",
]

TASKS_FILE = "l2-bench_tasks.csv"
RESOURCES_DIR = "resources_for_tasks"
CONTEXT_PREFIX = "context:"
LANGUAGE_COLUMN = "language"
PUBLISHED_COLUMN = "is_published_v1-0"
RESOURCE_COLUMNS = tuple(f"task_resource_file_link_{n}" for n in (1, 2, 3))
CRITERIA_COLUMNS = {
    Layer.TASK: "task_criteria",
    Layer.CONSENSUS: "consensus_criteria",
    Layer.UNIVERSAL: "universal_criteria",
}
REQUIRED_COLUMNS = (
    "task_key",
    "task",
    "task_system_prompt",
    "reference_answer",
    "competency",
    "version_at_time_of_draft",
    PUBLISHED_COLUMN,
    *RESOURCE_COLUMNS,
    *CRITERIA_COLUMNS.values(),
)
# The layout has 15 columns; the rest are context variables (tens) or columns a spreadsheet kept.
MAX_COLUMNS = 1_000
# csv's own field limit, named here so the message can say it; longer than any text a task holds.
MAX_CELL_CHARACTERS = 131_072
_NOT_EMPTY = ("task_key", "task", "reference_answer", "competency")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One task row. ``row`` (the spreadsheet row, header = 1) is not part of equality."""

    task_key: str
    task: str
    task_system_prompt: str
    reference_answer: str
    competency: str
    version_at_time_of_draft: str
    is_published: bool
    resource_files: tuple[str, ...]
    task_criteria: tuple[Criterion, ...]
    consensus_criteria: tuple[Criterion, ...]
    universal_criteria: tuple[Criterion, ...]
    context: tuple[tuple[str, str], ...] = ()
    """``(variable_key, value)`` pairs sorted by key; blank values are left out."""
    row: int = field(default=0, compare=False)
    language: str = ""
    """The target language's ISO 639-1 code; blank when the file gives none."""

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        """All three layers: task, then consensus, then universal."""
        return self.task_criteria + self.consensus_criteria + self.universal_criteria


@dataclass(frozen=True, slots=True)
class TasksFile:
    """What a tasks file held: the rows that read cleanly, and every problem found."""

    tasks: tuple[TaskRecord, ...]
    problems: tuple[Problem, ...]
    ignored_columns: tuple[str, ...] = ()
    context_columns: tuple[str, ...] = ()
    """The variable keys of the file's ``context:`` columns: for these, a blank cell means
    "not set" (an import clears the value); variables without a column are left alone."""

    @property
    def ok(self) -> bool:
        return not self.problems


def parse_published(text: str) -> bool | None:
    """``true/false/yes/no/1/0`` (any case, surrounding space ignored) -> bool; else ``None``."""
    value = text.strip().lower()
    return True if value in _TRUE else False if value in _FALSE else None


def read_l2bench_folder(folder: Path) -> TasksFile:
    """Read ``<folder>/l2-bench_tasks.csv``, resources in ``<folder>/resources_for_tasks/``."""
    return read_tasks_csv(folder / TASKS_FILE, resources_dir=folder / RESOURCES_DIR)


def read_tasks_csv(path: Path, resources_dir: Path | None = None) -> TasksFile:
    """Read a tasks CSV (``utf-8-sig``), streaming its rows.

    ``resources_dir``: when given, every resource file name must exist there; when ``None`` the
    file names are only checked to be plain names.
    """
    reader = _Reader(path.name, resources_dir)
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader.read(csv.reader(handle))
    except FileNotFoundError:
        reader.report(None, None, gettext_noop("file not found"))
    except UnicodeDecodeError as error:
        reader.report(
            None,
            None,
            gettext_noop(
                "not valid UTF-8 (%(reason)s at byte %(byte)s)",
                reason=error.reason,
                byte=error.start,
            ),
        )
    except csv.Error as error:
        reader.report(reader.reading, None, _csv_problem(error))
    return TasksFile(
        tuple(reader.tasks), tuple(reader.problems), reader.ignored, reader.context_columns
    )


def _csv_problem(error: csv.Error) -> str:
    if "field larger than field limit" in str(error):
        return gettext_noop(
            "a cell is longer than %(most)s characters: the file is not read",
            most=f"{MAX_CELL_CHARACTERS:,}",
        )
    return gettext_noop("not valid CSV (%(error)s): the file is read no further", error=str(error))


class _Reader:
    """The state of one read: seen keys and shared criteria, problems so far."""

    def __init__(self, file: str, resources_dir: Path | None) -> None:
        self.file = file
        self.resources_dir = resources_dir
        self.tasks: list[TaskRecord] = []
        self.problems: list[Problem] = []
        self.ignored: tuple[str, ...] = ()
        self.context_columns: tuple[str, ...] = ()
        self.row = 1
        self.reading = 1  # the row csv is reading: a problem it raises is there
        self.key_rows: dict[str, int] = {}
        # criterion id -> (criterion, first row): shared layers must read the same everywhere.
        self.shared: dict[str, tuple[Criterion, int]] = {}

    def report(self, row: int | None, column: str | None, message: str) -> None:
        self.problems.append(Problem(self.file, row, column, message, unit="row"))

    def read(self, rows: Iterator[list[str]]) -> None:
        csv.field_size_limit(MAX_CELL_CHARACTERS)
        header = next(rows, None)
        if header is None:
            self.report(None, None, gettext_noop("the file is empty (no header row)"))
            return
        if not self.check_header(header):
            return
        self.reading = 2
        for self.row, values in enumerate(rows, start=2):
            self.reading = self.row + 1
            if not any(value.strip() for value in values):
                continue
            if len(values) != len(header):
                self.report(
                    self.row,
                    None,
                    gettext_noop(
                        "has %(count)s cells, header has %(header)s",
                        count=len(values),
                        header=len(header),
                    ),
                )
                continue
            if any("\x00" in value for value in values):
                for name, value in zip(header, values, strict=True):
                    if "\x00" in value:
                        self.report(self.row, name, NUL_REFUSED)
                continue
            texts = [spreadsheet_unsafe(value) for value in values]
            task = self.parse_row(dict(zip(header, texts, strict=True)))
            if task is not None:
                self.tasks.append(task)

    def check_header(self, header: list[str]) -> bool:
        """Every check is linear in the number of columns (a hostile header may have 100,000)."""
        if len(header) > MAX_COLUMNS:
            self.report(
                1,
                None,
                gettext_noop(
                    "the header has %(count)s columns; a tasks file has at most %(most)s "
                    "(the %(layout)s of the layout and context columns)",
                    count=f"{len(header):,}",
                    most=f"{MAX_COLUMNS:,}",
                    layout=len(REQUIRED_COLUMNS),
                ),
            )
            return False
        ok = True
        if any("\x00" in name for name in header):
            message = gettext_noop(
                "a column name holds the NUL character (\\u0000), which the database cannot store"
            )
            self.report(1, None, message)
            return False
        present = Counter(header)
        missing = [name for name in REQUIRED_COLUMNS if name not in present]
        if missing:
            self.report(
                1, None, gettext_noop("missing columns: %(columns)s", columns=", ".join(missing))
            )
            ok = False
        duplicated = sorted(name for name, count in present.items() if count > 1)
        if duplicated:
            self.report(
                1,
                None,
                gettext_noop(
                    "columns appear more than once: %(columns)s", columns=", ".join(duplicated)
                ),
            )
            ok = False
        for name in header:
            if name.startswith(CONTEXT_PREFIX) and not name[len(CONTEXT_PREFIX) :].strip():
                self.report(
                    1, name, gettext_noop("a context column needs a variable key after 'context:'")
                )
                ok = False
        self.context_columns = tuple(
            sorted(
                name[len(CONTEXT_PREFIX) :].strip()
                for name in header
                if name.startswith(CONTEXT_PREFIX) and name[len(CONTEXT_PREFIX) :].strip()
            )
        )
        known = {*REQUIRED_COLUMNS, LANGUAGE_COLUMN}
        self.ignored = tuple(
            name for name in header if name not in known and not name.startswith(CONTEXT_PREFIX)
        )
        return ok

    def parse_row(self, cells: dict[str, str]) -> TaskRecord | None:
        before = len(self.problems)
        key = cells["task_key"].strip()
        for name in _NOT_EMPTY:
            if not cells[name].strip():
                self.report(self.row, name, gettext_noop("is empty"))
        if key and key in self.key_rows:
            first = self.key_rows[key]
            self.report(
                self.row,
                "task_key",
                gettext_noop(
                    "duplicate task_key '%(key)s' (first at row %(first)s)", key=key, first=first
                ),
            )
        elif key:
            self.key_rows[key] = self.row
        published = parse_published(cells[PUBLISHED_COLUMN])
        if published is None:
            self.report(
                self.row,
                PUBLISHED_COLUMN,
                gettext_noop(
                    "'%(value)s' is not true, false, yes, no, 1, 0", value=cells[PUBLISHED_COLUMN]
                ),
            )
        resources = tuple(cells[c].strip() for c in RESOURCE_COLUMNS if cells[c].strip())
        for column in RESOURCE_COLUMNS:
            self.check_resource(column, cells[column].strip())
        layers = {
            layer: self.parse_layer(cells[column], layer, column, key)
            for layer, column in CRITERIA_COLUMNS.items()
        }
        context = tuple(
            sorted(
                (name[len(CONTEXT_PREFIX) :].strip(), value.strip())
                for name, value in cells.items()
                if name.startswith(CONTEXT_PREFIX) and value.strip()
            )
        )
        language = ""
        if cells.get(LANGUAGE_COLUMN, "").strip():
            try:
                language = language_code(cells[LANGUAGE_COLUMN])
            except UnknownLanguage:
                message = gettext_noop(
                    "%(value)s is not a language this application knows: give its ISO 639-1 "
                    "code (like 'en' or 'es') or its English name (like 'Spanish').",
                    value=repr(cells[LANGUAGE_COLUMN].strip()),
                )
                self.report(self.row, LANGUAGE_COLUMN, message)
        if len(self.problems) > before or published is None:
            return None
        return TaskRecord(
            task_key=key,
            task=cells["task"],
            task_system_prompt=cells["task_system_prompt"],
            reference_answer=cells["reference_answer"],
            competency=cells["competency"].strip(),
            version_at_time_of_draft=cells["version_at_time_of_draft"].strip(),
            is_published=published,
            resource_files=resources,
            task_criteria=layers[Layer.TASK],
            consensus_criteria=layers[Layer.CONSENSUS],
            universal_criteria=layers[Layer.UNIVERSAL],
            context=context,
            row=self.row,
            language=language,
        )

    def check_resource(self, column: str, name: str) -> None:
        if not name:
            return
        if "/" in name or "\\" in name or name in {".", ".."}:
            self.report(
                self.row,
                column,
                gettext_noop("resource '%(name)s' must be a plain file name", name=name),
            )
        elif self.resources_dir is not None and not (self.resources_dir / name).is_file():
            self.report(
                self.row,
                column,
                gettext_noop(
                    "resource file '%(name)s' is not in %(folder)s/",
                    name=name,
                    folder=RESOURCES_DIR,
                ),
            )

    def parse_layer(self, cell: str, layer: Layer, column: str, key: str) -> tuple[Criterion, ...]:
        parsed = parse_criteria(cell, layer, task_key=key or None)
        for message in parsed.errors:
            self.report(self.row, column, message)
        if layer is not Layer.TASK:
            for criterion in parsed.criteria:
                self.check_shared(criterion, column)
        return parsed.criteria

    def check_shared(self, criterion: Criterion, column: str) -> None:
        seen = self.shared.get(criterion.id)
        if seen is None:
            self.shared[criterion.id] = (criterion, self.row)
            return
        first, row = seen
        where = criterion_named(criterion.layer, criterion.id)
        if first.layer is not criterion.layer:
            self.report(
                self.row,
                column,
                gettext_noop(
                    "%(where)s is %(other)s at row %(row)s",
                    where=where,
                    other=a_criterion_of(first.layer),
                    row=row,
                ),
            )
        elif first.weight != criterion.weight:
            self.report(
                self.row,
                column,
                gettext_noop(
                    "%(where)s has weight %(weight)s here but %(first)s at row %(row)s",
                    where=where,
                    weight=criterion.weight,
                    first=first.weight,
                    row=row,
                ),
            )
        elif first.description != criterion.description:
            self.report(
                self.row,
                column,
                gettext_noop(
                    "%(where)s has different text here than at row %(row)s", where=where, row=row
                ),
            )


class NotWritable(ValueError):
    """Tasks the L2-Bench layout cannot carry; ``problems`` names each task and criterion."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def unwritable(tasks: Iterable[TaskRecord]) -> list[str]:
    """Why ``tasks`` cannot be written in the L2-Bench layout, one message per task or
    criterion (a shared criterion once, naming its tasks); empty when they can be."""
    problems: list[str] = []
    tasks_of: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for task in tasks:
        if len(task.resource_files) > len(RESOURCE_COLUMNS):
            problems.append(
                gettext_noop(
                    "task '%(key)s' has %(count)s resource files: the L2-Bench layout carries at "
                    "most %(most)s (%(first)s to _%(most)s)",
                    key=task.task_key,
                    count=len(task.resource_files),
                    most=len(RESOURCE_COLUMNS),
                    first=RESOURCE_COLUMNS[0],
                )
            )
        for criterion in task.criteria:
            try:
                format_criterion(criterion, task.task_key)
            except ValueError as error:
                reasons.setdefault(criterion.id, error.args[0])
                tasks_of.setdefault(criterion.id, []).append(task.task_key)
    for criterion_id, keys in tasks_of.items():
        shown = ", ".join(f"'{key}'" for key in keys[:5]) + (" ..." if len(keys) > 5 else "")
        if len(keys) == 1:
            problem = gettext_noop(
                "task %(tasks)s: %(reason)s", tasks=shown, reason=reasons[criterion_id]
            )
        else:
            problem = gettext_noop(
                "%(count)s tasks %(tasks)s: %(reason)s",
                count=len(keys),
                tasks=shown,
                reason=reasons[criterion_id],
            )
        problems.append(problem)
    return problems


def write_tasks_csv(path: Path, tasks: Iterable[TaskRecord]) -> None:
    """Write ``tasks`` in the L2-Bench layout (UTF-8 with BOM), then the ``language`` column
    when a task has a target language, then the context columns, by key.

    ``read_tasks_csv(path) == tasks`` for tasks that read cleanly. Raises ``NotWritable`` (and
    writes nothing) for tasks with more than three resource files or a criterion that cannot be
    encoded (see ``unwritable``).
    """
    tasks = list(tasks)
    problems = unwritable(tasks)
    if problems:
        raise NotWritable(problems)
    keys = sorted({key for task in tasks for key, _ in task.context})
    # The reference layout has no language column: written only when there is one to carry.
    languages = [LANGUAGE_COLUMN] if any(task.language for task in tasks) else []
    header = [*REQUIRED_COLUMNS, *languages, *(CONTEXT_PREFIX + key for key in keys)]
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for task in tasks:
            row = _row(task, keys, with_language=bool(languages))
            writer.writerow([spreadsheet_safe(cell) for cell in row])


def _row(task: TaskRecord, context_keys: list[str], *, with_language: bool) -> list[str]:
    resources = [*task.resource_files, "", "", ""][: len(RESOURCE_COLUMNS)]
    context = dict(task.context)
    return [
        task.task_key,
        task.task,
        task.task_system_prompt,
        task.reference_answer,
        task.competency,
        task.version_at_time_of_draft,
        "True" if task.is_published else "False",
        *resources,
        format_criteria(task.task_criteria, task.task_key),
        format_criteria(task.consensus_criteria),
        format_criteria(task.universal_criteria),
        *([task.language] if with_language else []),
        *(context.get(key, "") for key in context_keys),
    ]


# A sub-competency the framework lacks, refused by an import (`interchange.importers.benchmark`,
# whose messages about it begin so): the pages offer to import the same file again creating
# it, the command names its option.
UNKNOWN_SUB_COMPETENCY = "unknown sub-competency '"


def lacks_sub_competencies(problems: Iterable[object]) -> bool:
    """Whether some of `problems` (`Problem`s, or as a job stores them) names a sub-competency
    the framework lacks, which an import creating the missing ones may mend."""
    for problem in problems:
        message = problem.message if isinstance(problem, Problem) else None
        if isinstance(problem, dict):
            message = problem.get("message")
        template = getattr(message, "template", None)
        if isinstance(message, dict):
            template = message.get("text")
        if isinstance(template, str) and template.startswith(UNKNOWN_SUB_COMPETENCY):
            return True
    return False


def shared_order(rows: Iterable[Sequence[str]]) -> list[str]:
    """The order of shared (consensus or universal) criteria that the rows listing them agree
    on. A row leaves out a universal criterion its task excludes, so a criterion's position on
    one row is not its place: the codes of every row are merged, each row's own order kept
    (where rows contradict each other, and between codes no row orders, first come first)."""
    first: dict[str, int] = {}
    followers: dict[str, set[str]] = defaultdict(set)
    waiting_for: Counter[str] = Counter()
    for row in rows:
        for code in row:
            first.setdefault(code, len(first))
        for before, after in pairwise(row):
            if after not in followers[before] and before != after:
                followers[before].add(after)
                waiting_for[after] += 1
    ready = [(first[code], code) for code in first if waiting_for[code] == 0]
    heapq.heapify(ready)
    ordered: list[str] = []
    placed: set[str] = set()
    while len(ordered) < len(first):
        if ready:
            _, code = heapq.heappop(ready)
        else:  # rows that contradict each other: the earliest code not placed goes next
            code = min((c for c in first if c not in placed), key=first.__getitem__)
        if code in placed:
            continue
        ordered.append(code)
        placed.add(code)
        for after in followers[code]:
            waiting_for[after] -= 1
            if waiting_for[after] == 0 and after not in placed:
                heapq.heappush(ready, (first[after], after))
    return ordered
