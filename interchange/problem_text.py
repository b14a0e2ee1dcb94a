"""Problems of an import as their reader sees them: stored once (an import job's `problems`,
a judge run's), shown in the language of whoever opens the page.

A stored problem is a dict (`Problem.as_json()`: file, unit, at, field and the message as a
`Text`'s template and values), a dict counting the problems not listed (`more`), a message
about no file (a `Text`'s dict: a judge run's), or, from before messages were stored this way,
a plain line of English text, shown as it is.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop, ngettext

from core.formats.problems import SHOWN_PROBLEMS, Problem, Text, in_order, stored_message
from interchange.importers.report import Counts, ImportReport
from l2annot.shown import message_text
from rubrics.models import Layer, Response, Turn

__all__ = [
    "changed_fields_text",
    "message_text",
    "new_version_text",
    "nothing_imported",
    "problem_text",
    "report_summary",
    "stage_message",
    "stage_text",
    "stored_line",
    "stored_problems",
    "summary_text",
]

# The stages a running import reports (`ImportJob.stage`, the importers' `progress` calls).
STAGES = {
    "starting": gettext_noop("starting"),
    "reading the tasks file": gettext_noop("reading the tasks file"),
    "reading the responses file": gettext_noop("reading the responses file"),
    "reading the verdicts file": gettext_noop("reading the verdicts file"),
    "checking tasks": gettext_noop("checking tasks"),
    "checking responses": gettext_noop("checking responses"),
    "checking verdicts": gettext_noop("checking verdicts"),
    "writing": gettext_noop("writing"),
    "writing responses": gettext_noop("writing responses"),
    "publishing": gettext_noop("publishing"),
    "done": gettext_noop("done"),
    "finished": gettext_noop("finished"),
}

# What an import counts (ImportReport.count), as its summary names them.
COUNTED = {
    "tasks": gettext_noop("tasks"),
    "criteria": gettext_noop("criteria"),
    "criterion versions": gettext_noop("criterion versions"),
    "published rubrics": gettext_noop("published rubrics"),
    "sub-competencies": gettext_noop("sub-competencies"),
    "responses": gettext_noop("responses"),
    "verdicts": gettext_noop("verdicts"),
    "turn verdicts": gettext_noop("turn verdicts"),
    "judge ratings": gettext_noop("judge ratings"),
    "judge runs": gettext_noop("judge runs"),
}


def stored_problems(
    problems: Sequence[Problem],
    shown: int = SHOWN_PROBLEMS,
    names: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The first `shown` problems as a job stores them, then one entry counting the rest by
    the field they are in. `names` renames files (the stored upload's name to the one the
    person uploaded). In order of file, line and field (`in_order`), as a person fixes them."""
    problems = in_order(problems)
    items: list[dict[str, Any]] = [problem.as_json() for problem in problems[:shown]]
    for item in items:
        item["file"] = (names or {}).get(item["file"], item["file"])
    rest = problems[shown:]
    if rest:
        fields: dict[str | None, int] = {}
        for problem in rest:
            fields[problem.field] = fields.get(problem.field, 0) + 1
        by_count = sorted(fields.items(), key=lambda pair: -pair[1])
        items.append({"more": len(rest), "fields": [list(pair) for pair in by_count]})
    return items


def stored_line(file: str, message: str) -> dict[str, Any]:
    """A problem with the whole file (the import stopped, the archive is refused)."""
    message_json = stored_message(message)
    return {"file": file, "unit": "line", "at": None, "field": None, "message": message_json}


