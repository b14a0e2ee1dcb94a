"""Shared fixtures. DATABASE_URL picks the database (SQLite by default, PostgreSQL in CI too)."""

import contextlib
import gc
import itertools
import os
from collections.abc import Iterator
from unittest import mock

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.core.signals import request_started
from django.db import connection, transaction
from django.db.backends.postgresql.operations import DatabaseOperations as PostgresOperations
from django.db.backends.signals import connection_created
from django.middleware import csrf
from django.test import Client, override_settings
from django.utils import csp
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from taxonomy.models import Framework
from tests.factories import load_starter_framework
from tests.llm_server import LlmServer, running_llm_server
from tests.provider_servers import PROVIDERS, running_provider_server
from tests.row_locks import check_row_locks

FIXTURES = settings.BASE_DIR / "fixtures"

connection_created.connect(check_row_locks)

# Property tests check what holds, not how fast: speed is measured in bench/. Hypothesis's
# per-example deadline and its too-slow health check would otherwise fail them on a busy machine.
hypothesis_settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("suite")

# What a test needs to reach the database: pytest-django's markers and fixtures.
DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_setup", "live_server", "django_db_reset_sequences"}
)
# What a test needs to send requests through the application: the test clients and a live server.
# A test that builds its own client is marked `http` instead.
HTTP_FIXTURES = frozenset(
    {"client", "admin_client", "async_client", "client_as", "htmx", "api_as", "live_server"}
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="Run only the tests that reach the database (`make test-postgres`: the others "
        "already ran on SQLite and cannot behave differently on another database).",
    )
    parser.addoption(
        "--skip-http-tests",
        action="store_true",
        help="Leave out the tests that reach the database through HTTP (pages, the API, a live "
        "server) unless marked `also_on_sqlite` (`make test-sqlite`: they run on PostgreSQL).",
    )


