from django import template

from rubrics.models.criteria import Layer
from rubrics.models.tasks import shown_reason

register = template.Library()


@register.filter
def layer_label(value: object) -> str:
    """A rubric layer's name ("consensus") in the reader's language ("De consenso")."""
    return str(Layer(value).label) if value in Layer.values else str(value)


@register.filter
def na_reason(value: str) -> str:
    """Why a criterion does not apply, in the reader's language where the app wrote it."""
    return shown_reason(value)
