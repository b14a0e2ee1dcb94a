"""Every write the API offers refuses hostile JSON with a 400 naming the field: half of a
UTF-16 surrogate pair (`"\\ud800"`, in a value or a key) and an integer of hundreds of digits.

A lone surrogate passed the JSON reader and reached the bulk imports (a 500 from the UTF-8
encoder) and the database (SQLite's driver cannot encode it); with DEBUG on, each middleware's
error page failed on the same character in turn, re-rendering an ever larger traceback, which
held a request for minutes. The reader now refuses it before any view, serializer or database
sees it.
"""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.roles import Role
from taxonomy.models import Framework
from tests.api.test_api_permissions import (  # noqa: F401  (their fixtures, used here)
    ACTIONS,
    RESOURCES,
    Own,
    allowed,
    benchmark,
    callers,
    detail_url,
)

pytestmark = [pytest.mark.django_db, pytest.mark.also_on_sqlite]  # SQLite's driver too

# Actions that read no body: whatever it holds, they answer as for an empty one.
BODYLESS = {
    "api:study-claim",
    "api:assignment-submit",
    "api:study-close",
    "api:study-reopen",
    "api:person-invitation",
}
BULK_IMPORTS = {"api:response-list", "api:judgeverdict-list"}

# Every write the API offers, as a role allowed to make it: each body below is refused by the
# JSON reader itself, before any view, serializer or database sees it.
WRITES = [
    *(
        (method, f"api:{basename}-{kind}", write)
        for basename, (_, write, _, *offered) in RESOURCES.items()
        if write is not None
        for method, kind in [("post", "list"), ("patch", "detail"), ("put", "detail")]
        if not offered or method in offered[0]
    ),
    *(
        (method, name, action)
        for name, (method, action, _) in ACTIONS.items()
        if method != "get" and name not in BODYLESS
    ),
]
LONE_SURROGATE = '{"name": "Bad\\ud800name", "revision": 1}'
SURROGATE_KEY = '{"na\\udfffme": "x", "revision": 1}'
HUGE_INTEGER = '{"name": "x", "revision": 1%s}' % ("0" * 400)


def _write_url(name: str, own: Own) -> str:
    if name in BULK_IMPORTS:
        return f"{reverse(name)}?framework={Framework.objects.get().code}"
    if name.endswith("-list"):
        return reverse(name)
    if name.endswith("-detail"):
        return detail_url(name.removeprefix("api:").removesuffix("-detail"), own)
    return reverse(name, args=ACTIONS[name][2](own))


@pytest.mark.parametrize(
    ("method", "name", "action"), WRITES, ids=[f"{m}-{n}" for m, n, _ in WRITES]
)
def test_every_write_refuses_a_lone_surrogate_a_surrogate_key_and_a_huge_integer(
    method,
    name,
    action,
    callers,  # noqa: F811
):
    caller = callers[min(allowed(action), key=list(Role).index)]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {caller.token}")
    url = _write_url(name, caller.own)
    for body, field, words in [
        (LONE_SURROGATE, "name", "\\ud800, half of a surrogate pair and not a character"),
        (SURROGATE_KEY, None, "a key holds \\udfff, half of a surrogate pair"),
        (HUGE_INTEGER, "revision", "a number of 401 digits (at most 18)"),
    ]:
        answer = client.generic(method.upper(), url, body, content_type="application/json")
        assert answer.status_code == 400, (body, answer.content[:300])
        problem = answer.json()
        if field is None:
            assert words in problem["detail"], problem
        else:
            assert list(problem["errors"]) == [field], problem
            assert words in problem["errors"][field][0], problem
