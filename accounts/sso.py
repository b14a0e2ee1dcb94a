"""Single sign-on with OpenID Connect (the authorization-code flow with PKCE), beside the local
accounts, built on mozilla-django-oidc: its views keep the state, nonce and code verifier in
the session and its backend exchanges the code; what is ours is below.

- The provider's endpoints come from its discovery document, whose issuer must be the one
  configured (OIDC_ISSUER), and the ID token must name that issuer and this client as its
  audience, and not have expired (the library checks the signature and nonce only).
- An account is found by the provider's issuer and subject (`SignOnIdentity`), never by email.
  A new person gets an account named after their `preferred_username` (or email), made unique
  and unlike any other account's name (accounts.usernames), and the role the claim
  OIDC_ROLE_CLAIM names, or none until an admin gives one; a role the claim changes is in the
  person's history, the provider named as its source (people.services).
- A refusal (a bad state, a denied consent, an expired or foreign token, a provider that does
  not answer) brings the person back to the login page with a message, never an error page.
"""

import logging
import re
from functools import cache
from typing import Any, Protocol

import jwt
import requests
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation, ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from accounts.models import SignOnIdentity, User
from accounts.roles import Role
from accounts.signin import finish_login

log = logging.getLogger(__name__)

BACKEND = "accounts.sso.SignOnBackend"


def is_configured() -> bool:
    return bool(settings.OIDC_ISSUER and settings.OIDC_RP_CLIENT_ID)


@cache
def _discovery(issuer: str) -> dict[str, Any]:
    answer = requests.get(
        f"{issuer}/.well-known/openid-configuration", timeout=settings.OIDC_TIMEOUT
    )
    answer.raise_for_status()
    document: dict[str, Any] = answer.json()
    if document.get("issuer", "").rstrip("/") != issuer:
        raise SuspiciousOperation("The discovery document names another issuer.")
    return document


def endpoint(name: str) -> str:
    """One of the provider's endpoints (`authorization_endpoint`, `token_endpoint`...)."""
    return str(_discovery(settings.OIDC_ISSUER)[name])


def role_from_claims(claims: dict[str, Any]) -> Role | None:
    """The role the configured claim names (a string or a list; the highest role named)."""
    if not settings.OIDC_ROLE_CLAIM:
        return None
    value = claims.get(settings.OIDC_ROLE_CLAIM)
    named = {str(v).strip().casefold() for v in (value if isinstance(value, list) else [value])}
    return next((role for role in Role if role.value.casefold() in named), None)


def _name_candidates(claims: dict[str, Any]) -> list[str]:
    wanted = str(claims.get("preferred_username") or claims.get("email") or "person")
    base = re.sub(r"[^\w.@+-]", "", wanted)[:140] or "person"
    return [base, *(f"{base}-{n}" for n in range(2, 50))]


def _free_username(claims: dict[str, Any]) -> str:
    """The first name, from the claims, that no account holds or reads like (the model's own
    validators decide, the normalisation and the look-alike check included)."""
    field = User._meta.get_field("username")
    for candidate in _name_candidates(claims):
        try:
            name = str(field.clean(User.normalize_username(candidate), None))
        except ValidationError:
            continue
        if not User.objects.filter(username=name).exists():
            return name
    raise SuspiciousOperation("No free user name for this person.")


class SetRole(Protocol):
    def __call__(self, user: User, role: Role, *, issuer: str, claim: str) -> None: ...


# A role changes under the rules of every change of role (never leaving no active admin) and
# is recorded in the history: people.services does both, and sits above this app, which it
# gives the function as it loads (people.apps).
_set_role: SetRole | None = None


def set_roles_with(setter: SetRole) -> None:
    global _set_role
    _set_role = setter


def _give_role(user: User, role: Role) -> None:
    if _set_role is None:
        raise ImproperlyConfigured("Sign-on gives roles through the people app (people.apps).")
    _set_role(user, role, issuer=settings.OIDC_ISSUER, claim=settings.OIDC_ROLE_CLAIM)


