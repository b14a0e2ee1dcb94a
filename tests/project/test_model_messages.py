"""The messages the models give when a constraint or a validator refuses a value reach forms
and pages: each one the project writes is marked for the catalogue (lazily, so it is read in
the language of whoever sees it) and translated."""

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.functional import Promise

from l2annot.forms import MODEL_APPS
from taxonomy.models import Competency
from tests.factories import make_framework


def project_messages() -> list[tuple[str, object]]:
    """(where, message) for every constraint and field validator message the project wrote
    (Django's own defaults are translated by Django)."""
    found: list[tuple[str, object]] = []
    for app in MODEL_APPS:
        for model in apps.get_app_config(app).get_models():
            for constraint in model._meta.constraints:
                message = constraint.violation_error_message
                if message != constraint.default_violation_error_message:
                    found.append((f"{model.__name__}.{constraint.name}", message))
            for field in model._meta.local_fields:
                for validator in field.validators:
                    message = getattr(validator, "message", None)
                    if message is not None and message != type(validator).message:
                        found.append((f"{model.__name__}.{field.name}", message))
    return found


def test_the_check_sees_the_constraint_and_validator_messages():
    where = {name for name, _ in project_messages()}
    assert {"Competency.competency_code_unique_in_framework", "Task.key"} <= where


@pytest.mark.parametrize(("where", "message"), project_messages(), ids=lambda v: str(v)[:60])
def test_a_constraint_or_validator_message_is_translatable_and_translated(where, message):
    assert isinstance(message, Promise), f"{where}: mark the message with gettext_lazy"
    with translation.override("en"):
        english = str(message)
    with translation.override("es"):
        assert str(message) != english, f"{where}: translate {english!r} in the catalogue"


@pytest.mark.django_db
def test_a_unique_constraint_refuses_in_the_readers_language():
    framework = make_framework()
    duplicate = Competency(framework=framework, code="01", name="Otra", order=9)
    with translation.override("es"), pytest.raises(ValidationError) as refused:
        duplicate.full_clean()
    assert "Este código ya lo usa otra competencia." in refused.value.messages
