"""The end of every login, by password or by sign-on: a person with a second factor is not
logged in yet but asked for a code first (the second step), within a few minutes.

The lockout (django-axes) covers the second step: a wrong code is a failed login of that user
name from that address, counted with the wrong passwords, and only the completed login (the
`user_logged_in` signal) clears the count, so a right password does not buy more guesses.
"""

import time

from axes.handlers.proxy import AxesProxyHandler
from django.contrib import auth
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.urls import reverse

from accounts.models import User
from accounts.second_factor import confirmed_factor

PENDING = "second_step"  # the session key of a login waiting for its second step
PENDING_SECONDS = 300


def finish_login(request: HttpRequest, user: User, backend: str, next_url: str) -> HttpResponse:
    """Log `user` in and go on to `next_url`, or, with a second factor, ask for a code first."""
    if confirmed_factor(user) is None:
        auth.login(request, user, backend=backend)
        return HttpResponseRedirect(next_url or resolve_url("home"))
    request.session.cycle_key()
    request.session[PENDING] = {
        "user": user.pk,
        "backend": backend,
        "next": next_url,
        "until": time.time() + PENDING_SECONDS,
    }
    return HttpResponseRedirect(reverse("two_factor_verify"))


def pending_user(request: HttpRequest) -> User | None:
    """The person whose login waits for its second step in this session, if any and in time."""
    pending = request.session.get(PENDING)
    if not pending or pending["until"] < time.time():
        return None
    return User.objects.filter(pk=pending["user"], is_active=True).first()


def credentials(user: User) -> dict[str, str]:
    return {"username": user.username}


def is_locked_out(request: HttpRequest, user: User) -> bool:
    return bool(AxesProxyHandler.is_locked(request, credentials(user)))


def count_failure(request: HttpRequest, user: User) -> None:
    """A wrong code: a failed login for the lockout (django-axes listens to the signal)."""
    user_login_failed.send(sender=__name__, credentials=credentials(user), request=request)


def complete(request: HttpRequest, user: User) -> HttpResponse:
    pending = request.session.pop(PENDING)
    auth.login(request, user, backend=pending["backend"])
    return HttpResponseRedirect(pending["next"] or resolve_url("home"))
