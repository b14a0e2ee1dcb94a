"""Inspect AI ``.eval`` logs: a ZIP archive of JSON members.

Both generations of the archive are read: the deflate members written by Inspect before 0.3.x's
switch and the Zstandard members (ZIP method 93) that current Inspect writes; see
``zip_members``. The JSON inside is the same.

What is read (Inspect's log schema, version 2):

- ``header.json`` (or, for a log still being written, ``_journal/start.json``): its ``eval``
  section gives the evaluated model (``eval.model``), the run (``eval.run_id``) and the task
  arguments (``eval.task_args``); ``status`` should be ``success``;
- ``samples/<id>_epoch_<n>.json``, one per (task, epoch): the sample's ``id`` is the L2-Bench
  task key and ``epoch`` its epoch (read from the JSON, not the member name). The score whose
  ``metadata`` holds ``scoring_results`` gives one verdict per criterion:
  ``{"criterion_id", "weight", "judgement"}`` plus an optional ``explanation``/``rationale``.
  A ``judgement`` of JSON ``null`` is an answer the judge gave that could not be read as a
  verdict (after any retries): it is kept as no verdict, with its explanation, never guessed.
  A whole-number ``judgement`` is a level on an ordinal criterion (checked against the
  criterion's scale when the verdicts are stored). A ``probability`` (a number from 0 to 1) is
  the judge's stated probability that the response meets the criterion, as L2 Annot's judge
  runs write it when their configuration asks for one; any other value is read as none.
  ``output.completion`` (else the first choice's text) gives the evaluated response; a
  multi-turn sample (its ``messages`` hold more than one assistant message: a dialogue the
  tutor held with a simulated learner) gives a dialogue instead, its user and assistant
  messages as turns in order (system and tool messages are left out: the system prompt is the
  task's).
- A sample whose ``metadata.response_id`` names a response already stored (its id, as in a
  responses file, within the task ``metadata.task_key`` when given) judges that response: its
  output is the judge's answer, not a response, so
  no response is read from it, and its verdicts name the response by that id (a log written
  by L2 Annot's own judge runs, one sample per response and criterion, is of this kind). Its
  ``metadata.turn`` (an integer), when present, is the tutor turn of a dialogue it judged on a
  turn-level criterion: one sample per turn, folded into the response's verdict on import.
  Its ``metadata.response_version`` (an integer), when present, is the version of that response
  it judged (a study grades the version it was made with, which a newer one may have followed);
  without it, the response's current version.

The judge model is looked for, in order: the caller's ``judge_model``; ``eval.model_roles``
``grader`` then ``judge`` (Inspect's model roles, ``{"model": ...}``); ``eval.task_args``
``judge_model``, ``grader_model``, ``judge``, ``grader``; ``eval.metadata.judge_model``. The
prompt version, when known, is ``eval.task_args.prompt_version`` or
``eval.metadata.prompt_version``.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .jsonl import decoder_reason, too_many_values, unstorable_in
from .problems import Problem, describe, gettext_noop, shown
from .responses import ResponseRecord, Role, Turn
from .verdicts import ACCEPTED, VerdictRecord, parse_verdict
from .zip_members import MemberError, ZipMembers

__all__ = ["EvalLogImport", "read_inspect_eval"]

# Bytes of one member read whole (unpacked), by default: a ZIP member of a few kilobytes can
# unpack to hundreds of megabytes. The largest real samples (a dialogue with its scorer's
# events) are a few megabytes; the importer passes settings.IMPORT_MAX_JSON_MEMBER_BYTES.
MAX_MEMBER_BYTES = 24 * 1024 * 1024
# Characters of responses and explanations kept from one log, by default (the importer passes
# settings.IMPORT_MAX_EVAL_TEXT_CHARS): each sample is read in bounded memory, but what it
# yields stays until the whole log is checked, and a thousand samples of a repeated 20 MB
# explanation fit in a few megabytes of archive.
MAX_KEPT_CHARS = 32_000_000
_SAMPLE = re.compile(r"samples/[^/]+\.json")
_JUDGE_ROLES = ("grader", "judge")
_JUDGE_ARGS = ("judge_model", "grader_model", "judge", "grader")


@dataclass(frozen=True, slots=True)
class EvalLogImport:
    """What one ``.eval`` log held: the responses scored and the judge's verdicts on them."""

    task: str | None
    run_id: str | None
    evaluated_model: str | None
    judge_model: str | None
    prompt_version: str | None
    responses: tuple[ResponseRecord, ...]
    verdicts: tuple[VerdictRecord, ...]
    problems: tuple[Problem, ...]


