"""The L2-Bench criteria cell: ``ID. description ==WEIGHT`` items joined by `` | ``.

The reference pipeline (``elt_bench_eval``) defines the format; this module reads a cell exactly
as it does, or refuses it:

- the pipeline splits a cell at **every** ``|`` and trims each piece, so no criterion can
  contain a ``|``. The writer joins criteria with space, bar, space (`` | ``); a ``|`` inside a
  criterion's text is refused (reading it, the pipeline would cut the criterion in two);
- the id is everything before the first ``.`` that is followed by white space, and contains no
  white space itself;
- the weight is the integer after the last ``==``, at the end of the criterion; it may be
  negative (``==-3``, a penalty). Everything between the id and that ``==`` is the description,
  so a description may itself contain ``.`` and ``==``;
- task criteria ids are **task-local** in the file (``06``); the pipeline makes them unique
  across the benchmark by prefixing the task key when it reads: ``<task_key>-06``. A record
  (``Criterion``) always holds that benchmark-wide id, and the writer writes the task-local
  part back. An id in the file that already starts with ``<task_key>-`` is refused: the
  pipeline would read ``137-06`` of task ``137`` as ``137-137-06``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from .problems import Text, gettext_noop

__all__ = [
    "SEPARATOR",
    "Criterion",
    "Layer",
    "ParsedCriteria",
    "a_criterion_of",
    "criterion_named",
    "format_criteria",
    "format_criterion",
    "parse_criteria",
    "task_criterion_id",
    "task_local_id",
]

SEPARATOR = " | "
BAR = "|"
_ID_END = re.compile(r"\.\s")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?[0-9]*[.,][0-9]+")


class Layer(StrEnum):
    """The three rubric layers of L2-Bench."""

    TASK = "task"
    CONSENSUS = "consensus"
    UNIVERSAL = "universal"


@dataclass(frozen=True, slots=True)
class Criterion:
    """One weighted binary criterion. ``id`` is the benchmark-wide id (task ids prefixed)."""

    id: str
    description: str
    weight: int
    layer: Layer


@dataclass(frozen=True, slots=True)
class ParsedCriteria:
    """The criteria of one cell, in cell order, and every error found (messages, no location)."""

    criteria: tuple[Criterion, ...]
    errors: tuple[str, ...]


def task_criterion_id(task_key: str, local_id: str) -> str:
    """The benchmark-wide id of task criterion ``local_id`` of task ``task_key``, as the
    reference pipeline forms it: ``<task_key>-<local_id>``."""
    return f"{task_key}-{local_id}"


def task_local_id(task_key: str, criterion_id: str) -> str:
    """The id a tasks file carries for task criterion ``criterion_id`` (the inverse of
    ``task_criterion_id``); ``ValueError`` if ``criterion_id`` is not ``<task_key>-<id>``."""
    prefix = f"{task_key}-"
    if not criterion_id.startswith(prefix) or len(criterion_id) == len(prefix):
        raise ValueError(
            f"task criterion {criterion_id!r} of task {task_key!r} does not start with {prefix!r}"
        )
    return criterion_id[len(prefix) :]


def parse_criteria(cell: str, layer: Layer, task_key: str | None = None) -> ParsedCriteria:
    """Parse one criteria cell. An empty (or blank) cell holds no criteria.

    ``task_key`` is used only for the task layer, to prefix the file's task-local ids (see the
    module docstring). Criteria with errors are left out of ``criteria``; every error is in
    ``errors``, each message ending with the criterion's position, e.g. ``criterion weight
    'high' is not a number (criterion 2: '01a-02')``.
    """
    text = cell.strip()
    if not text:
        return ParsedCriteria((), ())
    criteria: list[Criterion] = []
    errors: list[str] = []
    first_position: dict[str, int] = {}
    for position, (criterion, piece_errors) in enumerate(_pieces(text, layer, task_key), 1):
        errors.extend(piece_errors)
        if criterion is None:
            continue
        if criterion.id in first_position:
            errors.append(
                gettext_noop(
                    "duplicate criterion id '%(id)s' (criteria %(first)s and %(position)s)",
                    id=criterion.id,
                    first=first_position[criterion.id],
                    position=position,
                )
            )
            continue
        first_position[criterion.id] = position
        criteria.append(criterion)
    return ParsedCriteria(tuple(criteria), tuple(errors))


def _pieces(
    text: str, layer: Layer, task_key: str | None
) -> list[tuple[Criterion | None, list[str]]]:
    """The cell's criteria as the pipeline cuts them, each read or with its errors.

    A piece between spaced separators that holds a bare ``|`` is read as the pipeline reads
    it, as several criteria, when every part is a whole criterion (``a. x ==1 |b. y ==2``);
    otherwise the ``|`` is inside a criterion's text, and that is the one error reported."""
    results: list[tuple[Criterion | None, list[str]]] = []
    for piece in (piece.strip() for piece in text.split(SEPARATOR)):
        if BAR not in piece:
            results.append(_parse_one(piece, len(results) + 1, layer, task_key))
            continue
        parts = [
            _parse_one(part.strip(), len(results) + n, layer, task_key)
            for n, part in enumerate(piece.split(BAR), start=1)
        ]
        if all(criterion is not None for criterion, _ in parts):
            results.extend(parts)
            continue
        id_end = _ID_END.search(piece)
        raw_id = piece[: id_end.start()] if id_end else ""
        message = gettext_noop(
            "the text contains '|', which the L2-Bench pipeline reads as a separator between "
            "criteria: write it another way (criterion %(position)s: '%(id)s')",
            position=len(results) + 1,
            id=_clip(raw_id or piece),
        )
        results.append((None, [message]))
    return results


