"""The Django admin's pages for accounts, here rather than in `accounts` because a person's role
and access change only through people.services: the same rules as the People page and the API
(never your own, never the last active admin, under the same lock) and the same history.

Django's own user admin edits the superuser and staff flags, the groups and the permissions one
by one, which let an admin demote or deactivate themself; here a role is one choice and the
access one box, both applied by the services, and the flags follow the role."""

from typing import Any, cast

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.roles import ROLE_LABELS, Role
from accounts.services import role_of
from audit.admin import admin_user
from core.refusals import Conflict
from people import services


class PersonChangeForm(UserChangeForm[User]):
    role = forms.ChoiceField(
        choices=[("", _("none"))] + [(role.value, ROLE_LABELS[role]) for role in Role],
        required=False,
        label=_("Role"),
        help_text=_("What the person may do: an admin also reaches this administration."),
    )
    active = forms.BooleanField(
        required=False,
        label=_("Active"),
        help_text=_("Unticked: no sign-in, no API token, out of every study's pool."),
    )
    acting: User | None = None  # the admin editing, set by PersonAdmin.get_form

    class Meta(UserChangeForm.Meta):
        model = User
        fields = (  # type: ignore[assignment]
            *("username", "password", "email", "first_name", "last_name", "display_name"),
            "language",
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        role = role_of(self.instance)
        self.fields["role"].initial = role.value if role else ""
        self.fields["active"].initial = self.instance.is_active

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        chosen = cleaned.get("role") or ""
        role = Role(chosen) if chosen else None
        if role is None and role_of(self.instance) is not None:
            raise ValidationError(_("Choose a role: a role is changed, never taken away, here."))
        try:
            services.check_change(
                self.instance, role=role, active=bool(cleaned.get("active")), by=self.acting
            )
        except Conflict as refusal:
            raise ValidationError(str(refusal)) from refusal
        return cleaned


class PersonAdmin(UserAdmin[User]):
    form = PersonChangeForm
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (
            _("Personal info"),
            {"fields": ("display_name", "first_name", "last_name", "email", "language")},
        ),
        (_("Role and access"), {"fields": ("role", "active")}),
        (_("Important dates"), {"fields": ("last_login", "date_joined")}),
    )
    readonly_fields = ["last_login", "date_joined"]
    list_display = ["username", "email", "display_name", "is_active", "is_superuser"]
    list_filter = ["is_active", "is_superuser", "groups"]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None:  # the class made from PersonChangeForm
            cast(type[PersonChangeForm], form).acting = admin_user(request)
        return form

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change:
            return
        by = admin_user(request)  # the services check again, under their lock
        if form.cleaned_data.get("role"):
            services.set_role(obj, Role(form.cleaned_data["role"]), by=by)
        services.set_active(obj, bool(form.cleaned_data.get("active")), by=by)


admin.site.register(User, PersonAdmin)
