"""Schemathesis generates requests from the OpenAPI schema and sends them through the WSGI
application, with every check it has (`--checks all`): no server error, every answer as the
schema says (status code, body, headers, content type), schema-valid input accepted and
invalid input refused, no method or header the schema does not declare, deleted objects gone,
credentials required. It runs as an admin and as an annotator (whose study reads differ), on
the demo data and a few flags in each state, once per operation and statefully (sequences of
calls linked by the ids one answer gives the next request).

Per operation Schemathesis runs its coverage phase (every boundary and negative case the schema
defines: missing and wrongly typed fields, limits, unexpected methods) and its fuzzing phase
(generated valid and invalid requests). The suite fuzzes a few examples per operation and
leaves the annotator's coverage phase out: it is two thirds of an operation's time, and an
annotator is refused most writes (403) before the body is read, while the admin's run goes
through every case. The admin's coverage phase runs on PostgreSQL for the operations that write
(POST, PUT, PATCH), whose boundary values meet the database's own limits (lengths, integer
ranges, NUL characters), and not on SQLite, which enforces none of them; the reads' boundary
cases (a query or path parameter at its limit) run in `make schemathesis` only: they were four
fifths of the suite's longest test. The admin's per-operation fuzzing runs on PostgreSQL too,
the production database, and the annotator's, for the same reason the other way round, on SQLite
only: its answers are mostly refusals made before the database is reached. (The stateful
scenarios run on both.) `make schemathesis` runs 50 examples (the
`SCHEMATHESIS_EXAMPLES` environment variable), both coverage phases on whichever database
`DATABASE_URL` names, and longer stateful scenarios."""

import copy
import io
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.utils.http import parse_etags
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.specs.openapi.checks import positive_data_acceptance

from accounts.models import ApiToken, User
from accounts.roles import Role
from grading import flags
from grading.models import Assignment

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "4"))
STEPS = 10 if EXAMPLES > 10 else 4  # calls in one stateful scenario

# A schema says what a well-formed request is, not which objects exist: a body naming an object
# that is not there (`"assignment": 12345`), or a code another object already has, is rightly a
# 400 naming the field. Only that 400 is let through the positive-data check; any other refusal
# of valid input fails it.
UNKNOWN_OBJECT = re.compile(
    r"does not exist|^No \w+ with |^no \w+ |already exists|already used", re.IGNORECASE
)


# Rules no JSON schema can state, which the judge's services check and refuse with a 400 naming
# the field: a prompt's slots (core.prompting: no unknown slot, both {{response}} and
# {{criterion}}) and a model string of a provider the deployment allows (JUDGE_ALLOWED_PROVIDERS,
# set where the server runs, after the schema is published).
JUDGE_RULES = {
    "text": re.compile(r"^unknown slot |^the template never shows the judge "),
    "model": re.compile(r"is not an Inspect model|calls a provider this server does not allow"),
}


def _breaks_only_judge_rules(response: Any, body: Any) -> bool:
    path = response.request.url.split("://", 1)[-1]
    if "/api/v1/judge-" not in path:
        return False
    errors = body.get("errors") if isinstance(body, dict) else None
    return bool(errors) and all(
        field in JUDGE_RULES and all(JUDGE_RULES[field].search(str(m)) for m in messages)
        for field, messages in errors.items()
    )


def _names_only_unknown_objects(body: Any) -> bool:
    errors = body.get("errors") if isinstance(body, dict) else None
    messages = [m for field in (errors or {}).values() for m in field]
    return bool(messages) and all(UNKNOWN_OBJECT.search(str(m)) for m in messages)


def _names_a_stale_etag(response: Any) -> bool:
    """A 412 to an If-Match that names neither `*` nor the ETag the object has (the answer
    carries it): a stale precondition, as a stale `revision` is a 409 (which Schemathesis lets
    through). An If-Match naming the current ETag and refused is still a failure.

    This is a limit of Schemathesis, not of the API: it fills the optional If-Match header
    with any string the schema allows, and no schema can state which ETag an object has now;
    RFC 9110 (13.1.1) requires a 412 when If-Match matches no current representation, and
    positive_data_acceptance's expected statuses (2xx, 3xx, 401, 403, 404, 409, 429, 5xx) leave
    412 out."""
    sent = response.request.headers.get("If-Match")
    current = response.headers.get("etag", [None])[0]
    if response.status_code != 412 or sent is None or current is None:
        return False
    return "*" not in parse_etags(sent) and current not in parse_etags(sent)


