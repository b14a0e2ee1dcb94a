from django.contrib import admin

from accounts.models import ApiToken

# User is registered by people/admin.py: its role and access change through people.services.


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ["name", "user", "hint", "created", "last_used", "revoked"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["hint", "created", "last_used", "revoked"]

    def has_add_permission(self, request: object) -> bool:
        return False  # keys are issued on the profile page, where the key is shown once
