"""API permissions read the same role -> action table as the browser views (accounts.roles).

A viewset names the action needed to read it and the action needed to change it:

    class CompetencyViewSet(RevisionedModelViewSet):
        read_action = Action.VIEW_TAXONOMY
        write_action = Action.EDIT_TAXONOMY

An action may also be a tuple of actions, any one of which suffices (grading: a maintainer with
*Run grading studies* or an annotator with *Grade* reads assignments, each narrowed by the
viewset's `visible()`). A read-only resource sets `write_action = None`: a change then needs the
read action and is answered 405.

Anonymous requests get 401 (DRF asks the token authenticator for a challenge), a role without the
action gets 403.
"""

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.models import User
from accounts.permissions import user_can
from accounts.roles import ACTION_LABELS, Action

Actions = Action | tuple[Action, ...]


def required_action(request: Request, view: APIView) -> Actions:
    """The action(s) the request needs: the view's `action_overrides` for a custom action
    (`{"approve": Action.REVIEW_RUBRICS}`), else its read or write action."""
    # Declared on the resources (viewsets.RevisionedModelViewSet, ReadOnlyViewSet), not on APIView.
    overrides: dict[str, Actions] = getattr(view, "action_overrides", {})
    action: str | None = getattr(view, "action", None)
    if action is not None and action in overrides:
        return overrides[action]
    write: Actions | None = getattr(view, "write_action", None)
    if request.method in SAFE_METHODS or write is None:
        read: Actions = view.read_action  # type: ignore[attr-defined]  # every resource has one
        return read
    return write


def acting_user(request: Request) -> User:
    """The signed-in user a service records as the actor. Every resource needs a role's action,
    so `RoleAction` has already answered an anonymous request with 401."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def as_tuple(actions: Actions) -> tuple[Action, ...]:
    return actions if isinstance(actions, tuple) else (actions,)


def user_can_any(user: User | AnonymousUser, actions: Actions) -> bool:
    return any(user_can(user, action) for action in as_tuple(actions))


class RoleAction(BasePermission):
    """Allows a request when the user's role holds the view's read or write action."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        actions = as_tuple(required_action(request, view))
        labels = " or ".join(ACTION_LABELS[action].lower() for action in actions)
        self.message = f"Your role does not allow this: {labels}."
        return user_can_any(request.user, actions)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        # Hook for rules finer than a role (grading's blindness: an annotator sees only their
        # own assignments). Such a rule must also narrow `visible()` on the viewset, so lists
        # and detail views agree; this check is the second line.
        may_see = getattr(view, "may_see", None)
        return may_see is None or bool(may_see(request, obj))


def manages_studies(user: User | AnonymousUser) -> bool:
    """The user may run grading studies: reads every grader's work (no blindness)."""
    return user_can(user, Action.MANAGE_STUDIES)
