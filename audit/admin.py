from django.contrib import admin
from django.db import models

from audit import services
from audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["at", "object_repr", "content_type", "kind", "actor"]
    list_filter = ["kind", "content_type"]
    search_fields = ["object_repr", "comment"]
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


class AuditedAdmin(admin.ModelAdmin):
    """Admin edits land in the same history as edits made in the app."""

    audited_fields: tuple[str, ...] = ()

    def _fields(self, obj: models.Model) -> list[str]:
        return list(self.audited_fields) or [
            f.attname for f in obj._meta.concrete_fields if not f.primary_key
        ]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]

        before = {}
        if change:
            before = services.snapshot(type(obj).objects.get(pk=obj.pk), self._fields(obj))
        super().save_model(request, obj, form, change)
        if change:
            after = services.snapshot(obj, self._fields(obj))
            services.record(
                obj, AuditEvent.Kind.UPDATED, request.user, services.diff(before, after)
            )
        else:
            services.record_creation(obj, self._fields(obj), request.user)

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]

        services.record_deletion(obj, self._fields(obj), request.user)
        super().delete_model(request, obj)
