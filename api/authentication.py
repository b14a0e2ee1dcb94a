"""`Authorization: Token <key>` (or `Bearer <key>`) for scripts; keys are made on the profile page.

A token carries no permissions of its own: the request runs as the token's user, so it has exactly
that user's role, and loses it the moment the token is revoked or the user deactivated.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, User

KEYWORDS = ("token", "bearer")


class TokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower().decode(errors="replace") not in KEYWORDS:
            return None  # not ours: let the session (or nothing) authenticate
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Send the header as: Authorization: Token <key>.")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        token = ApiToken.find_active(key)
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        token.touch()
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to a request that sent no credentials.
        return 'Token realm="api"'


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # drf-spectacular registers it in an unannotated __init_subclass__
    target_class = TokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A key made on your profile page: `Authorization: Bearer <key>` "
            "(or `Token <key>`).",
        }
