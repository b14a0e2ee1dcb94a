"""The texts the models and forms give to pages and the admin (the messages of a constraint or
a validator that refuses a value, choice labels, field labels and help texts): each one the
project writes is marked for the catalogue (lazily, so it is read in the language of whoever
sees it) and translated."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.functional import Promise

from taxonomy.models import Competency
from tests.factories import make_framework

# The project's apps with models.
MODEL_APPS = (
    "accounts",
    "audit",
    "taxonomy",
    "rubrics",
    "grading",
    "people",
    "agreement",
    "judging",
    "interchange",
)
LONGEST_CHOICE_LIST = 40


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


# Labels written the same in Spanish.
LABELS_SAME_IN_SPANISH = {"ID", "Prompt", "prompt", "token", "URL", "variable"}


def untranslated(texts: list[tuple[str, object]]) -> list[str]:
    """The texts of `texts` not marked lazily or without a Spanish translation."""
    missing = []
    for where, text in texts:
        with translation.override("en"):
            english = str(text)
        with translation.override("es"):
            spanish = str(text)
        marked = isinstance(text, Promise)
        if not marked or (spanish == english and english not in LABELS_SAME_IN_SPANISH):
            missing.append(f"{where}: {english!r}" + ("" if marked else " is not marked"))
    return missing


def field_texts() -> list[tuple[str, object]]:
    """(where, text) for the label and help text of every field the project's models
    declare: the admin shows them, and forms built from the models take them."""
    found: list[tuple[str, object]] = []
    for app in MODEL_APPS:
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.local_fields + model._meta.local_many_to_many:
                if field.auto_created:
                    continue
                where = f"{model.__name__}.{field.name}"
                found.append((where, field.verbose_name))
                if field.help_text:
                    found.append((f"{where} (help)", field.help_text))
    return found


def test_the_check_sees_the_field_labels():
    where = {name for name, _ in field_texts()}
    assert {"Task.instruction", "CriterionVersion.weight (help)", "Study.annotators"} <= where
    assert len(where) > 350


def test_every_model_field_label_and_help_text_is_translated():
    assert untranslated(field_texts()) == []


def form_texts() -> list[tuple[str, object]]:
    """(where, text) for the label and help text of every field the project's forms declare
    (a field without a label would show its English name)."""
    from django import forms

    found: list[tuple[str, object]] = []
    for path in sorted(Path(settings.BASE_DIR).glob("*/forms.py")):
        module = importlib.import_module(f"{path.parent.name}.forms")
        for form in vars(module).values():
            if not (isinstance(form, type) and issubclass(form, forms.BaseForm)):
                continue
            if form.__module__ != module.__name__:
                continue
            for name, field in form.base_fields.items():
                if field.widget.is_hidden:
                    continue
                where = f"{module.__name__}.{form.__name__}.{name}"
                found.append((where, field.label))
                if field.help_text:
                    found.append((f"{where} (help)", field.help_text))
    return found


def test_the_check_sees_the_form_fields():
    where = {name for name, _ in form_texts()}
    assert {"judging.forms.RunForm.model", "grading.forms.FlagForm.comment"} <= where


def test_every_form_field_label_and_help_text_is_translated():
    assert untranslated(form_texts()) == []
