from typing import Any

import django_filters
import django_filters.rest_framework
from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, filters
from rest_framework.request import Request
from rest_framework.views import APIView


class SearchFilter(filters.SearchFilter):
    """DRF's `?search=`, refusing characters PostgreSQL cannot take in a query (NUL) with a 400
    rather than failing in the database."""

    def filter_queryset(
        self, request: Request, queryset: QuerySet[Any], view: APIView
    ) -> QuerySet[Any]:
        if "\x00" in request.query_params.get(self.search_param, ""):
            raise exceptions.ValidationError(
                {self.search_param: ["Null characters are not allowed."]}
            )
        return super().filter_queryset(request, queryset, view)


class TrueOrFalse(forms.NullBooleanField):
    """`true` or `false` (also `1`/`0`): anything else is refused rather than ignored, so a
    misspelt filter never answers every row as if it were not there."""

    widget = forms.TextInput  # the raw text: a select widget would read "maybe" as unknown

    def to_python(self, value: object) -> bool | None:  # type: ignore[override]  # None: not given
        if value is None:
            return None
        if str(value).lower() in ("true", "1"):
            return True
        if str(value).lower() in ("false", "0"):
            return False
        raise ValidationError("Must be true or false.", code="invalid")

    def validate(self, value: object) -> None:
        pass


class BooleanFilter(django_filters.BooleanFilter):  # type: ignore[misc]  # django-filter: untyped
    field_class = TrueOrFalse


BIGGEST_ID = 2**63 - 1  # a 64-bit column: a larger number would overflow the database's


@extend_schema_field({"type": "integer", "minimum": -BIGGEST_ID, "maximum": BIGGEST_ID})
class IntegerFilter(django_filters.NumberFilter):  # type: ignore[misc]  # django-filter: untyped
    """A whole number (an object's id, an epoch): an id naming no object finds nothing."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", -BIGGEST_ID)
        kwargs.setdefault("max_value", BIGGEST_ID)
        super().__init__(*args, **kwargs)


class FilterSet(django_filters.rest_framework.FilterSet):  # type: ignore[misc]  # django-filter: untyped
    """The API's filter sets: a foreign key filters by id without looking the object up, and a
    boolean takes only true or false."""

    FILTER_DEFAULTS = {
        **django_filters.rest_framework.FilterSet.FILTER_DEFAULTS,
        models.BooleanField: {"filter_class": BooleanFilter},
        models.ForeignKey: {"filter_class": IntegerFilter},
        models.AutoField: {"filter_class": IntegerFilter},
        models.BigAutoField: {"filter_class": IntegerFilter},
        models.IntegerField: {"filter_class": IntegerFilter},
        models.PositiveIntegerField: {"filter_class": IntegerFilter},
    }


class DjangoFilterBackend(django_filters.rest_framework.DjangoFilterBackend):  # type: ignore[misc]  # django-filter: untyped
    """django-filter's backend, building a view's `filterset_fields` on the API's FilterSet.

    A request without query parameters filters nothing, so no filter set is built for it:
    building one (its form and every field) was about a quarter of a plain list request's
    CPU. No filter set here requires a value or filters on an empty one; defaults such as
    "whole responses unless asked" live in the views' `get_queryset`."""

    filterset_base = FilterSet

    def filter_queryset(
        self, request: Request, queryset: QuerySet[Any], view: APIView
    ) -> QuerySet[Any]:
        if not request.query_params:
            return queryset
        filtered: QuerySet[Any] = super().filter_queryset(request, queryset, view)
        return filtered
