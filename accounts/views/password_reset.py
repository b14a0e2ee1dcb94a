"""Password reset by email, through Django's own views, limited so the form can neither flood
someone's inbox nor be used to probe many addresses: a few requests an hour per email address
and per client (settings PASSWORD_RESET_LIMIT_PER_EMAIL, PASSWORD_RESET_LIMIT_PER_CLIENT).

Every request ends on the same "check your email" page, whether an account has the address or
not and whether the limit was reached or not, so the answer never tells which addresses exist.
Django sends nothing to an address no active account with a usable password has.

Choosing a new password through the link lifts the login lockout of the account (django-axes):
whoever proved they read its mailbox is its owner, and may sign in at once with what they chose.
"""

import hashlib
from typing import Any

from axes.utils import reset as reset_lockout
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.lockout import client_ip
from accounts.models import User

WINDOW_SECONDS = 3600


def _spend(key: str, limit: int) -> bool:
    """Count one request under `key`; whether the count is still within `limit` this hour (the
    hour starts at the first request)."""
    cache.add(key, 0, timeout=WINDOW_SECONDS)
    try:
        count = cache.incr(key)
    except ValueError:  # the entry expired between add and incr
        cache.set(key, 1, timeout=WINDOW_SECONDS)
        count = 1
    return count <= limit


def within_limits(email: str, client: str | None) -> bool:
    """Count a reset request for `email` from `client`; whether both are within their limits."""
    address = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    by_email = _spend(f"password-reset:email:{address}", settings.PASSWORD_RESET_LIMIT_PER_EMAIL)
    by_client = _spend(
        f"password-reset:client:{client or 'unknown'}", settings.PASSWORD_RESET_LIMIT_PER_CLIENT
    )
    return by_email and by_client


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view, sending the email only within the limits; the same answer either way."""

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if within_limits(form.cleaned_data["email"], client_ip(self.request)):
            return super().form_valid(form)
        return HttpResponseRedirect(self.get_success_url())


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's view; the new password also lifts the account's login lockout. An invitation
    leads here too: an account without a usable password is choosing its first one, so the
    page and the one after it say "password", not "new password"."""

    first_password = False

    def dispatch(self, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # Read before the form sets the password; Django finds the link's user in dispatch.
        user = self.get_user(kwargs["uidb64"])
        self.first_password = user is not None and not user.has_usable_password()
        return super().dispatch(*args, **kwargs)

    def get_form(self, form_class: Any = None) -> "SetPasswordForm[User]":
        form = super().get_form(form_class)
        if self.first_password:
            form.fields["new_password1"].label = _("Password")
            form.fields["new_password2"].label = _("Password (again)")
        return form

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"first_password": self.first_password}

    def get_success_url(self) -> str:
        if self.first_password:
            return reverse("password_set_complete")
        return super().get_success_url()

    def form_valid(self, form: "SetPasswordForm[User]") -> HttpResponse:
        response = super().form_valid(form)
        reset_lockout(username=form.user.get_username())
        return response
