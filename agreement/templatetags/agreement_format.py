import math
from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html
from django.utils.translation import gettext, gettext_noop

from core.stats import Coefficient, Ratio
from grading.models import shown_likert_text
from l2annot import shown
from l2annot.shown import message_text

register = template.Library()


@register.filter
def message(value: object) -> str:
    """A message of the statistics (why a figure is undefined, an interval withheld or a
    criterion validated; a method's name) in the reader's language: the pure modules write
    them in English with their template and values (core.messages), and a report is
    computed once, by whoever asked first or by the worker, then cached."""
    return message_text(value) if value else ""


# Labels of the pure statistics that reach a page through `label` (core.stats.paired's
# method names; core cannot mark them itself without reaching above its layer), and Django 6's
# blank choice label, which Django's own Spanish catalogue lacks.
CATALOGUE_ONLY = (
    gettext_noop("exact binomial"),
    gettext_noop("chi-square, continuity-corrected"),
    gettext_noop("- Select an option -"),
)


@register.filter
def label(value: object) -> str:
    """A group's label in a report (a layer, a difficulty, "all turn-level criteria") in the
    reader's language: reports are cached with the English label, which is also its msgid;
    a label that is data (a criterion's code, a competency's name) reads as it is."""
    return gettext(value) if isinstance(value, str) and value else str(value or "")


@register.filter
def grader_name(value: object) -> str:
    """A hidden grader's pseudonym ("Annotator 2") in the reader's language."""
    return shown.grader_name(value)


@register.filter
def figure(value: object, digits: int = 2) -> str:
    """A coefficient, ratio or number as text in the interface language's notation (0,85 in
    Spanish); an undefined one as an em dash (the reason is shown beside it by the template),
    never as 0 or NaN."""
    if isinstance(value, Coefficient | Ratio):
        value = value.value
    if value is None or value == "":  # "" is what the template makes of a missing attribute
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number):
        return "—"
    return number_format(round(number, int(digits)), int(digits))


@register.filter
def percent(value: object) -> str:
    if isinstance(value, Coefficient | Ratio):
        value = value.value
    if value is None or value == "":
        return "—"
    number = float(value) * 100  # type: ignore[arg-type]
    if not math.isfinite(number):
        return "—"
    return number_format(round(number), 0) + "%"


# As the templates' {% translate %} has it: its message ids double a percent sign. Marked with
# gettext_noop so that `make messages` keeps it in the catalogue.
UNRELIABLE_TITLE = gettext_noop(
    "No interval method reached 90%% coverage in simulation for data like these: see the "
    "statistics guide"
)


@register.simple_tag
def interval(value: Any, as_percent: bool = False) -> str:
    """An estimate with its interval, or the reason it has none. A tag, not a template
    included per cell: the agreement pages show hundreds, and the includes took much of their
    rendering time."""
    shown = percent if as_percent else figure
    estimate: Any = getattr(value, "estimate", "")
    text = conditional_escape(shown(estimate))
    low = getattr(value, "low", None)
    if undefined := getattr(estimate, "undefined_reason", ""):
        return format_html('{} <span class="muted">({})</span>', text, message_text(undefined))
    if getattr(value, "unreliable_reason", ""):
        return format_html(
            '{} <span class="badge" title="{}">{}</span>',
            text,
            gettext(UNRELIABLE_TITLE).replace("%%", "%"),
            message_text(value.unreliable_reason),
        )
    if low is not None:
        bounds = gettext("[%(low)s, %(high)s]") % {"low": shown(low), "high": shown(value.high)}
        return format_html('{} <span class="muted">{}</span>', text, bounds)
    if getattr(value, "undefined_reason", ""):
        return format_html(
            '{} <span class="muted">({})</span>', text, message_text(value.undefined_reason)
        )
    return text


@register.filter
def likert_text(text: str) -> str:
    """A 1-5 question's text as the reader sees it (grading.models.shown_likert_text)."""
    return shown_likert_text(text)
