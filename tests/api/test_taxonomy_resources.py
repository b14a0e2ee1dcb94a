import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from taxonomy.models import Competency, ContextValue, ContextVariable, Framework, SubCompetency
from tests.factories import make_framework

pytestmark = pytest.mark.django_db

LISTS = ["framework", "competency", "subcompetency", "contextvariable", "contextvalue"]


@pytest.fixture
def author(api_as):
    return api_as(Role.AUTHOR)


@pytest.fixture
def viewer(api_as):
    return api_as(Role.VIEWER)


def codes(response) -> list[str]:
    return [row.get("code") or row.get("key") for row in response.json()["results"]]


@pytest.mark.parametrize("basename", LISTS)
def test_every_list_is_paginated(basename, framework, viewer):
    make_framework("second-fw")
    response = viewer.get(reverse(f"api:{basename}-list"), {"page_size": 1})
    body = response.json()
    assert response.status_code == 200
    assert set(body) == {"count", "next", "previous", "results"}
    assert len(body["results"]) == 1
    assert body["count"] >= 2 and "page=2" in body["next"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": "zero"}, "page"),
        ({"page_size": "0"}, "page_size"),
        ({"page_size": 501}, "page_size"),
    ],
)
def test_bad_paging_is_400_naming_the_parameter(params, field, framework, viewer):
    response = viewer.get(reverse("api:competency-list"), params)
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_competencies_filter_by_framework_code(framework, viewer):
    other = make_framework("other-fw")
    Competency.objects.create(framework=other, code="09", name="Elsewhere", order=3)
    response = viewer.get(reverse("api:competency-list"), {"framework": "other-fw"})
    assert codes(response) == ["01", "02", "09"]
    assert {row["framework"] for row in response.json()["results"]} == {"other-fw"}


def test_sub_competencies_filter_by_competency_code_and_order(framework, viewer):
    response = viewer.get(
        reverse("api:subcompetency-list"),
        {"framework": framework.code, "competency_code": "01", "ordering": "-code"},
    )
    assert codes(response) == ["01b", "01a"]
    assert response.json()["results"][0]["competency_code"] == "01"


def test_context_variables_filter_by_kind_and_carry_their_values(framework, viewer):
    response = viewer.get(reverse("api:contextvariable-list"), {"kind": "ordinal"})
    [variable] = response.json()["results"]
    assert variable["key"] == "cefr_level"
    assert [v["code"] for v in variable["values"]] == ["a1", "a2", "b1"]


def test_context_variables_filter_by_group(framework, viewer):
    ContextVariable.objects.filter(key="class_size").update(group="context")
    response = viewer.get(reverse("api:contextvariable-list"), {"group": "context"})
    assert codes(response) == ["class_size"]


def test_an_unknown_kind_is_400(framework, viewer):
    response = viewer.get(reverse("api:contextvariable-list"), {"kind": "colour"})
    assert response.status_code == 400
    assert "kind" in response.json()["errors"]


def test_search_finds_by_name(framework, viewer):
    response = viewer.get(reverse("api:subcompetency-list"), {"search": "sequenc"})
    assert codes(response) == ["01b"]


@pytest.mark.parametrize("basename", ["competency", "subcompetency", "contextvariable"])
def test_list_queries_do_not_grow_with_rows(
    basename, framework, viewer, django_assert_max_num_queries
):
    for n in range(3, 23):
        competency = Competency.objects.create(framework=framework, code=f"{n:02}", name=f"C{n}")
        SubCompetency.objects.create(competency=competency, code=f"{n:02}a", name=f"S{n}")
        variable = ContextVariable.objects.create(framework=framework, key=f"v{n}", label=f"V{n}")
        ContextValue.objects.create(variable=variable, code="x", label="X")
    # token + user, permission check, count, rows, prefetched values
    with django_assert_max_num_queries(7):
        response = viewer.get(reverse(f"api:{basename}-list"), {"page_size": 100})
    assert len(response.json()["results"]) >= 20


