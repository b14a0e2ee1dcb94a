"""The grading page's static files inlined on a first visit, for slow links.

On a 2-second round trip every request the page waits for costs 2 s: the page, then its
stylesheets and scripts, is 4 s before the keyboard works. So the grading page carries its own
stylesheet and script inline, and the shared ones (app.css, htmx, app.js) too while the
browser has not cached them: `app.js`, loaded from its own (hashed, cached for a year) URL on
any page, sets the cookie `assets` to `assets_version`; a grading page requested with that
cookie links the shared files as every page does.
"""

import hashlib
from functools import cache

from django import template
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

SHARED = ("l2annot/app.css", "django_htmx/htmx-2.min.js", "l2annot/app.js")
COOKIE = "assets"


@cache
def _source(path: str) -> str:
    found = finders.find(path)
    if not found:
        raise template.TemplateSyntaxError(f"No static file {path}")
    with open(str(found), encoding="utf-8") as handle:
        # A closing tag inside the text would end the element early.
        return handle.read().replace("</script", "<\\/script").replace("</style", "<\\/style")


@register.simple_tag
def inline_static(path: str) -> SafeString:
    """The text of a static file, to put inside <style> or <script> (our own files only)."""
    return mark_safe(_source(path))  # our static files, their closing tags escaped


@register.simple_tag
def assets_version() -> str:
    """Names the shared static files' current versions (their hashed URLs in production)."""
    return hashlib.sha256(" ".join(static(p) for p in SHARED).encode()).hexdigest()[:12]


@register.simple_tag(takes_context=True)
def shared_assets_cached(context: template.Context) -> bool:
    request = context.get("request")
    return request is not None and request.COOKIES.get(COOKIE) == assets_version()