class _Log:
    def __init__(self, path: Path, max_member_bytes: int) -> None:
        self.name = path.name
        self.max_member_bytes = max_member_bytes
        self.problems: list[Problem] = []
        self.kept = 0  # characters of the responses and explanations read so far

    def report(self, member: str | None, field: str | None, message: str) -> None:
        file = f"{self.name}: {member}" if member else self.name
        self.problems.append(Problem(file, None, field, message))

    def load(self, archive: ZipMembers, member: str) -> Any:
        info = archive.getinfo(member)
        if info.file_size > self.max_member_bytes:
            message = gettext_noop(
                "unpacks to %(size)s bytes, more than the %(most)s read at once",
                size=f"{info.file_size:,}",
                most=f"{self.max_member_bytes:,}",
            )
            self.report(member, None, message)
            return None
        try:
            data = archive.read(member)
        except MemberError as error:
            self.report(
                member, None, gettext_noop("cannot be read: it %(error)s", error=error.args[0])
            )
            return None
        if (too_many := too_many_values(data)) is not None:
            self.report(member, None, too_many)
            return None
        try:
            value = json.loads(data)
        except json.JSONDecodeError as error:
            message = gettext_noop(
                "not valid JSON (%(reason)s at line %(line)s, column %(column)s)",
                reason=decoder_reason(error.msg),
                line=error.lineno,
                column=error.colno,
            )
            self.report(member, None, message)
            return None
        except ValueError as error:  # not UTF-8 text
            self.report(
                member, None, gettext_noop("not valid JSON (%(reason)s)", reason=str(error))
            )
            return None
        if (refused := unstorable_in(value)) is not None:
            field = ".".join(str(key) for key in refused.path) or None
            self.report(member, field, refused.message)
            return None
        return value


def read_inspect_eval(
    path: Path,
    *,
    judge_model: str | None = None,
    scorer: str | None = None,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_kept_chars: int = MAX_KEPT_CHARS,
) -> EvalLogImport:
    """Read an Inspect ``.eval`` log into responses and verdicts, collecting every problem.

    ``scorer`` names the score to read when several carry ``scoring_results``. A member that
    unpacks to more than ``max_member_bytes``, or holds more values than the JSON reader takes
    at once (``jsonl.MAX_VALUES``), is reported and not read; past ``max_kept_chars`` of
    responses and explanations the log is reported and read no further: memory stays bounded
    whatever the archive holds.
    """
    log = _Log(path, max_member_bytes)
    empty = EvalLogImport(None, None, None, None, None, (), (), ())
    try:
        archive = ZipMembers(path)
    except FileNotFoundError:
        log.report(None, None, gettext_noop("file not found"))
        return _with(empty, log)
    except zipfile.BadZipFile:
        log.report(None, None, gettext_noop("not a ZIP archive (an Inspect .eval log is one)"))
        return _with(empty, log)
    with archive:
        names = archive.namelist()
        header_name = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
        if header_name is None:
            log.report(
                None, None, gettext_noop("has no header.json: is it an Inspect AI .eval log?")
            )
            return _with(empty, log)
        header = log.load(archive, header_name)
        spec = _spec(log, header_name, header)
        found = _header_values(log, header_name, header, spec, judge_model)
        responses: list[ResponseRecord] = []
        verdicts: list[VerdictRecord] = []
        seen: dict[tuple[str, int], str] = {}
        for member in (n for n in names if _SAMPLE.fullmatch(n)):
            sample = log.load(archive, member)
            _read_sample(log, member, sample, found, scorer, seen, responses, verdicts)
            if log.kept > max_kept_chars:
                message = gettext_noop(
                    "its responses and explanations add up to more than %(most)s characters, "
                    "more than one import holds: split the log (read up to %(member)s)",
                    most=f"{max_kept_chars:,}",
                    member=member,
                )
                log.report(None, None, message)
                break
    return EvalLogImport(
        task=found["task"],
        run_id=found["run_id"],
        evaluated_model=found["model"],
        judge_model=found["judge"],
        prompt_version=found["prompt_version"],
        responses=tuple(responses),
        verdicts=tuple(verdicts),
        problems=tuple(log.problems),
    )


