"""Two authors editing a task's context values: only what each changed is saved, and a change
to a value someone else changed meanwhile is a conflict, never a silent overwrite."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from tests.conftest import htmx

pytestmark = pytest.mark.django_db


def values(task):
    return {item.variable.key: item.display_value for item in task.context_values.all()}


def post(client, task, seen, mine):
    """Post the form as an editor who loaded it when the values were `seen`."""
    data = {f"initial-context-{key}": value for key, value in seen.items()}
    data |= {f"context-{key}": value for key, value in (seen | mine).items()}
    return client.post(reverse("rubrics:task_context", args=[task.pk]), data)


def test_the_editor_form_carries_the_values_the_editor_saw(client_as, task):
    page = client_as(Role.AUTHOR).get(reverse("rubrics:task_edit", args=[task.pk])).content
    assert b'name="initial-context-cefr_level"' in page


def test_a_stale_change_to_the_same_value_is_a_conflict_and_theirs_is_kept(client_as, task):
    first, second = htmx(client_as(Role.AUTHOR)), htmx(client_as(Role.AUTHOR))
    seen = {"cefr_level": "a2"}
    assert post(first, task, {}, seen).status_code == 200
    assert post(first, task, seen, {"cefr_level": "b1"}).status_code == 200
    response = post(second, task, seen, {"cefr_level": "c1"})
    assert response.status_code == 409
    assert "Someone else saved b1 here while you were editing" in response.content.decode()
    assert values(task)["cefr_level"] == "B1"


def test_saving_again_after_the_conflict_replaces_theirs_on_purpose(client_as, task):
    first, second = htmx(client_as(Role.AUTHOR)), htmx(client_as(Role.AUTHOR))
    post(first, task, {}, {"cefr_level": "a2"})
    post(first, task, {"cefr_level": "a2"}, {"cefr_level": "b1"})
    post(second, task, {"cefr_level": "a2"}, {"cefr_level": "c1"})
    assert post(second, task, {"cefr_level": "b1"}, {"cefr_level": "c1"}).status_code == 200
    assert values(task)["cefr_level"] == "C1"


def test_changes_to_different_values_are_both_kept(client_as, task):
    first, second = htmx(client_as(Role.AUTHOR)), htmx(client_as(Role.AUTHOR))
    seen = {"cefr_level": "a2", "learner_age": ""}
    post(first, task, {}, {"cefr_level": "a2"})
    assert post(first, task, seen, {"cefr_level": "b1"}).status_code == 200
    assert post(second, task, seen, {"learner_age": "teenagers-12-17"}).status_code == 200
    assert values(task) == {"cefr_level": "B1", "learner_age": "teenagers (12-17)"}
