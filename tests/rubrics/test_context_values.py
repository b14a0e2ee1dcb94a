import pytest
from django.core.exceptions import ValidationError

from rubrics import services
from rubrics.models import TaskContextValue
from taxonomy.models import ContextVariable, Framework

pytestmark = pytest.mark.django_db


def variable(framework, key):
    return ContextVariable.objects.get(framework=framework, key=key)


def test_a_listed_value_can_be_given_by_label(task, starter_framework, author):
    cefr = variable(starter_framework, "cefr_level")
    item = services.set_context_value(task, cefr, "B1", author)
    assert item.value == cefr.values.get(label="B1")


def test_an_unlisted_value_is_refused_naming_the_variable_and_its_values(
    task, starter_framework, author
):
    with pytest.raises(ValidationError, match=r"CEFR level \(cefr_level\): Pre-A1, A1"):
        services.set_context_value(task, variable(starter_framework, "cefr_level"), "D1", author)


def test_a_value_of_another_variable_is_refused(task, starter_framework, author):
    literacy = variable(starter_framework, "l1_literacy").values.first()
    with pytest.raises(
        ValidationError, match=r"is not an allowed value of CEFR level \(cefr_level\)"
    ):
        services.set_context_value(
            task, variable(starter_framework, "cefr_level"), literacy, author
        )


def test_a_number_outside_the_range_is_refused_with_the_range(task, starter_framework, author):
    with pytest.raises(ValidationError, match=r"Class size \(class_size\) must be from 1 to 200"):
        services.set_context_value(task, variable(starter_framework, "class_size"), 500, author)


def test_a_number_variable_refuses_text(task, starter_framework, author):
    with pytest.raises(ValidationError, match="takes a number"):
        services.set_context_value(task, variable(starter_framework, "class_size"), "many", author)


def test_a_number_in_range_is_stored_and_a_second_set_replaces_it(task, starter_framework, author):
    size = variable(starter_framework, "class_size")
    services.set_context_value(task, size, 12, author)
    services.set_context_value(task, size, "30", author)
    assert TaskContextValue.objects.get(task=task, variable=size).display_value == "30"


def test_a_text_variable_takes_text(task, starter_framework, author):
    notes = ContextVariable.objects.create(
        framework=starter_framework, key="notes", label="Notes", kind="text"
    )
    assert (
        services.set_context_value(task, notes, " Evening class ", author).text == "Evening class"
    )


def test_a_variable_of_another_framework_is_refused(task, author):
    other = Framework.objects.create(code="other", name="Other")
    foreign = ContextVariable.objects.create(framework=other, key="x", label="X", kind="text")
    with pytest.raises(ValidationError, match=r"X \(x\) belongs to another framework"):
        services.set_context_value(task, foreign, "anything", author)


def test_clearing_a_value_removes_it(task, starter_framework, author):
    cefr = variable(starter_framework, "cefr_level")
    services.set_context_value(task, cefr, "A2", author)
    services.set_context_value(task, cefr, None, author)
    assert not TaskContextValue.objects.filter(task=task).exists()
