"""The L2-Bench criteria cell: ``ID. description ==WEIGHT`` items joined by `` | ``.

Rules (from the dataset card, made exact here):

- criteria are separated by space, vertical bar, space (`` | ``); a ``|`` without a space on
  both sides belongs to the text;
- the id is everything before the first ``.`` that is followed by white space, and contains no
  white space itself;
- the weight is the integer after the last ``==``, at the end of the criterion; it may be
  negative (``==-3``, a penalty). Everything between the id and that ``==`` is the description,
  so a description may itself contain ``.``, ``==`` and ``|``;
- task criteria are made unique across the benchmark by the prefix ``<task_key>-``. A task
  criterion id that already starts with ``<task_key>-`` is kept; any other is prefixed. So a cell
  may hold ``06. ...`` or ``137-06. ...`` for task ``137``: both become ``137-06``, and the writer
  always writes the prefixed form (reading it again changes nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "SEPARATOR",
    "Criterion",
    "Layer",
    "ParsedCriteria",
    "format_criteria",
    "format_criterion",
    "parse_criteria",
    "task_criterion_id",
]

SEPARATOR = " | "
_ID_END = re.compile(r"\.\s")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?[0-9]*[.,][0-9]+")
_SHAPE = "expected 'ID. description ==WEIGHT'"


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


def task_criterion_id(task_key: str, raw_id: str) -> str:
    """``raw_id`` made unique across the benchmark: ``<task_key>-<raw_id>`` unless already so."""
    prefix = f"{task_key}-"
    return raw_id if raw_id.startswith(prefix) else prefix + raw_id


def parse_criteria(cell: str, layer: Layer, task_key: str | None = None) -> ParsedCriteria:
    """Parse one criteria cell. An empty (or blank) cell holds no criteria.

    ``task_key`` is used only for the task layer, to prefix bare ids (see the module docstring).
    Criteria with errors are left out of ``criteria``; every error is in ``errors``, each message
    ending with the criterion's position, e.g. ``criterion weight 'high' is not a number
    (criterion 2: '01a-02')``.
    """
    text = cell.strip()
    if not text:
        return ParsedCriteria((), ())
    criteria: list[Criterion] = []
    errors: list[str] = []
    first_position: dict[str, int] = {}
    for position, piece in enumerate(text.split(SEPARATOR), start=1):
        criterion, piece_errors = _parse_one(piece.strip(), position, layer, task_key)
        errors.extend(piece_errors)
        if criterion is None:
            continue
        if criterion.id in first_position:
            errors.append(
                f"duplicate criterion id '{criterion.id}' "
                f"(criteria {first_position[criterion.id]} and {position})"
            )
            continue
        first_position[criterion.id] = position
        criteria.append(criterion)
    return ParsedCriteria(tuple(criteria), tuple(errors))


def _parse_one(
    piece: str, position: int, layer: Layer, task_key: str | None
) -> tuple[Criterion | None, list[str]]:
    if not piece:
        return None, [f"criterion {position} is empty (two separators in a row?)"]
    errors: list[str] = []
    id_end = _ID_END.search(piece)
    raw_id = piece[: id_end.start()] if id_end else ""
    rest = piece[id_end.end() :] if id_end else piece
    where = f"criterion {position}: '{raw_id}'" if raw_id else f"criterion {position}"
    if not raw_id:
        errors.append(f"missing id, {_SHAPE} ({where}: '{_clip(piece)}')")
    elif any(ch.isspace() for ch in raw_id):
        errors.append(f"id '{_clip(raw_id)}' contains white space, {_SHAPE} ({where})")
    description, equals, weight_text = rest.rpartition("==")
    weight: int | None = None
    if not equals or not weight_text.strip():
        description = rest
        errors.append(f"missing weight, {_SHAPE} ({where})")
    elif _INTEGER.fullmatch(weight_text.strip()):
        weight = int(weight_text.strip())
    elif _DECIMAL.fullmatch(weight_text.strip()):
        errors.append(f"criterion weight '{weight_text.strip()}' is not a whole number ({where})")
    else:
        errors.append(f"criterion weight '{_clip(weight_text.strip())}' is not a number ({where})")
    description = description.strip()
    if not description:
        errors.append(f"empty description ({where})")
    if errors or weight is None:
        return None, errors
    full_id = task_criterion_id(task_key, raw_id) if layer is Layer.TASK and task_key else raw_id
    return Criterion(full_id, description, weight, layer), []


def format_criterion(criterion: Criterion) -> str:
    """``ID. description ==WEIGHT``; raises ``ValueError`` if the criterion could not be read back.

    The id must be non-empty without white space; the description non-empty, without leading or
    trailing white space, and the criterion must not contain the separator `` | ``.
    """
    cid, description = criterion.id, criterion.description
    if not cid or any(ch.isspace() for ch in cid):
        raise ValueError(f"criterion id {cid!r} must be non-empty and contain no white space")
    if not description or description != description.strip():
        raise ValueError(f"criterion {cid}: description must be non-empty and stripped")
    text = f"{cid}. {description} =={criterion.weight}"
    if SEPARATOR in f" {text} ":
        raise ValueError(f"criterion {cid}: text must not contain the separator {SEPARATOR!r}")
    return text


def format_criteria(criteria: Iterable[Criterion]) -> str:
    """The cell for ``criteria``: ``parse_criteria(format_criteria(xs), layer) == xs``."""
    return SEPARATOR.join(format_criterion(c) for c in criteria)


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
