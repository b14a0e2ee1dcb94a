"""A maintainer runs the LLM judge on a study from its judge page and watches the run to its
end. The judge is the loopback OpenAI server; the job runs in the test process (as the worker
would), answering slowly enough for the page to show the run under way."""

import threading

import pytest
from django.db import connections

from accounts.roles import Role
from judging.models import JudgeRun
from judging.running import execute_run
from tests.factories import demo_study
from tests.llm_server import Reply, model_name

pytestmark = pytest.mark.django_db(transaction=True)


def work_off_the_queue(stop: threading.Event) -> None:
    """The worker's part: run each queued judge run."""
    try:
        while not stop.is_set():
            queued = JudgeRun.objects.filter(status=JudgeRun.Status.QUEUED).first()
            if queued is not None:
                execute_run(queued.pk)
            stop.wait(0.2)
    finally:
        connections.close_all()


def test_a_maintainer_runs_the_judge_from_the_page_and_watches_it_finish(
    new_page, log_in, llm_server, settings, tmp_path
):
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    study = demo_study(1, assign=False)
    llm_server.default = lambda request: Reply(text="true", delay=0.4)
    stop = threading.Event()
    worker = threading.Thread(target=work_off_the_queue, args=(stop,))
    worker.start()
    try:
        page = new_page()
        log_in(page, Role.MAINTAINER)
        page.goto(f"/agreement/studies/{study.pk}/")
        page.get_by_role("link", name="Run the LLM judge").click()
        page.get_by_label("Model", exact=True).fill(model_name("judge-browser"))
        page.get_by_label("Max connections").fill("1")
        page.get_by_label("Limit").fill("6")
        page.get_by_label("Limit").press("Tab")  # a change: the estimate follows the form
        page.locator(".estimate-calls", has_text="6").wait_for()
        assert "no price known" in page.locator(".estimate-cost").inner_text()
        page.get_by_role("button", name="Run the judge").click()
        page.get_by_role("heading", name="Judge run").wait_for()
        page.locator(".run-status", has_text="Running").wait_for(timeout=60_000)
        page.locator(".run-status", has_text="Finished").wait_for(timeout=60_000)
        assert page.locator(".calls-done").inner_text() == "6 of 6"
        assert not page.locator(".run-tokens").inner_text().startswith("0 /")
        page.get_by_role("link", name="Calibration of this run against the experts").wait_for()
        assert page.csp_errors == []
    finally:
        stop.set()
        worker.join(timeout=30)
    run = JudgeRun.objects.get()
    assert run.verdicts.count() == 6 and run.total_tokens > 0