@schemathesis.check
def valid_input_accepted(ctx, response, case):
    """Schemathesis' positive_data_acceptance, but for a reference to an unknown object, an
    If-Match naming another revision or a judge rule no schema states: a schema says what a
    request looks like, not what the database holds."""
    if response.status_code == 400:
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
        if _names_only_unknown_objects(body) or _breaks_only_judge_rules(response, body):
            return None
    if _names_a_stale_etag(response):
        return None
    return positive_data_acceptance(ctx, response, case)


load_all_checks()
CHECKS_ALL = [check for check in CHECKS.get_all() if check is not positive_data_acceptance]


def openapi_document() -> dict:
    """The document /api/schema/ serves (same generator and renderer), built without a request:
    schemathesis' lazy fixture loader does not work with this pytest, and the test database
    does not exist yet when the module is collected."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


DOCUMENT = openapi_document()
FULL = EXAMPLES > 10  # `make schemathesis`
ON_POSTGRESQL = django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def _schema(*, coverage: bool) -> Any:
    loaded = schemathesis.openapi.from_dict(copy.deepcopy(DOCUMENT))  # it adds to the dict
    loaded.app = get_wsgi_application()
    loaded.config.phases.coverage.enabled = coverage
    return loaded


schema = _schema(coverage=FULL)
annotator_schema = _schema(coverage=FULL)
WRITES = ["POST", "PUT", "PATCH"]
# Schemathesis draws an operation's coverage cases when the test is collected, in every test
# process: where the test is skipped they are not drawn.
WRITES_AT_THE_LIMITS_RUN = ON_POSTGRESQL and not FULL
writes_at_the_limits = _schema(coverage=WRITES_AT_THE_LIMITS_RUN).include(method=WRITES)
writes_at_the_limits.config.phases.fuzzing.enabled = False  # fuzzed with the rest above
SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same examples on every run: CI does not flake
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    stateful_step_count=STEPS,
)


def flag_demo_responses() -> None:
    """Flags as a reader meets them, which the demo data has none of: open on a whole response
    (its criterion code null) and on a criterion, one setting its response aside, resolved
    with the response returned and without (an empty outcome)."""
    grader, admin = (User.objects.get(username=name) for name in ("annotator", "admin"))
    own = Assignment.objects.filter(annotator=grader).order_by("pk")
    first, second = own.exclude(status=Assignment.Status.SUBMITTED)[:2]
    criterion = first.study_item.rubric_version.effective_rubric()[0].version
    flags.raise_flag(first, kind="response_broken", comment="", skip=True, by=grader)
    flags.raise_flag(
        first, kind="criterion_unclear", comment="", criterion_version_id=criterion.pk, by=grader
    )
    returned = flags.raise_flag(second, kind="other", comment="Cut off", skip=True, by=grader)
    flags.resolve_flag(returned, note="Read it again", outcome="returned", by=admin)
    submitted = own.filter(status=Assignment.Status.SUBMITTED).first() or second
    noted = flags.raise_flag(submitted, kind="other", comment="Odd", by=grader)
    flags.resolve_flag(noted, note="Noted", by=admin)


@pytest.fixture(scope="module")
def tokens(module_db: None, tmp_path_factory) -> dict[Role, str]:
    """The demo data (benchmark, study, judge run), once for the module, and a token for the
    demo admin and for an annotator of the demo study."""
    call_command("seed_demo", stdout=io.StringIO())
    flag_demo_responses()
    return {
        role: ApiToken.issue(User.objects.get(username=username), "schemathesis")[1]
        for role, username in ((Role.ADMIN, "admin"), (Role.ANNOTATOR, "annotator"))
    }


@pytest.fixture
def live(settings, tmp_path) -> Iterator[None]:
    """A WSGI request closes old database connections when it ends, which would close the test's
    transaction on PostgreSQL; Django's test client disconnects this handler the same way."""
    settings.ALLOWED_HOSTS = ["localhost"]  # schemathesis' WSGI client sends this Host
    settings.MEDIA_ROOT = tmp_path
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(params=[Role.ADMIN, Role.ANNOTATOR], ids=["admin", "annotator"])
def token(request, tokens, live, db) -> str:
    return tokens[request.param]


