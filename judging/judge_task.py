"""The judge's calls: one sample per (response, criterion), repeated for each epoch, as
L2-Bench's scorer makes one call per criterion. Imports no Django: the job feeds it plain calls
(`judging.evaluation` spreads them over processes), and the samples go into an Inspect AI
`.eval` log (`judging.eval_log`) that the Inspect importer reads back.

The calls go straight to Inspect AI's model API (`Model.generate`, with its provider, retries,
rate-limit handling and cache), at most `connections` at once from an event loop: Inspect's
`eval()` would wrap each in its per-sample machinery (task state, solver and scorer chains,
transcript, sample buffer), which cost about as much again as the call itself
(bench/README.md, "Judge runs").

A sample's input is the filled prompt; its answer is read as `true`/`false`
(`core.prompting.parse_answer`; on an ordinal criterion a level of its scale, `parse_level`,
and the score's `judgement` is that number), and an unreadable answer is asked again with a
corrective message up to `parse_retries` times at `retry_temperature`. A configuration that
asks for the judge's probability adds `core.prompting.PROBABILITY_REQUEST` to the prompt of a
binary criterion and reads the `probability:` line apart from the verdict
(`split_probability`): the result's `probability`, null when it could not be read (the
verdict is kept), and only then present. The score carries
`metadata.scoring_results` with one result, `judgement` null when no answer could be read, and
the sample's metadata names the stored response it judged (`response_id`, and
`response_version`: the version the study grades), so the importer stores verdicts against it
without creating responses.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai._util.constants import DEFAULT_MAX_CONNECTIONS_BATCH
from inspect_ai.log import EvalError, EvalSample
from inspect_ai.log._transcript import Transcript, init_transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.model._cache import epoch as cache_epoch
from inspect_ai.model._model import init_sample_model_usage, sample_model_usage
from inspect_ai.scorer import Score
from inspect_ai.util._concurrency import init_concurrency

from core.prompting import (
    CORRECTIVE_MESSAGE,
    LEVEL_CORRECTIVE_MESSAGE,
    AnswerStyle,
    asking_probability,
    parse_answer,
    parse_level,
    split_probability,
)
from judging.eval_log import SCORER, now

# A judged answer never expires from the cache: a re-run of an interrupted run pays only for
# the calls it has not made (Inspect keys the cache on model, messages and parameters).
CACHE = CachePolicy(expiry=None)


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

    def metadata(self) -> dict[str, Any]:
        """The sample's metadata: what the importer reads to store the verdict."""
        return (
            {
                "task_key": self.task_key,
                "response_id": self.response_id,
                "criterion_id": self.criterion_id,
                "weight": self.weight,
                "scale": list(self.scale) if self.scale else None,
            }
            | ({"turn": self.turn} if self.turn is not None else {})
            | (
                {"response_version": self.response_version}
                if self.response_version is not None
                else {}
            )
        )


@dataclass(frozen=True, slots=True)
class Asking:
    """How a call is asked and its answer read: the prompt's answer style, how often an
    unreadable answer is asked again, at which temperature, and whether the judge is asked
    for its probability that the response meets a binary criterion."""

    style: AnswerStyle
    parse_retries: int
    retry_temperature: float
    ask_probability: bool = False

    def asks_probability(self, scale: Any) -> bool:
        return self.ask_probability and not scale

    def prompt(self, call: JudgeCall) -> str:
        """The call's prompt as sent: with the request for a probability when asked."""
        if self.asks_probability(call.scale):
            return asking_probability(call.prompt)
        return call.prompt


def read_answer(
    answer: str, style: AnswerStyle, scale: Any, probability: bool = False
) -> bool | int | None:
    """The verdict (binary criterion) or level (ordinal: `scale` is [min, max]) in an
    answer (without its `probability:` line when one was asked for); None when it cannot be
    read."""
    if scale:
        return parse_level(answer, style, (int(scale[0]), int(scale[1])))
    if probability:
        answer, _ = split_probability(answer)
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


def paid_usage(sample: EvalSample) -> tuple[int, int]:
    """The input and output tokens a sample's calls were paid for: the provider's calls, not
    the answers read from Inspect's cache (which Inspect does not count in a sample's usage
    either)."""
    usage = (sample.model_usage or {}).values()
    return sum(u.input_tokens for u in usage), sum(u.output_tokens for u in usage)


def was_read(sample: EvalSample) -> bool:
    """Whether the judge's last answer in a sample could be read (after the retries)."""
    score = (sample.scores or {}).get(SCORER)
    return score is not None and score.value != "unparseable"


def rationale(answers: Sequence[str]) -> str:
    """The judge's full output: its answer, or every attempt when it was asked again."""
    if len(answers) == 1:
        return answers[0]
    return "\n\n".join(f"[attempt {n}]\n{answer}" for n, answer in enumerate(answers, 1))


