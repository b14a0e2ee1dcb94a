"""Cancel, then "Run it again" at once, while the worker runs the judge: threads with a
connection each (tests/concurrency.py), on SQLite and PostgreSQL, against the loopback LLM
server. Queued again while its worker was still stopping, the run used to be ended by that
worker as its own (the re-run never happened) or the worker never saw the cancel; now the
second click is refused until the run has stopped, and then it runs."""

import time

import pytest

from judging.models import JudgeRun
from judging.running import execute_run
from judging.runs import RunNotPossible, cancel_run, resume_run, start_run
from tests.concurrency import run_together, threads_share_one_database
from tests.factories import demo_study
from tests.llm_server import Reply, model_name

pytestmark = pytest.mark.django_db(transaction=True)

JUDGE = model_name("judge-race")
CALLS = 12


def wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.05)


def test_run_it_again_right_after_cancel_waits_for_the_stop_then_runs(
    settings, tmp_path, llm_server
):
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    study = demo_study(2)
    llm_server.default = lambda request: Reply(text="true", delay=0.2)
    run = start_run(study, model=JUDGE, limit=CALLS, max_connections=1, by=None, enqueue=False)
    seen: dict[str, object] = {}

    def worker() -> None:
        seen["first"] = execute_run(run.pk)

    def maintainer() -> None:
        wait_for(lambda: JudgeRun.objects.get(pk=run.pk).calls_done >= 2)
        cancel_run(run, by=None)
        try:  # "Run it again", clicked at once
            resume_run(run, by=None, enqueue=False)
        except RunNotPossible as refused:
            seen["refused"] = str(refused)
        wait_for(lambda: JudgeRun.objects.get(pk=run.pk).finished is not None)
        seen["again"] = resume_run(run, by=None, enqueue=False).status

    with threads_share_one_database():
        assert run_together(worker, maintainer) == [None, None]

    assert "still stopping" in str(seen.get("refused"))
    first = seen["first"]
    assert isinstance(first, JudgeRun)
    assert first.status == JudgeRun.Status.CANCELLED  # the cancel was honoured
    assert len(llm_server.completions) < CALLS and not first.verdicts.exists()
    assert seen["again"] == JudgeRun.Status.QUEUED  # and the run was queued again

    again = execute_run(run.pk)  # the job "Run it again" enqueued
    assert again.status == JudgeRun.Status.SUCCEEDED, again.problems
    assert again.verdicts.count() == CALLS
    assert len(llm_server.completions) == CALLS  # the calls made before came from the cache
