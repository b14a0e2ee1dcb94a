"""A judge run's calls and its `.eval` log: in this process, or spread over several. Imports no
Django (the job passes the settings in).

Inspect AI's model API spends several milliseconds of CPU on each call (building the request,
its cache, retries and accounting), and one event loop runs on one core whatever the machine
has: at a few hundred calls in flight that core is the limit, not the provider. A large run
therefore splits its calls between `processes` child processes, each with its own event loop,
Inspect model and share of the connections; they send each finished sample back (as JSON) to
this process, which writes the one log and counts the progress. The children are forked from
a server process that has loaded Inspect once (multiprocessing's forkserver), so a run does
not wait for each to import it; they get this process's environment (the provider's key and
base URL as they are now) with their calls. A small run stays in this process.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
from collections.abc import Awaitable, Callable, Sequence
from multiprocessing import forkserver
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, EvalStatus
from inspect_ai.model import GenerateConfig, ModelUsage

from judging.eval_log import TASK, EvalLogWriter, eval_spec
from judging.judge_task import Asking, JudgeCall, Watch, judge_with, paid_usage, was_read

# The forkserver loads this module (and so Inspect) once; children are forked from it.
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["judging.evaluation"])


def prepare_processes() -> None:
    """Start the process the children fork from (it loads Inspect AI, seconds of CPU), so
    the first large run does not wait for it."""
    forkserver.ensure_running()


async def evaluate(
    calls: Sequence[JudgeCall],
    *,
    model: str,
    config: GenerateConfig,
    epochs: int,
    asking: Asking,
    watch: Watch,
    log_dir: Path,
    metadata: dict[str, Any],
    processes: int = 1,
) -> EvalLog:
    """Judge every call in every epoch with `model` under `config` (the run's generation
    settings, passed to Inspect unchanged: temperature, connections, retries, timeouts), in
    `processes` child processes when more than one, and write the `.eval` log in `log_dir`;
    returns its header. The log's status is `success` when every call was answered,
    `cancelled` when the run was stopped first, else `error`; its results count the samples
    planned and those answered, its stats the tokens of every sample."""
    spec, plan = eval_spec(
        model=model,
        config=config,
        epochs=epochs,
        samples=len(calls),
        metadata=metadata,
        solver_params={
            "style": asking.style.value,
            "parse_retries": asking.parse_retries,
            "retry_temperature": asking.retry_temperature,
        }
        | ({"ask_probability": True} if asking.ask_probability else {}),
    )
    stamp = spec.created[:19].replace(":", "-")
    writer = EvalLogWriter(log_dir / f"{stamp}_{TASK}_{spec.eval_id}.eval", spec, plan)
    await writer.start()
    usage: dict[str, ModelUsage] = {}

    async def record(sample: EvalSample) -> None:
        await writer.write(sample)
        for name, used in (sample.model_usage or {}).items():
            usage[name] = usage[name] + used if name in usage else used
        if sample.error is None:
            watch.count(*paid_usage(sample), read=was_read(sample))

    if processes > 1:
        await _in_processes(calls, model, config, epochs, asking, watch, record, processes)
    else:
        await judge_with(
            model,
            config,
            calls,
            epochs=epochs,
            asking=asking,
            stopped=watch.cancelled.is_set,
            record=record,
        )
    total = len(calls) * epochs
    status: EvalStatus = (
        "success"
        if writer.completed == total
        else "cancelled"
        if watch.cancelled.is_set()
        else "error"
    )
    return await writer.finish(status=status, total=total, usage=usage)


async def _in_processes(
    calls: Sequence[JudgeCall],
    model: str,
    config: GenerateConfig,
    epochs: int,
    asking: Asking,
    watch: Watch,
    record: Callable[[EvalSample], Awaitable[None]],
    processes: int,
) -> None:
    stop, out = _CONTEXT.Event(), _CONTEXT.Queue()
    connections = config.max_connections or 10
    shares = [connections // processes + (n < connections % processes) for n in range(processes)]
    children = [
        _CONTEXT.Process(
            target=_child,
            args=(
                dict(os.environ),
                list(calls[n::processes]),
                model,
                config.model_dump_json(),
                epochs,
                asking,
                max(1, shares[n]),
                stop,
                out,
            ),
            name=f"judge-{n}",
            daemon=True,
        )
        for n in range(processes)
    ]
    for child in children:
        child.start()
    ended = 0
    try:
        while ended < len(children):
            if watch.cancelled.is_set():
                stop.set()
            try:
                item = out.get_nowait()
            except queue.Empty:
                if not any(child.is_alive() for child in children) and out.empty():
                    break  # a child died without saying it ended: its calls count as not made
                try:
                    item = await asyncio.to_thread(out.get, True, 0.1)
                except queue.Empty:
                    continue
            if item is None:
                ended += 1
            else:
                await record(EvalSample.model_validate_json(item))
    finally:
        stop.set()
        for child in children:
            child.join(timeout=5)
            if child.is_alive():
                child.terminate()


def _child(
    environment: dict[str, str],
    calls: list[JudgeCall],
    model: str,
    config: str,
    epochs: int,
    asking: Asking,
    connections: int,
    stop: ProcessEvent,
    out: Any,
) -> None:
    """A child process's share of the calls; sends each sample as JSON, then None."""
    os.environ.clear()
    os.environ.update(environment)

    async def send(sample: EvalSample) -> None:
        out.put(sample.model_dump_json())

    try:
        asyncio.run(
            judge_with(
                model,
                GenerateConfig.model_validate_json(config),
                calls,
                epochs=epochs,
                asking=asking,
                stopped=stop.is_set,
                record=send,
                connections=connections,
            )
        )
    finally:
        out.put(None)
