from django.contrib import admin
from django.http import HttpRequest

from audit.admin import AuditedAdmin
from interchange.models import ImportJob, TaskSource


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin[ImportJob]):
    """Jobs are made by the upload page and the worker; here they are only looked at."""

    list_display = ["pk", "kind", "original_name", "status", "created_by", "created_at"]
    list_filter = ["kind", "status"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(TaskSource)
class TaskSourceAdmin(AuditedAdmin[TaskSource]):
    list_display = ["task", "version_at_time_of_draft"]
    search_fields = ["task__key"]
