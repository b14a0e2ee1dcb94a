"""What the bench scripts share: timing, throw-away databases, Django set up on them, the app
under gunicorn on the loopback, a seeded grading study, and an HTTP client of the app's pages.

The Django imports are inside the functions that need them: `bench.bench_agreement` uses this
module without Django, and the app's models cannot be imported before `setup_django`.
The servers contacted are PostgreSQL (127.0.0.1:5432 unless a script is given another) and the
gunicorn started here, on 127.0.0.1.
"""

import http.client
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import dj_database_url
import psycopg

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PG_SERVER = f"postgres://postgres@{HOST}:5432"


# ----- timing -----------------------------------------------------------------------------------
def timed[T](fn: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Median wall time in seconds over `repeats` calls of `fn`, and the last call's result."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


# ----- databases --------------------------------------------------------------------------------
def postgres_url(name: str, server: str = PG_SERVER) -> str:
    """The URL of database `name` on `server` (a URL without a database)."""
    return f"{server.rstrip('/')}/{name}"


def server_of(url: str) -> str:
    """The server part of a PostgreSQL database URL (scheme, credentials, host and port)."""
    return urlsplit(url)._replace(path="", query="", fragment="").geturl()


def is_postgres(url: str) -> bool:
    return url.startswith(("postgres:", "postgresql:"))


def database_name(url: str) -> str:
    """The database's name on its server, or an SQLite file's path."""
    return dj_database_url.parse(url)["NAME"]


def admin_connection(server: str = PG_SERVER) -> psycopg.Connection:
    """An autocommit connection to `server`'s `postgres` database, for CREATE and DROP DATABASE
    and for looking at the server's other clients."""
    return psycopg.connect(postgres_url("postgres", server), autocommit=True)


def create_database(url: str) -> None:
    """Create the PostgreSQL database of `url`; an SQLite database needs no creating."""
    if is_postgres(url):
        with admin_connection(server_of(url)) as admin:
            admin.execute(f'CREATE DATABASE "{database_name(url)}"')


def drop_database(url: str) -> None:
    """Drop the database of `url` even if clients are still connected; remove an SQLite file."""
    if is_postgres(url):
        with admin_connection(server_of(url)) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')
    elif database_name(url) != ":memory:":
        Path(database_name(url)).unlink(missing_ok=True)


@contextmanager
def throwaway_database(url: str, keep: bool = False) -> Iterator[str]:
    """Create the database of `url` and drop it at the end (unless `keep`), after closing this
    process's Django connections to it."""
    create_database(url)
    try:
        yield url
    finally:
        from django.conf import settings
        from django.db import connections

        if settings.configured:
            connections.close_all()
        if keep:
            print(f"kept database {database_name(url)}")
        else:
            drop_database(url)


def setup_django(environment: Mapping[str, str]) -> None:
    """Set up Django in this process with `environment` (DATABASE_URL and any other setting
    read from the environment) added to os.environ, so subprocesses inherit it too."""
    import django

    os.environ.update(environment)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "l2annot.settings")
    django.setup()


def migrate(*, static_files: bool = False) -> None:
    """Bring the configured database to the app's schema with its cache table (as `make migrate`
    does); with `static_files`, collect the static files too (with DEBUG off the pages name
    their hashed copies)."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    if static_files:
        call_command("collectstatic", interactive=False, verbosity=0)


# ----- the app under gunicorn -------------------------------------------------------------------
def server_environment(database_url: str, **overrides: str) -> dict[str, str]:
    """The environment the app runs under in these scripts: production settings (DEBUG off, a
    fresh secret key) against `database_url`, served on the loopback over plain HTTP."""
    return dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="l2annot.settings",
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS=HOST,
        SECURE_COOKIES="0",  # plain HTTP on the loopback
        SECURE_HSTS_SECONDS="0",
        **overrides,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A gunicorn master serving the app on HOST:port."""

    process: subprocess.Popen[bytes]
    port: int