def _with(result: EvalLogImport, log: _Log) -> EvalLogImport:
    return replace(result, problems=tuple(log.problems))


def _spec(log: _Log, member: str, header: Any) -> dict[str, Any]:
    if header is None:
        return {}
    if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
        log.report(member, "eval", gettext_noop("is missing or not an object"))
        return {}
    status = header.get("status")
    if status is not None and status != "success":
        log.report(
            member,
            "status",
            gettext_noop("the run's status is %(value)s, not 'success'", value=shown(status)),
        )
    spec: dict[str, Any] = header["eval"]
    return spec


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _header_values(
    log: _Log, member: str, header: Any, spec: dict[str, Any], judge_model: str | None
) -> dict[str, Any]:
    task_args = _object(spec.get("task_args"))
    roles = _object(spec.get("model_roles"))
    metadata = _object(spec.get("metadata"))
    judge = judge_model
    for role in _JUDGE_ROLES:
        config = roles.get(role)
        judge = judge or _text(config.get("model") if isinstance(config, dict) else None)
    for arg in _JUDGE_ARGS:
        judge = judge or _text(task_args.get(arg))
    judge = judge or _text(metadata.get("judge_model"))
    model = _text(spec.get("model"))
    if header is not None and spec and model is None:
        log.report(member, "eval.model", gettext_noop("the evaluated model is missing"))
    if header is not None and spec and judge is None:
        looked = "eval.model_roles grader/judge, eval.task_args " + "/".join(_JUDGE_ARGS)
        log.report(
            member,
            "eval.model_roles",
            gettext_noop("no judge model (looked in %(looked)s): give it", looked=looked),
        )
    version = task_args.get("prompt_version", metadata.get("prompt_version"))
    return {
        "task": _text(spec.get("task")),
        "run_id": _text(spec.get("run_id")),
        "model": model,
        "judge": judge,
        "prompt_version": str(version) if isinstance(version, str | int) else None,
    }


