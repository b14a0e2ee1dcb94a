"""The API does what its schema says, in the cases Schemathesis found it did not: JSON values of
the declared types and no undeclared fields, id filters that find nothing rather than refuse,
booleans that are true or false, page bounds in the schema, an annotator's study in the schema,
nullable fields declared nullable, no ETag promised on a download, no NUL character in a
request's text and no text of only whitespace where a blank is refused."""

import re
from collections.abc import Iterator

import django_filters
import pytest
from django.urls import reverse
from jsonschema import Draft4Validator
from rest_framework.test import APIClient

from accounts.roles import Role
from api.filters import DjangoFilterBackend, TrueOrFalse
from api.schema import NO_NUL, NOT_BLANK, WHITESPACE
from api.urls import router
from grading import services
from tests import factories
from tests.api.conformance import mismatches
from tests.api.test_schemathesis import openapi_document

pytestmark = [pytest.mark.django_db, pytest.mark.http]


@pytest.fixture
def admin(api_as):
    return api_as(Role.ADMIN)


def errors(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["errors"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"code": "x1", "name": 12}, "name", "Must be a string."),
        ({"code": "x1", "name": "X", "note": 0}, "note", "Must be a string."),
        ({"code": "x1", "name": "X", "revision": "1"}, "revision", "Must be a whole number."),
        ({"code": "x1", "name": "X", "revision": True}, "revision", "Must be a whole number."),
        ({"code": "x1", "name": "X", "colour": "red"}, "colour", "Unknown field."),
    ],
)
def test_a_json_value_of_another_type_or_an_unknown_field_is_refused(admin, body, field, message):
    answer = admin.post(reverse("api:framework-list"), body, format="json")
    assert errors(answer) == {field: [message]}


@pytest.mark.parametrize(
    ("url", "body", "field", "message"),
    [
        ("api:person-list", {"languages": [0]}, "languages", "Item 0: Must be a string."),
        ("api:study-list", {"responses": [1, "2"]}, "responses", "Item 1: Must be a whole number."),
        ("api:study-list", {"annotators": [7]}, "annotators", "Item 0: Must be a string."),
        ("api:person-list", {"sub_competencies": {}}, "sub_competencies", "Must be a list."),
        ("api:person-list", {"languages": "fr"}, "languages", "Must be a list."),
    ],
)
def test_an_item_of_a_list_of_another_type_is_refused(admin, url, body, field, message):
    assert errors(admin.post(reverse(url), body, format="json"))[field] == [message]


def test_a_form_post_is_still_read_by_the_fields(admin):
    answer = admin.post(reverse("api:framework-list"), {"code": "x1", "name": "X", "note": "0"})
    assert answer.status_code == 201, answer.content


def test_an_id_filter_naming_no_object_finds_nothing(framework, admin):
    answer = admin.get(reverse("api:subcompetency-list"), {"competency": 999999})
    assert answer.status_code == 200 and answer.json()["results"] == []
    assert admin.get(reverse("api:criterion-list"), {"task": 999999}).json()["count"] == 0


@pytest.mark.parametrize(
    ("name", "params", "field"),
    [
        ("subcompetency", {"competency": "0.5"}, "competency"),
        ("criterion", {"task": "1.5"}, "task"),
        ("criterion", {"retired": "null"}, "retired"),
        ("judgeverdict", {"verdict": "maybe"}, "verdict"),
        ("judgeverdict", {"turns": "maybe"}, "turns"),
        ("person", {"is_active": "null"}, "is_active"),
        ("study", {"status": "nope"}, "status"),
    ],
)
def test_a_filter_value_of_another_type_is_refused(framework, admin, name, params, field):
    assert field in errors(admin.get(reverse(f"api:{name}-list"), params))


def test_every_boolean_filter_of_the_api_refuses_what_is_not_true_or_false():
    backend = DjangoFilterBackend()
    filter_sets = {
        backend.get_filterset_class(view(), view.queryset) for _, view, _ in router.registry
    }
    booleans = [
        (filter_set.__name__, name)
        for filter_set in filter_sets - {None}
        for name, declared in filter_set.base_filters.items()
        if isinstance(declared, django_filters.BooleanFilter)
        and not issubclass(declared.field_class, TrueOrFalse)
    ]
    assert booleans == []