@contextmanager
def gunicorn(
    environment: Mapping[str, str],
    *,
    workers: int,
    worker_class: str = "gthread",
    threads: int = 4,
) -> Iterator[Server]:
    """Start gunicorn on a free loopback port, wait until it accepts connections, and stop it
    at the end."""
    port = free_port()
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "l2annot.wsgi:application",
        f"--bind={HOST}:{port}",
        f"--workers={workers}",
        f"--worker-class={worker_class}",
        "--log-level=warning",
    ]
    if worker_class == "gthread":  # gunicorn turns sync into gthread whenever --threads > 1
        command.append(f"--threads={threads}")
    process = subprocess.Popen(command, cwd=ROOT, env=dict(environment))
    try:
        for _ in range(100):
            try:
                with socket.create_connection((HOST, port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("gunicorn did not start")
        yield Server(process, port)
    finally:
        process.terminate()
        process.wait(timeout=30)


# ----- a grading study --------------------------------------------------------------------------
def seed_study(
    graders: int, responses: int, criteria: int, overlap: int
) -> tuple[int, list[tuple[str, str]]]:
    """A study of `responses` generated responses (never L2-Bench data), each of a published
    task with `criteria` criteria, assigned `overlap` times among `graders` annotators.
    Returns the study's id and the graders' (username, password)."""
    from accounts.roles import Role
    from accounts.services import create_user_with_role, sync_roles
    from grading import services
    from tests import factories

    sync_roles()
    logins = [(f"grader{n:02d}", secrets.token_urlsafe(12)) for n in range(1, graders + 1)]
    annotators = [create_user_with_role(name, pw, Role.ANNOTATOR) for name, pw in logins]
    items = [
        factories.response(factories.published_task(criteria=criteria)) for _ in range(responses)
    ]
    study = services.create_study(
        name="Load bench",
        framework=factories.framework(),
        responses=items,
        annotators=annotators,
        overlap=overlap,
        require_rationale_on_fail=True,
    )
    services.assign_study(study)
    return study.pk, logins


# ----- HTTP client ------------------------------------------------------------------------------
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# The grading page's htmx forms: one save per criterion, one per Likert question.
SAVE_URL = re.compile(r'action="(/grading/assignments/(\d+)/criteria/(\d+)/)"')
LIKERT_URL = re.compile(r'action="(/grading/assignments/\d+/likert/\d+/)"')

Recorder = Callable[[str, float, int, str], None]  # (kind, seconds, status, path)


class Client:
    """A cookie-keeping HTTP/1.1 client of the app on HOST:port.

    Two ways of meeting a fault, for two kinds of bench:
    - `keep_alive` (load): one connection kept open and opened again, once, when the server has
      closed it between requests; a second failure raises;
    - not `keep_alive` (faults): a new connection per request, never retried, so a request that
      a fault cut off returns status None instead of being hidden by a retry.

    `record(kind, seconds, status, path)`, when given, is called after every answered request.
    """

    def __init__(
        self,
        port: int,
        *,
        keep_alive: bool = True,
        timeout: float = 30,
        record: Recorder | None = None,
    ) -> None:
        self.port = port
        self.keep_alive = keep_alive
        self.timeout = timeout
        self.record = record
        self.cookies: dict[str, str] = {}
        self.connection = http.client.HTTPConnection(HOST, port, timeout=timeout)  # if keep_alive

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        *,
        kind: str = "",
    ) -> tuple[int | None, str, str]:
        """Returns the status (None if the connection died), the Location header and the body."""
        headers = dict(headers or {})
        if not self.keep_alive:
            headers["Connection"] = "close"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = urlencode(form) if form is not None else None
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        if self.keep_alive:
            try:
                reply, text = self._exchange(self.connection, method, path, body, headers)
            except (http.client.HTTPException, OSError):
                self.connection.close()  # the server closed a kept-alive connection: retry once
                reply, text = self._exchange(self.connection, method, path, body, headers)
        else:
            connection = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            try:
                reply, text = self._exchange(connection, method, path, body, headers)
            except (http.client.HTTPException, OSError):
                return None, "", ""
            finally:
                connection.close()
        elapsed = time.perf_counter() - start
        for header, value in reply.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        if self.record is not None:
            self.record(kind, elapsed, reply.status, path)
        return reply.status, reply.getheader("Location") or "", text

    @staticmethod
    def _exchange(
        connection: http.client.HTTPConnection,
        method: str,
        path: str,
        body: str | None,
        headers: dict[str, str],
    ) -> tuple[http.client.HTTPResponse, str]:
        connection.request(method, path, body=body, headers=headers)
        reply = connection.getresponse()
        return reply, reply.read().decode()


def csrf_token(page: str) -> str:
    """The CSRF token of a page's forms."""
    found = CSRF_INPUT.search(page)
    if found is None:
        raise RuntimeError("no CSRF token on the page")
    return found.group(1)


def htmx_headers(token: str) -> dict[str, str]:
    """The headers of an htmx request from one of the app's pages."""
    return {"HX-Request": "true", "X-CSRFToken": token}


def log_in(client: Client, username: str, password: str, retry_until: float | None = None) -> str:
    """Log in through the login form and return the CSRF token of the page after it (logging in
    rotates the token). With `retry_until` (a time.monotonic() deadline), try again through
    faults until then; the requests are recorded as kind "login"."""
    while True:
        status, _, page = client.request("GET", "/accounts/login/", kind="login")
        if status == 200:
            form = {
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": csrf_token(page),
            }
            status, _, _ = client.request("POST", "/accounts/login/", form, kind="login")
            if status == 302:
                status, _, page = client.request("GET", "/grading/", kind="login")
                if status == 200:
                    return csrf_token(page)
        if retry_until is None or time.monotonic() >= retry_until:
            raise RuntimeError(f"{username} could not log in ({status})")
        time.sleep(0.2)


# ----- the benchmark-scale data set -------------------------------------------------------------
# 1,000 tasks with 10 task criteria each, 12 consensus criteria per sub-competency, 8 universal
# criteria; 5 models answering every task twice (10,000 responses).
TASKS, TASK_CRITERIA, CONSENSUS, UNIVERSAL, MODELS, EPOCHS = 1000, 10, 12, 8, 5, 2


@dataclass(frozen=True)
class GeneratedBenchmark:
    framework: object  # taxonomy.models.Framework, loaded with its context variables
    records: list  # the tasks written, as core.formats.synthetic made them
    responses: list  # the responses written
    folder: Path  # the L2-Bench folder (`folder / "bench"`) and `folder / "responses.jsonl"`


def starter_framework() -> tuple[Any, list[str]]:
    """The starter framework from fixtures/ with its context variables, loaded (after
    `setup_django`), and the codes of its sub-competencies."""
    from taxonomy import services as taxonomy
    from taxonomy.models import SubCompetency
    from taxonomy.seedfile import read_context_variables, read_scales, read_taxonomy

    fixtures = ROOT / "fixtures"
    framework, _ = taxonomy.load_framework(read_taxonomy(fixtures / "taxonomy.json"))
    taxonomy.load_scales(framework, read_scales(fixtures / "proficiency_scales.json"))
    taxonomy.load_context_variables(
        framework, read_context_variables(fixtures / "context_variables.json")
    )
    subs = list(
        SubCompetency.objects.filter(competency__framework=framework).values_list("code", flat=True)
    )
    return framework, subs


def generated_benchmark(prefix: str) -> GeneratedBenchmark:
    """Load the starter framework and write the data set above as an L2-Bench folder and a
    responses file in a new temporary folder named with `prefix` (after `setup_django`)."""
    import tempfile

    from core.formats.synthetic import (
        synthetic_responses,
        synthetic_tasks,
        write_benchmark,
        write_jsonl,
    )

    framework, subs = starter_framework()
    records = synthetic_tasks(
        TASKS,
        subs,
        task_criteria=TASK_CRITERIA,
        consensus_per_sub=CONSENSUS,
        universal=UNIVERSAL,
        context={"cefr_level": ["A1", "B1", "C1"]},
        resources_every=10,
    )
    responses = synthetic_responses(records, [f"model-{n}" for n in range(MODELS)], epochs=EPOCHS)
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    write_benchmark(folder / "bench", records)
    write_jsonl(folder / "responses.jsonl", responses)
    return GeneratedBenchmark(framework, records, responses, folder)
