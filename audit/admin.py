from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from audit import services
from audit.models import AuditEvent
from l2annot.read_only_admin import ReadOnly


def admin_user(request: HttpRequest) -> User:
    """The signed-in staff member acting in the admin (its views let no one else in)."""
    user = request.user
    assert isinstance(user, User), "the admin serves signed-in staff only"
    return user


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnly, admin.ModelAdmin[AuditEvent]):
    list_display = ["at", "object_repr", "content_type", "kind", "actor", "shown_comment"]
    list_filter = ["kind", "content_type"]
    search_fields = ["object_repr", "comment"]
    # The comment as the history pages show it, in the reader's language (not as stored).
    fields = readonly_fields = (
        *(f.name for f in AuditEvent._meta.fields if f.name not in ("comment", "message")),
        "shown_comment",
    )

    @admin.display(description=_("comment"))
    def shown_comment(self, event: AuditEvent) -> str:
        return event.shown_comment


class AuditedAdmin[M: models.Model](admin.ModelAdmin[M]):
    """Admin edits land in the same history as edits made in the app."""

    audited_fields: tuple[str, ...] = ()

    def _fields(self, obj: models.Model) -> list[str]:
        return list(self.audited_fields) or [
            f.attname for f in obj._meta.concrete_fields if not f.primary_key
        ]

    def save_model(self, request: HttpRequest, obj: M, form: Any, change: bool) -> None:
        before = {}
        if change:
            before = services.snapshot(type(obj)._default_manager.get(pk=obj.pk), self._fields(obj))
        super().save_model(request, obj, form, change)
        if change:
            after = services.snapshot(obj, self._fields(obj))
            services.record(
                obj, AuditEvent.Kind.UPDATED, admin_user(request), services.diff(before, after)
            )
        else:
            services.record_creation(obj, self._fields(obj), admin_user(request))

    def delete_model(self, request: HttpRequest, obj: M) -> None:
        services.record_deletion(obj, self._fields(obj), admin_user(request))
        super().delete_model(request, obj)