@pytest.fixture
def admin_token(tokens, live, db) -> str:
    return tokens[Role.ADMIN]


@pytest.fixture
def annotator_token(tokens, live, db) -> str:
    return tokens[Role.ANNOTATOR]


def sent_with(token: str) -> dict[str, str]:
    """The headers of every call. Schemathesis's WSGI transport reads a body as the app sends
    it and does not undo gzip, which an HTTP client would: ask for bodies uncompressed
    (compression has its own tests)."""
    return {"Authorization": f"Token {token}", "Accept-Encoding": "identity"}


@contextmanager
def rolled_back() -> Iterator[None]:
    """What an example writes is undone after it, so every example of an operation starts from
    the demo data and a failure Hypothesis replays to shrink meets the data it first met."""
    savepoint = transaction.savepoint_create()
    try:
        yield
    finally:
        transaction.savepoint_rollback(savepoint)


@pytest.mark.skipif(
    not ON_POSTGRESQL and not FULL,
    reason="the admin's run goes through the database's own limits: PostgreSQL's, the "
    "production database (the annotator's run is the SQLite one)",
)
@schema.parametrize()
@SETTINGS
def test_the_api_honours_its_schema(case, admin_token):
    with rolled_back():
        case.call_and_validate(headers=sent_with(admin_token), checks=CHECKS_ALL)


@pytest.mark.skipif(
    not WRITES_AT_THE_LIMITS_RUN,
    reason="SQLite enforces no lengths or integer ranges; `make schemathesis` covers every "
    "operation's boundaries in the admin's run",
)
@writes_at_the_limits.parametrize()
@SETTINGS
def test_writes_at_the_limits_honour_the_schema(case, admin_token):
    with rolled_back():
        case.call_and_validate(headers=sent_with(admin_token), checks=CHECKS_ALL)


@pytest.mark.skipif(
    ON_POSTGRESQL and not FULL,
    reason="the annotator's run is mostly refusals made before the database is reached",
)
@annotator_schema.parametrize()
@SETTINGS
def test_the_api_honours_its_schema_for_an_annotator(case, annotator_token):
    with rolled_back():
        case.call_and_validate(headers=sent_with(annotator_token), checks=CHECKS_ALL)


def test_sequences_of_calls_honour_the_schema(token):
    class Workflow(schema.as_state_machine()):
        """Each scenario starts from the same data: what one wrote is rolled back before the
        next. Which calls a scenario can make next depends on the answers so far (a link is
        followed only from a success), so Hypothesis, replaying a scenario to shrink a failure,
        must get the same answers; on data left by earlier scenarios it did not, and reported
        FlakyStrategyDefinition instead of the failure."""

        def setup(self):
            self.savepoint = transaction.savepoint_create()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)

        def get_call_kwargs(self, case):
            return {"headers": sent_with(token)}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(
                response,
                checks=CHECKS_ALL,
                headers=kwargs.get("headers"),  # the real token: probes try without it
                transport_kwargs=kwargs or None,
                recorder=getattr(self, "recorder", None),
            )

    Workflow.run(settings=SETTINGS)


@pytest.mark.django_db
def test_the_served_schema_is_the_one_tested(client_as):
    served = client_as(Role.VIEWER).get("/api/schema/", {"format": "json"}).json()
    assert served == openapi_document()


def test_the_suite_leaves_out_the_annotators_coverage_phase_and_the_reads_boundaries():
    assert len({id(s.config) for s in (schema, annotator_schema, writes_at_the_limits)}) == 3
    assert schema.config.phases.coverage.enabled is FULL
    assert annotator_schema.config.phases.coverage.enabled is FULL
    assert schema.config.phases.fuzzing.enabled and annotator_schema.config.phases.fuzzing.enabled
    assert writes_at_the_limits.config.phases.coverage.enabled is WRITES_AT_THE_LIMITS_RUN
    assert not writes_at_the_limits.config.phases.fuzzing.enabled
    methods = {
        operation.ok().method.upper() for operation in writes_at_the_limits.get_all_operations()
    }
    assert methods == set(WRITES)
