"""The interface language of each request, and the second factor some roles must have.

The interface language: the person's stored choice (User.language), else the
browser's Accept-Language; always English for the API, whose messages are part of its contract."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.urls import Resolver404, ResolverMatch, resolve, reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from accounts.second_factor import confirmed_factor, is_required
from l2annot.htmx import redirect_to

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


class SecondFactorRequiredMiddleware:
    """With TWO_FACTOR_REQUIRED, an admin or maintainer without a second factor is sent to set
    one up (the API answers 403) before anything else; logging out still works."""

    ALLOWED = frozenset(
        {"two_factor", "two_factor_setup", "two_factor_confirm", "logout", "javascript-catalog"}
    )

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.TWO_FACTOR_REQUIRED and self._must_set_up(request):
            if request.path.startswith(API_PREFIX):
                return HttpResponseForbidden()
            return redirect_to(request, reverse("two_factor"))
        return self.get_response(request)

    def _must_set_up(self, request: HttpRequest) -> bool:
        user = request.user
        if not user.is_authenticated or request.path.startswith(settings.STATIC_URL):
            return False
        match = resolve_or_none(request.path_info)
        if match is not None and match.url_name in self.ALLOWED and not match.namespace:
            return False
        return is_required(user) and confirmed_factor(user) is None


def resolve_or_none(path: str) -> ResolverMatch | None:
    try:
        return resolve(path)
    except Resolver404:
        return None
