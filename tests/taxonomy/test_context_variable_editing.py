"""Editing context variables and their allowed values inline."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import ContextValue, ContextVariable
from tests.conftest import htmx
from tests.factories import make_framework

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(client_as):
    make_framework()
    return htmx(client_as(Role.AUTHOR))


def cefr():
    return ContextVariable.objects.get(key="cefr_level")


def test_adding_an_ordinal_value_appends_it_in_order(author):
    url = reverse("taxonomy:contextvalue_create", args=[cefr().pk])
    prefix = f"new-{cefr().pk}"
    response = author.post(url, {f"{prefix}-code": "b2", f"{prefix}-label": "B2"})
    assert response.status_code == 200
    assert list(cefr().values.values_list("label", flat=True)) == ["A1", "A2", "B1", "B2"]


def test_a_value_label_differing_only_in_case_is_refused(author):
    url = reverse("taxonomy:contextvalue_create", args=[cefr().pk])
    prefix = f"new-{cefr().pk}"
    response = author.post(url, {f"{prefix}-code": "a1-again", f"{prefix}-label": "a1"})
    assert response.status_code == 422
    assert "This label is already used by another value." in response.content.decode()


def test_a_new_variable_with_a_duplicate_key_is_refused(author):
    url = reverse("taxonomy:contextvariable_create", args=["test-fw"])
    response = author.post(
        url, {"new-key": "cefr_level", "new-label": "Level again", "new-kind": "ordinal"}
    )
    assert response.status_code == 422
    assert "This key is already used by another variable." in response.content.decode()


def test_a_range_on_a_categorical_variable_is_refused(author):
    url = reverse("taxonomy:contextvariable_create", args=["test-fw"])
    data = {"new-key": "mood", "new-label": "Mood", "new-kind": "categorical", "new-minimum": "1"}
    response = author.post(url, data)
    assert response.status_code == 422
    assert "Only a number variable has a minimum and maximum." in response.content.decode()


def test_a_number_variable_shows_its_range_and_no_value_list(author):
    response = author.get(reverse("taxonomy:context-variables", args=["test-fw"]))
    body = response.content.decode()
    assert "from 1 to 200" in body
    size = ContextVariable.objects.get(key="class_size")
    assert f'aria-label="Values of {size}"' not in body


def test_deleting_a_variable_that_has_values_is_refused(author):
    response = author.post(reverse("taxonomy:contextvariable_delete", args=[cefr().pk]))
    assert response.status_code == 409
    assert "is used by 3 context values (A1, A2, B1)" in response.content.decode()
    assert ContextValue.objects.filter(variable=cefr()).count() == 3


def test_a_number_variable_takes_no_listed_values(author):
    size = ContextVariable.objects.get(key="class_size")
    url = reverse("taxonomy:contextvalue_create", args=[size.pk])
    response = author.post(url, {f"new-{size.pk}-code": "x", f"new-{size.pk}-label": "X"})
    assert response.status_code == 422
    assert not size.values.exists()