def test_creating_a_competency_puts_it_last_and_records_history(framework, author):
    response = author.post(
        reverse("api:competency-list"),
        {"framework": framework.code, "code": "03", "name": "Assessment"},
    )
    assert response.status_code == 201, response.json()
    assert response.headers["ETag"] == '"1"'
    created = Competency.objects.get(framework=framework, code="03")
    assert created.order == 3
    event = AuditEvent.objects.for_object(created).get()
    assert event.kind == AuditEvent.Kind.CREATED
    assert event.actor.username.startswith("author")
    assert event.changes["name"] == [None, "Assessment"]


def test_an_api_edit_records_history_like_the_browser(framework, author):
    sub = SubCompetency.objects.get(code="01a")
    response = author.patch(
        reverse("api:subcompetency-detail", args=[sub.pk]),
        {"name": "Learning objectives", "revision": sub.revision},
    )
    assert response.status_code == 200
    event = AuditEvent.objects.for_object(sub).get()
    assert event.kind == AuditEvent.Kind.UPDATED
    assert event.changes == {"name": ["Objectives", "Learning objectives"]}


def test_an_api_delete_records_history(framework, author):
    value = ContextValue.objects.get(code="a1")
    assert author.delete(reverse("api:contextvalue-detail", args=[value.pk])).status_code == 204
    assert AuditEvent.objects.filter(kind=AuditEvent.Kind.DELETED, object_repr="A1").exists()


def test_a_duplicate_code_is_400_with_a_field_message(framework, author):
    response = author.post(
        reverse("api:subcompetency-list"),
        {"competency": Competency.objects.get(code="02").pk, "code": "01a", "name": "Clash"},
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"code": ["Code 01a is already used in this framework."]}


def test_missing_and_malformed_fields_are_400_by_field(framework, author):
    response = author.post(
        reverse("api:contextvariable-list"),
        {"framework": "no-such-fw", "key": "not a slug", "kind": "colour"},
    )
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"framework", "key", "kind", "label"}


def test_a_model_rule_is_400_not_500(framework, author):
    variable = ContextVariable.objects.get(key="cefr_level")
    response = author.patch(
        reverse("api:contextvariable-detail", args=[variable.pk]),
        {"minimum": "1", "revision": variable.revision},
    )
    assert response.status_code == 400, response.json()
    assert response.json()["errors"]["non_field_errors"] == [
        "Only a number variable has a minimum and maximum."
    ]


def test_malformed_json_is_400(framework, author):
    response = author.generic(
        "POST", reverse("api:framework-list"), "{nope", content_type="application/json"
    )
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


def test_the_parent_of_an_object_cannot_be_changed(framework, author):
    sub = SubCompetency.objects.get(code="01a")
    response = author.patch(
        reverse("api:subcompetency-detail", args=[sub.pk]),
        {"competency": Competency.objects.get(code="02").pk, "revision": sub.revision},
    )
    assert response.status_code == 400
    assert "competency" in response.json()["errors"]


def test_a_number_variable_takes_no_listed_values(framework, author):
    response = author.post(
        reverse("api:contextvalue-list"),
        {"variable": ContextVariable.objects.get(key="class_size").pk, "code": "x", "label": "X"},
    )
    assert response.status_code == 400
    assert "takes no listed values" in response.json()["errors"]["variable"][0]


def test_frameworks_are_addressed_by_code(framework, viewer):
    response = viewer.get(reverse("api:framework-detail", args=[framework.code]))
    assert response.json()["name"] == framework.name
    assert Framework.objects.count() == 1


def test_a_nul_in_a_framework_code_is_400_not_a_database_error(framework, author):
    response = author.post(
        reverse("api:competency-list"), {"framework": "test\x00fw", "code": "03", "name": "N"}
    )
    assert response.status_code == 400
    assert "framework" in response.json()["errors"]


@pytest.mark.parametrize("query", [{"search": "a\x00"}, {"framework": "a\x00"}, {"code": "\x00"}])
def test_a_nul_in_a_query_is_400(query, framework, viewer):
    assert viewer.get(reverse("api:competency-list"), query).status_code == 400


def test_a_nul_in_a_lookup_is_404(framework, viewer):
    assert viewer.get("/api/v1/frameworks/test%00fw/").status_code == 404
