"""What a page answers when a domain operation refuses: the one place that turns the kinds of
core.refusals into HTTP statuses for the browser (api/exceptions.py does the same for the API).

A view that shows the refusal in its own form or fragment renders it with `status_for(error)`;
a refusal the view does not catch is answered by DomainErrorMiddleware: a NotFound as the 404
page, a Conflict as the 409 page with its message (its fragment for htmx), an Unavailable (the
mail server did not answer) as the same page with 503.
"""

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core.refusals import Conflict, NotFound, Unavailable


def status_for(error: Exception) -> int:
    """The status of a page showing `error`."""
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, Conflict):
        return 409
    if isinstance(error, Unavailable):
        return 503
    if isinstance(error, ValidationError):
        return 422
    raise TypeError(f"{type(error).__name__} is not a domain error.") from error


def message_of(error: Exception) -> str:
    return " ".join(error.messages) if isinstance(error, ValidationError) else str(error)


class DomainErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, NotFound):
            raise Http404(message_of(exception)) from exception
        if isinstance(exception, Conflict | Unavailable):
            template = "409.html#refusal" if getattr(request, "htmx", False) else "409.html"
            context = {"message": message_of(exception)}
            return render(request, template, context, status=status_for(exception))
        return None
