"""Every form's labels and help texts in the interface language.

Form fields take their labels from the models' field names and verbose names, which are English
and not marked for translation (marking them would change every migration). The form renderer
translates a field's label and help text as it is shown; l2annot/model_labels.py marks the model
texts for the catalogue (`make messages`)."""

import json
from pathlib import Path
from typing import Any

from django.apps import apps
from django.db import models
from django.forms import BoundField, Field, Form
from django.forms.renderers import DjangoTemplates
from django.utils.functional import Promise
from django.utils.text import capfirst
from django.utils.translation import gettext


class TranslatedBoundField(BoundField):
    def __init__(self, form: Form, field: Field, name: str) -> None:
        super().__init__(form, field, name)
        if self.label:
            self.label = gettext(str(self.label))
        if self.help_text:
            self.help_text = gettext(str(self.help_text))


class Renderer(DjangoTemplates):
    bound_field_class: Any = TranslatedBoundField


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
    "workbench",
)
LONGEST_CHOICE_LIST = 40
MODEL_LABELS_FILE = Path(__file__).with_name("model_labels.py")


def model_texts() -> list[str]:
    """The labels, help texts and choice labels of the project's editable model fields."""
    texts: list[str] = []
    for app in MODEL_APPS:
        for model in apps.get_app_config(app).get_models():
            for field in model._meta.get_fields():
                if not isinstance(field, models.Field) or not field.editable:
                    continue
                # A lazy text is translated already (Django's own models, User.language).
                if not isinstance(field.verbose_name, Promise):
                    texts.append(capfirst(field.verbose_name))
                if field.help_text and not isinstance(field.help_text, Promise):
                    texts.append(field.help_text)
                # Long lists (the ISO 639-1 language names) are data, shown as they are.
                choices = field.choices or ()
                for choice in choices if len(choices) <= LONGEST_CHOICE_LIST else ():
                    if isinstance(choice[1], str):
                        texts.append(choice[1])
    return list(dict.fromkeys(text for text in texts if text))


def write_model_labels() -> None:
    """Rewrite l2annot/model_labels.py (`make messages` does, before makemessages)."""
    lines = [
        "# ruff: noqa: E501",
        '"""The model fields\' labels, help texts and choice labels, marked for the catalogue.',
        "",
        "Written by l2annot.forms.write_model_labels (`make messages`); forms show them",
        "translated.",
        '"""',
        "",
        "from django.utils.translation import gettext_noop",
        "",
        "LABELS = (",
        *(f"    gettext_noop({json.dumps(text, ensure_ascii=False)})," for text in model_texts()),
        ")",
        "",
    ]
    MODEL_LABELS_FILE.write_text("\n".join(lines), encoding="utf-8")
