"""The start page: what the person's role lets them do from here."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render

from accounts.permissions import AuthenticatedHttpRequest
from accounts.services import role_of


@login_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "accounts/home.html", {"role": role_of(request.user)})
