"""How views ask whether the current user may do something."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.translation import gettext
from django_htmx.middleware import HtmxDetails

from accounts.models import User
from accounts.roles import ACTION_LABELS, Action


class AuthenticatedHttpRequest(HttpRequest):
    """What a view behind `require` or `login_required` receives, for the type checker: the user
    is signed in, and django-htmx's middleware has set `htmx`."""

    user: User
    htmx: HtmxDetails


def user_can(user: User | AnonymousUser, action: Action) -> bool:
    return bool(user.is_authenticated and user.is_active and user.has_perm(f"accounts.{action}"))


def require(
    action: Action,
) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """Log in first, then 403 unless the user's role allows `action`."""

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not user_can(request.user, action):
                raise PermissionDenied(
                    gettext("Your role does not allow this: %(action)s.")
                    % {"action": gettext(ACTION_LABELS[action]).lower()}
                )
            return view(request, *args, **kwargs)

        wrapped.required_action = action  # type: ignore[attr-defined]
        return login_required(wrapped)

    return decorator
