from django import template

from agreement.stats import Coefficient, Ratio

register = template.Library()


@register.filter
def figure(value: object, digits: int = 2) -> str:
    """A coefficient, ratio or number as text; an undefined one as an em dash (the reason is
    shown beside it by the template), never as 0 or NaN."""
    if isinstance(value, Coefficient | Ratio):
        value = value.value
    if value is None or value == "":  # "" is what the template makes of a missing attribute
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{float(value):.{int(digits)}f}"  # type: ignore[arg-type]


@register.filter
def percent(value: object) -> str:
    if isinstance(value, Coefficient | Ratio):
        value = value.value
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:.0f}%"  # type: ignore[arg-type]