def uses_database(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("django_db") is not None or bool(fixtures & DATABASE_FIXTURES)


def goes_through_http(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("http") is not None or bool(fixtures & HTTP_FIXTURES)


def runs_on_postgresql_only(item: pytest.Item) -> bool:
    """A test that reaches the database through HTTP: what it adds to the service tests beneath
    it (forms, permissions, templates, the API's contract) is the same on every database."""
    return (
        uses_database(item)
        and goes_through_http(item)
        and item.get_closest_marker("also_on_sqlite") is None
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _name_each_operation(items)
    _keep_module_data_on_one_worker(config, items)
    if config.getoption("--database-tests-only"):
        _deselect(config, items, lambda item: not uses_database(item))
    if config.getoption("--skip-http-tests"):
        _deselect(config, items, runs_on_postgresql_only)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (Django, Inspect, the test modules) lives as long as the test
    process: frozen out of the garbage collector, whose full passes walked it again and again,
    and the collector run less often (its passes were 7% of a test process's CPU, 3% after)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def _deselect(config: pytest.Config, items: list[pytest.Item], left_out) -> None:
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        (deselected if left_out(item) else kept).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def _name_each_operation(items: list[pytest.Item]) -> None:
    """Schemathesis names each operation's test `test_x[POST /api/v1/...]` but gives every one
    the test function's node id, so a report or `--dist loadfile` (which schedules by node id)
    cannot tell them apart: each gets the id its name says."""
    for item in items:
        if item.parent is not None and item.name != item.nodeid.rpartition("::")[2]:
            parent = item.parent.id  # pytest's structured node id
            item._id = type(parent).parse(f"{parent}::{item.name}")
    seen: set[str] = set()
    twice = sorted({item.nodeid for item in items if item.nodeid in seen or seen.add(item.nodeid)})
    if twice:  # xdist would run one of each and report the others as never collected
        raise pytest.UsageError(f"tests with the same node id: {twice[:5]}")


def _keep_module_data_on_one_worker(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--dist loadgroup` (make test), the tests of a module whose data is built once for
    the module (`module_db`) run on one test process, which builds it once; the other tests go
    to whichever process is free. xdist groups by the `@group` suffix of a node id, which its
    own `xdist_group` mark no longer sets under this pytest (node ids are structured now)."""
    # The test processes are told by an option of their own (xdist/remote.py).
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        if "module_db" in getattr(item, "fixturenames", ()) and item.parent is not None:
            group = item.nodeid.partition("::")[0]
            item._id = type(item.parent.id).parse(f"{item.nodeid}@{group}")


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> None:
    """Give each test run its own PostgreSQL test database, so two runs on one server (a
    developer's and CI's, or two checkouts) never drop each other's database."""
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("postgresql"):
        database.setdefault("TEST", {})["NAME"] = f"test_{database['NAME']}_{os.getpid()}"
        # A test database is thrown away: its commits (migrations, the transactional tests and
        # their flushes) need not wait for the disk.
        options = database.setdefault("OPTIONS", {})
        options["options"] = f"{options.get('options', '')} -c synchronous_commit=off".strip()


@pytest.fixture(autouse=True, scope="session")
def flush_by_delete() -> Iterator[None]:
    """A transactional test ends by emptying every table (Django's flush). On PostgreSQL that
    is one TRUNCATE of all of them, which makes every table's files anew: half a second a
    test. A DELETE of each table, in the flush's one transaction (the foreign keys Django
    makes are checked at its commit), empties the few rows a test leaves in a quarter of that."""
    truncate = PostgresOperations.sql_flush

    def delete(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables]

    with mock.patch.object(PostgresOperations, "sql_flush", delete):
        yield


@pytest.fixture(autouse=True)
def _marked_http_goes_through_http(request) -> Iterator[None]:
    """A test marked `http` is left out on SQLite as a test of the pages or the API: one that
    queries the database without sending a request would lose its SQLite run unseen."""
    if request.node.get_closest_marker("http") is None or not uses_database(request.node):
        yield
        return
    requests: list[object] = []
    queries: list[str] = []

    def count_request(sender, **kwargs):
        requests.append(sender)

    def count_query(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    request_started.connect(count_request)
    try:
        with connection.execute_wrapper(count_query):
            yield
    finally:
        request_started.disconnect(count_request)
    assert requests or not queries, (
        "marked `http`, queries the database and sends no request: unmark it (it runs on "
        "SQLite too)"
    )


@pytest.fixture(autouse=True)
def _clear_cache_after_transactional_tests(request):
    """The cache is a database table: a test's rollback empties it, a transactional test's
    flush does not. Nor does it empty Django's cache of content types."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if marker is not None and marker.kwargs.get("transaction"):
        cache.clear()
        # The flush made the content types again under new ids.
        ContentType.objects.clear_cache()


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing() -> Iterator[None]:
    """Session-wide, so that data built once for a module (`module_db`) hashes fast too."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


# Pages carry a CSRF token and a CSP nonce drawn at random; a test asserting that "B1" or "nan" is
# absent from a page then fails about one run in a hundred. In tests both are built from a few
# letters and no digits, so they spell no level, code or number (still unique per draw, so the
# nonce checks keep their meaning).
_UNSPELLING = "jkqvwx"
_draws = itertools.count()


def _unspelling_string(length: int) -> str:
    number, letters = next(_draws), []
    for _ in range(length):
        number, digit = divmod(number, len(_UNSPELLING))
        letters.append(_UNSPELLING[digit])
    return "".join(reversed(letters))


@pytest.fixture(autouse=True, scope="session")
def english_shell() -> Iterator[None]:
    """Commands speak the language the shell asks for (l2annot.commands): the tests run them
    in English whatever the shell running the tests asks for (a test asking for Spanish sets
    its own variables)."""
    asked = ("LANGUAGE", "LC_ALL", "LC_MESSAGES")
    shell = {name: value for name, value in os.environ.items() if name not in asked}
    with mock.patch.dict(os.environ, {**shell, "LANG": "C.UTF-8"}, clear=True):
        yield


@pytest.fixture(autouse=True, scope="session")
def tokens_that_spell_nothing() -> Iterator[None]:
    with (
        mock.patch.object(csrf, "_get_new_csrf_string", lambda: _unspelling_string(32)),
        mock.patch.object(csp, "generate_nonce", lambda: _unspelling_string(22)),
    ):
        yield


@pytest.fixture(scope="module")
def module_db(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    """Database access for a module-scoped fixture that builds data once for the module's
    tests, as Django's `TestCase.setUpTestData` does: the data is written inside a transaction
    held open around the module, each test's own transaction nests in it (a savepoint rolled
    back after the test, so what a test changes is undone), and the data itself is rolled back
    after the module's last test. Tests reach the data through a function-scoped fixture that
    reads it again by primary key, so no test sees another's changes to a Python object."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


@pytest.fixture
def starter_framework(db: None) -> Framework:
    """The starter taxonomy and context variables, loaded the way `make run` loads them."""
    return load_starter_framework()


@pytest.fixture
def make_user(db: None):
    """make_user(Role.AUTHOR) -> a saved user holding that role (password 'pw-<username>')."""
    counter = {"n": 0}

    def make(role: Role, username: str | None = None) -> User:
        # Migrating makes the role groups (post_migrate), as does a transactional test's flush:
        # syncing them again for every user was a sixth of some tests' time.
        if not Group.objects.filter(name=role.value).exists():
            sync_roles()
        counter["n"] += 1
        name = username or f"{role.value.lower()}{counter['n']}"
        return create_user_with_role(name, f"pw-{name}", role)

    return make


@pytest.fixture
def client_as(make_user):
    """client_as(Role.AUTHOR) -> a test client logged in as a new user with that role."""

    def login(role: Role) -> Client:
        client = Client()
        client.force_login(make_user(role))
        return client

    return login


def htmx(client: Client) -> Client:
    """Make every request of `client` look like an htmx request."""
    client.defaults["HTTP_HX_REQUEST"] = "true"
    return client


@pytest.fixture(scope="session")
def llm_server_for_session(tmp_path_factory):
    """The loopback OpenAI-compatible server of this test process (see tests/llm_server.py);
    from its start, nothing in the process reaches the network."""
    home = str(tmp_path_factory.mktemp("inspect-home"))
    database_hosts = {db.get("HOST") for db in settings.DATABASES.values()} - {None, ""}
    with running_llm_server(home, allowed_names=database_hosts) as server:
        yield server


@pytest.fixture
def llm_server(llm_server_for_session: LlmServer) -> LlmServer:
    """The loopback server with an empty script and no requests recorded."""
    llm_server_for_session.reset()
    return llm_server_for_session


@pytest.fixture(scope="session")
def provider_servers_for_session(
    llm_server_for_session: LlmServer,
) -> Iterator[dict[str, LlmServer]]:
    """A loopback server for each provider the judge ships with, by name (anthropic, google,
    openai: see tests/provider_servers.py), Inspect's provider pointed at each; started after
    the OpenAI-compatible one, so nothing leaves the machine either."""
    with contextlib.ExitStack() as servers:
        yield {name: servers.enter_context(running_provider_server(name)) for name in PROVIDERS}


@pytest.fixture
def provider_servers(provider_servers_for_session: dict[str, LlmServer]) -> dict[str, LlmServer]:
    """The providers' loopback servers with empty scripts and no requests recorded."""
    for server in provider_servers_for_session.values():
        server.reset()
    return provider_servers_for_session
