"""A batch run across a worker restart, with the real processes: `manage.py db_worker` runs
the run and is killed (SIGKILL) while its batch is pending at the loopback provider; a new
worker, given the run again by the run pages' sweep, waits for that batch and completes the
run: the provider is sent one batch in all, so no call is paid for twice."""

import time

import pytest

from judging.models import JudgeBatch, JudgeRun
from judging.runs import resume_stalled_batch_runs, start_run
from tests.app_processes import processes, shared_database_url
from tests.concurrency import run_together, threads_share_one_database
from tests.factories import demo_study
from tests.provider_servers import PROVIDERS

pytestmark = pytest.mark.django_db(transaction=True)

JUDGE = PROVIDERS["openai"].model
CALLS = 3


def wait_for(condition, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


def test_a_worker_killed_while_its_batch_is_pending_is_replaced_without_a_second_batch(
    provider_servers, tmp_path
):
    server = provider_servers["openai"]
    server.batch_seconds = 3600  # pending until told otherwise
    study = demo_study(2)
    settings = {
        "JUDGE_LOG_DIR": str(tmp_path / "logs"),
        "JUDGE_CACHE_DIR": str(tmp_path / "cache"),
        "JUDGE_BATCH_CHECK_SECONDS": "0.1",
        "JUDGE_BATCH_SEND_DELAY": "0.1",
    }
    seen: dict[str, object] = {}

    def scenario() -> None:
        with processes(tmp_path, shared_database_url(), **settings) as start:
            run = start_run(study, model=JUDGE, limit=CALLS, batch=True, by=None)
            worker = start("db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.05")
            wait_for(lambda: JudgeBatch.objects.filter(run=run).exists())
            worker.kill()  # SIGKILL: nothing of the worker ends the run
            worker.wait()
            stalled = JudgeRun.objects.select_related("job").get(pk=run.pk)
            seen["stalled"] = stalled.live_status
            server.batch_seconds = 0  # the provider answers now
            start("db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.05")
            seen["resumed"] = [r.pk for r in resume_stalled_batch_runs()]
            wait_for(lambda: JudgeRun.objects.get(pk=run.pk).finished is not None)
            seen["run"] = run.pk

    with threads_share_one_database():
        assert run_together(scenario) == [None]

    run = JudgeRun.objects.get(pk=seen["run"])
    assert seen["stalled"] == "stalled" and seen["resumed"] == [run.pk]
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    assert len(server.batches) == 1  # one batch created in all
    assert len(server.completions) == CALLS and run.verdicts.count() == CALLS
    (batch,) = run.batches.all()
    assert batch.ended_at is not None and batch.completed == CALLS
