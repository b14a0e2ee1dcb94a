"""The interface language of each request: the person's stored choice (User.language), else the
browser's Accept-Language; always English for the API, whose messages are part of its contract."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

API_PREFIX = "/api/"


def language_for(request: HttpRequest) -> str:
    if request.path.startswith(API_PREFIX):
        return "en"
    user = getattr(request, "user", None)
    chosen = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
    if chosen and translation.check_for_language(chosen):
        return chosen
    return translation.get_language_from_request(request)


class UserLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = language_for(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        try:
            response = self.get_response(request)
        finally:
            # Work done after the response (streamed exports, the next request on this thread)
            # starts from the default language again.
            translation.deactivate()
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        return response
