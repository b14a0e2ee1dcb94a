"""How views ask whether the current user may do something."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from accounts.roles import ACTION_LABELS, Action


def user_can(user: Any, action: Action) -> bool:
    return bool(user.is_authenticated and user.is_active and user.has_perm(f"accounts.{action}"))


def require(action: Action) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Log in first, then 403 unless the user's role allows `action`."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not user_can(request.user, action):
                raise PermissionDenied(
                    f"Your role does not allow this: {ACTION_LABELS[action].lower()}."
                )
            return view(request, *args, **kwargs)

        wrapped.required_action = action  # type: ignore[attr-defined]
        return login_required(wrapped)

    return decorator
