"""The API holds authors to the bounds of the model's fields (tests/rubrics/test_author_bounds.py):
a task's texts, and a context variable that takes whole numbers only."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from rubrics.models import Task
from rubrics.models.tasks import TASK_TEXT_MAX
from taxonomy.models import SubCompetency

pytestmark = pytest.mark.django_db


def test_a_task_with_an_instruction_over_the_limit_is_400_naming_the_field(framework, api_as):
    sub = SubCompetency.objects.get(competency__framework=framework, code="01a")
    response = api_as(Role.AUTHOR).post(
        reverse("api:task-list"),
        {"key": "t9", "sub_competency": sub.pk, "instruction": "i" * (TASK_TEXT_MAX + 1)},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"]["instruction"] == [
        f"Ensure this field has no more than {TASK_TEXT_MAX} characters."
    ]
    assert not Task.objects.filter(key="t9").exists()


def test_the_api_describes_whether_a_variable_takes_whole_numbers(framework, api_as):
    body = api_as(Role.AUTHOR).get(reverse("api:contextvariable-list"), {"page_size": 100}).json()
    assert all("whole_numbers" in variable for variable in body["results"])
