from django.db.models import QuerySet
from rest_framework import exceptions, filters
from rest_framework.request import Request
from rest_framework.views import APIView


class SearchFilter(filters.SearchFilter):
    """DRF's `?search=`, refusing characters PostgreSQL cannot take in a query (NUL) with a 400
    rather than failing in the database."""

    def filter_queryset(self, request: Request, queryset: QuerySet, view: APIView) -> QuerySet:
        if "\x00" in request.query_params.get(self.search_param, ""):
            raise exceptions.ValidationError(
                {self.search_param: ["Null characters are not allowed."]}
            )
        return super().filter_queryset(request, queryset, view)
