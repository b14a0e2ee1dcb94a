"""API permissions read the same role -> action table as the browser views (accounts.roles).

A viewset names the action needed to read it and the action needed to change it:

    class CompetencyViewSet(RevisionedModelViewSet):
        read_action = Action.VIEW_TAXONOMY
        write_action = Action.EDIT_TAXONOMY

Anonymous requests get 401 (DRF asks the token authenticator for a challenge), a role without the
action gets 403.
"""

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.permissions import user_can
from accounts.roles import ACTION_LABELS, Action


def required_action(request: Request, view: APIView) -> Action:
    return view.read_action if request.method in SAFE_METHODS else view.write_action  # type: ignore[attr-defined]


class RoleAction(BasePermission):
    """Allows a request when the user's role holds the view's read or write action."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        action = required_action(request, view)
        self.message = f"Your role does not allow this: {ACTION_LABELS[action].lower()}."
        return user_can(request.user, action)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        # Hook for rules finer than a role (grading's blindness: an annotator sees only their
        # own assignments). Such a rule must also narrow `visible()` on the viewset, so lists
        # and detail views agree; this check is the second line.
        may_see = getattr(view, "may_see", None)
        return may_see is None or bool(may_see(request, obj))
