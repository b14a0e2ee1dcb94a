from django.contrib import admin

from jobs.models import Job
from l2annot.read_only_admin import ReadOnly


@admin.register(Job)
class JobAdmin(ReadOnly, admin.ModelAdmin[Job]):
    """Background jobs are made by the pages and claimed by the worker; here they are only
    looked at (a stuck one shows its worker, heartbeat and error)."""

    list_display = ["pk", "kind", "state", "worker", "created_by", "created_at", "finished_at"]
    list_filter = ["kind", "state"]
    list_select_related = ["created_by"]
    search_fields = ["key", "worker", "error"]
