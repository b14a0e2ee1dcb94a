"""The login page: a password, or sign-on with the institution's provider when configured;
either way a second factor, if the person has one, is asked for next (accounts.signin)."""

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpResponse

from accounts import sso
from accounts.signin import finish_login


class LoginView(auth_views.LoginView):
    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        user = form.get_user()
        return finish_login(self.request, user, user.backend, self.get_success_url())

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(
            sign_on=sso.is_configured(), sign_on_provider=settings.OIDC_PROVIDER_NAME, **kwargs
        )