def problem_text(problem: object) -> str:
    """One stored problem as a line of the interface language."""
    if isinstance(problem, Problem):
        problem = problem.as_json()
    if not isinstance(problem, Mapping):
        return str(problem)
    if "more" in problem:
        return _more(problem)
    if "text" in problem:
        return message_text(problem)
    values = {
        "file": problem.get("file", ""),
        "at": problem.get("at"),
        "field": problem.get("field"),
        "message": message_text(problem.get("message", "")),
    }
    rows = problem.get("unit") == "row"
    if values["at"] is None and values["field"] is None:
        return gettext("%(file)s: %(message)s") % values
    if values["at"] is None:
        return gettext("%(file)s: field '%(field)s': %(message)s") % values
    if values["field"] is None:
        text = gettext("%(file)s: row %(at)s: %(message)s") if rows else None
        return (text or gettext("%(file)s: line %(at)s: %(message)s")) % values
    if rows:
        return gettext("%(file)s: row %(at)s: field '%(field)s': %(message)s") % values
    return gettext("%(file)s: line %(at)s: field '%(field)s': %(message)s") % values


def _more(problem: Mapping[str, Any]) -> str:
    kinds = []
    for field, count in problem.get("fields", []):
        if field is None:
            kinds.append(ngettext("%(count)s with no field", "%(count)s with no field", count))
        else:
            kinds.append(
                ngettext("%(count)s in field '%(field)s'", "%(count)s in field '%(field)s'", count)
            )
        kinds[-1] = kinds[-1] % {"count": _number(count), "field": field}
    more = problem["more"]
    return ngettext(
        "… and %(count)s more problem not listed: %(kinds)s",
        "… and %(count)s more problems not listed: %(kinds)s",
        more,
    ) % {"count": _number(more), "kinds": ", ".join(kinds)}


def _number(count: int) -> str:
    return number_format(count, force_grouping=True)


def summary_text(
    summary: str,
    counts: Mapping[str, Mapping[str, int]],
    dry_run: bool,
    notes: Sequence[object] = (),
) -> str:
    """A finished import's summary in the reader's language: its counts (`ImportJob.counts`),
    then its notes (`ImportJob.notes`, stored messages). An import stored before its notes
    were shows them as they were stored, after its counts; one without counts (an offline
    workbook's, then) is shown as it is."""
    if notes:
        parts = [_counts_text(counts, dry_run)] if counts else []
        return " ".join([*parts, *(message_text(note) for note in notes)])
    if not counts:
        return summary
    report = ImportReport(kind="", dry_run=dry_run)
    report.counts = {name: Counts(**numbers) for name, numbers in counts.items()}
    english = report.summary()
    if not summary.startswith(english):
        return summary
    text = _counts_text(counts, dry_run)
    rest = summary[len(english) :].strip()
    return f"{text} {rest}" if rest else text


def report_summary(report: ImportReport) -> str:
    """What an import command prints when it ends, in the interface language: how many
    problems stopped it, or its counts (its notes are printed apart)."""
    if report.problems:
        return nothing_imported(len(report.problems))
    counts = {name: numbers.as_dict() for name, numbers in report.counts.items()}
    return summary_text(report.summary(), counts, report.dry_run)


def nothing_imported(problems: int) -> str:
    """How many problems stopped an import, in the interface language."""
    return ngettext(
        "%(count)s problem: nothing was imported",
        "%(count)s problems: nothing was imported",
        problems,
    ) % {"count": problems}


def _counts_text(counts: Mapping[str, Mapping[str, int]], dry_run: bool) -> str:
    text = "; ".join(
        gettext("%(name)s: %(created)s created, %(updated)s updated, %(unchanged)s unchanged")
        % {"name": gettext(COUNTED[name]) if name in COUNTED else name, **numbers}
        for name, numbers in counts.items()
    )
    if dry_run:
        text = gettext("%(counts)s (dry run: nothing was written)") % {"counts": text}
    return text


def stage_text(stage: str) -> str:
    """A running import's stage in the reader's language (an unknown one as it is)."""
    return gettext(STAGES[stage]) if stage in STAGES else stage


def stage_message(stage: str) -> str:
    """The stage as a value of a stored message: translated where the message is read."""
    return Text(stage) if stage in STAGES else stage


def changed_fields_text(names: Sequence[str]) -> str:
    """What changed in a response (`NewVersion.changed`), by its fields' names in the reader's
    language: "text, turns"."""
    labels = {"turns": Turn._meta.verbose_name_plural}
    shown = []
    for name in names:
        if name in labels:
            shown.append(str(labels[name]))
        else:
            try:
                field = Response._meta.get_field(name)
            except FieldDoesNotExist:
                shown.append(name)
            else:
                shown.append(str(getattr(field, "verbose_name", name)))
    return ", ".join(shown)


