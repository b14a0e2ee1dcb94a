"""The admins' webhook pages: the hooks with a form to add one, and each hook's page (its
secret, its deliveries with every answer, sending one again). Every change goes through
webhooks.services."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.permissions import AuthenticatedHttpRequest, require
from accounts.roles import Action
from l2annot.htmx import redirect_to, render_page
from webhooks import services
from webhooks.forms import ActiveForm, HookForm
from webhooks.models import Answer, Delivery, Hook

DELIVERIES_PER_PAGE = 25


def _list_page(
    request: AuthenticatedHttpRequest, form: HookForm, status: int = 200
) -> HttpResponse:
    context = {"hooks": Hook.objects.all(), "form": form}
    return render_page(request, "webhooks/hooks.html", context, status=status)


@require(Action.MANAGE_WEBHOOKS)
def hooks(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _list_page(request, HookForm())


@require(Action.MANAGE_WEBHOOKS)
@require_POST
def hook_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = HookForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            hook = services.create_hook(
                data["url"], data["events"], data["description"], by=request.user
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Webhook added: deliveries are signed with its secret."))
            return redirect_to(request, reverse("webhooks:hook", args=[hook.pk]))
    return _list_page(request, form, status=422)


@require(Action.MANAGE_WEBHOOKS)
def hook(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Hook, pk=pk)
    deliveries = found.deliveries.prefetch_related(
        Prefetch("answers", Answer.objects.order_by("-sent_at", "-pk"))
    )
    page = Paginator(deliveries, DELIVERIES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "hook": found,
        "page": page,
        "active_form": ActiveForm(initial={"active": not found.active, "revision": found.revision}),
    }
    return render_page(request, "webhooks/hook.html", context, fragment="deliveries")


@require(Action.MANAGE_WEBHOOKS)
@require_POST
def hook_active(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Hook, pk=pk)
    form = ActiveForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        services.update_hook(found, {"active": data["active"]}, data["revision"], by=request.user)
    return redirect_to(request, reverse("webhooks:hook", args=[found.pk]))


@require(Action.MANAGE_WEBHOOKS)
@require_POST
def hook_delete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    services.delete_hook(get_object_or_404(Hook, pk=pk), by=request.user)
    messages.success(request, _("Webhook deleted, with its deliveries."))
    return redirect_to(request, reverse("webhooks:hooks"))


@require(Action.MANAGE_WEBHOOKS)
@require_POST
def delivery_resend(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    delivery = get_object_or_404(Delivery, pk=pk)
    if services.send_again(delivery):
        messages.success(request, _("Delivery %(id)s is queued to be sent again.") % {"id": pk})
    else:
        messages.info(request, _("Delivery %(id)s is already waiting to be sent.") % {"id": pk})
    return redirect_to(request, reverse("webhooks:hook", args=[delivery.hook_id]))
