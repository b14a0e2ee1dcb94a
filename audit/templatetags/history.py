from django import template
from django.db import models
from django.urls import reverse

register = template.Library()


@register.simple_tag
def history_url(obj: models.Model) -> str:
    """`{% history_url obj %}`: the page listing every recorded change to obj."""
    meta = obj._meta
    return reverse("audit:history", args=[meta.app_label, meta.model_name, obj.pk])