def new_version_text(found: Mapping[str, Any], dry_run: bool = False) -> str:
    """One response an import gave (or, in a dry run, would give) a new version
    (`NewVersion.as_json()`), in the reader's language, after its line when it has one."""
    studies = list(found.get("studies") or [])
    values = {
        "id": found["response_id"],
        "task": found["task_key"],
        "version": found["version"],
        "previous": found["previous_version"],
        "changed": changed_fields_text(found.get("changed") or []),
        "studies": ", ".join(f"“{name}”" for name in studies),
    }
    if studies and dry_run:
        text = ngettext(
            "response '%(id)s' of task %(task)s would get version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it is, graded in study %(studies)s",
            "response '%(id)s' of task %(task)s would get version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it is, graded in studies %(studies)s",
            len(studies),
        )
    elif studies:
        text = ngettext(
            "response '%(id)s' of task %(task)s got version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it was, graded in study %(studies)s",
            "response '%(id)s' of task %(task)s got version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it was, graded in studies %(studies)s",
            len(studies),
        )
    elif dry_run:
        text = gettext(
            "response '%(id)s' of task %(task)s would get version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it is, with the judge's verdicts on it"
        )
    else:
        text = gettext(
            "response '%(id)s' of task %(task)s got version %(version)s (%(changed)s "
            "changed); version %(previous)s stays as it was, with the judge's verdicts on it"
        )
    message = text % values
    if found.get("line") is None:
        return message
    return gettext("line %(at)s: %(message)s") % {"at": found["line"], "message": message}


def guidance_text(state: str) -> str:
    """What became of a changed criterion's guidance (`ChangedCriterion.guidance`)."""
    states = {
        "cleared": gettext("cleared: written for the wording before, to be written again"),
        "needed": gettext("still to be written"),
        "kept": gettext("kept: the wording and the weight's sign are the same"),
        "none": gettext("none written"),
    }
    return states.get(state, state)


def layer_text(layer: str) -> str:
    return str(Layer(layer).label) if layer in Layer.values else layer


def changed_criterion_text(found: Mapping[str, Any], dry_run: bool = False) -> str:
    """One criterion an import changed (or, in a dry run, would change)
    (`ChangedCriterion.as_json()`), in the reader's language, before and after."""
    values = {
        "code": found["code"],
        "layer": layer_text(found["layer"]).lower(),
        "version": found["version"],
        "previous": found["previous_version"],
        "wording_before": found["wording"][0],
        "wording_after": found["wording"][1],
        "weight_before": found["weight"][0],
        "weight_after": found["weight"][1],
        "guidance": guidance_text(found["guidance"]),
    }
    if found["new_version"] and dry_run:
        text = gettext(
            "%(layer)s criterion %(code)s would get draft version %(version)s, for review "
            "(version %(previous)s stays as it is): “%(wording_before)s” (%(weight_before)s) "
            "→ “%(wording_after)s” (%(weight_after)s); guidance: %(guidance)s"
        )
    elif found["new_version"]:
        text = gettext(
            "%(layer)s criterion %(code)s got draft version %(version)s, for review "
            "(version %(previous)s stays as it was): “%(wording_before)s” (%(weight_before)s) "
            "→ “%(wording_after)s” (%(weight_after)s); guidance: %(guidance)s"
        )
    elif dry_run:
        text = gettext(
            "%(layer)s criterion %(code)s: its draft version %(version)s would be edited: "
            "“%(wording_before)s” (%(weight_before)s) → “%(wording_after)s” "
            "(%(weight_after)s); guidance: %(guidance)s"
        )
    else:
        text = gettext(
            "%(layer)s criterion %(code)s: its draft version %(version)s was edited: "
            "“%(wording_before)s” (%(weight_before)s) → “%(wording_after)s” "
            "(%(weight_after)s); guidance: %(guidance)s"
        )
    return text % values
