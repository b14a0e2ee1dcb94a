"""A person's profile: their role, what it allows, and their API tokens."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.forms import ApiTokenForm, LanguageForm
from accounts.models import ApiToken
from accounts.permissions import AuthenticatedHttpRequest
from accounts.roles import ACTION_LABELS, ROLE_ACTIONS, role_label
from accounts.services import role_of


def _profile(request: AuthenticatedHttpRequest, status: int = 200, **extra: object) -> HttpResponse:
    role = role_of(request.user)
    allowed = sorted(_(ACTION_LABELS[a]) for a in ROLE_ACTIONS.get(role, ())) if role else []
    context = {
        "role": role,
        "role_label": role_label(role),
        "allowed": allowed,
        "tokens": request.user.api_tokens.all(),
        "token_form": ApiTokenForm(),
        "language_form": LanguageForm(instance=request.user),
    }
    return render(request, "accounts/profile.html", context | extra, status=status)


@login_required
def profile(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _profile(request)


@login_required
@require_POST
def token_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST)
    if not form.is_valid():
        return _profile(request, 422, token_form=form)
    # The key is shown in this response only: it is not stored, so it cannot be shown again.
    token, key = ApiToken.issue(request.user, form.cleaned_data["name"])
    response = _profile(request, 201, new_token=token, new_key=key)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def token_revoke(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.revoke()
    messages.success(
        request,
        _("Token “%(name)s” revoked: scripts using it now get 401.") % {"name": token.name},
    )
    return redirect("profile")


@login_required
@require_POST
def language(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Store the person's interface language; the next pages (this redirect's) use it."""
    form = LanguageForm(request.POST, instance=request.user)
    if not form.is_valid():
        return _profile(request, 422, language_form=form)
    user = form.save()
    translation.activate(user.language or translation.get_language_from_request(request))
    messages.success(request, _("Interface language saved."))
    return redirect("profile")