def _read_sample(
    log: _Log,
    member: str,
    sample: Any,
    found: dict[str, Any],
    scorer: str | None,
    seen: dict[tuple[str, int], str],
    responses: list[ResponseRecord],
    verdicts: list[VerdictRecord],
) -> None:
    if not isinstance(sample, dict):
        if sample is not None:
            log.report(
                member, None, gettext_noop("expected an object, got %(got)s", got=describe(sample))
            )
        return
    before = len(log.problems)
    raw_id, epoch = sample.get("id"), sample.get("epoch")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or raw_id == "":
        log.report(
            member,
            "id",
            gettext_noop("expected the task key (text or integer), got %(got)s", got=shown(raw_id)),
        )
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        log.report(
            member,
            "epoch",
            gettext_noop("expected an integer >= 1, got %(got)s", got=shown(epoch)),
        )
    if sample.get("error"):
        error = sample["error"]
        message = error.get("message") if isinstance(error, dict) else error
        log.report(
            member,
            "error",
            gettext_noop("the sample ended in an error: %(value)s", value=shown(message)),
        )
    results = _scoring_results(log, member, sample.get("scores"), scorer)
    metadata = _object(sample.get("metadata"))
    judged = _text(metadata.get("response_id"))
    if len(log.problems) > before or results is None or not isinstance(epoch, int):
        return
    task_key = str(raw_id)
    # A sample judging a stored response names its task in its metadata (its id is its own),
    # and is one of several on that response (one per criterion).
    judged_task = _text(metadata.get("task_key")) if judged else None
    key = (f"{judged}\x00{raw_id}" if judged else task_key, epoch)
    if key in seen:
        log.report(
            member,
            "id",
            gettext_noop(
                "task %(task_key)s epoch %(epoch)s is also in %(seen)s",
                task_key=task_key,
                epoch=epoch,
                seen=seen[key],
            ),
        )
        return
    seen[key] = member
    raw_turn = metadata.get("turn")
    turn = raw_turn if isinstance(raw_turn, int) and not isinstance(raw_turn, bool) else None
    raw_version = metadata.get("response_version")
    version = (
        raw_version
        if isinstance(raw_version, int) and not isinstance(raw_version, bool) and raw_version >= 1
        else None
    )
    if raw_version is not None and version is None:
        log.report(
            member,
            "metadata.response_version",
            gettext_noop("expected an integer >= 1, got %(got)s", got=shown(raw_version)),
        )
        return
    parsed = _verdicts(
        log, member, results, task_key, epoch, found, judged, judged_task, turn, version
    )
    model = found["model"]
    text = _completion(sample.get("output"))
    turns = _dialogue(sample.get("messages"))
    if judged is None and model is not None and turns is not None:
        responses.append(ResponseRecord(task_key, model, turns=turns, epoch=epoch))
        log.kept += sum(len(turn.content) for turn in turns)
    elif judged is None and model is not None and text is not None:
        responses.append(ResponseRecord(task_key, model, response=text, epoch=epoch))
        log.kept += len(text)
    verdicts.extend(parsed)
    log.kept += sum(len(verdict.rationale) for verdict in parsed)


def _scoring_results(
    log: _Log, member: str, scores: Any, scorer: str | None
) -> tuple[str, list[Any]] | None:
    if not isinstance(scores, dict) or not scores:
        log.report(member, "scores", gettext_noop("the sample has no scores"))
        return None
    carrying = {
        name: score["metadata"]["scoring_results"]
        for name, score in scores.items()
        if isinstance(score, dict)
        and isinstance(score.get("metadata"), dict)
        and "scoring_results" in score["metadata"]
        and (scorer is None or name == scorer)
    }
    if len(carrying) != 1:
        names = ", ".join(sorted(carrying)) or gettext_noop("none")
        if scorer:
            message = gettext_noop(
                "expected scorer %(scorer)s with metadata.scoring_results, found %(names)s",
                scorer=shown(scorer),
                names=names,
            )
        else:
            message = gettext_noop(
                "expected exactly one score with metadata.scoring_results, found %(names)s",
                names=names,
            )
        log.report(member, "scores", message)
        return None
    ((name, results),) = carrying.items()
    if not isinstance(results, list):
        field = f"scores.{name}.metadata.scoring_results"
        log.report(
            member, field, gettext_noop("expected a list, got %(got)s", got=describe(results))
        )
        return None
    return name, results


