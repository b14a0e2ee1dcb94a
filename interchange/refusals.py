"""Refusals of the models, validators and services, kept by an import to be read later.

An import job runs in English (interchange.jobs), and whoever opens its page may read another
language. A refusal raised with its values apart, as Django recommends
(`ValidationError(gettext("... %(name)s ..."), params={...})`), still holds its English template
and values when it is caught: it is stored as a `Text`, translated where it is read.
"""

import re
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.utils.functional import Promise

from core.formats.problems import Text

PLACEHOLDER = re.compile(r"%\((\w+)\)")


def refusal_texts(error: ValidationError) -> list[str]:
    """What a model, validator or service refused, as messages to store: each one raised with
    its values apart (`ValidationError(gettext("... %(name)s ..."), params={...})`) becomes a
    `Text` of its English template and values, read later in the reader's language (a lazy
    value, such as a verdict's label, translated there too); one written out is kept as it
    reads. Call it where the refusal is caught in English (an import job runs in English)."""
    if hasattr(error, "error_dict"):
        errors = [item for items in error.error_dict.values() for item in items]
    else:
        errors = error.error_list
    return [_refusal_text(item) for item in errors]


def _refusal_text(error: ValidationError) -> str:
    message, params = error.message, error.params or {}
    forms = _plural_forms(message)
    templates = forms[:2] if forms else (str(message),)
    used = {name for template in templates for name in PLACEHOLDER.findall(template)}
    values = {
        name: Text(str(value)) if isinstance(value, Promise) else value
        for name, value in params.items()
        if name in used  # not the whole refused value, which may be long
    }
    if forms:
        singular, plural, number = forms
        if isinstance(values.get(number), int):
            return Text.ngettext(singular, plural, number, **values)
        return str(message % params)
    return Text(str(message), **values)


def _plural_forms(message: object) -> tuple[str, str, str] | None:
    """(singular, plural, name of the number) of a lazy plural message (Django's validators'
    `ngettext_lazy(..., "limit_value")`), read from how it pickles; None for any other."""
    if not isinstance(message, Promise):
        return None
    try:
        rebuild, args = message.__reduce__()[:2]
    except TypeError:
        return None
    if getattr(rebuild, "__name__", "") != "_lazy_number_unpickle" or len(args) != 4:
        return None
    number, forms = args[2], args[3]
    if not isinstance(number, str) or not isinstance(forms, Mapping):
        return None
    return str(forms["singular"]), str(forms["plural"]), number
