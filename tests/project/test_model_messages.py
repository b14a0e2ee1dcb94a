"""The messages the models give when a constraint or a validator refuses a value reach forms
and pages: each one the project writes is marked for the catalogue (lazily, so it is read in
the language of whoever sees it) and translated."""

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.functional import Promise

from l2annot.forms import LONGEST_CHOICE_LIST, MODEL_APPS
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


# Choice labels written the same in Spanish.
SAME_IN_SPANISH = {"Universal"}


def choice_labels() -> list[tuple[str, object]]:
    """(where, label) for every choice of a short list the project's models offer; a page
    shows it with `get_FOO_display`, a form in its select. Long lists (the ISO 639-1 language
    names) are data, and the interface languages are named in their own language."""
    found: list[tuple[str, object]] = []
    for app in MODEL_APPS:
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.local_fields:
                choices = field.choices or ()
                if not choices or len(choices) > LONGEST_CHOICE_LIST or field.name == "language":
                    continue
                found += [(f"{model.__name__}.{field.name}", label) for _, label in choices]
    return found


def test_the_check_sees_the_choice_labels():
    where = {name for name, _ in choice_labels()}
    assert {"Study.escalation", "PromptVersion.style", "ImportJob.status"} <= where


@pytest.mark.parametrize(("where", "label"), choice_labels(), ids=lambda v: str(v)[:60])
def test_a_choice_label_is_read_in_the_readers_language(where, label):
    assert isinstance(label, Promise), f"{where}: mark {label!r} with gettext_lazy"
    with translation.override("en"):
        english = str(label)
    with translation.override("es"):
        spanish = str(label)
    assert spanish != english or english in SAME_IN_SPANISH, f"{where}: translate {english!r}"