def score(
    answers: Sequence[str],
    style: AnswerStyle,
    scale: Any,
    criterion: dict[str, Any],
    probability: bool = False,
) -> Score:
    """The sample's score: the verdict read from the last answer (None: unreadable), with the
    rationale and the number of attempts, and (`probability`: asked for) the judge's stated
    probability, as one `scoring_results` entry."""
    last, stated = split_probability(answers[-1]) if probability else (answers[-1], None)
    verdict = read_answer(last, style, scale)
    result: dict[str, Any] = {
        "criterion_id": criterion["criterion_id"],
        "weight": criterion["weight"],
        "judgement": verdict,
        "explanation": rationale(answers),
        "attempts": len(answers),
    }
    if probability:
        result["probability"] = stated
    value = (
        "unparseable"
        if verdict is None
        else ("true" if verdict else "false")
        if isinstance(verdict, bool)
        else str(verdict)
    )
    return Score(value=value, answer=answers[-1], metadata={"scoring_results": [result]})


async def judge_sample(model: Model, call: JudgeCall, epoch: int, asking: Asking) -> EvalSample:
    """Ask the judge one call in one epoch (and again while its answer cannot be read): the
    log's sample, with the error instead of a score when a call failed after Inspect's
    retries."""
    # This sample's transcript and token counts, apart from the other calls of the loop (the
    # transcript is not kept, nor the raw request and response condensed into it: see
    # judging.eval_log); the cache keys each epoch's answer apart.
    init_transcript(Transcript(log_model_api=False))
    init_sample_model_usage()
    cache_epoch.set(epoch)
    started, clock = now(), time.monotonic()
    metadata = call.metadata()
    prompt = asking.prompt(call)
    probability = asking.asks_probability(call.scale)
    messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
    answers: list[str] = []
    output, error = ModelOutput(model=str(model)), None
    try:
        output = await model.generate(messages, cache=CACHE)
        messages.append(output.message)
        answers.append(output.completion)
        while (
            read_answer(answers[-1], asking.style, call.scale, probability) is None
            and len(answers) <= asking.parse_retries
        ):
            messages.append(ChatMessageUser(content=corrective(asking.style, call.scale)))
            output = await model.generate(
                messages, config=GenerateConfig(temperature=asking.retry_temperature), cache=CACHE
            )
            messages.append(output.message)
            answers.append(output.completion)
    except Exception as failed:  # the sample ends in its error; the run goes on
        trace = traceback.format_exc()
        error = EvalError(message=repr(failed), traceback=trace, traceback_ansi=trace)
    seconds = round(time.monotonic() - clock, 3)
    return EvalSample(
        id=call.sample_id,
        epoch=epoch,
        input=prompt,
        target="",
        messages=messages,
        output=output,
        scores=None
        if error
        else {SCORER: score(answers, asking.style, call.scale, metadata, probability)},
        metadata=metadata | {"answers": answers},
        model_usage=sample_model_usage(),
        started_at=started,
        completed_at=now(),
        total_time=seconds,
        working_time=seconds,
        error=error,
    )


async def judge_calls(
    model: Model,
    calls: Sequence[JudgeCall],
    *,
    epochs: int,
    connections: int,
    asking: Asking,
    stopped: Callable[[], bool],
    record: Callable[[EvalSample], Awaitable[None]],
) -> None:
    """Make every call in every epoch, `connections` at a time, handing each sample to
    `record` as it is done; once `stopped()`, no further call is started (those in flight
    end)."""
    work = deque((call, epoch) for epoch in range(1, epochs + 1) for call in calls)

    async def worker() -> None:
        while work and not stopped():
            call, epoch = work.popleft()
            await record(await judge_sample(model, call, epoch, asking))

    await asyncio.gather(*(worker() for _ in range(max(1, min(connections, len(work))))))


async def judge_with(
    model: str,
    config: GenerateConfig,
    calls: Sequence[JudgeCall],
    *,
    epochs: int,
    asking: Asking,
    stopped: Callable[[], bool],
    record: Callable[[EvalSample], Awaitable[None]],
    connections: int | None = None,
) -> None:
    """`judge_calls` with a fresh Inspect model of this run, at most `connections` calls at
    once (by default as many as Inspect's connection pool lets through, eval()'s rule)."""
    # What Inspect's eval() sets up for a run: connection pools sized by this run's config,
    # not an earlier run's.
    init_concurrency()
    async with get_model(model, config=config, memoize=False) as judge:
        connections = (
            connections
            or config.max_connections
            or (DEFAULT_MAX_CONNECTIONS_BATCH if config.batch else judge.api.max_connections())
        )
        await judge_calls(
            judge, calls, epochs=epochs, connections=connections, asking=asking,
            stopped=stopped, record=record,
        )  # fmt: skip
