"""Model responses, one JSON object per line.

Fields: ``task_key`` (or ``task_id``; text, an integer is taken as its digits), ``model`` (the
model's name), optional ``family`` and ``version``, optional ``epoch`` (integer >= 1, default 1),
optional ``id`` (the response's id in the source system), and exactly one of ``response`` (the
text) or ``turns`` (a conversation: a non-empty list of ``{"role": "user" | "assistant" |
"system", "content": text}`` holding at least one assistant turn). Other fields are ignored.

A response is identified by its ``id`` when it has one, and always by
(task_key, model, version, epoch): both must be unique in a file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .jsonl import FieldReader, iter_jsonl
from .problems import Problem, describe, gettext_noop, shown

__all__ = [
    "ResponseRecord",
    "ResponsesFile",
    "Role",
    "Turn",
    "read_responses_jsonl",
    "response_to_json",
    "write_responses_jsonl",
]


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class Turn:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ResponseRecord:
    """One model response. Exactly one of ``response`` and ``turns`` is set."""

    task_key: str
    model: str
    response: str | None = None
    turns: tuple[Turn, ...] | None = None
    family: str | None = None
    version: str | None = None
    epoch: int = 1
    external_id: str | None = None
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if (self.response is None) == (self.turns is None):
            raise ValueError("exactly one of response and turns must be set")


@dataclass(frozen=True, slots=True)
class ResponsesFile:
    responses: tuple[ResponseRecord, ...]
    problems: tuple[Problem, ...]


def read_responses_jsonl(path: Path) -> ResponsesFile:
    """Read a responses file; lines with problems are left out, every problem is reported."""
    problems: list[Problem] = []
    responses: list[ResponseRecord] = []
    by_id: dict[str, int] = {}
    by_identity: dict[tuple[str, str, str | None, int], int] = {}
    for line, obj in iter_jsonl(path, problems):
        fields = FieldReader(path.name, line, obj, problems)
        record = _response(fields)
        if record is None:
            continue
        identity = (record.task_key, record.model, record.version, record.epoch)
        if record.external_id is not None and record.external_id in by_id:
            first = by_id[record.external_id]
            fields.report(
                "id",
                gettext_noop(
                    "duplicate id '%(external_id)s' (first at line %(first)s)",
                    external_id=record.external_id,
                    first=first,
                ),
            )
        elif identity in by_identity:
            first = by_identity[identity]
            fields.report(
                None,
                gettext_noop(
                    "a second response for the same task_key, model, version and epoch "
                    "(first at line %(first)s)",
                    first=first,
                ),
            )
        else:
            if record.external_id is not None:
                by_id[record.external_id] = line
            by_identity[identity] = line
            responses.append(record)
    return ResponsesFile(tuple(responses), tuple(problems))


def _response(fields: FieldReader) -> ResponseRecord | None:
    task_key = _task_key(fields)
    model = fields.text("model")
    family = fields.text("family", required=False)
    version = fields.text("version", required=False)
    epoch = fields.integer("epoch", default=1, minimum=1)
    external_id = fields.text("id", required=False, allow_int=True)
    has_response = fields.obj.get("response") is not None
    has_turns = fields.obj.get("turns") is not None
    response: str | None = None
    turns: tuple[Turn, ...] | None = None
    if has_response == has_turns:
        fields.report(None, gettext_noop("needs exactly one of 'response' and 'turns'"))
    elif has_turns:
        turns = _turns(fields)
    elif isinstance(fields.obj["response"], str):
        response = fields.obj["response"]
    else:
        fields.report(
            "response",
            gettext_noop("expected a string, got %(got)s", got=describe(fields.obj["response"])),
        )
    if fields.failed or task_key is None or model is None or epoch is None:
        return None
    return ResponseRecord(
        task_key=task_key,
        model=model,
        response=response,
        turns=turns,
        family=family,
        version=version,
        epoch=epoch,
        external_id=external_id,
        line=fields.line or 0,
    )


def _task_key(fields: FieldReader) -> str | None:
    both = "task_key" in fields.obj and "task_id" in fields.obj
    if both and fields.obj["task_key"] != fields.obj["task_id"]:
        fields.report("task_id", gettext_noop("differs from 'task_key' (give one of them)"))
        return None
    key = "task_key" if "task_key" in fields.obj or "task_id" not in fields.obj else "task_id"
    return fields.text(key, allow_int=True)


def _turns(fields: FieldReader) -> tuple[Turn, ...] | None:
    value = fields.obj["turns"]
    if not isinstance(value, list) or not value:
        got = gettext_noop("an empty list") if value == [] else describe(value)
        fields.report(
            "turns", gettext_noop("expected a non-empty list of turns, got %(got)s", got=got)
        )
        return None
    turns: list[Turn] = []
    for n, item in enumerate(value):
        where = f"turns[{n}]"
        if not isinstance(item, dict):
            fields.report(
                where, gettext_noop("expected an object, got %(got)s", got=describe(item))
            )
            continue
        role, content = item.get("role"), item.get("content")
        if role not in {r.value for r in Role}:
            fields.report(
                f"{where}.role",
                gettext_noop("%(value)s is not user, assistant or system", value=shown(role)),
            )
        if not isinstance(content, str):
            fields.report(
                f"{where}.content",
                gettext_noop("expected a string, got %(got)s", got=describe(content)),
            )
        if isinstance(content, str) and role in {r.value for r in Role}:
            turns.append(Turn(Role(role), content))
    if len(turns) == len(value) and not any(t.role is Role.ASSISTANT for t in turns):
        fields.report("turns", gettext_noop("has no assistant turn (the model's response)"))
    return tuple(turns)


def response_to_json(record: ResponseRecord) -> dict[str, Any]:
    """The JSON object for ``record`` (optional fields left out when unset)."""
    obj: dict[str, Any] = {"task_key": record.task_key, "model": record.model}
    for key, value in (("family", record.family), ("version", record.version)):
        if value is not None:
            obj[key] = value
    obj["epoch"] = record.epoch
    if record.external_id is not None:
        obj["id"] = record.external_id
    if record.turns is not None:
        obj["turns"] = [{"role": t.role.value, "content": t.content} for t in record.turns]
    else:
        obj["response"] = record.response
    return obj


def write_responses_jsonl(path: Path, records: Iterable[ResponseRecord]) -> None:
    """Write one object per line (UTF-8, no BOM); ``read_responses_jsonl`` reads it back."""
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(response_to_json(record), ensure_ascii=False) + "\n")
