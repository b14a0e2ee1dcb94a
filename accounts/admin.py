from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, User

admin.site.register(User, UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "hint", "created", "last_used", "revoked"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["hint", "created", "last_used", "revoked"]

    def has_add_permission(self, request: object) -> bool:
        return False  # keys are issued on the profile page, where the key is shown once
