"""Walking every URL pattern of the project (pages, htmx endpoints, the API, the Django admin):
the patterns, named or not, and their URLs filled with the values a walk gives their
parameters. The security walks (a GET changes nothing; an annotator learns no other grader's
identity) share them."""

import re
from collections.abc import Iterator
from typing import Any

from django.contrib import admin
from django.db import models
from django.urls import URLPattern, URLResolver, get_resolver

# `<int:study_id>` in a path() route, `(?P<pk>[^/]+)` in a router's regular expression.
PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)")


def every_pattern(
    patterns: list[Any] | None = None, prefix: str = "", namespace: str = ""
) -> Iterator[tuple[str, str, URLPattern]]:
    """(name, full route, pattern) of every URL pattern, named or not (an unnamed one is named
    by its route)."""
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from every_pattern(entry.url_patterns, route, inner)
        else:
            yield f"{namespace}{entry.name}" if entry.name else route, route, entry


def parameters(route: str) -> set[str]:
    return {match.group(1) or match.group(2) for match in PARAMETER.finditer(route)}


def fill(route: str, values: dict[str, Any]) -> str:
    """The URL of `route` (a path() route or a router's regular expression) with `values`."""
    url = PARAMETER.sub(lambda m: str(values[m.group(1) or m.group(2)]), route)
    return "/" + url.replace("^", "").replace("$", "")


def admin_model(name: str) -> type[models.Model] | None:
    """The model of an admin URL named `admin:<app>_<model>_<view>`."""
    for model in admin.site._registry:
        if name.startswith(f"admin:{model._meta.app_label}_{model._meta.model_name}_"):
            return model
    return None


def api_model(pattern: URLPattern) -> type[models.Model]:
    """The model of an API route's viewset."""
    return pattern.callback.cls.queryset.model


def first_pk(model: type[models.Model]) -> Any:
    """The first row's key; 0 when there is none (the page then answers "no such object")."""
    found = model._default_manager.order_by("pk").values_list("pk", flat=True).first()
    return 0 if found is None else found


def body(response: Any) -> str:
    """What a response sent, streamed or not, as text."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode(errors="replace")