class SignOnBackend(OIDCAuthenticationBackend):  # type: ignore[misc]
    """Answers only a sign-on's callback, and only when sign-on is configured."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The library reads its endpoints from settings here; ours come from discovery, later.
        self.UserModel = User
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        if request is None or "nonce" not in kwargs or not is_configured():
            return None
        try:
            self.OIDC_OP_TOKEN_ENDPOINT = endpoint("token_endpoint")
            self.OIDC_OP_USER_ENDPOINT = endpoint("userinfo_endpoint")
            self.OIDC_OP_JWKS_ENDPOINT = endpoint("jwks_uri")
            user: User | None = super().authenticate(request, **kwargs)
        except (SuspiciousOperation, requests.RequestException, KeyError, ValueError) as error:
            # None: a failed login, which the lockout counts (from this address).
            log.warning("Sign-on refused: %s", error)
            return None
        return user

    def get_user(self, user_id: int) -> User | None:
        # As Django's ModelBackend: a deactivated person's open sessions end with it.
        return User.objects.filter(pk=user_id, is_active=True).first()

    def _verify_jws(self, payload: str, key: Any) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                payload,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=settings.OIDC_ISSUER,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
                leeway=30,
            )
        except jwt.InvalidTokenError as error:
            raise SuspiciousOperation(f"ID token refused: {error}") from error
        return claims

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        # The ID token's claims, with what the userinfo endpoint adds; its subject must agree.
        userinfo: dict[str, Any] = super().get_userinfo(access_token, id_token, payload)
        if userinfo.get("sub", payload["sub"]) != payload["sub"]:
            raise SuspiciousOperation("The userinfo answer is about another subject.")
        claims: dict[str, Any] = {**payload, **userinfo}
        return claims

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(claims.get("sub"))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return User.objects.filter(
            sign_on_identities__issuer=settings.OIDC_ISSUER,
            sign_on_identities__subject=claims["sub"],
        )

    def create_user(self, claims: dict[str, Any]) -> User:
        for _attempt in range(3):  # a name taken by a concurrent sign-on: the next one
            try:
                with transaction.atomic():
                    # No password given: an unusable one, so only the provider signs them in.
                    user = User.objects.create_user(
                        _free_username(claims),
                        email=str(claims.get("email") or ""),
                        first_name=str(claims.get("given_name") or "")[:150],
                        last_name=str(claims.get("family_name") or "")[:150],
                    )
                    SignOnIdentity.objects.create(
                        user=user, issuer=settings.OIDC_ISSUER, subject=claims["sub"]
                    )
                    break
            except IntegrityError:
                continue
        else:
            raise SuspiciousOperation("Could not create an account for this person.")
        return self.update_user(user, claims)

    def update_user(self, user: User, claims: dict[str, Any]) -> User:
        role = role_from_claims(claims)
        if role is not None:
            _give_role(user, role)
        return user


class SignOnStartView(OIDCAuthenticationRequestView):  # type: ignore[misc]
    """Sends the person to the provider (the library keeps state, nonce and verifier)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID

    def get(self, request: HttpRequest) -> HttpResponse:
        if not is_configured():
            return redirect("login")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = endpoint("authorization_endpoint")
        except (SuspiciousOperation, requests.RequestException, KeyError) as error:
            log.warning("Sign-on provider not reached: %s", error)
            messages.error(request, _("The sign-on provider did not answer: try again later."))
            return redirect("login")
        response: HttpResponse = super().get(request)
        return response


class SignOnCallbackView(OIDCAuthenticationCallbackView):  # type: ignore[misc]
    """The provider's answer: logs the person in (or asks for their second factor), or back
    to the login page with a message."""

    def get(self, request: HttpRequest) -> HttpResponse:
        if not is_configured():
            return redirect("login")
        try:
            response: HttpResponse = super().get(request)
        except SuspiciousOperation as error:  # a state this session never sent
            log.warning("Sign-on refused: %s", error)
            return self.login_failure()
        return response

    def login_failure(self) -> HttpResponse:
        if self.request.GET.get("error") == "access_denied":
            messages.error(self.request, _("Sign-on cancelled: you did not allow it."))
        else:
            messages.error(self.request, _("Sign-on failed: log in again."))
        return HttpResponseRedirect(reverse("login"))

    def login_success(self) -> HttpResponse:
        next_url = self.request.session.pop("oidc_login_next", None) or ""
        return finish_login(self.request, self.user, BACKEND, next_url)
