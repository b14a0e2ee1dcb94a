from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet
from rest_framework import exceptions, pagination
from rest_framework.request import Request
from rest_framework.views import APIView


def _positive_int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not raw.isdecimal() or int(raw) < 1:
        raise exceptions.ValidationError({name: ["Must be a whole number, 1 or more."]})
    return int(raw)


class PageNumberPagination(pagination.PageNumberPagination):
    """`?page=2&page_size=100`. Bad values are a 400 naming the parameter (DRF would ignore a bad
    page_size and answer 404 to a bad page); a page past the end is still 404."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def paginate_queryset(
        self, queryset: QuerySet[Any] | Sequence[Any], request: Request, view: APIView | None = None
    ) -> list[Any] | None:
        _positive_int(request, self.page_query_param)
        size = _positive_int(request, self.page_size_query_param)
        if size is not None and size > self.max_page_size:
            raise exceptions.ValidationError(
                {self.page_size_query_param: [f"Must be {self.max_page_size} or less."]}
            )
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        """The parameters as DRF describes them, with the bounds this class enforces, so a
        client (or a schema-driven test) knows page 0 and a page size of 501 are refused."""
        parameters = super().get_schema_operation_parameters(view)
        bounds = {
            self.page_query_param: {"minimum": 1},
            self.page_size_query_param: {"minimum": 1, "maximum": self.max_page_size},
        }
        for parameter in parameters:
            parameter["schema"] = {**parameter["schema"], **bounds.get(parameter["name"], {})}
        return parameters
