import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from rubrics import services
from rubrics.models import Criterion, Layer, TaskContextValue

pytestmark = pytest.mark.django_db


def test_database_refuses_a_universal_criterion_owned_by_a_task(task):
    with pytest.raises(IntegrityError), transaction.atomic():
        Criterion.objects.create(
            framework=task.framework, code="09u1", layer=Layer.UNIVERSAL, task=task
        )


def test_database_refuses_a_consensus_criterion_without_its_sub_competency(task):
    with pytest.raises(IntegrityError), transaction.atomic():
        Criterion.objects.create(framework=task.framework, code="02a-99", layer=Layer.CONSENSUS)


def test_criterion_codes_are_unique_in_a_framework(task, author):
    with pytest.raises(ValidationError, match="already used"):
        services.add_criterion(task, "Duplicate.", 1, author, code="t101-01")


def test_a_code_that_does_not_follow_the_layer_scheme_is_refused(task, author):
    with pytest.raises(ValidationError, match="not a task criterion code"):
        services.add_criterion(task, "Odd code.", 1, author, code="02a-07")


def test_only_universal_criteria_can_be_excluded(task, consensus, author):
    with pytest.raises(ValidationError, match="Only universal criteria"):
        services.exclude_universal(task, consensus[0], "Not relevant.", author)


def test_an_exclusion_needs_a_reason(task, universal, author):
    with pytest.raises(ValidationError, match="Say why"):
        services.exclude_universal(task, universal[0], "   ", author)


def test_database_refuses_a_context_value_with_both_text_and_number(task, starter_framework):
    variable = starter_framework.context_variables.get(key="class_size")
    with pytest.raises(IntegrityError), transaction.atomic():
        TaskContextValue.objects.create(task=task, variable=variable, text="many", number=3)
