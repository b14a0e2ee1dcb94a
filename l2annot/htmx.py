"""Full page, htmx fragment or redirect: the one decision every page view makes, made here.

A page template defines the fragments htmx swaps as named partials (`{% partialdef %}`). An htmx
request gets the fragment, any other request the whole page, so every page also works without
JavaScript. A history restore (htmx asking for a page that fell out of its cache, on Back) is
an htmx request that needs the whole page. Every answer that could have been either carries
`Vary: HX-Request`, so no cache hands a fragment to a plain request or the reverse.
"""

from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect


def wants_fragment(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    if not htmx:
        return False
    return not htmx.history_restore_request


def _varies(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request"])
    return response


def render_page(
    request: HttpRequest,
    template: str,
    context: Mapping[str, Any],
    *,
    fragment: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """`template#fragment` for an htmx request, the whole `template` otherwise."""
    name = f"{template}#{fragment}" if fragment and wants_fragment(request) else template
    return _varies(render(request, name, context, status=status))


def redirect_to(request: HttpRequest, url: str) -> HttpResponse:
    """Go to `url`: a 302, or for htmx an HX-Redirect (htmx loads that page in full)."""
    if getattr(request, "htmx", None):
        return _varies(HttpResponseClientRedirect(url))
    return _varies(HttpResponseRedirect(url))


def respond(
    request: HttpRequest,
    template: str,
    context: Mapping[str, Any],
    *,
    fragment: str,
    done_url: str,
    status: int = 200,
    page_context: Callable[[], Mapping[str, Any]] | None = None,
) -> HttpResponse:
    """The answer to an action on part of a page. htmx gets the part's `fragment`, whether the
    action succeeded or was refused; a plain POST that succeeded is redirected to `done_url`
    (post/redirect/get); anything else gets the whole page, showing what went wrong.
    `page_context` adds what only the whole page needs, and is called only for it."""
    if wants_fragment(request):
        return render_page(request, template, context, fragment=fragment, status=status)
    if request.method == "POST" and status < 400:
        return redirect_to(request, done_url)
    whole = {**page_context(), **context} if page_context else context
    return render_page(request, template, whole, status=status)