def _verdicts(
    log: _Log,
    member: str,
    named_results: tuple[str, list[Any]],
    task_key: str,
    epoch: int,
    found: dict[str, Any],
    judged: str | None = None,
    judged_task: str | None = None,
    turn: int | None = None,
    judged_version: int | None = None,
) -> list[VerdictRecord]:
    name, results = named_results
    verdicts: list[VerdictRecord] = []
    ids: set[str] = set()
    for n, result in enumerate(results):
        field = f"scores.{name}.metadata.scoring_results[{n}]"
        if not isinstance(result, dict):
            log.report(
                member, field, gettext_noop("expected an object, got %(got)s", got=describe(result))
            )
            continue
        cid, weight = result.get("criterion_id"), result.get("weight")
        raw = result.get("judgement")
        level = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
        judgement = parse_verdict(raw)
        rationale = result.get("explanation", result.get("rationale")) or ""
        stated = result.get("probability")
        if isinstance(stated, bool) or not isinstance(stated, int | float):
            stated = None
        bad = len(log.problems)
        if _text(cid) is None:
            log.report(
                member,
                f"{field}.criterion_id",
                gettext_noop("expected text, got %(got)s", got=shown(cid)),
            )
        elif cid in ids:
            log.report(
                member,
                f"{field}.criterion_id",
                gettext_noop("criterion '%(code)s' is judged twice", code=cid),
            )
        if isinstance(weight, bool) or not isinstance(weight, int):
            log.report(
                member,
                f"{field}.weight",
                gettext_noop("expected an integer, got %(got)s", got=shown(weight)),
            )
        # An explicit null is an answer that could not be read; a missing judgement is a fault.
        if (
            judgement is None
            and level is None
            and ("judgement" not in result or result["judgement"] is not None)
        ):
            shown_judgement = shown(result.get("judgement"))
            log.report(
                member,
                f"{field}.judgement",
                gettext_noop(
                    "%(value)s is not %(accepted)s",
                    value=shown_judgement,
                    accepted=ACCEPTED,
                ),
            )
        if not isinstance(rationale, str):
            log.report(
                member,
                f"{field}.explanation",
                gettext_noop("expected text, got %(got)s", got=describe(rationale)),
            )
        if len(log.problems) > bad or found["judge"] is None:
            continue
        if judged is None and found["model"] is None:
            continue
        if not isinstance(cid, str):  # reported above
            continue
        ids.add(cid)
        named: dict[str, Any] = (
            {"response_id": judged, "task_key": judged_task}
            if judged is not None
            else {"task_key": task_key, "model": found["model"]}
        )
        verdicts.append(
            VerdictRecord(
                criterion_id=cid,
                verdict=judgement,
                level=level,
                judge_model=found["judge"],
                **named,
                epoch=epoch,
                rationale=rationale,
                prompt_version=found["prompt_version"],
                run_id=found["run_id"],
                weight=weight,
                turn=turn if judged is not None else None,
                response_version=judged_version if judged is not None else None,
                pass_probability=float(stated) if stated is not None and 0 <= stated <= 1 else None,
            )
        )
    return verdicts


def _dialogue(messages: Any) -> tuple[Turn, ...] | None:
    """The user and assistant messages of a multi-turn sample as turns; None when the sample
    holds at most one assistant message (a single answer, read from its output)."""
    if not isinstance(messages, list):
        return None
    turns = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in (Role.USER, Role.ASSISTANT):
            continue
        content = _content(message.get("content"))
        if content:
            turns.append(Turn(Role(message["role"]), content))
    if sum(1 for t in turns if t.role == Role.ASSISTANT) < 2:
        return None
    return tuple(turns)


def _content(content: Any) -> str | None:
    """A message's text: a string, or the text of its content parts (reasoning, images and
    tool calls are not the tutor's words)."""
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        parts = [
            c.get("text")
            for c in content
            if isinstance(c, dict) and c.get("type", "text") == "text"
        ]
        return "".join(p for p in parts if isinstance(p, str)).strip() or None
    return None


def _completion(output: Any) -> str | None:
    if not isinstance(output, dict):
        return None
    completion = output.get("completion")
    if isinstance(completion, str) and completion:
        return completion
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            parts = [c.get("text") for c in content if isinstance(c, dict)]
            return "".join(p for p in parts if isinstance(p, str)) or None
    return None
