from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.roles import ACTION_LABELS, ROLE_ACTIONS
from accounts.services import role_of


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/home.html", {"role": role_of(request.user)})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    role = role_of(request.user)
    allowed = sorted(ACTION_LABELS[a] for a in ROLE_ACTIONS.get(role, ())) if role else []
    return render(request, "accounts/profile.html", {"role": role, "allowed": allowed})