def _parse_one(
    piece: str, position: int, layer: Layer, task_key: str | None
) -> tuple[Criterion | None, list[str]]:
    if not piece:
        message = gettext_noop(
            "criterion %(position)s is empty (two separators in a row?)", position=position
        )
        return None, [message]
    errors: list[str] = []
    id_end = _ID_END.search(piece)
    raw_id = piece[: id_end.start()] if id_end else ""
    rest = piece[id_end.end() :] if id_end else piece

    def where() -> Text:  # made for a message only: most criteria have none
        if raw_id:
            return gettext_noop("criterion %(position)s: '%(id)s'", position=position, id=raw_id)
        return gettext_noop("criterion %(position)s", position=position)

    if not raw_id:
        errors.append(
            gettext_noop(
                "missing id, expected 'ID. description ==WEIGHT' (%(where)s: '%(text)s')",
                where=where(),
                text=_clip(piece),
            )
        )
    elif any(ch.isspace() for ch in raw_id):
        errors.append(
            gettext_noop(
                "id '%(id)s' contains white space, expected 'ID. description ==WEIGHT' (%(where)s)",
                id=_clip(raw_id),
                where=where(),
            )
        )
    description, equals, weight_text = rest.rpartition("==")
    weight: int | None = None
    if not equals or not weight_text.strip():
        description = rest
        errors.append(
            gettext_noop(
                "missing weight, expected 'ID. description ==WEIGHT' (%(where)s)", where=where()
            )
        )
    elif _INTEGER.fullmatch(weight_text.strip()):
        weight = int(weight_text.strip())
    elif _DECIMAL.fullmatch(weight_text.strip()):
        errors.append(
            gettext_noop(
                "criterion weight '%(weight)s' is not a whole number (%(where)s)",
                weight=weight_text.strip(),
                where=where(),
            )
        )
    else:
        errors.append(
            gettext_noop(
                "criterion weight '%(weight)s' is not a number (%(where)s)",
                weight=_clip(weight_text.strip()),
                where=where(),
            )
        )
    description = description.strip()
    if not description:
        errors.append(gettext_noop("empty description (%(where)s)", where=where()))
    if layer is Layer.TASK and task_key and raw_id.startswith(f"{task_key}-"):
        errors.append(
            gettext_noop(
                "task criterion ids are task-local ('%(local)s'): the L2-Bench pipeline reads "
                "'%(id)s' as '%(read)s' (%(where)s)",
                local=raw_id[len(task_key) + 1 :],
                id=raw_id,
                read=task_criterion_id(task_key, raw_id),
                where=where(),
            )
        )
    if errors or weight is None:
        return None, errors
    full_id = task_criterion_id(task_key, raw_id) if layer is Layer.TASK and task_key else raw_id
    return Criterion(full_id, description, weight, layer), []


def format_criterion(criterion: Criterion, task_key: str | None = None) -> str:
    """``ID. description ==WEIGHT``; raises ``ValueError`` if the criterion could not be read back.

    With ``task_key``, a task criterion's id is written task-local (``137-06`` as ``06``). The
    id must be non-empty without white space; the description non-empty, without leading or
    trailing white space; neither may contain ``|``.
    """
    cid, description = criterion.id, criterion.description
    if criterion.layer is Layer.TASK and task_key is not None:
        cid = task_local_id(task_key, cid)
    if not cid or any(ch.isspace() for ch in cid):
        raise ValueError(
            gettext_noop(
                "criterion id %(id)s must be non-empty and contain no white space", id=repr(cid)
            )
        )
    if not description or description != description.strip():
        raise ValueError(
            gettext_noop(
                "criterion %(id)s: description must be non-empty and stripped", id=criterion.id
            )
        )
    if BAR in cid or BAR in description:
        raise ValueError(
            gettext_noop(
                "criterion %(id)s: contains '|', which the L2-Bench pipeline reads as a "
                "separator between criteria",
                id=criterion.id,
            )
        )
    return f"{cid}. {description} =={criterion.weight}"


def format_criteria(criteria: Iterable[Criterion], task_key: str | None = None) -> str:
    """The cell for ``criteria``:
    ``parse_criteria(format_criteria(xs, key), layer, key) == xs``."""
    return SEPARATOR.join(format_criterion(c, task_key) for c in criteria)


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def criterion_named(layer: str, code: str) -> Text:
    """ "universal criterion '06u1'", for messages (one text per layer, to translate whole)."""
    if layer == Layer.UNIVERSAL:
        return gettext_noop("universal criterion '%(code)s'", code=code)
    if layer == Layer.CONSENSUS:
        return gettext_noop("consensus criterion '%(code)s'", code=code)
    return gettext_noop("task criterion '%(code)s'", code=code)


def a_criterion_of(layer: str) -> Text:
    """ "a universal criterion", for messages."""
    if layer == Layer.UNIVERSAL:
        return gettext_noop("a universal criterion")
    if layer == Layer.CONSENSUS:
        return gettext_noop("a consensus criterion")
    return gettext_noop("a task criterion")
