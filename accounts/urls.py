from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import sso
from accounts.views import login, password_reset, profile, two_factor

urlpatterns = [
    path("accounts/profile/", profile.profile, name="profile"),
    path("accounts/language/", profile.language, name="language"),
    path("accounts/tokens/", profile.token_create, name="token_create"),
    path("accounts/tokens/<int:pk>/revoke/", profile.token_revoke, name="token_revoke"),
    path("accounts/login/", login.LoginView.as_view(), name="login"),
    path("accounts/two-factor/", two_factor.two_factor, name="two_factor"),
    path("accounts/two-factor/setup/", two_factor.setup, name="two_factor_setup"),
    path("accounts/two-factor/confirm/", two_factor.confirm, name="two_factor_confirm"),
    path(
        "accounts/two-factor/recovery-codes/",
        two_factor.recovery_codes,
        name="two_factor_recovery_codes",
    ),
    path("accounts/two-factor/off/", two_factor.turn_off, name="two_factor_off"),
    path("accounts/two-factor/verify/", two_factor.verify, name="two_factor_verify"),
    # Sign-on (accounts.sso); the names are the ones mozilla-django-oidc reverses.
    path("accounts/sso/start/", sso.SignOnStartView.as_view(), name="oidc_authentication_init"),
    path(
        "accounts/sso/callback/",
        sso.SignOnCallbackView.as_view(),
        name="oidc_authentication_callback",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        password_reset.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        password_reset.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    # After an invitation's link: a first password, not a new one.
    path(
        "accounts/password/set/done/",
        auth_views.PasswordResetCompleteView.as_view(extra_context={"first_password": True}),
        name="password_set_complete",
    ),
]
