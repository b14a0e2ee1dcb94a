"""The Inspect AI task a judge run evaluates: one sample per (response, criterion), repeated for
each epoch, as L2-Bench's scorer makes one call per criterion. Imports no Django: the job feeds
it plain calls and reads its `.eval` log back through the Inspect importer.

The judge is the task's model. A sample's input is the filled prompt; its answer is read as
`true`/`false` (`core.prompting.parse_answer`; on an ordinal criterion a level of its
scale, `parse_level`, and the score's `judgement` is that number), and an unreadable
answer is asked again with a corrective message up to `parse_retries` times at
`retry_temperature`. The score carries `metadata.scoring_results` with one result,
`judgement` null when no answer could be read, and the sample's metadata names the stored
response it judged (`response_id`, and `response_version`: the version the study grades), so
the importer stores verdicts against it without creating responses.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import CachePolicy, ChatMessageUser
from inspect_ai.model._model import sample_model_usage
from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import Generate, TaskState, solver

from core.prompting import (
    CORRECTIVE_MESSAGE,
    LEVEL_CORRECTIVE_MESSAGE,
    AnswerStyle,
    parse_answer,
    parse_level,
)

# A judged answer never expires from the cache: a re-run of an interrupted run pays only for
# the calls it has not made (Inspect keys the cache on model, messages and parameters).
CACHE = CachePolicy(expiry=None)


class RunCancelled(Exception):
    """A maintainer cancelled the run: the samples not yet judged stop here."""


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """One judge call to make: the filled prompt and what the verdict is about."""

    sample_id: str
    prompt: str
    task_key: str
    response_id: str
    criterion_id: str
    weight: int
    scale: tuple[int, int] | None = None  # an ordinal criterion: the answer is a level
    turn: int | None = None  # the tutor turn judged, on a turn-level criterion
    response_version: int | None = None  # the version judged, when not the current one


def read_answer(answer: str, style: AnswerStyle, scale: Any) -> bool | int | None:
    """The verdict (binary criterion) or level (ordinal: `scale` is [min, max]) in an
    answer; None when it cannot be read."""
    if scale:
        return parse_level(answer, style, (int(scale[0]), int(scale[1])))
    return parse_answer(answer, style)


def corrective(style: AnswerStyle, scale: Any) -> str:
    if scale:
        return LEVEL_CORRECTIVE_MESSAGE[style].format(low=scale[0], high=scale[1])
    return CORRECTIVE_MESSAGE[style]


@dataclass
class Watch:
    """Shared with the job's thread: how many calls are done, the tokens they were paid for
    and how many answers could not be read, so far; and whether to stop."""

    done: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    unparseable: int = 0
    cancelled: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, input_tokens: int = 0, output_tokens: int = 0, read: bool = True) -> None:
        """One call done, with the tokens it was paid for (none from the cache) and whether
        its answer was read (after the retries)."""
        with self._lock:
            self.done += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens
            self.unparseable += not read


def paid_usage() -> tuple[int, int]:
    """The input and output tokens the current sample was paid for: the provider's calls,
    not the answers read from Inspect's cache (which Inspect does not count either; its own
    scorer reads the same per-sample record)."""
    usage = sample_model_usage().values()
    return sum(u.input_tokens for u in usage), sum(u.output_tokens for u in usage)


@solver
def judge_answer(
    style: AnswerStyle, parse_retries: int, retry_temperature: float, watch: Watch
) -> Any:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if watch.cancelled.is_set():
            raise RunCancelled("the run was cancelled")
        state = await generate(state, cache=CACHE)
        answers = [state.output.completion]
        scale = state.metadata.get("scale")
        while read_answer(answers[-1], style, scale) is None and len(answers) <= parse_retries:
            state.messages.append(ChatMessageUser(content=corrective(style, scale)))
            state = await generate(state, cache=CACHE, temperature=retry_temperature)
            answers.append(state.output.completion)
        state.metadata["answers"] = answers
        read = read_answer(answers[-1], style, scale) is not None
        watch.count(*paid_usage(), read=read)
        return state

    return solve


def rationale(answers: Sequence[str]) -> str:
    """The judge's full output: its answer, or every attempt when it was asked again."""
    if len(answers) == 1:
        return answers[0]
    return "\n\n".join(f"[attempt {n}]\n{answer}" for n, answer in enumerate(answers, 1))


@scorer(metrics=[])
def verdict_scorer(style: AnswerStyle) -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        answers = state.metadata.get("answers") or [state.output.completion]
        verdict = read_answer(answers[-1], style, state.metadata.get("scale"))
        result = {
            "criterion_id": state.metadata["criterion_id"],
            "weight": state.metadata["weight"],
            "judgement": verdict,
            "explanation": rationale(answers),
            "attempts": len(answers),
        }
        value = (
            "unparseable"
            if verdict is None
            else ("true" if verdict else "false")
            if isinstance(verdict, bool)
            else str(verdict)
        )
        return Score(value=value, answer=answers[-1], metadata={"scoring_results": [result]})

    return score


def judge_task(
    calls: Sequence[JudgeCall],
    *,
    style: AnswerStyle,
    parse_retries: int,
    retry_temperature: float,
    watch: Watch,
) -> Task:
    dataset = [
        Sample(
            id=call.sample_id,
            input=call.prompt,
            metadata={
                "task_key": call.task_key,
                "response_id": call.response_id,
                "criterion_id": call.criterion_id,
                "weight": call.weight,
                "scale": list(call.scale) if call.scale else None,
            }
            | ({"turn": call.turn} if call.turn is not None else {})
            | (
                {"response_version": call.response_version}
                if call.response_version is not None
                else {}
            ),
        )
        for call in calls
    ]
    return Task(
        dataset=dataset,
        solver=judge_answer(style, parse_retries, retry_temperature, watch),
        scorer=verdict_scorer(style),
        name="l2annot_judge",
    )
