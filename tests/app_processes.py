"""The application's real processes (the development server, a background worker) on the
suite's database, for the tests that need what only separate processes show: file locking,
a worker killed mid-job."""

import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import requests
from django.conf import settings
from django.db import connection

type Start = Callable[..., subprocess.Popen[bytes]]


def database_url(tmp_path: Path) -> str:
    """The suite's database as another process reaches it. SQLite's is in memory, where no
    file locking happens: it is copied to a file (`tmp_path/db.sqlite3`)."""
    if connection.vendor == "sqlite":
        database = tmp_path / "db.sqlite3"
        connection.ensure_connection()
        with sqlite3.connect(database) as copy:
            connection.connection.backup(copy)
        return f"sqlite:///{database}"
    found = connection.settings_dict
    return f"postgres://{found['USER']}@{found['HOST']}:{found['PORT'] or 5432}/{found['NAME']}"


def shared_database_url() -> str:
    """The database that new connections of the test reach, as another process reaches it:
    on SQLite, the file `tests.concurrency.threads_share_one_database` shares (inside it)."""
    found = connection.settings_dict
    if connection.vendor == "sqlite":
        assert found["NAME"] != ":memory:" and "mode=memory" not in str(found["NAME"])
        return f"sqlite:///{found['NAME']}"
    return f"postgres://{found['USER']}@{found['HOST']}:{found['PORT'] or 5432}/{found['NAME']}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def processes(tmp_path: Path, database: str, **environment: str) -> Iterator[Start]:
    """Yields `start(*manage_py_arguments)`, which starts a process of the application on
    `database` (files under `tmp_path`), writing its output to a log in `tmp_path`. Every
    process is stopped on the way out."""
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": database,
        "MEDIA_ROOT": str(tmp_path / "media"),
        "IMPORTS_ROOT": str(tmp_path / "imports"),
        "PYTHONUNBUFFERED": "1",
        # No test's judge run is large enough for child processes: a worker starts no process
        # for them (it would load Inspect AI a second time, seconds of CPU).
        "JUDGE_PROCESSES": "1",
        **environment,
    }
    started: list[subprocess.Popen[bytes]] = []

    def start(*command: str) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"{command[0]}-{len(started)}.log").open("w")
        process = subprocess.Popen(
            [sys.executable, "manage.py", *command],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()  # the process holds its own handle
        process.log_path = log.name
        started.append(process)
        return process

    try:
        yield start
    finally:
        # Killed, not asked to stop: the test is over, and a worker stopping gracefully spends
        # a second of CPU on the interpreter's finalization (with Inspect AI loaded).
        for process in started:
            if process.poll() is None:
                process.kill()
        for process in started:
            process.wait()


@contextmanager
def running_server(tmp_path: Path, **environment: str) -> Iterator[tuple[str, Start]]:
    """The development server on `database_url(tmp_path)` (files under `tmp_path`), answering:
    yields its base URL and `start(*manage_py_arguments)`, which starts another process (a
    worker) with the same environment. Every process is stopped on the way out; each writes
    its output to a log in `tmp_path`."""
    with processes(tmp_path, database_url(tmp_path), **environment) as start:
        port = free_port()
        # The suite runs the system checks once (tests/project/test_migrations.py).
        server = start("runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks")
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"{base}/accounts/login/", timeout=5)
                break
            except requests.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield base, start


def wait_until_polling(worker: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until a `db_worker` that `start` started polls for jobs (its log says it started:
    after it loaded what it loads first, settings.WORKER_STARTUP)."""
    deadline = time.monotonic() + seconds
    log = Path(worker.log_path)
    while "Starting worker" not in log.read_text():
        assert worker.poll() is None, f"the worker exited: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)


def csrf_token(html: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, "no CSRF token on the page"
    return match.group(1)