def test_the_schema_states_page_bounds_and_integer_bounds():
    parameters = openapi_document()["paths"]["/api/v1/frameworks/"]["get"]["parameters"]
    by_name = {p["name"]: p["schema"] for p in parameters}
    assert by_name["page"]["minimum"] == 1
    assert (by_name["page_size"]["minimum"], by_name["page_size"]["maximum"]) == (1, 500)
    framework = openapi_document()["components"]["schemas"]["FrameworkRequest"]
    assert framework["additionalProperties"] is False
    assert framework["properties"]["revision"]["maximum"] == 2**31 - 1


def test_a_decimal_in_the_schema_needs_a_digit_as_the_api_does():
    pattern = openapi_document()["components"]["schemas"]["ContextVariableRequest"]["properties"][
        "minimum"
    ]["pattern"]
    for text in ["1", "-12.5", ".5", "12."]:
        assert re.fullmatch(pattern, text), text
    for text in ["-", ".", "", "-."]:
        assert not re.fullmatch(pattern, text), text


def request_texts(node: object) -> Iterator[dict]:
    if isinstance(node, dict):
        if node.get("type") == "string":
            yield node
        for value in node.values():
            yield from request_texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from request_texts(value)


def admits(text: dict, value: str) -> bool:
    """Whether the text's schema admits `value`, as a JSON Schema validator reads it (OpenAPI
    3.0's schema is draft 4's, with `nullable` and `format` beside)."""
    return Draft4Validator(text).is_valid(value)


def admits_a_nul(text: dict) -> bool:
    if "enum" in text or "format" in text or text.get("maxLength") == 0:
        return False
    return admits(text, "a\x00b")


def test_no_request_text_in_the_schema_admits_a_nul_as_the_api_refuses_them():
    document = openapi_document()
    shapes = document["components"]["schemas"]
    requests = [shape for name, shape in shapes.items() if name.endswith("Request")]
    requests += [op.get("requestBody") for ops in document["paths"].values() for op in ops.values()]
    texts = list(request_texts(requests))
    assert len(texts) > 40
    assert [text for text in texts if admits_a_nul(text)] == []
    # What Schemathesis reads, for a text with no other rule: any text but one holding a NUL
    # and, if it may not be blank, not only whitespace (what DRF strips). No anchored pattern,
    # into which a generator would fold the maxLength.
    note = shapes["FrameworkRequest"]["properties"]["note"]
    assert note["not"] == NO_NUL and "pattern" not in note
    assert admits(note, "Any text, même accentuée\n") and admits(note, " ")
    name = shapes["CompetencyRequest"]["properties"]["name"]
    assert name["not"] == NOT_BLANK and "pattern" not in name
    assert admits(name, " Any text, même accentuée\n") and admits(name, "é")
    for blank in [" ", "\x1d", "\u3000\t\n", "a\x00", "\x00"]:
        assert not admits(name, blank), blank
    assert all(re.fullmatch(f"[{WHITESPACE}]", chr(c)) for c in range(0x3001) if chr(c).isspace())


def test_a_nul_or_only_whitespace_in_a_text_is_refused_as_the_schema_says(admin):
    body = {"code": "x1", "name": "A\x00"}
    answer = admin.post(reverse("api:framework-list"), body, format="json")
    assert errors(answer) == {"name": ["Null characters are not allowed."]}
    body = {"code": "x1", "name": "\x1d "}
    answer = admin.post(reverse("api:framework-list"), body, format="json")
    assert errors(answer) == {"name": ["This field may not be blank."]}


def test_every_query_text_the_schema_closes_to_a_nul_is_refused_and_ordering_is_not(admin):
    closed = [
        (path, parameter["name"])
        for path, operations in openapi_document()["paths"].items()
        for parameter in operations.get("get", {}).get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("not") == NO_NUL
    ]
    assert ("/api/v1/sub-competencies/", "search") in closed and len(closed) > 30
    for path, name in closed:
        answer = admin.get(path, {name: "a\x00"})
        assert answer.status_code == 400 and name in answer.json()["errors"], (path, name)
    assert admin.get("/api/v1/tasks/", {"ordering": "a\x00"}).status_code == 200


def test_a_field_that_may_be_null_is_declared_nullable():
    task = openapi_document()["components"]["schemas"]["TaskDetail"]["properties"]
    assert task["published_version"]["nullable"] is True


def test_null_texts_of_criteria_are_declared_nullable():
    criterion = openapi_document()["components"]["schemas"]["Criterion"]["properties"]
    assert criterion["sub_competency_code"]["nullable"] is True
    assert criterion["task_key"]["nullable"] is True


