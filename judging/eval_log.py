"""The Inspect AI `.eval` log of a judge run, written as its calls are answered. Imports no
Django.

The log is Inspect's own format, written by Inspect's own recorder (the one `eval()` uses), so
`inspect view`, `inspect_ai.log.read_eval_log` and our importer read it as any other log: a
header naming the judge model, the run id and the prompt version; one sample per (unit, epoch)
with the prompt, every message exchanged, the last output, the verdict's score and the tokens
it took; the run's totals. What `eval()` adds and a judge run does without: the transcript of
events (each model call's raw request and response), which cost more to write than the call.

Samples are written into the log's temporary archive every `FLUSH_EVERY` samples, while the
calls run (the writing fills the time spent waiting for answers), and the archive reaches its
place once, at the end. `EvalRecorder` is not public API: Inspect AI is pinned
(pyproject.toml), and tests/judging/test_judge_log.py reads the log back through
`read_eval_log`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import shortuuid
from inspect_ai import __version__ as inspect_version
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalSample,
    EvalSpec,
    EvalStats,
    EvalStatus,
)
from inspect_ai.log._recorders.eval import EvalRecorder
from inspect_ai.model import GenerateConfig, ModelUsage

TASK = "l2annot_judge"
SCORER = "verdict_scorer"
# Samples held in memory before they are compressed into the archive: Inspect's recorder scans
# the held samples for each new one, so a few dozen keep that scan short.
FLUSH_EVERY = 50


def now() -> str:
    return datetime.now(UTC).isoformat()


def eval_spec(
    *,
    model: str,
    config: GenerateConfig,
    epochs: int,
    samples: int,
    metadata: dict[str, Any],
    solver_params: dict[str, Any],
) -> tuple[EvalSpec, EvalPlan]:
    """The header of a judge run's log: what `eval()` would write for the same task."""
    spec = EvalSpec(
        eval_id=shortuuid.uuid(),
        run_id=shortuuid.uuid(),
        created=now(),
        task=TASK,
        task_id=shortuuid.uuid(),
        dataset=EvalDataset(samples=samples),
        model=model,
        model_generate_config=config,
        config=EvalConfig(
            epochs=epochs,
            fail_on_error=False,
            log_samples=True,
            log_realtime=False,
        ),
        packages={"inspect_ai": inspect_version},
        metadata=metadata,
        solver="judge_answer",
        solver_args=solver_params,
    )
    plan = EvalPlan(steps=[EvalPlanStep(solver="judge_answer", params=solver_params)])
    return spec, plan


class EvalLogWriter:
    """Write one `.eval` log: `start`, a `write` per sample, `finish`; in one event loop."""

    def __init__(self, location: Path, spec: EvalSpec, plan: EvalPlan) -> None:
        self.location, self.spec, self.plan = location, spec, plan
        self.recorder = EvalRecorder(str(location.parent))
        self.started = ""
        self.held = 0
        self.total = self.completed = 0

    async def start(self) -> None:
        self.location.parent.mkdir(parents=True, exist_ok=True)
        await self.recorder.log_init(self.spec, str(self.location), clean=True)
        await self.recorder.log_start(self.spec, self.plan)
        self.started = now()

    async def write(self, sample: EvalSample) -> None:
        # Not condensed first, as eval() does: condensing pools the events' long texts and
        # images as attachments, and a judge's sample has neither (its walk costs a third of
        # the writing).
        await self.recorder.log_sample(self.spec, sample)
        self.completed += sample.error is None
        self.held += 1
        if self.held >= FLUSH_EVERY:
            await self._archive().write_buffered_samples()
            self.held = 0

    def _archive(self) -> Any:
        (archive,) = self.recorder.data.values()  # this recorder writes one log
        return archive

    async def finish(
        self, *, status: EvalStatus, total: int, usage: dict[str, ModelUsage]
    ) -> EvalLog:
        """End the log (`status`: success, error or cancelled) with `total` samples planned;
        the samples not written are counted as not completed. Returns its header."""
        stats = EvalStats(started_at=self.started, completed_at=now(), model_usage=usage)
        results = EvalResults(total_samples=total, completed_samples=self.completed)
        header = await self.recorder.log_finish(self.spec, status, stats, results, None)
        header.location = str(self.location)
        return header
