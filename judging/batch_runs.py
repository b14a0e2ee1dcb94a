"""A judge run's batches on the database side: what the job gives Inspect (the generate options
of a batch run, the ledger of the batches it sent before) and what it keeps of them on the run
as they go (`JudgeBatch`), for the run page and for a later worker to resume. Only
`judging.running` imports this module (it loads Inspect AI)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from inspect_ai.model import BatchConfig

from judging.batching import BatchLedger, SubmittedBatch
from judging.models import JudgeBatch, JudgeRun


def generate_options(run: JudgeRun) -> dict[str, Any]:
    """How the run's calls are made: at most `max_connections` at a time, each bounded in time;
    or, for a batch run, gathered into batches (all the run's calls in one when they come
    together) with no bound on a call (its batch takes hours; the run's own timeout holds)."""
    assert run.config is not None
    if not run.sends_batches:
        return {
            "max_connections": run.config.max_connections,
            # Each attempt of a call, and a call with all its retries, ends in bounded time.
            "attempt_timeout": settings.JUDGE_CALL_TIMEOUT,
            "timeout": settings.JUDGE_CALL_TIMEOUT * (settings.JUDGE_MAX_RETRIES + 1),
        }
    return {
        # No connection limit: it would also limit how many calls wait together, so how many
        # go in a batch.
        "max_connections": None,
        "attempt_timeout": None,
        "timeout": None,
        "batch": BatchConfig(
            size=max(run.calls_total, 1),
            send_delay=settings.JUDGE_BATCH_SEND_DELAY,
            tick=settings.JUDGE_BATCH_CHECK_SECONDS,
        ),
    }


def ledger_for(run: JudgeRun, cancelled: threading.Event) -> BatchLedger | None:
    """The ledger of a batch run, knowing the batches an earlier attempt left pending."""
    if not run.sends_batches:
        return None
    pending = JudgeBatch.objects.filter(run=run, ended_at__isnull=True).order_by("pk")
    known = [
        SubmittedBatch(
            batch.batch_id,
            tuple((str(p), str(i)) for p, i in batch.requests),
            batch.submitted_at.timestamp(),
        )
        for batch in pending
    ]
    return BatchLedger(known=known, cancelled=cancelled)


def keep_batches(run: JudgeRun, ledger: BatchLedger | None) -> None:
    """Store what the ledger learnt since the last call: the batches sent (before Inspect goes
    on: a worker killed after this finds them), the provider's progress, the batches ended."""
    if ledger is None:
        return
    news = ledger.news()
    for batch in news.submitted:
        JudgeBatch.objects.get_or_create(
            run=run,
            batch_id=batch.batch_id,
            defaults={
                "requests": [list(pair) for pair in batch.requests],
                "size": len(batch.requests),
                "submitted_at": _moment(batch.created_at),
            },
        )
    ledger.saved([batch.batch_id for batch in news.submitted])
    checked = _moment(news.checked_at) if news.checked_at else None
    for progress in news.progress:
        JudgeBatch.objects.filter(run=run, batch_id=progress.batch_id).update(
            completed=progress.completed, failed=progress.failed, checked_at=checked
        )
    now = timezone.now()
    for batch_id, last in news.ended.items():
        counts = {"completed": last.completed, "failed": last.failed} if last else {}
        JudgeBatch.objects.filter(run=run, batch_id=batch_id, ended_at__isnull=True).update(
            ended_at=now, checked_at=now, **counts
        )


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)
