"""Hostile request bodies: each is a 400 that names the item and field, and nothing is written.

A body nested past what the JSON reader can follow, an integer with thousands of digits, an
epoch beyond what the database column holds and a NUL byte (PostgreSQL refuses it in text)
were 500s.
"""

import json

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Grade, Study
from judging.models import JudgeVerdict
from rubrics.models import Response
from taxonomy.models import Competency
from tests import factories

# Also on SQLite, whose driver met hostile text differently (a lone surrogate held a request there
# for minutes).
pytestmark = [pytest.mark.django_db, pytest.mark.also_on_sqlite]

DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5_000


@pytest.fixture
def maintainer(api_as):
    return api_as(Role.MAINTAINER)


@pytest.fixture
def task(framework):
    return factories.published_task(framework)


def _post(client, url: str, body: str, content_type: str = "application/json"):
    return client.generic("POST", url, body, content_type=content_type)


def _imports(path: str) -> str:
    return f"{reverse(path)}?framework=test-fw"


@pytest.mark.parametrize(
    ("url", "role"),
    [
        (reverse("api:grade-list"), Role.ANNOTATOR),
        (reverse("api:competency-list"), Role.MAINTAINER),
        (_imports("api:response-list"), Role.MAINTAINER),
        (_imports("api:judgeverdict-list"), Role.MAINTAINER),
    ],
)
def test_a_body_nested_too_deeply_is_a_400_that_says_so(url, role, api_as, task):
    client, competencies = api_as(role), Competency.objects.count()
    answer = _post(client, url, DEEP)
    assert answer.status_code == 400, answer.content[:300]
    assert "nested" in answer.json()["detail"]
    assert Response.objects.count() == Grade.objects.count() == JudgeVerdict.objects.count() == 0
    assert Competency.objects.count() == competencies


def test_an_integer_of_thousands_of_digits_in_a_json_body_is_a_400(maintainer, task):
    body = f'[{{"task_key": "{task.key}", "model": "m", "id": {HUGE}, "response": "x"}}]'
    answer = _post(maintainer, _imports("api:response-list"), body)
    assert answer.status_code == 400, answer.content[:300]
    assert "digits" in json.dumps(answer.json())
    assert not Response.objects.exists()


def test_an_integer_of_thousands_of_digits_in_a_json_lines_body_names_the_line(maintainer, task):
    lines = [
        json.dumps({"task_key": task.key, "model": "m", "id": "a", "response": "x"}),
        f'{{"task_key": "{task.key}", "model": "m", "id": {HUGE}, "response": "x"}}',
    ]
    answer = _post(
        maintainer, _imports("api:response-list"), "\n".join(lines), "application/x-ndjson"
    )
    assert answer.status_code == 400, answer.content[:300]
    errors = answer.json()["errors"]
    assert any(key.startswith("1") for key in errors), errors  # the second item, counted from 0
    assert "Exceeds the limit" not in json.dumps(errors)
    assert not Response.objects.exists()


def test_an_epoch_beyond_the_databases_integers_is_a_400_on_the_epoch(maintainer, task):
    response = factories.response(task)
    criterion = task.criteria.first()
    verdict = {
        "response_id": response.pk,
        "criterion_id": criterion.code,
        "verdict": "pass",
        "judge_model": "j",
        "epoch": 3_000_000_000,
    }
    answer = _post(maintainer, _imports("api:judgeverdict-list"), json.dumps([verdict]))
    assert answer.status_code == 400, answer.content[:300]
    assert any("epoch" in key for key in answer.json()["errors"]), answer.json()
    assert not JudgeVerdict.objects.exists()


def test_a_nul_byte_in_a_competency_name_is_a_400_on_the_field(maintainer, framework):
    body = json.dumps({"framework": framework.code, "code": "99", "name": "Bad\u0000name"})
    answer = _post(maintainer, reverse("api:competency-list"), body)
    assert answer.status_code == 400, answer.content[:300]
    assert "name" in answer.json()["errors"]
    assert not Competency.objects.filter(code="99").exists()


@pytest.mark.parametrize(
    ("field", "value"), [("framework", "test-fw\u0000"), ("annotators", ["anno\u0000tator"])]
)
def test_a_nul_byte_in_a_name_of_another_object_is_a_400_on_the_field(
    field, value, framework, api_as
):
    body = {"name": "Pilot", "framework": framework.code, "annotators": [], "responses": []}
    answer = _post(api_as(Role.ADMIN), reverse("api:study-list"), json.dumps(body | {field: value}))
    assert answer.status_code == 400, answer.content[:300]
    assert answer.json()["errors"][field] == ["Null characters are not allowed."]
    assert not Study.objects.exists()


def test_half_a_surrogate_pair_in_a_json_lines_body_names_the_item_and_field(maintainer, task):
    lines = [
        json.dumps({"task_key": task.key, "model": "m", "id": "a", "response": "x"}),
        f'{{"task_key": "{task.key}", "model": "m", "id": "b", "response": "x\\ud800"}}',
    ]
    answer = _post(
        maintainer, _imports("api:response-list"), "\n".join(lines), "application/x-ndjson"
    )
    assert answer.status_code == 400, answer.content[:300]
    assert answer.json()["errors"] == {
        "1.response": [
            "holds \\ud800, half of a surrogate pair and not a character, which cannot be stored"
        ]
    }
    assert not Response.objects.exists()
