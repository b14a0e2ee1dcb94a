"""The API's filter backend builds no filter set for a request without query parameters: that is
right only while every filter set leaves a queryset as it is when given no value."""

from typing import Any

import pytest
from django.http import QueryDict
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.filters import DjangoFilterBackend
from api.urls import router

pytestmark = pytest.mark.django_db

FILTERED_VIEWSETS = [
    (prefix, viewset)
    for prefix, viewset, _ in router.registry
    if getattr(viewset, "filterset_class", None) or getattr(viewset, "filterset_fields", None)
]


def test_the_registry_has_filtered_viewsets() -> None:
    assert len(FILTERED_VIEWSETS) >= 10


@pytest.mark.parametrize(
    ("prefix", "viewset"), FILTERED_VIEWSETS, ids=[p for p, _ in FILTERED_VIEWSETS]
)
def test_an_empty_filter_set_filters_nothing(prefix: str, viewset: Any) -> None:
    view = viewset(action="list", format_kwarg=None)
    queryset = viewset.queryset.all()
    backend = DjangoFilterBackend()
    filterset_class = backend.get_filterset_class(view, queryset)
    filterset = filterset_class(data=QueryDict(), queryset=queryset, request=None)

    assert filterset.is_valid(), filterset.errors
    assert str(filterset.qs.query) == str(queryset.query)


def test_no_filter_set_is_built_without_query_parameters(monkeypatch) -> None:
    built: list[object] = []
    original = DjangoFilterBackend.get_filterset

    def spy(self, *args, **kwargs):
        built.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DjangoFilterBackend, "get_filterset", spy)
    factory = APIRequestFactory()
    _, viewset = next(item for item in FILTERED_VIEWSETS if item[0] == "tasks")
    view = viewset(action="list", format_kwarg=None)
    queryset = viewset.queryset.all()

    plain = DjangoFilterBackend().filter_queryset(Request(factory.get("/")), queryset, view)
    assert built == []
    assert str(plain.query) == str(queryset.query)

    filtered = DjangoFilterBackend().filter_queryset(
        Request(factory.get("/", {"key": "T-1"})), queryset, view
    )
    assert len(built) == 1
    assert "T-1" in str(filtered.query)