def test_a_download_promises_no_etag_and_a_read_does():
    paths = openapi_document()["paths"]
    download = paths["/api/v1/frameworks/{code}/rubrics-xlsx/"]["get"]["responses"]["200"]
    assert "ETag" not in download.get("headers", {})
    read = paths["/api/v1/frameworks/{code}/"]["get"]["responses"]["200"]
    assert "ETag" in read["headers"]


def test_an_annotators_study_is_one_of_the_shapes_the_schema_gives(make_user, api_as):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    shapes = openapi_document()["components"]["schemas"]
    assert shapes["StudyForRole"]["oneOf"] == [
        {"$ref": "#/components/schemas/Study"},
        {"$ref": "#/components/schemas/AnnotatorStudy"},
    ]
    client = APIClient()
    client.force_authenticate(grader)
    mine = client.get(reverse("api:study-detail", args=[study.pk])).json()
    assert set(mine) == set(shapes["AnnotatorStudy"]["properties"])
    assert set(shapes["AnnotatorStudy"]["required"]) <= set(mine)


def test_a_grade_body_says_it_needs_something_to_save_as_the_api_does(make_user, api_as):
    document = openapi_document()
    shapes = document["components"]["schemas"]
    for name in ("GradeRequest", "PatchedGradeRequest"):
        assert [branch["required"] for branch in shapes[name]["anyOf"]] == [
            ["verdict"],
            ["level"],
            ["rationale"],
        ]
        assert shapes[name]["anyOf"][1]["properties"]["level"] == {  # a null level is nothing
            "type": "integer",
            **{k: v for k, v in shapes[name]["properties"]["level"].items() if "imum" in k},
        }
    patch = document["paths"]["/api/v1/grades/{id}/"]["patch"]
    assert patch["requestBody"]["required"]
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    assignment = study.items.get().assignments.get()
    version = factories.rubric_of(assignment)[0]
    grade = services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=grader)
    client = APIClient()
    client.force_authenticate(grader)
    for body in ({}, {"level": None}):
        response = client.patch(reverse("api:grade-detail", args=[grade.pk]), body, format="json")
        assert response.status_code == 400, body
        assert "Nothing to save" in str(response.json()["errors"])


def _verdicts_allowed(document: dict, name: str) -> set[str]:
    shapes = document["components"]["schemas"]
    verdict = shapes[name]["properties"]["verdict"]
    refs = [branch["$ref"] for branch in verdict.get("oneOf", verdict.get("allOf", []))]
    return {value for ref in refs for value in shapes[ref.rsplit("/", 1)[1]]["enum"]}


def test_a_grade_without_a_verdict_reads_back_empty_as_the_schema_says(make_user):
    """A rationale saved first (or a level) leaves the verdict empty: the answer's schema
    allows "", a request's does not, as the API refuses it."""
    document = openapi_document()
    for name in ("Grade", "TurnGrade"):
        assert _verdicts_allowed(document, name) == {"pass", "fail", "na", ""}
        assert _verdicts_allowed(document, f"{name}Request") == {"pass", "fail", "na"}
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    assignment = study.items.get().assignments.get()
    version = factories.rubric_of(assignment)[0]
    grade = services.save_grade(assignment, version.pk, verdict=None, rationale="Why", by=grader)
    client = APIClient()
    client.force_authenticate(grader)
    url = reverse("api:grade-detail", args=[grade.pk])
    assert client.get(url).json()["verdict"] == ""
    refused = client.patch(url, {"verdict": ""}, format="json")
    assert refused.status_code == 400 and "verdict" in refused.json()["errors"]


def test_an_action_answering_a_list_answers_it_whole_as_the_schema_says(make_user, api_as):
    """Only a resource's list is paged: a study's gold accuracy and its questions are lists."""
    study = factories.study([make_user(Role.ANNOTATOR)], responses=1, overlap=1)
    services.assign_study(study)
    maintainer = api_as(Role.MAINTAINER)
    accuracy = maintainer.get(f"/api/v1/studies/{study.pk}/gold-accuracy/")
    assert len(accuracy.json()) == 1
    assert mismatches(accuracy, "/api/v1/studies/{id}/gold-accuracy/") == []
    url = f"/api/v1/studies/{study.pk}/questions/"
    questions = maintainer.post(url, {"prompts": ["Clear?"]}, format="json")
    assert [question["prompt"] for question in questions.json()] == ["Clear?"]
    assert mismatches(questions, "/api/v1/studies/{id}/questions/", "post") == []
    parameters = openapi_document()["paths"]["/api/v1/studies/{id}/gold-accuracy/"]["get"]
    assert "page" not in {parameter["name"] for parameter in parameters["parameters"]}
