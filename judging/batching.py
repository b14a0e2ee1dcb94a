"""A judge run sent through its provider's batch API (Inspect's `batch` generate option), made
to survive its worker: imports no Django, as `judging.judge_task`.

Inspect collects a run's calls into provider batches (OpenAI's, Anthropic's, Google's,
Together's) and waits for them, but keeps the batches it sent in the worker's memory only: a
worker killed while a batch is pending, run again, sends its calls in a new batch and pays for
them twice. And it reports a batch's progress by printing it. So while a run's `BatchLedger`
is active (`active`), Inspect's batcher (the base class every provider's batcher shares) also:

- hands each batch it creates to the ledger, with the requests in it (a fingerprint of each
  request's body, and the id the provider answers it by), and waits until the job's thread
  has stored it on the run (`JudgeBatch`) before going on;
- adopts, when the run is resumed, the batches stored as still pending: a call whose request
  matches one of theirs waits for that batch instead of joining a new one;
- hands the provider's progress (requests pending, completed, failed) to the ledger, not to
  the worker's output;
- stops waiting when the run is cancelled or out of time (the batch itself goes on at the
  provider: running the run again collects its answers).

An answered call is kept in Inspect's cache as it arrives, as without batches, so a resumed run
asks only for the calls whose answers never came.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from inspect_ai._util.background import run_in_background
from inspect_ai._util.notgiven import sanitize_notgiven
from inspect_ai.model._providers.util import batch as inspect_batch
from inspect_ai.model._providers.util.batch_log import set_batch_log_callback

logger = logging.getLogger(__name__)


class RunCancelled(Exception):
    """A call waiting on a batch when its run was cancelled (the batch goes on at the
    provider: running the run again collects it)."""


# How long a new batch waits for the job's thread to store it (it does so twice a second).
SAVE_WAIT_SECONDS = 60.0


def fingerprint(request: dict[str, Any]) -> str:
    """What identifies a request across workers: its body without the headers (which carry a
    fresh request id on every attempt)."""
    body = {k: v for k, v in request.items() if k != "extra_headers"}
    text = json.dumps(sanitize_notgiven(body), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class SubmittedBatch:
    """A batch the provider has accepted: its id, and each request's fingerprint with the id the
    provider answers it by, in order (two calls of one prompt, two epochs, share a
    fingerprint)."""

    batch_id: str
    requests: tuple[tuple[str, str], ...]
    created_at: float  # Unix seconds


@dataclass(frozen=True)
class BatchProgress:
    """A pending batch as the provider last described it."""

    batch_id: str
    completed: int
    failed: int


@dataclass(frozen=True)
class LedgerNews:
    """What a ledger learnt since it was last asked (`BatchLedger.news`)."""

    submitted: list[SubmittedBatch]
    progress: list[BatchProgress]  # empty unless the provider was asked again since
    checked_at: float | None  # Unix seconds
    ended: dict[str, BatchProgress | None]  # with the last counts, when known


@dataclass
class _Known:
    """A stored pending batch this worker adopts: the ids its requests not yet claimed
    answer to, by fingerprint."""

    batch: SubmittedBatch
    unclaimed: dict[str, deque[str]] = field(default_factory=dict)


@dataclass
class BatchLedger:
    """Shared by Inspect's thread and the job's thread: the batches a run sent (`known`: those
    stored as pending when it started), what the provider says of them, which have ended."""

    known: Sequence[SubmittedBatch] = ()
    cancelled: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _new: list[SubmittedBatch] = field(default_factory=list)
    _saved: set[str] = field(default_factory=set)
    _saved_signal: threading.Condition = field(init=False)
    _progress: dict[str, BatchProgress] = field(default_factory=dict)
    _checked_at: float | None = None
    _told_checked_at: float | None = None
    _ended: set[str] = field(default_factory=set)
    _ended_unsaved: dict[str, BatchProgress | None] = field(default_factory=dict)
    _adopted: dict[str, _Known] = field(default_factory=dict)
    _stashed: dict[str, Any] = field(default_factory=dict)
    # Inspect's event loop alone reads these: the calls waiting, and what tells them to stop.
    _waiting: int = 0
    _watching: bool = False
    _stop: anyio.Event | None = None

    def __post_init__(self) -> None:
        self._saved_signal = threading.Condition(self._lock)
        for batch in self.known:
            known = _Known(batch)
            for print_, custom_id in batch.requests:
                known.unclaimed.setdefault(print_, deque()).append(custom_id)
            self._adopted[batch.batch_id] = known

    # Inspect's side

    def claim(self, print_: str) -> tuple[SubmittedBatch, str] | None:
        """The stored pending batch holding a request with this fingerprint, and that request's
        id (each id claimed once); None when no such batch is pending."""
        with self._lock:
            for known in self._adopted.values():
                ids = known.unclaimed.get(print_)
                if ids:
                    return known.batch, ids.popleft()
        return None

    def submitted(self, batch: SubmittedBatch) -> None:
        with self._lock:
            self._new.append(batch)

    def wait_saved(self, batch_id: str, timeout: float = SAVE_WAIT_SECONDS) -> bool:
        with self._saved_signal:
            return self._saved_signal.wait_for(
                lambda: batch_id in self._saved or self.cancelled.is_set(), timeout
            )

    def checked(self, progress: Sequence[BatchProgress]) -> None:
        with self._lock:
            for batch in progress:
                self._progress[batch.batch_id] = batch
            self._checked_at = time.time()

    def ended(
        self,
        batch_id: str,
        results: dict[str, Any] | None = None,
        last: BatchProgress | None = None,
    ) -> None:
        """The batch's answers are in (or it failed): it is pending no more. `results` holds
        the answers of its requests no call has claimed yet, kept for the calls to come;
        `last`, the provider's last counts."""
        with self._lock:
            self._ended.add(batch_id)
            self._ended_unsaved[batch_id] = last
            self._progress.pop(batch_id, None)
            for custom_id, result in (results or {}).items():
                self._stashed[custom_id] = result

    def is_ended(self, batch_id: str) -> bool:
        with self._lock:
            return batch_id in self._ended

    def stashed(self, custom_id: str) -> tuple[bool, Any]:
        with self._lock:
            if custom_id in self._stashed:
                return True, self._stashed.pop(custom_id)
        return False, None

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[anyio.Event]:
        """An event set once the run is cancelled, while a call waits: one watcher of the
        run's flag for all the calls waiting, which ends when none is (or the evaluation
        would wait for it)."""
        if self._stop is None:
            self._stop = anyio.Event()
        self._waiting += 1
        if not self._watching:
            self._watching = True
            run_in_background(self._watch)
        try:
            yield self._stop
        finally:
            self._waiting -= 1

    async def _watch(self) -> None:
        try:
            while self._waiting and not self.cancelled.is_set():
                await anyio.sleep(0.25)
            if self.cancelled.is_set() and self._stop is not None:
                self._stop.set()
        finally:
            self._watching = False

    # The job's side

    def news(self) -> LedgerNews:
        """What happened since the last call: batches sent, the provider's progress of the
        pending ones (when it was asked again), and the batches that ended."""
        with self._lock:
            new, self._new = self._new, []
            ended, self._ended_unsaved = self._ended_unsaved, {}
            fresh = self._checked_at != self._told_checked_at
            self._told_checked_at = self._checked_at
            progress = list(self._progress.values()) if fresh else []
            return LedgerNews(new, progress, self._checked_at, ended)

    def saved(self, batch_ids: Sequence[str]) -> None:
        with self._saved_signal:
            self._saved.update(batch_ids)
            self._saved_signal.notify_all()


