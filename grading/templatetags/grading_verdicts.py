"""`{{ grade.verdict|verdict_label:weight }}`: a stored verdict as it reads on its criterion
(Present / Absent on a penalty, whose weight is negative; core.scoring.verdict_label), in the
interface language."""

from django import template
from django.utils.translation import gettext, gettext_noop

from core.scoring import verdict_label as label_of
from grading.models import split_reason_label

register = template.Library()

# core.scoring's labels (a pure module, no Django), marked here for the catalogue. In Spanish
# their first letters differ, as the adjudication page's keys (a label's first letter) need.
LABELS = (
    gettext_noop("Pass"),
    gettext_noop("Fail"),
    gettext_noop("N/A"),
    gettext_noop("Present"),
    gettext_noop("Absent"),
)


def shown(label: str) -> str:
    """A verdict label of core.scoring in the interface language."""
    return gettext(label)


@register.filter
def verdict_label(verdict: str | None, weight: int) -> str:
    return shown(label_of(verdict, penalty=weight < 0)) if verdict else ""


@register.filter
def split_reason(reason: str) -> str:
    """A reason experts split (Study.split_reasons): a built-in one translated."""
    return split_reason_label(reason)
