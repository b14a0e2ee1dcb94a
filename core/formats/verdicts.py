"""LLM-judge verdicts, one JSON object per (response, criterion) per line.

Fields:

- the response, identified in exactly one of two ways: ``response_id`` (the ``id`` the response
  had in the responses file), or ``task_key`` + ``model`` (+ ``epoch``, default 1), which names
  the response of that model to that task in that epoch;
- ``criterion_id`` (benchmark-wide, task criteria prefixed with the task key);
- ``verdict``: JSON ``true``/``false``, or one of the strings ``true``/``false``,
  ``pass``/``fail``, ``yes``/``no`` (any case). Anything else is refused, numbers included: a
  ``1`` could as well be a score as a verdict;
- ``judge_model`` (required), optional ``rationale``, ``prompt_version``, ``run_id``, ``weight``
  (the criterion weight the judge saw, an integer, checked later against the rubric);
- optional ``record_id``: the batch inference id ``<task_key>/<criterion_id>``; when given it
  must agree with ``criterion_id`` (and with ``task_key`` when that is given);
- optional ``turn``: on a turn-level criterion of a dialogue, the index of the tutor turn judged
  (from 0, counting every turn of the dialogue); the importer keeps each turn's verdict and
  folds them into the response's verdict by the criterion's rule;
- optional ``response_version`` (an integer >= 1): the version of the response the judge read,
  when it is not the current one (a response changed after it was graded keeps its graded
  version; L2 Annot's judge runs name the version of the study they judge). Without it the
  verdict is stored against the response's current version.
- optional ``pass_probability`` (a number from 0 to 1): the probability the judge stated that
  the response meets the criterion, when it was asked for one; a study sampling for the
  judge's scores reads it as the judge's uncertainty.

A line may instead carry the judge's 1-5 **rating** of the response on a rating question
(e.g. the task's authenticity): ``question`` (the question's key, a slug) and ``score`` (a whole
number from 1 to 5) in place of ``criterion_id`` and ``verdict``; the other fields are the same
(``weight`` and ``record_id`` do not apply). A line is a verdict or a rating, never both.

One verdict per response, criterion, judge, prompt version and run, and one rating per
response, question, epoch, judge, prompt version and run: a repeat is a problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .jsonl import FieldReader, iter_jsonl
from .problems import Problem, gettext_noop, shown

__all__ = [
    "RatingRecord",
    "VerdictRecord",
    "VerdictsFile",
    "batch_record_id",
    "parse_batch_record_id",
    "parse_verdict",
    "rating_to_json",
    "read_verdicts_jsonl",
    "verdict_to_json",
    "write_verdicts_jsonl",
]

_TRUE = frozenset({"true", "pass", "yes"})
_FALSE = frozenset({"false", "fail", "no"})
ACCEPTED = gettext_noop("true or false (also pass/fail, yes/no)")
SCORES = range(1, 6)
RATING_FIELDS = ("question", "score")
VERDICT_FIELDS = ("criterion_id", "verdict", "weight", "record_id")


class _JudgeRecord:
    """What verdict and rating records share: the response they judge, ``response_id`` or
    (``task_key``, ``model``, ``epoch``), and the run that judged it."""

    __slots__ = ()
    response_id: str | None
    task_key: str | None
    model: str | None
    epoch: int
    judge_model: str
    prompt_version: str | None
    run_id: str | None
    response_version: int | None

    def _check_response_reference(self) -> None:
        # A response's id may be given with its task (ids made from the model and epoch repeat
        # across tasks): an Inspect log written by L2 Annot's judge runs names both.
        by_id = self.response_id is not None
        by_key = self.task_key is not None and self.model is not None
        if by_id == by_key or (by_id and self.model):
            raise ValueError("give either response_id (with its task_key), or task_key and model")

    @property
    def response_key(self) -> tuple[str, ...]:
        """What identifies the response: ``(id,)`` or ``(task_key, model, epoch)``, then its
        version when one is named."""
        version = () if self.response_version is None else (f"v{self.response_version}",)
        if self.response_id is not None:
            named = (
                (self.response_id,) if self.task_key is None else (self.task_key, self.response_id)
            )
            return named + version
        return (str(self.task_key), str(self.model), str(self.epoch), *version)

    @property
    def run_key(self) -> tuple[str, str, str]:
        """The judge run: ``(judge_model, prompt_version, run_id)``, blanks for the missing."""
        return (self.judge_model, self.prompt_version or "", self.run_id or "")


@dataclass(frozen=True, slots=True)
class VerdictRecord(_JudgeRecord):
    """One judge verdict on one criterion for one response.

    The response is ``response_id`` when set, else (``task_key``, ``model``, ``epoch``).
    ``verdict`` is None for an answer the judge gave that could not be read as one (an
    Inspect log can say so; a verdicts file cannot), and for a ``level``: the judge's level on
    an ordinal criterion (an Inspect log's whole-number ``judgement``).
    """

    criterion_id: str
    verdict: bool | None
    judge_model: str
    response_id: str | None = None
    task_key: str | None = None
    model: str | None = None
    epoch: int = 1
    rationale: str = ""
    prompt_version: str | None = None
    run_id: str | None = None
    weight: int | None = None
    # On a turn-level criterion of a dialogue: the index of the tutor turn judged (the judge
    # saw the dialogue up to it); the importer folds a response's turns by the criterion's rule.
    turn: int | None = None
    line: int = field(default=0, compare=False)
    level: int | None = None
    # The judge's stated probability that the response meets the criterion, when its run
    # asked for one (an Inspect log's ``probability``, written by L2 Annot's judge runs, or a
    # verdicts file's ``pass_probability``).
    pass_probability: float | None = None
    response_version: int | None = None  # the version judged; None: the current one

    def __post_init__(self) -> None:
        self._check_response_reference()


@dataclass(frozen=True, slots=True)
class RatingRecord(_JudgeRecord):
    """The judge's 1-5 score for one response on one rating question (by its key)."""

    question: str
    score: int
    judge_model: str
    response_id: str | None = None
    task_key: str | None = None
    model: str | None = None
    epoch: int = 1
    rationale: str = ""
    prompt_version: str | None = None
    run_id: str | None = None
    line: int = field(default=0, compare=False)
    response_version: int | None = None  # the version judged; None: the current one

    def __post_init__(self) -> None:
        self._check_response_reference()
        if self.score not in SCORES:
            raise ValueError(f"score must be 1 to 5, got {self.score!r}")


@dataclass(frozen=True, slots=True)
class VerdictsFile:
    verdicts: tuple[VerdictRecord, ...]
    problems: tuple[Problem, ...]
    ratings: tuple[RatingRecord, ...] = ()


def batch_record_id(task_key: str, criterion_id: str) -> str:
    """The batch inference record id ``<task_key>/<criterion_id>``.

    Raises ``ValueError`` if either part contains ``/`` (the id could not be split back).
    """
    if "/" in task_key or "/" in criterion_id:
        raise ValueError(f"'/' in task key {task_key!r} or criterion id {criterion_id!r}")
    return f"{task_key}/{criterion_id}"


def parse_batch_record_id(record_id: str) -> tuple[str, str] | None:
    """``(task_key, criterion_id)``; ``None`` unless one ``/`` splits two non-empty parts."""
    task_key, slash, criterion_id = record_id.partition("/")
    if not slash or not task_key or not criterion_id or "/" in criterion_id:
        return None
    return task_key, criterion_id


def parse_verdict(value: object) -> bool | None:
    """``True``/``False`` for an accepted verdict (see the module docstring), else ``None``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None
    return None


def read_verdicts_jsonl(path: Path) -> VerdictsFile:
    """Read a verdicts file; lines with problems are left out, every problem is reported."""
    problems: list[Problem] = []
    verdicts: list[VerdictRecord] = []
    ratings: list[RatingRecord] = []
    seen: dict[tuple[object, ...], int] = {}
    for line, obj in iter_jsonl(path, problems):
        fields = FieldReader(path.name, line, obj, problems)
        is_rating = any(obj.get(name) is not None for name in RATING_FIELDS)
        if is_rating and any(obj.get(name) is not None for name in VERDICT_FIELDS):
            fields.report(
                None,
                gettext_noop(
                    "a line is a verdict ('criterion_id', 'verdict') or a rating ('question', "
                    "'score'), not both",
                ),
            )
            continue
        record = _rating(fields) if is_rating else _verdict(fields)
        if record is None:
            continue
        if isinstance(record, RatingRecord):
            key: tuple[object, ...] = ("rating", record.response_key, record.question)
            key += (record.epoch, record.judge_model, record.prompt_version, record.run_id)
            same = gettext_noop(
                "a second rating for the same response, question, epoch, judge, prompt version "
                "and run (first at line %(seen)s)",
                seen=seen.get(key),
            )
        else:
            key = (record.response_key, record.criterion_id, record.judge_model)
            key += (record.prompt_version, record.run_id, record.turn)
            same = gettext_noop(
                "a second verdict for the same response, criterion, judge, prompt version and "
                "run (first at line %(seen)s)",
                seen=seen.get(key),
            )
        if key in seen:
            fields.report(None, same)
            continue
        seen[key] = line
        if isinstance(record, RatingRecord):
            ratings.append(record)
        else:
            verdicts.append(record)
    return VerdictsFile(tuple(verdicts), tuple(problems), tuple(ratings))


def _response(
    fields: FieldReader,
) -> tuple[str | None, str | None, str | None, int | None, int | None]:
    """``(response_id, task_key, model, epoch, response_version)``: exactly one way of naming
    the response, and the version judged when given."""
    obj = fields.obj
    response_id = fields.text("response_id", required=False, allow_int=True)
    by_key = obj.get("task_key") is not None or obj.get("model") is not None
    if (obj.get("response_id") is not None) == by_key:
        fields.report(
            None,
            gettext_noop(
                "identify the response by 'response_id', or by 'task_key' and 'model' (with "
                "'epoch'), not both and not neither"
            ),
        )
    task_key = fields.text("task_key", allow_int=True) if by_key else None
    model = fields.text("model") if by_key else None
    epoch = fields.integer("epoch", default=1, minimum=1)
    version = (
        fields.integer("response_version", default=None, minimum=1)
        if obj.get("response_version") is not None
        else None
    )
    return response_id, task_key, model, epoch, version


def _judge(fields: FieldReader) -> tuple[str | None, str, str | None, str | None]:
    """``(judge_model, rationale, prompt_version, run_id)`` of a verdict or rating line."""
    return (
        fields.text("judge_model"),
        fields.free_text("rationale"),
        fields.text("prompt_version", required=False, allow_int=True),
        fields.text("run_id", required=False, allow_int=True),
    )


def _rating(fields: FieldReader) -> RatingRecord | None:
    obj = fields.obj
    response_id, task_key, model, epoch, response_version = _response(fields)
    question = fields.text("question")
    if question is not None and not _is_slug(question):
        fields.report(
            "question",
            gettext_noop("%(value)s is not a question key (a-z, 0-9, -, _)", value=shown(question)),
        )
        question = None
    score = fields.integer("score", default=None)
    if score is not None and score not in SCORES:
        fields.report(
            "score",
            gettext_noop("%(value)s is not a whole number from 1 to 5", value=shown(obj["score"])),
        )
        score = None
    judge_model, rationale, prompt_version, run_id = _judge(fields)
    if fields.failed or question is None or score is None or judge_model is None:
        return None
    return RatingRecord(
        question=question,
        score=score,
        judge_model=judge_model,
        response_id=response_id,
        task_key=task_key,
        model=model,
        epoch=epoch or 1,
        rationale=rationale,
        prompt_version=prompt_version,
        run_id=run_id,
        line=fields.line or 0,
        response_version=response_version,
    )


def _is_slug(text: str) -> bool:
    return len(text) <= 50 and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)


def _verdict(fields: FieldReader) -> VerdictRecord | None:
    obj = fields.obj
    response_id, task_key, model, epoch, response_version = _response(fields)
    criterion_id = fields.text("criterion_id")
    verdict = parse_verdict(obj.get("verdict"))
    if obj.get("verdict") is None:
        fields.report(
            "verdict", gettext_noop("is missing (expected %(accepted)s)", accepted=ACCEPTED)
        )
    elif verdict is None:
        fields.report(
            "verdict",
            gettext_noop(
                "%(value)s is not %(accepted)s", value=shown(obj["verdict"]), accepted=ACCEPTED
            ),
        )
    judge_model, rationale, prompt_version, run_id = _judge(fields)
    weight = fields.integer("weight", default=None) if obj.get("weight") is not None else None
    turn = fields.integer("turn", default=None, minimum=0) if obj.get("turn") is not None else None
    pass_probability = fields.probability("pass_probability")
    record_id = fields.text("record_id", required=False)
    if record_id is not None and criterion_id is not None:
        _check_record_id(fields, record_id, task_key, criterion_id)
    if fields.failed or criterion_id is None or verdict is None or judge_model is None:
        return None
    return VerdictRecord(
        criterion_id=criterion_id,
        verdict=verdict,
        judge_model=judge_model,
        response_id=response_id,
        task_key=task_key,
        model=model,
        epoch=epoch or 1,
        rationale=rationale,
        prompt_version=prompt_version,
        run_id=run_id,
        weight=weight,
        turn=turn,
        line=fields.line or 0,
        pass_probability=pass_probability,
        response_version=response_version,
    )


def _check_record_id(
    fields: FieldReader, record_id: str, task_key: str | None, criterion_id: str
) -> None:
    parts = parse_batch_record_id(record_id)
    if parts is None:
        fields.report(
            "record_id",
            gettext_noop("'%(record_id)s' is not <task_key>/<criterion_id>", record_id=record_id),
        )
    elif parts[1] != criterion_id or (task_key is not None and parts[0] != task_key):
        fields.report(
            "record_id",
            gettext_noop(
                "'%(record_id)s' does not match task_key and criterion_id", record_id=record_id
            ),
        )


def verdict_to_json(record: VerdictRecord) -> dict[str, Any]:
    """The JSON object for ``record`` (optional fields left out when unset)."""
    obj: dict[str, Any] = {}
    if record.response_id is not None:
        obj["response_id"] = record.response_id
    else:
        obj |= {"task_key": record.task_key, "model": record.model}
    if record.response_version is not None:
        obj["response_version"] = record.response_version
    obj |= {"epoch": record.epoch, "criterion_id": record.criterion_id}
    obj |= {"verdict": record.verdict, "rationale": record.rationale}
    obj["judge_model"] = record.judge_model
    optional: dict[str, str | int | float | None] = {
        "prompt_version": record.prompt_version,
        "run_id": record.run_id,
    }
    optional |= {"weight": record.weight, "turn": record.turn}
    optional |= {"pass_probability": record.pass_probability}
    obj |= {k: v for k, v in optional.items() if v is not None}
    return obj


def rating_to_json(record: RatingRecord) -> dict[str, Any]:
    """The JSON object for a 1-5 rating (optional fields left out when unset)."""
    obj: dict[str, Any] = {}
    if record.response_id is not None:
        obj["response_id"] = record.response_id
    else:
        obj |= {"task_key": record.task_key, "model": record.model}
    if record.response_version is not None:
        obj["response_version"] = record.response_version
    obj |= {"epoch": record.epoch, "question": record.question, "score": record.score}
    obj |= {"rationale": record.rationale, "judge_model": record.judge_model}
    optional = {"prompt_version": record.prompt_version, "run_id": record.run_id}
    return obj | {k: v for k, v in optional.items() if v is not None}


def write_verdicts_jsonl(path: Path, records: Iterable[VerdictRecord | RatingRecord]) -> None:
    """Write one object per line (UTF-8, no BOM); ``read_verdicts_jsonl`` reads it back."""
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            if isinstance(record, RatingRecord):
                obj = rating_to_json(record)
            else:
                obj = verdict_to_json(record)
            handle.write(json.dumps(obj, ensure_ascii=False) + "\n")