_active: contextvars.ContextVar[BatchLedger | None] = contextvars.ContextVar(
    "judge_batch_ledger", default=None
)


@contextlib.contextmanager
def active(ledger: BatchLedger | None) -> Iterator[None]:
    """Inspect's batcher keeps `ledger` for the calls made in this block (in this thread)."""
    install()
    token = _active.set(ledger)
    try:
        yield
    finally:
        _active.reset(token)


async def _until_cancelled(ledger: BatchLedger, call: Any) -> Any:
    """`call()`'s answer, or RunCancelled as soon as the run is cancelled."""
    outcome: dict[str, Any] = {}
    async with ledger.watching() as stop, anyio.create_task_group() as group:

        async def wait() -> None:
            try:
                outcome["value"] = await call()
            except Exception as error:  # raised to the caller below
                outcome["error"] = error
            group.cancel_scope.cancel()

        group.start_soon(wait)
        await stop.wait()
        group.cancel_scope.cancel()
    if "error" in outcome:
        raise outcome["error"]
    if "value" not in outcome:
        raise RunCancelled("the run was cancelled")
    return outcome["value"]


_installed = False


def install() -> None:
    """Extend Inspect's batcher (once per process): a no-op for calls made with no ledger."""
    global _installed
    if _installed:
        return
    _installed = True
    batcher = inspect_batch.Batcher
    generate, create = batcher.generate_for_request, batcher._wrapped_create_batch
    resolve, fail = batcher._resolve_inflight_batch, batcher._fail_and_cleanup_inflight_batch
    report, check = batcher._print_aggregate_status, batcher._check_inflight_batches
    # Inspect prints its batch log; the worker's log is the place for it.
    set_batch_log_callback(logger.info)

    async def generate_for_request(self: Any, request: dict[str, Any]) -> Any:
        ledger = _active.get()
        if ledger is None:
            return await generate(self, request)

        async def call() -> Any:
            claimed = ledger.claim(fingerprint(request))
            if claimed is None:
                return await generate(self, request)
            return await _adopted(self, request, ledger, *claimed)

        return await _until_cancelled(ledger, call)

    async def _adopted(
        self: Any, request: dict[str, Any], ledger: BatchLedger, known: SubmittedBatch, rid: str
    ) -> Any:
        found, result = ledger.stashed(rid)
        if not found and ledger.is_ended(known.batch_id):
            return await generate(self, request)  # its batch failed: asked again in a new one
        if not found:
            send, receive = anyio.create_memory_object_stream[Any](1)
            batch = self._inflight_batches.get(known.batch_id)
            if batch is None:
                batch = inspect_batch.Batch(
                    id=known.batch_id, requests={}, created_at=int(known.created_at)
                )
                self._inflight_batches[known.batch_id] = batch
            batch.requests[rid] = inspect_batch.BatchRequest(
                request=request, result_stream=send, custom_id=rid
            )
            if not self._is_batch_worker_running:
                self._is_batch_worker_running = True
                run_in_background(self._batch_worker)
            result = await receive.receive()
        if isinstance(result, Exception):
            raise result
        return result

    async def wrapped_create_batch(self: Any, batch: list[Any]) -> str:
        ledger = _active.get()
        prints = [fingerprint(r.request) for r in batch]
        batch_id: str = await create(self, batch)
        if ledger is not None:  # the provider's ids are known once it is created
            ids = [r.custom_id for r in batch]
            ledger.submitted(
                SubmittedBatch(batch_id, tuple(zip(prints, ids, strict=True)), time.time())
            )
            if not await anyio.to_thread.run_sync(ledger.wait_saved, batch_id):
                logger.warning("batch %s was not stored on its run in time", batch_id)
        return batch_id

    async def resolve_inflight_batch(self: Any, batch: Any, results: dict[str, Any]) -> None:
        ledger = _active.get()
        if ledger is not None:
            waiting = {k: v for k, v in results.items() if k in batch.requests}
            last = BatchProgress(batch.id, batch.completed_count, batch.failed_count)
            unclaimed = {k: v for k, v in results.items() if k not in waiting}
            ledger.ended(batch.id, unclaimed, last)
            results = waiting
        await resolve(self, batch, results)

    async def fail_and_cleanup(self: Any, description: str, batch: Any, error: Exception) -> None:
        ledger = _active.get()
        if ledger is not None:
            ledger.ended(batch.id)
        await fail(self, description, batch, error)

    async def check_inflight_batches(self: Any) -> None:
        ledger = _active.get()
        if ledger is not None and ledger.cancelled.is_set():
            # The calls have stopped waiting: so does the batcher (the evaluation waits for
            # it), at the start of its round, where it holds no batch. The provider's batches
            # stay pending for a later attempt to collect.
            self._inflight_batches.clear()
            self._intake_queue.clear()
            self._next_batches.clear()
            return
        await check(self)

    def print_aggregate_status(self: Any) -> None:
        ledger = _active.get()
        if ledger is None:
            report(self)
            return
        ledger.checked(
            [
                BatchProgress(b.id, b.completed_count, b.failed_count)
                for b in self._inflight_batches.values()
            ]
        )

    batcher.generate_for_request = generate_for_request  # type: ignore[method-assign]
    batcher._wrapped_create_batch = wrapped_create_batch  # type: ignore[method-assign]
    batcher._resolve_inflight_batch = resolve_inflight_batch  # type: ignore[method-assign]
    batcher._fail_and_cleanup_inflight_batch = fail_and_cleanup  # type: ignore[method-assign]
    batcher._print_aggregate_status = print_aggregate_status  # type: ignore[method-assign]
    batcher._check_inflight_batches = check_inflight_batches  # type: ignore[method-assign]
