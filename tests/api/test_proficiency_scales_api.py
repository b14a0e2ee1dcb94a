"""A third proficiency scale added and mapped through the API, and a variable bound to it; the
values of a bound variable refused to writes made by hand (they follow the levels)."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from taxonomy.models import ContextValue, ContextVariable, ProficiencyLevel, ProficiencyScale
from tests.factories import make_framework, scale_bound_variable

pytestmark = pytest.mark.django_db


def test_a_scale_added_mapped_and_bound_through_the_api_gives_a_variable_its_levels(
    framework, api_as
):
    api = api_as(Role.MAINTAINER)
    cefr = api.post(
        reverse("api:proficiencyscale-list"),
        {"framework": framework.code, "code": "cefr", "name": "CEFR"},
        format="json",
    )
    assert cefr.status_code == 201, cefr.json()
    b1 = api.post(
        reverse("api:proficiencylevel-list"),
        {"scale": cefr.json()["id"], "code": "b1", "label": "B1"},
        format="json",
    ).json()
    school = api.post(
        reverse("api:proficiencyscale-list"),
        {"framework": framework.code, "code": "school", "name": "School"},
        format="json",
    ).json()
    level = api.post(
        reverse("api:proficiencylevel-list"),
        {
            "scale": school["id"],
            "code": "third-year",
            "label": "Third year",
            "corresponds_to": b1["id"],
        },
        format="json",
    )
    assert level.status_code == 201, level.json()
    variable = api.post(
        reverse("api:contextvariable-list"),
        {
            "framework": framework.code,
            "key": "school_level",
            "label": "School level",
            "kind": "ordinal",
            "scale": "school",
        },
        format="json",
    )
    assert variable.status_code == 201, variable.json()
    assert variable.json()["scale"] == "school"
    values = ContextVariable.objects.get(key="school_level").values.all()
    assert [(v.label, v.level.corresponds_to.label) for v in values] == [("Third year", "B1")]
    renamed = api.patch(
        reverse("api:proficiencylevel-detail", args=[level.json()["id"]]),
        {"label": "Year three", "revision": 1},
        format="json",
    )
    assert renamed.status_code == 200, renamed.json()
    assert values.get().label == "Year three"
    assert (
        AuditEvent.objects.for_object(ProficiencyLevel.objects.get(code="third-year")).count() == 2
    )


def test_a_level_mapped_to_its_own_scale_is_refused_by_the_api(framework, api_as):
    api = api_as(Role.MAINTAINER)
    scale = ProficiencyScale.objects.create(framework=framework, code="school", name="School")
    one = ProficiencyLevel.objects.create(scale=scale, code="one", label="One", order=1)
    response = api.post(
        reverse("api:proficiencylevel-list"),
        {"scale": scale.pk, "code": "two", "label": "Two", "corresponds_to": one.pk},
        format="json",
    )
    assert response.status_code == 400
    assert "another scale" in str(response.json())


def test_a_scale_code_of_another_framework_is_refused_for_a_variable(framework, api_as):
    other = make_framework("other-fw")
    ProficiencyScale.objects.create(framework=other, code="school", name="School")
    response = api_as(Role.MAINTAINER).post(
        reverse("api:contextvariable-list"),
        {
            "framework": framework.code,
            "key": "lvl",
            "label": "Lvl",
            "kind": "ordinal",
            "scale": "school",
        },
        format="json",
    )
    assert response.status_code == 400
    assert "No such scale in this framework." in str(response.json())


# ----- the values of a bound variable --------------------------------------------------------
WHERE = "Proficiency scales page or through /api/v1/proficiency-levels/"


@pytest.fixture
def bound(db: None) -> ContextVariable:
    """cefr_level bound to a scale "CEFR" of levels A1, A2; its value B1 is held by no level."""
    return scale_bound_variable()


def tied(variable: ContextVariable) -> ContextValue:
    return variable.values.get(code="a1")  # the value of the level A1


def test_the_api_refuses_a_new_value_of_a_scale_bound_variable_with_409(bound, api_as):
    response = api_as(Role.MAINTAINER).post(
        reverse("api:contextvalue-list"),
        {"variable": bound.pk, "code": "c1", "label": "C1"},
        format="json",
    )
    assert response.status_code == 409, response.json()
    detail = response.json()["detail"]
    assert "CEFR level (cefr_level)" in detail and "scale CEFR" in detail and WHERE in detail
    assert not bound.values.filter(code="c1").exists()


def test_the_api_refuses_to_change_or_delete_a_value_tied_to_a_level(bound, api_as):
    api = api_as(Role.MAINTAINER)
    value = tied(bound)
    url = reverse("api:contextvalue-detail", args=[value.pk])
    changed = api.patch(url, {"label": "Beginner", "revision": value.revision}, format="json")
    assert changed.status_code == 409, changed.json()
    assert "level a1 of the proficiency scale CEFR" in changed.json()["detail"]
    assert WHERE in changed.json()["detail"]
    deleted = api.delete(url)
    assert deleted.status_code == 409, deleted.content
    value.refresh_from_db()
    assert value.label == "A1"


def test_a_value_of_a_bound_variable_that_no_level_holds_stays_editable(bound, api_as):
    api = api_as(Role.MAINTAINER)
    untied = bound.values.get(code="b1")
    url = reverse("api:contextvalue-detail", args=[untied.pk])
    changed = api.patch(url, {"label": "B1 (old)", "revision": untied.revision}, format="json")
    assert changed.status_code == 200, changed.json()
    assert api.delete(url).status_code == 204


def test_the_api_still_adds_values_to_a_variable_without_a_scale(bound, api_as):
    variable = ContextVariable.objects.create(
        framework=bound.framework, key="mood", label="Mood", kind="categorical"
    )
    response = api_as(Role.MAINTAINER).post(
        reverse("api:contextvalue-list"),
        {"variable": variable.pk, "code": "calm", "label": "Calm"},
        format="json",
    )
    assert response.status_code == 201, response.json()
