from django import template

from rubrics.models.criteria import Layer

register = template.Library()


@register.filter
def layer_label(value: object) -> str:
    """A rubric layer's name ("consensus") in the reader's language ("De consenso")."""
    return str(Layer(value).label) if value in Layer.values else str(value)
