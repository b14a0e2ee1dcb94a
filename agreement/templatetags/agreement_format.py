from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext

from agreement.stats import Coefficient, Ratio

register = template.Library()


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
    return number_format(round(float(value), int(digits)), int(digits))  # type: ignore[arg-type]


@register.filter
def percent(value: object) -> str:
    if isinstance(value, Coefficient | Ratio):
        value = value.value
    if value is None or value == "":
        return "—"
    return number_format(round(float(value) * 100), 0) + "%"  # type: ignore[arg-type]
