from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest

from accounts.models import User
from accounts.permissions import user_can
from accounts.roles import Action


class _Abilities:
    """`{{ can.edit_taxonomy }}` in templates; each answer is computed once per request."""

    def __init__(self, user: User | AnonymousUser) -> None:
        self._user = user
        self._cache: dict[str, bool] = {}

    def __getattr__(self, name: str) -> bool:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._cache:
            try:
                action = Action(name)
            except ValueError:
                raise AttributeError(name) from None
            self._cache[name] = user_can(self._user, action)
        return self._cache[name]


def permissions(request: HttpRequest) -> dict[str, object]:
    return {"can": _Abilities(request.user)}
