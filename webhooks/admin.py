"""The Django admin's pages for webhooks: hooks change through webhooks.services (the URL
checked as on the Webhooks page, every change in the history), their secret is never shown
here (the hook's page shows it to admins), and deliveries and their answers are only looked at,
a delivery that ended being sent again with the page's own service."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from audit.admin import admin_user
from l2annot.read_only_admin import ReadOnly
from webhooks import services
from webhooks.models import Answer, Delivery, Event, Hook
from webhooks.sending import check_url


class HookAdminForm(forms.ModelForm[Hook]):
    events = forms.MultipleChoiceField(
        choices=Event.choices, widget=forms.CheckboxSelectMultiple, label=_("Events")
    )

    class Meta:
        model = Hook
        fields = ["url", "events", "description", "active"]

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if cleaned.get("url"):
            check_url(cleaned["url"])  # its refusal names the field
        return cleaned


@admin.register(Hook)
class HookAdmin(admin.ModelAdmin[Hook]):
    form = HookAdminForm
    list_display = ["url", "description", "active", "created_at"]
    list_filter = ["active"]
    search_fields = ["url", "description"]
    readonly_fields = ["created_at"]

    def save_model(self, request: HttpRequest, obj: Hook, form: Any, change: bool) -> None:
        data, by = form.cleaned_data, admin_user(request)
        if not change:
            created = services.create_hook(data["url"], data["events"], data["description"], by=by)
            if not data["active"]:
                services.update_hook(created, {"active": False}, created.revision, by=by)
            obj.pk = created.pk
            return
        current = Hook.objects.get(pk=obj.pk)
        changes = {
            name: data[name] for name in form.changed_data if name in HookAdminForm.Meta.fields
        }
        if changes:
            services.update_hook(current, changes, current.revision, by=by)

    def delete_model(self, request: HttpRequest, obj: Hook) -> None:
        services.delete_hook(obj, by=admin_user(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Hook]) -> None:
        for hook in queryset:
            services.delete_hook(hook, by=admin_user(request))


ANSWER_FIELDS = ("attempt", "sent_at", "seconds", "status", "error", "detail", "body")


class AnswerInline(ReadOnly, admin.TabularInline[Answer, Delivery]):
    model = Answer
    extra = 0
    fields = readonly_fields = ANSWER_FIELDS


DELIVERY_FIELDS = ("hook", "event", "payload", "state", "attempts", "next_attempt_at", "created_at")


@admin.register(Delivery)
class DeliveryAdmin(ReadOnly, admin.ModelAdmin[Delivery]):
    list_display = ["pk", "hook", "event", "state", "attempts", "next_attempt_at", "created_at"]
    list_filter = ["state", "event"]
    list_select_related = ["hook"]
    search_fields = ["hook__url"]
    fields = readonly_fields = DELIVERY_FIELDS
    inlines = [AnswerInline]
    actions = ["send_again"]

    @admin.action(description=_("Send again"))
    def send_again(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        queued = [delivery.pk for delivery in queryset if services.send_again(delivery)]
        if queued:
            self.message_user(
                request,
                ngettext(
                    "%(count)d delivery queued to be sent again.",
                    "%(count)d deliveries queued to be sent again.",
                    len(queued),
                )
                % {"count": len(queued)},
                messages.SUCCESS,
            )
        waiting = queryset.count() - len(queued)
        if waiting:
            self.message_user(
                request,
                ngettext(
                    "%(count)d delivery is already waiting to be sent.",
                    "%(count)d deliveries are already waiting to be sent.",
                    waiting,
                )
                % {"count": waiting},
                messages.INFO,
            )


@admin.register(Answer)
class AnswerAdmin(ReadOnly, admin.ModelAdmin[Answer]):
    list_display = ["delivery", "attempt", "sent_at", "status", "error", "seconds"]
    list_filter = ["error"]
    list_select_related = ["delivery"]
