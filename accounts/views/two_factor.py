"""A person's second factor (accounts.second_factor): turned on from the profile with a first
code from the app, recovery codes shown once, new ones for a code, turned off for a code
(unless their role must have one); and the login's second step (accounts.signin)."""

from typing import Any

from axes.helpers import get_lockout_response
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts import second_factor, signin
from accounts.forms import CodeForm
from accounts.models import SecondFactor
from accounts.permissions import AuthenticatedHttpRequest
from l2annot.htmx import render_page

TEMPLATE = "accounts/two_factor.html"


def _page(request: AuthenticatedHttpRequest, status: int = 200, **extra: Any) -> HttpResponse:
    factor = SecondFactor.objects.filter(user=request.user).first()
    confirmed = factor is not None and factor.confirmed is not None
    context = {
        "factor": factor,
        "confirmed": confirmed,
        "required": second_factor.is_required(request.user),
        "unused_codes": second_factor.unused_recovery_codes(factor)
        if factor is not None and confirmed
        else 0,
        "form": CodeForm(),
        **extra,
    }
    response = render_page(request, TEMPLATE, context, fragment="two-factor", status=status)
    response["Cache-Control"] = "no-store"  # a secret or recovery codes may be on it
    return response


@login_required
def two_factor(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_POST
def setup(request: AuthenticatedHttpRequest) -> HttpResponse:
    factor = second_factor.start_setup(request.user)
    if factor.confirmed is not None:
        return _page(request)
    return _setting_up(request, factor, CodeForm())


def _setting_up(
    request: AuthenticatedHttpRequest, factor: SecondFactor, form: CodeForm, status: int = 200
) -> HttpResponse:
    return _page(
        request,
        status,
        setting_up=True,
        form=form,
        secret=factor.secret,
        uri=second_factor.provisioning_uri(factor),
        qr_code=second_factor.qr_code_svg(factor),
    )


@login_required
@require_POST
def confirm(request: AuthenticatedHttpRequest) -> HttpResponse:
    factor = SecondFactor.objects.filter(user=request.user, confirmed__isnull=True).first()
    if factor is None:
        return _page(request)
    form = CodeForm(request.POST)
    codes = second_factor.confirm(factor, form.cleaned_data["code"]) if form.is_valid() else None
    if codes is None:
        form.add_error("code", _wrong_code())
        return _setting_up(request, factor, form, 422)
    return _page(request, recovery_codes=codes)


@login_required
@require_POST
def recovery_codes(request: AuthenticatedHttpRequest) -> HttpResponse:
    factor = second_factor.confirmed_factor(request.user)
    if factor is None:
        return _page(request)
    form = CodeForm(request.POST)
    codes = (
        second_factor.replace_recovery_codes(factor, form.cleaned_data["code"])
        if form.is_valid()
        else None
    )
    if codes is None:
        form.add_error("code", _wrong_code())
        return _page(request, 422, form=form)
    return _page(request, recovery_codes=codes)


@login_required
@require_POST
def turn_off(request: AuthenticatedHttpRequest) -> HttpResponse:
    factor = second_factor.confirmed_factor(request.user)
    if factor is None or second_factor.is_required(request.user):
        return _page(request, 409 if factor is not None else 200)
    form = CodeForm(request.POST)
    if not (form.is_valid() and second_factor.turn_off(factor, form.cleaned_data["code"])):
        form.add_error("code", _wrong_code())
        return _page(request, 422, off_form=form)
    return _page(request, turned_off=True)


def _wrong_code() -> str:
    return gettext("This code is not right, or was already used.")


@never_cache
def verify(request: HttpRequest) -> HttpResponse:
    """The login's second step: a code from the app or a recovery code, under the lockout."""
    user = signin.pending_user(request)
    if user is None:
        return redirect("login")
    factor = second_factor.confirmed_factor(user)
    if factor is None:  # turned off meanwhile (by the person, in another session)
        return redirect("login")
    form = CodeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if signin.is_locked_out(request, user):
            locked: HttpResponse = get_lockout_response(
                request, credentials=signin.credentials(user)
            )
            return locked
        if form.is_valid() and second_factor.verify(factor, form.cleaned_data["code"]):
            return signin.complete(request, user)
        signin.count_failure(request, user)  # the lockout middleware answers the last one
        form.add_error("code", _wrong_code())
    status = 422 if form.errors else 200
    return render(request, "accounts/two_factor_verify.html", {"form": form}, status=status)
