"""A background import whose worker dies ends failed, saying so, never "running" for ever.

The last test does it for real: the upload page and `manage.py db_worker` as separate processes
on the suite's database (a file copy on SQLite, the test database itself on PostgreSQL), the
worker killed with SIGKILL in the middle of an import.
"""

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.test import Client
from django.utils import timezone

from accounts.roles import Role
from interchange import jobs
from interchange.models import ImportJob
from interchange.problem_text import problem_text
from jobs.lease import this_worker, worker_is_gone
from tests.app_processes import csrf_token, running_server, wait_until_polling
from tests.factories import benchmark_folder, generated, make_hook, make_job

LEASE = 2.0  # seconds, for the worker started by the last test
WORKER = ("db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.05")


def a_dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def running_job(framework, worker: str, heartbeat_age: float):
    return make_job(
        framework,
        status=ImportJob.Status.RUNNING,
        original_name="bench.zip",
        stage="writing",
        worker=worker,
        heartbeat_at=timezone.now() - timedelta(seconds=heartbeat_age),
    )


def test_a_worker_on_another_machine_is_gone_once_its_heartbeat_is_older_than_the_lease():
    now = timezone.now()
    assert not worker_is_gone("elsewhere:12:34", now - timedelta(seconds=59), now, 60)
    assert worker_is_gone("elsewhere:12:34", now - timedelta(seconds=61), now, 60)
    assert worker_is_gone("", None, now, 60)  # a job from before leases: no worker named


def test_a_worker_on_this_machine_is_gone_as_soon_as_its_process_ended():
    now = timezone.now()
    host = socket.gethostname()
    assert worker_is_gone(f"{host}:{a_dead_pid()}:", now, now, 60)
    assert not worker_is_gone(this_worker(), now - timedelta(days=1), now, 60)
    # The pid reused by another process (another start time) is not the worker.
    assert worker_is_gone(f"{host}:{os.getpid()}:1", now, now, 60)


@pytest.mark.django_db
def test_a_job_whose_worker_is_gone_ends_failed_with_a_message_that_says_so(
    starter_framework, settings
):
    settings.JOB_LEASE_SECONDS = 60
    stale = running_job(starter_framework, "elsewhere:12:34", heartbeat_age=61)
    fresh = running_job(starter_framework, "elsewhere:12:34", heartbeat_age=5)
    killed = running_job(starter_framework, f"{socket.gethostname()}:{a_dead_pid()}:", 0)
    mine = running_job(starter_framework, this_worker(), heartbeat_age=3600)
    hook = make_hook(events=["import.finished"])
    assert jobs.fail_abandoned_jobs() == 2
    told = sorted(d.payload["import"] for d in hook.deliveries.all())  # its end is told too
    assert told == sorted([stale.pk, killed.pk])
    assert {d.payload["status"] for d in hook.deliveries.all()} == {"failed"}
    for job in (stale, fresh, killed, mine):
        job.refresh_from_db()
    assert (stale.status, killed.status) == ("failed", "failed")
    assert (fresh.status, mine.status) == ("running", "running")
    assert [problem_text(problem) for problem in killed.problems] == [
        "bench.zip: the worker running this import stopped before it finished (its process was "
        "killed or its machine restarted) while writing; the import is all or nothing and did "
        "not commit: upload the file again"
    ]
    assert killed.finished_at is not None and killed.finished


@pytest.mark.django_db
def test_the_job_page_shows_a_job_whose_worker_died_as_failed(starter_framework, client_as):
    job = running_job(starter_framework, f"{socket.gethostname()}:{a_dead_pid()}:", 0)
    page = client_as(Role.MAINTAINER).get(f"/interchange/jobs/{job.pk}/").content.decode()
    assert "Failed" in page and "the worker running this import stopped" in page
    assert "every 1s" not in page  # no longer polling


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="SQLite has one writer, held by the import: the heartbeat is PostgreSQL's",
)
def test_a_running_job_renews_its_heartbeat_from_its_own_thread(starter_framework, settings):
    settings.JOB_LEASE_SECONDS = 0.6
    job = running_job(starter_framework, this_worker(), heartbeat_age=10)
    before = job.heartbeat_at
    with jobs.Heartbeat(job.pk):
        time.sleep(0.7)
    job.refresh_from_db()
    assert job.heartbeat_at > before + timedelta(seconds=9)


# ----- for real: a worker process killed in the middle of an import ----------------------------
@pytest.fixture
def processes(transactional_db, make_user, starter_framework, settings, tmp_path):
    """The development server on the suite's database, a `start` for the workers a test runs
    (their lease: LEASE seconds) and the session of a signed-in maintainer."""
    # Signed in before the server starts: on SQLite it runs on a copy of the database.
    maintainer = Client()
    maintainer.force_login(make_user(Role.MAINTAINER, "maintainer"))
    with running_server(
        tmp_path,
        IMPORT_JOB_LEASE_SECONDS=str(LEASE),
        TASKS_BACKEND="django_tasks_db.DatabaseBackend",
    ) as (base, start):
        session = requests.Session()
        session.cookies.set(settings.SESSION_COOKIE_NAME, maintainer.session.session_key)
        yield base, start, session


def _upload_benchmark(session: requests.Session, base: str, folder: Path, framework_id: int) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.rglob("*"):
            archive.write(path, path.relative_to(folder).as_posix())
    page = session.get(f"{base}/interchange/", timeout=30)
    answer = session.post(
        f"{base}/interchange/",
        data={
            "kind": "benchmark",
            "framework": framework_id,
            "csrfmiddlewaretoken": csrf_token(page.text),
        },
        files={"file": ("bench.zip", buffer.getvalue())},
        headers={"Referer": f"{base}/interchange/"},
        timeout=60,
    )
    assert answer.ok and "/interchange/jobs/" in answer.url, answer.text[:300]
    return answer.url


def _status(session: requests.Session, job_url: str) -> str:
    page = session.get(job_url, timeout=30).text
    match = re.search(r'<div id="job-status".*?<strong>(\w+)</strong>', page, re.S)
    assert match, page[:500]
    return match.group(1)


def _wait_for(session: requests.Session, job_url: str, wanted: set[str], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    status = _status(session, job_url)
    while status not in wanted and time.monotonic() < deadline:
        time.sleep(0.05)
        status = _status(session, job_url)
    return status


def test_a_worker_killed_in_the_middle_of_an_import_leaves_its_job_failed_within_the_lease(
    processes, starter_framework, tmp_path
):
    base, start, session = processes
    worker = start(*WORKER)
    folder = benchmark_folder(tmp_path / "bench", generated(400, resources_every=0))
    wait_until_polling(worker)
    job_url = _upload_benchmark(session, base, folder, starter_framework.pk)
    assert _wait_for(session, job_url, {"Running", "Succeeded", "Failed"}, 60) == "Running"
    worker.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    worker.wait()
    assert _wait_for(session, job_url, {"Failed", "Succeeded"}, LEASE + 5) == "Failed"
    assert time.monotonic() - killed_at <= LEASE + 1
    page = session.get(job_url, timeout=30).text
    assert "bench.zip: the worker running this import stopped before it finished" in page
    assert "Traceback" not in page

    # A worker started again takes the next upload as usual.
    worker = start(*WORKER)
    small = benchmark_folder(tmp_path / "small", generated(2))
    wait_until_polling(worker)
    assert (
        _wait_for(
            session,
            _upload_benchmark(session, base, small, starter_framework.pk),
            {"Succeeded", "Failed"},
            60,
        )
        == "Succeeded"
    )
